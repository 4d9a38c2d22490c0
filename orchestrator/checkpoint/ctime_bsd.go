//go:build darwin || freebsd || netbsd || openbsd

package checkpoint

import "syscall"

// ctime is a file's status change time, in nanoseconds.
func ctime(st *syscall.Stat_t) int64 { return int64(st.Ctimespec.Sec)*1e9 + int64(st.Ctimespec.Nsec) }
