package eval

import "syscall"

// sysProcAttr puts a run in a process group of its own, and has the
// kernel send it SIGTERM should the runner die first: it then records
// its end as interrupted, and stops what it runs.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
