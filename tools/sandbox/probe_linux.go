//go:build linux

package sandbox

import (
	"lathe/tools/sandbox/internal/landlock"
	"lathe/tools/sandbox/internal/seccomp"
)

func probe() Support {
	s := Support{LandlockABI: landlock.ABI()}
	s.Seccomp, s.SeccompNotify = seccomp.Available()
	switch {
	case s.LandlockABI == 0:
		s.Reason = "the kernel has no Landlock (Linux 5.13 or later with lsm=landlock)"
	case !s.Seccomp:
		s.Reason = "seccomp filters cannot be installed"
	}
	return s
}
