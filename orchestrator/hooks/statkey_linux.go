package hooks

import (
	"fmt"
	"os"
	"syscall"
)

// statKey is a key of what path names (links followed) that any change to
// its content changes: its change time cannot be set back. "" when there
// is nothing there.
func statKey(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
	}
	return fmt.Sprint(st.Dev, st.Ino, st.Size, st.Mtim.Nano(), st.Ctim.Nano())
}
