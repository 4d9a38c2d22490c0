package tools

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"lathe/prompts"
	"os"
	"path"
	"strings"
	"syscall"
	"time"
)

// newFileMode is the mode of files the tools create.
const newFileMode fs.FileMode = 0o644

// writeAtomic replaces the file at target, a root-relative path that is not
// a symlink, with data, or creates it and its missing parents. The data goes
// to a temporary file in the same directory, is synced, gets mode, and is
// renamed over target, so the file is never seen half written. The
// directory is opened once and the temporary file is created, renamed and,
// on failure, removed through that handle: a directory swapped for a
// symlink meanwhile cannot leave it behind elsewhere. Errors are messages
// for the model.
//
// The Changes being tracked are told first; their note comes back. With
// an Editor, the editor writes the file (mode is then its own).
func (w *Workspace) writeAtomic(ctx context.Context, target string, data []byte, mode fs.FileMode) (note string, err error) {
	if w.changes != nil {
		note = w.changes.Changing(ctx, target, data, mode)
	}
	if ok, err := w.editorWrite(ctx, target, data); ok {
		return note, err
	}
	return note, w.replace(target, data, mode)
}

func (w *Workspace) replace(target string, data []byte, mode fs.FileMode) error {
	dir, base := path.Dir(target), path.Base(target)
	if err := w.root.MkdirAll(dir, 0o755); err != nil {
		return w.fsError(dir, err)
	}
	d, err := w.root.OpenRoot(dir)
	if err != nil {
		return w.fsError(dir, err)
	}
	defer d.Close()
	w.sweep(d, dir)
	tmp, f, err := createTemp(d, base)
	if err != nil {
		return w.fsError(target, err)
	}
	err = writeSync(f, data, mode)
	if err == nil {
		err = d.Rename(tmp, base)
	}
	if err != nil {
		_ = d.Remove(tmp)
		return w.fsError(target, err)
	}
	if h, err := d.Open("."); err == nil {
		_ = h.Sync() // make the rename durable; some file systems refuse, which is fine
		h.Close()
	}
	return nil
}

// tempMark and tempSuffix mark the names of lathe's temporary files:
// ".NAME.lathe-XXXXXXXX.tmp".
const (
	tempMark   = ".lathe-"
	tempSuffix = ".tmp"
	// staleTemp is how old a temporary file must be for a sweep to take
	// it for one left by a lathe that died mid-write.
	staleTemp = time.Hour
)

// createTemp creates an empty temporary file beside base in d.
func createTemp(d *os.Root, base string) (string, *os.File, error) {
	for range 10 {
		tmp := "." + base + tempMark + rand.Text()[:8] + tempSuffix
		f, err := d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		return tmp, f, nil
	}
	return "", nil, fmt.Errorf("%s: cannot create a temporary file beside it", base)
}

// sweep removes, once per directory and process, the temporary files a
// lathe killed mid-write left in d (dir): older than staleTemp, so that
// another lathe's write under way is left alone.
func (w *Workspace) sweep(d *os.Root, dir string) {
	if _, done := w.swept.LoadOrStore(dir, true); done {
		return
	}
	h, err := d.Open(".")
	if err != nil {
		return
	}
	names, _ := h.Readdirnames(-1)
	h.Close()
	for _, name := range names {
		if !strings.HasPrefix(name, ".") || !strings.Contains(name, tempMark) || !strings.HasSuffix(name, tempSuffix) {
			continue
		}
		if fi, err := d.Lstat(name); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleTemp {
			_ = d.Remove(name)
		}
	}
}

func writeSync(f *os.File, data []byte, mode fs.FileMode) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// openFile opens target, the root-relative path rel resolves to, for
// reading, if it is a regular file. O_NONBLOCK keeps the open of a FIFO from
// hanging; anything but a regular file is refused, so that a device cannot
// feed endless data. Errors are messages for the model.
func (w *Workspace) openFile(rel, target string) (*os.File, fs.FileInfo, error) {
	f, err := w.root.OpenFile(target, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, w.fsError(rel, err)
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		err = w.fsError(rel, err)
	case fi.IsDir():
		err = fmt.Errorf("%s is a directory; %s", rel, prompts.Hint(prompts.HintListIt))
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("%s is not a regular file", rel)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// fileMode returns the mode to keep for the file at target: its own if it
// is a regular file, newFileMode if it does not exist. exists says which.
func (w *Workspace) fileMode(target string) (mode fs.FileMode, exists bool, err error) {
	fi, err := w.root.Lstat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return newFileMode, false, nil
	case err != nil:
		return 0, false, w.fsError(target, err)
	case fi.IsDir():
		return 0, true, fmt.Errorf("%s is a directory; give a file path", target)
	case !fi.Mode().IsRegular():
		return 0, true, fmt.Errorf("%s is not a regular file", target)
	}
	return keptMode(fi), true, nil
}

// keptMode is the mode a file rewritten in place of fi keeps: its
// permission bits, setuid, setgid and sticky.
func keptMode(fi fs.FileInfo) fs.FileMode {
	return fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}
