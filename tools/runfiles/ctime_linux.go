package runfiles

import (
	"io/fs"
	"syscall"
)

// changed is when the file's inode last changed, in nanoseconds: no
// system call sets it back.
func changed(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}
