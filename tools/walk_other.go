//go:build !linux

package tools

import (
	"os"

	"golang.org/x/sys/unix"
)

// readDir reads the entries of the directory fd, with the types the
// system gives, through a duplicate of fd.
func (w *walker) readDir(fd int) ([]dirent, error) {
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), ".")
	defer f.Close()
	des, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	ents := make([]dirent, len(des))
	for i, d := range des {
		ents[i] = dirent{name: d.Name(), typ: d.Type()}
	}
	return ents, nil
}
