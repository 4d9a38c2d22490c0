//go:build linux && (amd64 || arm64)

// Package seccomp builds the sandbox's seccomp filter, installs it on the
// calling thread, and answers the socket calls it refers to a supervisor.
//
// The filter only denies; everything it does not name is allowed. It is
// assembled with golang.org/x/net/bpf so that every comparison is the one
// the kernel makes (32-bit arguments compare their low word only).
package seccomp

import (
	"fmt"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Config says what the filter refuses beyond its fixed list.
type Config struct {
	// DenySockets refuses every socket but Unix and netlink ones: no
	// TCP, UDP, raw, SCTP, MPTCP, vsock...
	DenySockets bool
	// DenyConnect refuses connect(2) on every socket, for kernels whose
	// Landlock (ABI < 9) cannot tell a service's Unix socket (docker.sock)
	// from one the command made in the workspace. With DenySockets, the
	// only sockets left are Unix and netlink ones, and netlink sockets
	// need no connect.
	DenyConnect bool
	// Notify refers refused sockets and connects to the listener Install
	// returns, so that a supervisor can see and report them.
	Notify bool
	// Privileged also refuses chown and xattr changes, which Landlock
	// does not govern and which a process with capabilities could use on
	// files outside the sandbox's writable directories.
	Privileged bool
	// DenyTruncate refuses truncate(2) by path, for kernels whose
	// Landlock (ABI < 3) cannot restrict truncation.
	DenyTruncate bool
	// Supervisor and Thread are the helper process and the thread that
	// installs the filter: the command may not signal, trace, or reach
	// into them.
	Supervisor, Thread int
}

const (
	retAllow  = unix.SECCOMP_RET_ALLOW
	retKill   = unix.SECCOMP_RET_KILL_PROCESS
	retNotify = unix.SECCOMP_RET_USER_NOTIF
	retEPERM  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retEACCES = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)

	offNr   = 0
	offArch = 4
	offArgs = 16 // args[i] at 16+8i; its low word first on little-endian
)

// argTest is one test of a system call's argument arg (its low 32 bits):
// equal to val, different from it, or holding any of val's bits.
type argTest struct {
	arg int
	val uint32
	op  testOp
}

type testOp int

const (
	opEqual testOp = iota
	opNotEqual
	opAnyBits
)

// argCase returns action when all its tests hold.
type argCase struct {
	tests  []argTest
	action uint32
}

// rule is what to do with one system call: the first matching case's
// action, else def.
type rule struct {
	nr    uint32
	cases []argCase
	def   uint32
}

// adminCalls are refused outright: they change the system, not a project,
// and only a privileged process could use most of them. Landlock already
// refuses the mount family to a sandboxed process; refusing it here too
// costs nothing.
var adminCalls = append([]uintptr{
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_MOVE_MOUNT,
	unix.SYS_OPEN_TREE, unix.SYS_OPEN_TREE_ATTR, unix.SYS_FSOPEN, unix.SYS_FSCONFIG,
	unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_REBOOT,
	unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_SYSLOG, unix.SYS_ACCT,
	unix.SYS_SETTIMEOFDAY, unix.SYS_CLOCK_SETTIME, unix.SYS_SETHOSTNAME,
	unix.SYS_SETDOMAINNAME, unix.SYS_QUOTACTL, unix.SYS_QUOTACTL_FD,
	// Opens a file by handle, around every path check: the classic
	// container escape for a process with CAP_DAC_READ_SEARCH.
	unix.SYS_OPEN_BY_HANDLE_AT,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_FANOTIFY_INIT,
	unix.SYS_USERFAULTFD, unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_VHANGUP,
	// Takes a file descriptor out of another process.
	unix.SYS_PIDFD_GETFD,
	// Obsolete; signals a thread by id alone, which the filter cannot
	// tell apart from the helper's threads.
	unix.SYS_TKILL,
}, archAdminCalls...)

// privilegedCalls change ownership and extended attributes; see
// Config.Privileged.
var privilegedCalls = append([]uintptr{
	unix.SYS_FCHOWN, unix.SYS_FCHOWNAT,
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_SETXATTRAT,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, unix.SYS_REMOVEXATTRAT,
}, archChownCalls...)

// setIDBits are S_ISUID and S_ISGID.
const setIDBits = unix.S_ISUID | unix.S_ISGID

// creating are the open flags with which open makes a file, whose mode
// argument then counts: O_CREAT, and O_TMPFILE's own bit.
const creating = unix.O_CREAT | unix.O_TMPFILE&^unix.O_DIRECTORY

// setIDRules refuse to make a set-user-ID or set-group-ID file: Landlock
// has no right for a file's mode, and such a program, left in a writable
// directory, would run later with the user's identity for anyone who can
// reach it, outside any sandbox (no_new_privs only holds inside). Each
// call that sets a mode is refused when the mode holds either bit:
// chmod, fchmod, fchmodat, fchmodat2, mknod and mknodat, creat, and open
// and openat when they create. openat2 passes its mode in a structure a
// filter cannot read: it gets ENOSYS, on which callers fall back to
// openat.
func setIDRules() []rule {
	mode := func(nr uintptr, arg int) rule {
		return rule{nr: uint32(nr), def: retAllow, cases: []argCase{
			{tests: []argTest{{arg: arg, val: setIDBits, op: opAnyBits}}, action: retEPERM}}}
	}
	open := func(nr uintptr, flags int) rule {
		return rule{nr: uint32(nr), def: retAllow, cases: []argCase{{tests: []argTest{
			{arg: flags, val: creating, op: opAnyBits}, {arg: flags + 1, val: setIDBits, op: opAnyBits}}, action: retEPERM}}}
	}
	rules := []rule{
		mode(unix.SYS_FCHMOD, 1), mode(unix.SYS_FCHMODAT, 2), mode(unix.SYS_FCHMODAT2, 2), mode(unix.SYS_MKNODAT, 2),
		open(unix.SYS_OPENAT, 2),
		{nr: unix.SYS_OPENAT2, def: retENOSYS},
	}
	for _, c := range archModeCalls {
		rules = append(rules, mode(c.nr, c.arg))
	}
	for _, nr := range archOpenCalls {
		rules = append(rules, open(nr, 1))
	}
	return rules
}

