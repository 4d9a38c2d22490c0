//go:build linux

package seccomp

import (
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

const nativeArch = unix.AUDIT_ARCH_AARCH64

var archPrologue []bpf.Instruction

var archAdminCalls []uintptr

var archChownCalls []uintptr

var archModeCalls []struct {
	nr  uintptr
	arg int
}

var archOpenCalls []uintptr
