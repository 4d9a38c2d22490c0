//go:build !linux

package sandbox

import (
	"encoding/json"
	"os"
	"runtime"
)

// Main runs the helper, which needs Linux: here it reports that and
// returns 125.
func Main(args []string) int {
	out := os.NewFile(fdReport, "report")
	defer out.Close()
	_ = json.NewEncoder(out).Encode(wireReport{Error: "the sandbox needs Linux, not " + runtime.GOOS, Unsupported: true})
	return 125
}