func (c Config) rules() []rule {
	var rules []rule
	for _, nr := range adminCalls {
		rules = append(rules, rule{nr: uint32(nr), def: retEPERM})
	}
	if c.Privileged {
		for _, nr := range privilegedCalls {
			rules = append(rules, rule{nr: uint32(nr), def: retEPERM})
		}
	}
	if c.DenyTruncate {
		rules = append(rules, rule{nr: unix.SYS_TRUNCATE, def: retEPERM})
	}
	denied := uint32(retEACCES)
	if c.Notify {
		denied = retNotify
	}
	if c.DenySockets {
		rules = append(rules, rule{nr: unix.SYS_SOCKET, def: denied, cases: []argCase{
			{tests: []argTest{{arg: 0, val: unix.AF_UNIX}}, action: retAllow},
			{tests: []argTest{{arg: 0, val: unix.AF_NETLINK}}, action: retAllow},
		}})
	}
	if c.DenyConnect {
		rules = append(rules, rule{nr: unix.SYS_CONNECT, def: denied})
	}
	rules = append(rules, setIDRules()...)
	sup, thr := uint32(c.Supervisor), uint32(c.Thread)
	eq := func(arg int, vals ...uint32) []argCase {
		var cs []argCase
		for _, v := range vals {
			cs = append(cs, argCase{tests: []argTest{{arg: arg, val: v}}, action: retEPERM})
		}
		return cs
	}
	return append(rules,
		// Typing into a terminal's input queue: what runs after lathe
		// would read it.
		rule{nr: unix.SYS_IOCTL, cases: eq(1, unix.TIOCSTI, unix.TIOCLINUX), def: retAllow},
		// Every process the user owns (-1), and the helper and its group.
		rule{nr: unix.SYS_KILL, cases: eq(0, ^uint32(0), sup, -sup), def: retAllow},
		rule{nr: unix.SYS_TGKILL, cases: eq(0, sup), def: retAllow},
		rule{nr: unix.SYS_RT_SIGQUEUEINFO, cases: eq(0, sup), def: retAllow},
		rule{nr: unix.SYS_RT_TGSIGQUEUEINFO, cases: eq(0, sup), def: retAllow},
		rule{nr: unix.SYS_PIDFD_OPEN, cases: eq(0, sup, thr), def: retAllow},
		rule{nr: unix.SYS_PTRACE, cases: eq(1, sup, thr), def: retAllow},
		rule{nr: unix.SYS_PROCESS_VM_READV, cases: eq(0, sup, thr), def: retAllow},
		rule{nr: unix.SYS_PROCESS_VM_WRITEV, cases: eq(0, sup, thr), def: retAllow},
		// Limits of another process (Landlock does not cover prlimit).
		rule{nr: unix.SYS_PRLIMIT64, cases: []argCase{{tests: []argTest{{arg: 0, val: 0, op: opNotEqual}}, action: retEPERM}}, def: retAllow},
		// io_uring makes sockets and opens files without these system
		// calls; ENOSYS makes programs fall back to them.
		rule{nr: unix.SYS_IO_URING_SETUP, def: retENOSYS},
	)
}

// Program assembles the filter.
func (c Config) Program() ([]unix.SockFilter, error) {
	insts, err := c.instructions()
	if err != nil {
		return nil, err
	}
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return nil, fmt.Errorf("assemble seccomp filter: %w", err)
	}
	prog := make([]unix.SockFilter, len(raw))
	for i, in := range raw {
		prog[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	return prog, nil
}

func (c Config) instructions() ([]bpf.Instruction, error) {
	insts := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: nativeArch, SkipTrue: 1},
		// A foreign calling convention (i386 through int 0x80) would
		// make every number below mean another call.
		bpf.RetConstant{Val: retKill},
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	insts = append(insts, archPrologue...)
	for _, r := range c.rules() {
		body := r.body()
		if len(body) > 255 {
			return nil, fmt.Errorf("seccomp rule for call %d too long", r.nr)
		}
		insts = append(insts, bpf.JumpIf{Cond: bpf.JumpEqual, Val: r.nr, SkipFalse: uint8(len(body))})
		insts = append(insts, body...)
	}
	return append(insts, bpf.RetConstant{Val: retAllow}), nil
}

// body is the instructions run once the call number matched; each path
// ends in a return, so control never falls into the next rule. A case's
// failed test skips what is left of the case.
func (r rule) body() []bpf.Instruction {
	var out []bpf.Instruction
	for _, c := range r.cases {
		for i, t := range c.tests {
			out = append(out, bpf.LoadAbsolute{Off: uint32(offArgs + 8*t.arg), Size: 4})
			rest := uint8(2*(len(c.tests)-i-1) + 1) // the case's instructions after this jump
			switch t.op {
			case opEqual:
				out = append(out, bpf.JumpIf{Cond: bpf.JumpEqual, Val: t.val, SkipFalse: rest})
			case opNotEqual:
				out = append(out, bpf.JumpIf{Cond: bpf.JumpEqual, Val: t.val, SkipTrue: rest})
			case opAnyBits:
				out = append(out, bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: t.val, SkipFalse: rest})
			}
		}
		out = append(out, bpf.RetConstant{Val: c.action})
	}
	return append(out, bpf.RetConstant{Val: r.def})
}
