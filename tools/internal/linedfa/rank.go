package linedfa

import "math"

// ByteRank says how common the byte b is in source code and text, on a log
// scale: 255 for a byte that would be all of it, 16 less for one half as
// common. Bytes >= 0x80 rank 40, as a byte of non-ASCII text.
func ByteRank(b byte) int {
	if b >= 0x80 {
		return 40
	}
	return int(byteRank[b])
}

// byteFreq returns the share of text that is the byte b, from its rank.
func byteFreq(b byte) float64 { return math.Exp2(float64(ByteRank(b)-255) / 16) }

// byteRank is ByteRank for ASCII, measured on Go's, Python's and C
// headers' sources and on package documentation.
var byteRank = [128]uint8{
	0, 1, 1, 1, 1, 1, 1, 1, 1, 159, 171, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	211, 82, 136, 121, 69, 75, 93, 102, 151, 151, 143, 86, 156, 135, 147, 152,
	157, 140, 135, 126, 125, 123, 124, 110, 120, 120, 134, 121, 124, 134, 124, 31,
	71, 145, 122, 143, 131, 150, 126, 120, 110, 144, 73, 105, 141, 129, 141, 143,
	139, 80, 143, 154, 147, 120, 118, 97, 118, 103, 73, 105, 104, 105, 33, 171,
	90, 174, 142, 166, 164, 189, 158, 146, 153, 176, 95, 136, 165, 152, 177, 173,
	158, 88, 175, 177, 183, 157, 135, 126, 146, 141, 96, 120, 86, 119, 26, 1,
}
