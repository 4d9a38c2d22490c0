package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"lathe/prompts"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// maxLinks bounds how many symlinks one path may go through, like the kernel's
// limit, so that a loop of links is an error and not a hang.
const maxLinks = 40

// Workspace is the working directory the tools are confined to. Every file
// access goes through its os.Root, so a path that leads outside the directory,
// lexically or through a symlink, is refused by the kernel-level checks of
// os.Root and not only by the string checks of Rel.
//
// It also remembers what the model has seen of each file, so that an edit
// of a file changed behind its back is refused (see seenFiles).
type Workspace struct {
	dir     string // absolute and clean, as given
	real    string // dir with symlinks resolved
	root    *os.Root
	seen    seenFiles
	swept   sync.Map // directories swept of stale temporary files (see sweep)
	changes Changes  // told of changes, to keep what files were (see Track)
	checker Checker  // told of reads and changes, to find what a change broke (see Diagnose)
	editor  Editor   // reads and writes text files when set (see UseEditor)
}

// Changes is told of the files the tools are about to change, so that
// what they were can be kept (undo). Its answers, when not empty, are
// notes for the call's result: what undo will not be able to restore.
type Changes interface {
	// Changing is told before a file tool replaces the file at path
	// (relative to the workspace, with slashes) with data and mode.
	Changing(ctx context.Context, path string, data []byte, mode fs.FileMode) string
	// Running is told before a command runs in the workspace; the
	// function it returns, after the command ended: it returns its note
	// and the files the command changed (relative, with slashes).
	Running(ctx context.Context) func() (note string, changed []string)
}

// noteLine is a note of the tracked Changes as a line of its own at the
// end of a result; empty for no note.
func noteLine(note string) string {
	if note == "" {
		return ""
	}
	return "\n(" + note + ")"
}

// Track has c told of every change the tools make from now on; nil stops
// telling. Set it before the tools run.
func (w *Workspace) Track(c Changes) { w.changes = c }

// OpenWorkspace opens dir as the working directory. Close releases it.
func OpenWorkspace(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace: %w", err)
	}
	return &Workspace{dir: abs, real: real, root: root}, nil
}

// Dir returns the working directory as an absolute, clean path.
func (w *Workspace) Dir() string { return w.dir }

// Root returns the os.Root every tool reads and writes through.
func (w *Workspace) Root() *os.Root { return w.root }

// Close releases the workspace's directory handle.
func (w *Workspace) Close() error { return w.root.Close() }

// Rel turns a path the model sent into a clean path relative to the working
// directory ("." for the directory itself). Relative paths are cleaned; an
// absolute path inside the working directory (as given or with its symlinks
// resolved) is made relative. Anything else is refused with an error whose
// text tells the model what to do instead. Rel is lexical: symlinks are dealt
// with by the os.Root every access goes through.
func (w *Workspace) Rel(p string) (string, error) {
	p = readName(strings.TrimSpace(p)) // " main.go" is a model's slip, not a file name
	switch {
	case p == "":
		return "", errors.New(`path is empty; use "." for the working directory`)
	case strings.ContainsRune(p, 0):
		return "", fmt.Errorf("path %q contains a NUL byte", p)
	case strings.HasPrefix(p, "~"):
		return "", fmt.Errorf(`path %q starts with "~", which is not expanded; use a path inside the working directory %s`, p, w.dir)
	}
	if !filepath.IsAbs(p) {
		clean := filepath.ToSlash(filepath.Clean(p))
		if !filepath.IsLocal(clean) {
			return "", w.outside(p)
		}
		return clean, nil
	}
	for _, base := range []string{w.dir, w.real} {
		rel, err := filepath.Rel(base, filepath.Clean(p))
		if err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel), nil
		}
	}
	return "", w.outside(p)
}

// resolve is Rel followed by a check that the symlinks along the path stay
// inside, so that a call can be refused before it is approved and run. The
// path returned is Rel's: the links are followed again when the call runs.
func (w *Workspace) resolve(p string) (string, error) {
	rel, err := w.Rel(p)
	if err != nil {
		return "", err
	}
	if _, err := w.follow(rel); err != nil {
		return "", err
	}
	return rel, nil
}

func (w *Workspace) outside(p string) error {
	return fmt.Errorf("path %q is outside the working directory %s; use a path inside it", p, w.dir)
}

// follow resolves the symlinks along rel, a path from Rel, and returns the
// root-relative path of what it names: the file a link points to rather than
// the link. Links may be relative or absolute; a link that leads outside the
// working directory is an error. Components that do not exist yet are kept
// as they are, so the result can name a file to create. follow only decides
// which name to use: the access itself still goes through the os.Root, which
// refuses an escape even if a link changes in between.
func (w *Workspace) follow(rel string) (string, error) {
	done, todo := ".", strings.Split(rel, "/")
	for links := 0; len(todo) > 0; {
		next := filepath.ToSlash(filepath.Join(done, todo[0]))
		fi, err := w.root.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return filepath.ToSlash(filepath.Join(append([]string{done}, todo...)...)), nil
		}
		if err != nil {
			return "", w.fsError(rel, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done, todo = next, todo[1:]
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("path %q goes through too many symlinks", rel)
		}
		target, err := w.linkTarget(rel, done, next)
		if err != nil {
			return "", err
		}
		done, todo = ".", append(strings.Split(target, "/"), todo[1:]...)
	}
	return done, nil
}

// linkTarget reads the symlink at link (inside dir) and returns its target as
// a root-relative path.
func (w *Workspace) linkTarget(rel, dir, link string) (string, error) {
	target, err := w.root.Readlink(link)
	if err != nil {
		return "", w.fsError(rel, err)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	resolved, err := w.Rel(target)
	if err != nil {
		return "", fmt.Errorf("path %q leads outside the working directory %s through the symlink %s -> %s; use a path inside it", rel, w.dir, link, target)
	}
	return resolved, nil
}

// fsError turns an error from the os.Root into a message for the model,
// which keeps err as its cause for errors.Is.
func (w *Workspace) fsError(rel string, err error) error {
	var msg string
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		msg = rel + " does not exist; " + prompts.Hint(prompts.HintFindFiles)
	case errors.Is(err, fs.ErrPermission):
		msg = rel + ": permission denied"
	case errors.Is(err, syscall.ENOTDIR):
		msg = rel + ": a directory on its path is a file"
	case errors.As(err, &pe):
		msg = fmt.Sprintf("%s: %s %v", rel, pe.Op, pe.Err)
	default:
		msg = fmt.Sprintf("%s: %v", rel, err)
	}
	return &causedError{msg: msg, err: err}
}

// causedError is an error told to the model in its own words, whose cause
// stays reachable through errors.Is and errors.As.
type causedError struct {
	msg string
	err error
}

func (e *causedError) Error() string { return e.msg }
func (e *causedError) Unwrap() error { return e.err }
