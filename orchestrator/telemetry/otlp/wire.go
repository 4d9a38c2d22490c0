package otlp

import "encoding/binary"

// The protobuf wire format, the little of it OTLP needs. (protowire would
// do, but linking it runs the protobuf module's package initialisation,
// which reads and hashes the executable, at every start.)

// fieldNum is a field's number; kind its wire type.
type (
	fieldNum int32
	kind     int8
)

const (
	varintKind  kind = 0
	fixed64Kind kind = 1
	bytesKind   kind = 2
	fixed32Kind kind = 5
)

func appendTag(b []byte, num fieldNum, k kind) []byte {
	return appendVarint(b, uint64(num)<<3|uint64(k))
}

func appendVarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

func sizeVarint(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func appendFixed64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

func appendFixed32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }

func appendBytes(b []byte, v []byte) []byte {
	b = appendVarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendString(b []byte, v string) []byte {
	b = appendVarint(b, uint64(len(v)))
	return append(b, v...)
}

func encodeBool(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

func encodeZigZag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// walk calls f with each field of a message: its bytes for a
// length-delimited one, its value for a varint. It stops at the first
// malformed field.
func walk(b []byte, f func(num fieldNum, k kind, v []byte, n uint64)) {
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 {
			return
		}
		b = b[n:]
		num, k := fieldNum(tag>>3), kind(tag&7)
		switch k {
		case varintKind:
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return
			}
			f(num, k, nil, v)
			b = b[n:]
		case bytesKind:
			size, n := binary.Uvarint(b)
			if n <= 0 || size > uint64(len(b)-n) {
				return
			}
			f(num, k, b[n:n+int(size)], 0)
			b = b[n+int(size):]
		case fixed64Kind:
			if len(b) < 8 {
				return
			}
			b = b[8:]
		case fixed32Kind:
			if len(b) < 4 {
				return
			}
			b = b[4:]
		default:
			return
		}
	}
}
