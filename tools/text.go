package tools

import "bytes"

// binarySniff is how much of a file is checked for a NUL byte to tell binary
// from text, as git does.
const binarySniff = 8000

// isBinary reports whether data, the start of a file, looks binary.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0
}

// countLines returns the number of lines in data; a last line without a
// newline counts.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}
