//go:build linux

package seccomp

import (
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

const nativeArch = unix.AUDIT_ARCH_X86_64

// archPrologue runs with the call number loaded: x32 calls (bit 30 set)
// share the x86-64 architecture value but not its numbers.
var archPrologue = []bpf.Instruction{
	bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: 0x40000000, SkipFalse: 1},
	bpf.RetConstant{Val: retKill},
}

var archAdminCalls = []uintptr{unix.SYS_IOPL, unix.SYS_IOPERM, unix.SYS_USELIB}

var archChownCalls = []uintptr{unix.SYS_CHOWN, unix.SYS_LCHOWN}

// archModeCalls set a file's mode from argument arg: chmod, mknod, creat.
var archModeCalls = []struct {
	nr  uintptr
	arg int
}{{unix.SYS_CHMOD, 1}, {unix.SYS_MKNOD, 1}, {unix.SYS_CREAT, 1}}

// archOpenCalls take the open flags in argument 1 and the mode in 2.
var archOpenCalls = []uintptr{unix.SYS_OPEN}
