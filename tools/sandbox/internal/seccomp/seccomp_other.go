//go:build linux && !amd64 && !arm64

// Package seccomp builds the sandbox's seccomp filter; on this
// architecture it has none, and Available says so.
package seccomp

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Config is unused on this architecture.
type Config struct {
	DenySockets, DenyConnect, Notify, Privileged, DenyTruncate bool
	Supervisor, Thread                                         int
}

// Call is unused on this architecture.
type Call struct {
	PID  int
	Nr   int
	Args [6]uint64
}

var errArch = errors.New("no seccomp filter for this architecture")

// Available reports false: the filter's call numbers are not known here.
func Available() (filters, notify bool) { return false, false }

// Program fails on this architecture.
func (Config) Program() ([]unix.SockFilter, error) { return nil, errArch }

// Install fails on this architecture.
func Install([]unix.SockFilter, bool) (int, error) { return -1, errArch }

// Supervise returns at once on this architecture.
func Supervise(int, func(Call)) {}
