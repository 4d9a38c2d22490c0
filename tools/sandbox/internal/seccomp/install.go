//go:build linux && (amd64 || arm64)

package seccomp

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Available reports whether seccomp filters can be installed, and whether
// the kernel can refer calls to a supervisor (user notification). It asks
// the kernel which actions it knows; it installs nothing.
func Available() (filters, notify bool) {
	return actionAvail(unix.SECCOMP_RET_ERRNO), actionAvail(unix.SECCOMP_RET_USER_NOTIF)
}

func actionAvail(action uint32) bool {
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	return errno == 0
}

// Install puts prog on the calling thread only (no TSYNC), which must be
// locked to its goroutine and never handed back to the scheduler. With
// notify, it returns the listener the refused sockets are referred to
// (close-on-exec: a process holding it could answer for itself);
// otherwise -1.
func Install(prog []unix.SockFilter, notify bool) (int, error) {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	var flags uintptr
	if notify {
		flags = unix.SECCOMP_FILTER_FLAG_NEW_LISTENER
	}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return -1, fmt.Errorf("seccomp(SECCOMP_SET_MODE_FILTER): %w", errno)
	}
	if !notify {
		return -1, nil
	}
	unix.CloseOnExec(int(r))
	return int(r), nil
}
