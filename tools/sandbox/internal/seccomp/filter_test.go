//go:build linux && (amd64 || arm64)

package seccomp

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// run evaluates the filter on one system call with x/net/bpf's machine.
// That machine loads words big-endian, as packets are; the kernel loads
// struct seccomp_data in the machine's order. Writing each 32-bit word
// big-endian (an argument's low word first, as on little-endian) makes
// the two agree.
func run(t *testing.T, c Config, arch uint32, nr int, args ...uint64) uint32 {
	t.Helper()
	insts, err := c.instructions()
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(insts)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 64)
	binary.BigEndian.PutUint32(data[0:], uint32(nr))
	binary.BigEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(data[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(data[20+8*i:], uint32(a>>32))
	}
	out, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(out)
}

func TestFilter(t *testing.T) {
	const sup, thr = 4242, 4243
	all := Config{DenySockets: true, DenyConnect: true, Notify: true, Privileged: true, Supervisor: sup, Thread: thr}
	minimal := Config{Supervisor: sup, Thread: thr}
	neg := func(pid int) uint64 { return uint64(uint32(-pid)) }
	cwd := neg(-unix.AT_FDCWD)
	for _, tc := range []struct {
		name string
		c    Config
		arch uint32
		nr   int
		args []uint64
		want uint32
	}{
		{"plain write", all, nativeArch, unix.SYS_WRITE, nil, retAllow},
		{"foreign architecture", all, unix.AUDIT_ARCH_I386, unix.SYS_WRITE, nil, retKill},
		{"ip socket", all, nativeArch, unix.SYS_SOCKET, []uint64{unix.AF_INET, unix.SOCK_STREAM}, retNotify},
		{"ip6 socket", all, nativeArch, unix.SYS_SOCKET, []uint64{unix.AF_INET6, unix.SOCK_DGRAM}, retNotify},
		{"vsock", all, nativeArch, unix.SYS_SOCKET, []uint64{unix.AF_VSOCK, unix.SOCK_STREAM}, retNotify},
		{"ip socket without notify", Config{DenySockets: true}, nativeArch, unix.SYS_SOCKET, []uint64{unix.AF_INET}, retEACCES},
		{"unix socket", all, nativeArch, unix.SYS_SOCKET, []uint64{unix.AF_UNIX, unix.SOCK_STREAM}, retAllow},
		{"netlink socket", all, nativeArch, unix.SYS_SOCKET, []uint64{unix.AF_NETLINK, unix.SOCK_RAW}, retAllow},
		{"family with high bits is still ip", all, nativeArch, unix.SYS_SOCKET, []uint64{1<<32 | unix.AF_INET}, retNotify},
		{"ip socket with network", minimal, nativeArch, unix.SYS_SOCKET, []uint64{unix.AF_INET}, retAllow},
		{"connect", all, nativeArch, unix.SYS_CONNECT, []uint64{3}, retNotify},
		{"connect with network", minimal, nativeArch, unix.SYS_CONNECT, []uint64{3}, retAllow},
		{"kill everyone", all, nativeArch, unix.SYS_KILL, []uint64{uint64(uint32(0xffffffff)), 9}, retEPERM},
		{"kill everyone, sign-extended", all, nativeArch, unix.SYS_KILL, []uint64{^uint64(0), 9}, retEPERM},
		{"kill the helper", minimal, nativeArch, unix.SYS_KILL, []uint64{sup, 9}, retEPERM},
		{"kill the helper's group", minimal, nativeArch, unix.SYS_KILL, []uint64{neg(sup), 9}, retEPERM},
		{"kill the helper, high bits set", minimal, nativeArch, unix.SYS_KILL, []uint64{1<<40 | sup, 9}, retEPERM},
		{"kill another", minimal, nativeArch, unix.SYS_KILL, []uint64{sup + 1, 9}, retAllow},
		{"tgkill the helper", minimal, nativeArch, unix.SYS_TGKILL, []uint64{sup, thr, 9}, retEPERM},
		{"tkill", minimal, nativeArch, unix.SYS_TKILL, []uint64{1234, 9}, retEPERM},
		{"ptrace the confining thread", minimal, nativeArch, unix.SYS_PTRACE, []uint64{unix.PTRACE_SEIZE, thr}, retEPERM},
		{"ptrace another", minimal, nativeArch, unix.SYS_PTRACE, []uint64{unix.PTRACE_SEIZE, thr + 1}, retAllow},
		{"write the helper's memory", minimal, nativeArch, unix.SYS_PROCESS_VM_WRITEV, []uint64{sup}, retEPERM},
		{"pidfd of the confining thread", minimal, nativeArch, unix.SYS_PIDFD_OPEN, []uint64{thr}, retEPERM},
		{"steal a descriptor", minimal, nativeArch, unix.SYS_PIDFD_GETFD, []uint64{3, 4}, retEPERM},
		{"own limits", minimal, nativeArch, unix.SYS_PRLIMIT64, []uint64{0, 7}, retAllow},
		{"another's limits", minimal, nativeArch, unix.SYS_PRLIMIT64, []uint64{1, 7}, retEPERM},
		{"type into the terminal", minimal, nativeArch, unix.SYS_IOCTL, []uint64{0, unix.TIOCSTI}, retEPERM},
		{"terminal size", minimal, nativeArch, unix.SYS_IOCTL, []uint64{0, unix.TIOCGWINSZ}, retAllow},
		{"open by handle", minimal, nativeArch, unix.SYS_OPEN_BY_HANDLE_AT, nil, retEPERM},
		{"mount", minimal, nativeArch, unix.SYS_MOUNT, nil, retEPERM},
		{"io_uring", minimal, nativeArch, unix.SYS_IO_URING_SETUP, nil, retENOSYS},
		{"chown, privileged", all, nativeArch, unix.SYS_FCHOWNAT, nil, retEPERM},
		{"chown, unprivileged", minimal, nativeArch, unix.SYS_FCHOWNAT, nil, retAllow},
		{"setxattr, privileged", all, nativeArch, unix.SYS_SETXATTR, nil, retEPERM},
		{"truncate, Landlock ABI < 3", Config{DenyTruncate: true}, nativeArch, unix.SYS_TRUNCATE, nil, retEPERM},
		{"truncate", minimal, nativeArch, unix.SYS_TRUNCATE, nil, retAllow},
		{"chmod 4755", minimal, nativeArch, unix.SYS_FCHMODAT, []uint64{cwd, 0, 0o4755}, retEPERM},
		{"chmod 2755", minimal, nativeArch, unix.SYS_FCHMODAT, []uint64{cwd, 0, 0o2755}, retEPERM},
		{"chmod 0755", minimal, nativeArch, unix.SYS_FCHMODAT, []uint64{cwd, 0, 0o755}, retAllow},
		{"chmod sticky", minimal, nativeArch, unix.SYS_FCHMODAT, []uint64{cwd, 0, 0o1777}, retAllow},
		{"fchmod u+s", minimal, nativeArch, unix.SYS_FCHMOD, []uint64{3, 0o4700}, retEPERM},
		{"fchmod", minimal, nativeArch, unix.SYS_FCHMOD, []uint64{3, 0o700}, retAllow},
		{"fchmodat2 g+s", minimal, nativeArch, unix.SYS_FCHMODAT2, []uint64{cwd, 0, 0o2711, 0}, retEPERM},
		{"mknodat set-id file", minimal, nativeArch, unix.SYS_MKNODAT, []uint64{cwd, 0, unix.S_IFREG | 0o4755}, retEPERM},
		{"mknodat fifo", minimal, nativeArch, unix.SYS_MKNODAT, []uint64{cwd, 0, unix.S_IFIFO | 0o644}, retAllow},
		{"create set-id", minimal, nativeArch, unix.SYS_OPENAT, []uint64{cwd, 0, unix.O_CREAT | unix.O_WRONLY, 0o4755}, retEPERM},
		{"O_TMPFILE set-id", minimal, nativeArch, unix.SYS_OPENAT, []uint64{cwd, 0, unix.O_TMPFILE | unix.O_WRONLY, 0o6755}, retEPERM},
		{"create", minimal, nativeArch, unix.SYS_OPENAT, []uint64{cwd, 0, unix.O_CREAT | unix.O_WRONLY, 0o755}, retAllow},
		{"open, mode unused", minimal, nativeArch, unix.SYS_OPENAT, []uint64{cwd, 0, unix.O_RDONLY, 0o6777}, retAllow},
		{"openat2", minimal, nativeArch, unix.SYS_OPENAT2, nil, retENOSYS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := run(t, tc.c, tc.arch, tc.nr, tc.args...); got != tc.want {
				t.Errorf("got %#x, want %#x", got, tc.want)
			}
		})
	}
}

func TestProgramAssembles(t *testing.T) {
	prog, err := Config{DenySockets: true, DenyConnect: true, Notify: true, Privileged: true}.Program()
	if err != nil || len(prog) < 50 || len(prog) > 4096 {
		t.Fatalf("%d instructions, %v", len(prog), err)
	}
}
