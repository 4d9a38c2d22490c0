//go:build linux

package seccomp

import (
	"testing"

	"golang.org/x/sys/unix"
)

func TestX32Killed(t *testing.T) {
	if got := run(t, Config{}, nativeArch, 0x40000000|unix.SYS_WRITE); got != retKill {
		t.Errorf("x32 write: %#x, want kill", got)
	}
}

// TestSetIDAmd64: the calls only x86-64 has that set a mode.
func TestSetIDAmd64(t *testing.T) {
	for _, tc := range []struct {
		name string
		nr   int
		args []uint64
		want uint32
	}{
		{"chmod u+s", unix.SYS_CHMOD, []uint64{0, 0o4755}, retEPERM},
		{"chmod", unix.SYS_CHMOD, []uint64{0, 0o755}, retAllow},
		{"creat g+s", unix.SYS_CREAT, []uint64{0, 0o2755}, retEPERM},
		{"mknod set-id file", unix.SYS_MKNOD, []uint64{0, unix.S_IFREG | 0o4755}, retEPERM},
		{"open to create set-id", unix.SYS_OPEN, []uint64{0, unix.O_CREAT | unix.O_RDWR, 0o4755}, retEPERM},
		{"open, mode unused", unix.SYS_OPEN, []uint64{0, unix.O_RDONLY, 0o4755}, retAllow},
	} {
		if got := run(t, Config{}, nativeArch, tc.nr, tc.args...); got != tc.want {
			t.Errorf("%s: got %#x, want %#x", tc.name, got, tc.want)
		}
	}
}
