package tools

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A file name is bytes, and a few are not UTF-8 (café.txt written in
// Latin-1: caf\xe9.txt). The model reads and writes UTF-8 only: such a
// byte turned into U+FFFD gives it a name it cannot name back, and a
// terminal drops it, showing the user a name that does not exist. So a
// name's bytes that are not UTF-8 are written \xNN, for the model and the
// user alike (ShowName), and a path with \xNN for such bytes is read back
// into them (readName): the model can use the name it was shown.

// ShowName writes name with its bytes that are not UTF-8 as \xNN.
func ShowName(name string) string {
	if utf8.ValidString(name) {
		return name
	}
	var b strings.Builder
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, name[i])
		} else {
			b.WriteString(name[i : i+size])
		}
		i += size
	}
	return b.String()
}

// readName reads a path back as ShowName writes it: its \xNN for bytes of
// 0x80 and above become those bytes, when that gives a name that is not
// UTF-8 (what ShowName escapes); any other path is left as it is, a
// backslash in a name included.
func readName(p string) string {
	if !strings.Contains(p, `\x`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+3 < len(p) && p[i+1] == 'x' {
			if n, err := strconv.ParseUint(p[i+2:i+4], 16, 8); err == nil && n >= 0x80 {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(p[i])
	}
	if out := b.String(); !utf8.ValidString(out) {
		return out
	}
	return p
}
