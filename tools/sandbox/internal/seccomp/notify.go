//go:build linux && (amd64 || arm64)

package seccomp

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Call is a system call the filter referred to the supervisor.
type Call struct {
	PID  int
	Nr   int
	Args [6]uint64
}

// struct seccomp_notif and struct seccomp_notif_resp.
type notif struct {
	id    uint64
	pid   uint32
	flags uint32
	nr    int32
	arch  uint32
	ip    uint64
	args  [6]uint64
}

type notifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

// Supervise answers every call referred to listener with EACCES, after
// passing it to seen (which may read the caller's memory: the caller waits), until no process uses the filter any more (the
// kernel then reports a hang-up); then it closes listener. It never lets
// a call through, so what a process changes in its memory after the
// check cannot matter.
func Supervise(listener int, seen func(Call)) {
	defer unix.Close(listener)
	for {
		fds := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return
		}
		if fds[0].Revents&unix.POLLIN == 0 {
			return // hang-up: the last process using the filter is gone
		}
		var req notif
		if err := ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&req)); err != nil {
			if errors.Is(err, unix.EINTR) || errors.Is(err, unix.ENOENT) {
				continue // the caller died in between
			}
			return
		}
		seen(Call{PID: int(req.pid), Nr: int(req.nr), Args: req.args})
		resp := notifResp{id: req.id, error: -int32(unix.EACCES)}
		_ = ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp)) // ENOENT: it died
	}
}

func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if errno != 0 {
		return errno
	}
	return nil
}
