//go:build !linux

package eval

import "syscall"

// sysProcAttr puts a run in a process group of its own.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
