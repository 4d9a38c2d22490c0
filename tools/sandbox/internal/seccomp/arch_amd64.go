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
