// Package safefile reads the small files lathe takes from a directory it
// does not trust (a cloned project's config, its AGENTS.md): through an
// os.Root, so that a symlink cannot lead outside the directory; without
// blocking on a FIFO or a device; regular files only; at most a limit, so
// that a link to /dev/zero or a file of gigabytes costs nothing. The
// files lathe keeps of its own (trust, tokens, trajectories) are written
// whole, through Replace, so that a reader never sees half of one.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrTooLarge is the error for a file longer than the limit; Read returns
// the first limit bytes with it.
var ErrTooLarge = errors.New("file too large")

// Read reads the file name (slash-separated, relative) inside dir, at most
// limit bytes. A missing file is fs.ErrNotExist; a file that is not a
// regular file, or a path that leads outside dir, is an error saying so.
// A file longer than limit gives its first limit bytes and an error
// wrapping ErrTooLarge.
func Read(dir, name string, limit int64) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	// O_NONBLOCK: opening a FIFO must not wait for a writer.
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, name, limit)
}

// ReadPath is Read for a file of the user's own, such as their config
// file: its links are followed wherever they lead; the other checks hold.
func ReadPath(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, path, limit)
}

func read(f *os.File, name string, limit int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("not a regular file (%s)", Kind(fi.Mode()))}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return data[:limit], fmt.Errorf("%s: %w: it has more than %d bytes", name, ErrTooLarge, limit)
	}
	return data, nil
}

// Kind names what a file that is not a regular one is, for a message:
// "a directory", "a FIFO", "a device", "a socket".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

// Replace writes data to path whole: into a file of mode 0600 beside it,
// renamed over path once written, so that a reader sees the old content
// or the new, never a part. The directory must exist.
func Replace(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
