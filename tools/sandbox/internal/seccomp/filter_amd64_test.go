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
