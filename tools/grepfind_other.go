//go:build !amd64

package tools

// hasPairScan says whether pairScan runs here: it takes AVX2.
const hasPairScan = false

func pairScan(a, b []byte, ca, cb, fa, fb byte) (off int, mask uint32) {
	panic("pairScan without AVX2")
}
