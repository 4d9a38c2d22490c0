//go:build aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris || zos

package cli

import (
	"os"

	"github.com/charmbracelet/x/term"
	"golang.org/x/sys/unix"
)

// holdKeys has the terminal keep each key as typed, unechoed, until
// release restores it; nothing when in is not a terminal.
func holdKeys(in any) (release func()) {
	f, ok := in.(*os.File)
	if !ok {
		return func() {}
	}
	old, err := term.GetState(f.Fd())
	if err != nil {
		return func() {}
	}
	held := *old
	held.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.IEXTEN
	held.Iflag &^= unix.ICRNL | unix.INLCR | unix.IGNCR
	held.Cc[unix.VMIN], held.Cc[unix.VTIME] = 1, 0
	if term.SetState(f.Fd(), &held) != nil {
		return func() {}
	}
	return func() { _ = term.SetState(f.Fd(), old) }
}
