//go:build !linux

package hooks

import (
	"fmt"
	"os"
)

// statKey is a key of what path names (links followed), from its size
// and modification time; "" when there is nothing there.
func statKey(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
}
