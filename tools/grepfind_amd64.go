package tools

import "golang.org/x/sys/cpu"

// hasPairScan says whether pairScan runs here: it takes AVX2.
var hasPairScan = cpu.X86.HasAVX2

// pairScan tests a[k] | fa == ca && b[k] | fb == cb for k from 0, 32 at
// a time, up to the shorter length rounded down to 32. It returns the
// offset of the first 32 with a hit and their hits, one bit for each k,
// or the length it tested and 0.
func pairScan(a, b []byte, ca, cb, fa, fb byte) (off int, mask uint32) {
	return pairScanAVX2(a, b, ca, cb, fa, fb)
}

//go:noescape
func pairScanAVX2(a, b []byte, ca, cb, fa, fb byte) (off int, mask uint32)
