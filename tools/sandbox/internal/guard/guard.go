// Package guard keeps chosen paths as they were across a command: it
// records them before the command and, once every process of the command
// is gone, puts back whatever the command changed.
//
// Every access goes through an os.Root, so a path the command replaced
// with a symlink leading out of the root is refused, never followed.
package guard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"syscall"
)

// Limits on what a snapshot keeps. A file over maxFile is compared by
// size and content prefix only and cannot be put back.
const (
	maxFile    = 1 << 20
	maxEntries = 1000
	maxDepth   = 8

	// nonblock keeps a FIFO put in place of a file from blocking the read.
	nonblock = syscall.O_NONBLOCK
)

// Path is a protected path: Rel beneath the directory Root. A Shallow
// directory is only kept a directory (what is in it is not recorded): if
// it becomes anything else, that is removed.
type Path struct {
	Root    string
	Rel     string
	Shallow bool
}

// String returns the path as one.
func (p Path) String() string { return path.Join(p.Root, p.Rel) }

// Change is a protected path the command changed.
type Change struct {
	Path Path
	// Restored: it was put back as it was. Removed: it did not exist
	// before and was removed. Replaced: a shallow directory had become
	// something else, which was removed. None: Err says why it was left
	// changed.
	Restored, Removed, Replaced bool
	Err                         error
}

// Snapshot is the recorded state of the protected paths.
type Snapshot struct {
	items []item
}

type item struct {
	path   Path
	before *node // nil: did not exist
	err    error // could not be recorded
}

// node is one file, directory or symlink.
type node struct {
	mode     fs.FileMode
	size     int64
	data     []byte // whole content, or the first maxFile bytes when partial
	partial  bool
	target   string
	children map[string]*node
}

// Take records each path.
func Take(paths []Path) *Snapshot {
	s := &Snapshot{}
	roots := rootCache{}
	defer roots.close()
	for _, p := range paths {
		it := item{path: p}
		root, err := roots.open(p.Root)
		if err != nil {
			it.err = err
		} else {
			it.before, it.err = read(root, p.Rel, p.Shallow, 0)
		}
		s.items = append(s.items, it)
	}
	return s
}

// rootCache opens each root once: many protected paths share one.
type rootCache map[string]*os.Root

func (c rootCache) open(dir string) (*os.Root, error) {
	if r, ok := c[dir]; ok {
		return r, nil
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	c[dir] = r
	return r, nil
}

func (c rootCache) close() {
	for _, r := range c {
		r.Close()
	}
}

// Restore compares each path with its record and puts back what changed.
// A path that did not exist before is kept when keepNew says so (for
// content known to be harmless), and removed otherwise.
// Paths beneath a shallow directory that had been replaced are left
// alone: what they were in is gone from there.
func (s *Snapshot) Restore(keepNew func(root *os.Root, rel string) bool) []Change {
	var changes []Change
	var replaced []Path
	roots := rootCache{}
	defer roots.close()
	for _, it := range s.items {
		if slices.ContainsFunc(replaced, it.path.beneath) {
			continue
		}
		if c, changed := it.restore(roots, keepNew); changed {
			changes = append(changes, c)
			if c.Replaced {
				replaced = append(replaced, it.path)
			}
		}
	}
	return changes
}

// beneath reports whether p lies beneath dir.
func (p Path) beneath(dir Path) bool {
	return p.Root == dir.Root && strings.HasPrefix(p.Rel, dir.Rel+"/")
}

func (it item) restore(roots rootCache, keepNew func(*os.Root, string) bool) (Change, bool) {
	c := Change{Path: it.path}
	if it.err != nil {
		return c, false // nothing recorded, nothing to compare with
	}
	root, err := roots.open(it.path.Root)
	if err != nil {
		c.Err = err
		return c, true
	}
	now, err := read(root, it.path.Rel, it.path.Shallow, 0)
	if err == nil && equal(it.before, now) {
		return c, false
	}
	if it.before == nil && keepNew != nil && keepNew(root, it.path.Rel) {
		return c, false
	}
	if it.path.Shallow && it.before != nil && it.before.mode.IsDir() {
		// Its content was not recorded: all there is to do is to take
		// away what stands in its place.
		if c.Err = root.RemoveAll(it.path.Rel); c.Err == nil {
			c.Replaced = true
		}
		return c, true
	}
	if it.before != nil && !it.before.complete() {
		c.Err = errors.New("too large to keep a copy of; left as the command changed it")
		return c, true
	}
	if err := root.RemoveAll(it.path.Rel); err != nil {
		c.Err = err
		return c, true
	}
	if it.before == nil {
		c.Removed = true
		return c, true
	}
	if err := write(root, it.path.Rel, it.before); err != nil {
		c.Err = err
		return c, true
	}
	c.Restored = true
	return c, true
}

func read(root *os.Root, rel string, shallow bool, depth int) (*node, error) {
	fi, err := root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	n := &node{mode: fi.Mode(), size: fi.Size()}
	switch {
	case fi.Mode().IsRegular():
		n.data, n.partial, err = readFile(root, rel)
	case fi.Mode()&fs.ModeSymlink != 0:
		n.target, err = root.Readlink(rel)
	case fi.IsDir() && !shallow:
		err = readDir(root, rel, depth, n)
	}
	return n, err
}

func readFile(root *os.Root, rel string) ([]byte, bool, error) {
	f, err := root.OpenFile(rel, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if len(b) > maxFile {
		return b[:maxFile], true, err
	}
	return b, false, err
}

func readDir(root *os.Root, rel string, depth int, n *node) error {
	if depth >= maxDepth {
		return fmt.Errorf("%s: deeper than %d levels", rel, maxDepth)
	}
	d, err := root.Open(rel)
	if err != nil {
		return err
	}
	names, err := d.Readdirnames(maxEntries + 1)
	d.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if len(names) > maxEntries {
		return fmt.Errorf("%s: more than %d entries", rel, maxEntries)
	}
	n.children = map[string]*node{}
	for _, name := range names {
		c, err := read(root, path.Join(rel, name), false, depth+1)
		if err != nil {
			return err
		}
		if c != nil {
			n.children[name] = c
		}
	}
	return nil
}

func equal(a, b *node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.mode.IsDir() && b.mode.IsDir() && a.children == nil && b.children == nil {
		return true // shallow: a directory is all that is asked
	}
	if a.mode != b.mode || a.size != b.size || a.partial != b.partial ||
		a.target != b.target || !bytes.Equal(a.data, b.data) || len(a.children) != len(b.children) {
		return false
	}
	for name, c := range a.children {
		if !equal(c, b.children[name]) {
			return false
		}
	}
	return true
}

func (n *node) complete() bool {
	if n.partial {
		return false
	}
	for _, c := range n.children {
		if !c.complete() {
			return false
		}
	}
	return true
}

func write(root *os.Root, rel string, n *node) error {
	perm := n.mode & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	switch {
	case n.mode.IsRegular():
		f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		_, err = f.Write(n.data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		return root.Chmod(rel, perm)
	case n.mode&fs.ModeSymlink != 0:
		return root.Symlink(n.target, rel)
	case n.mode.IsDir():
		if err := root.Mkdir(rel, 0o700); err != nil {
			return err
		}
		names := make([]string, 0, len(n.children))
		for name := range n.children {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if err := write(root, path.Join(rel, name), n.children[name]); err != nil {
				return err
			}
		}
		return root.Chmod(rel, perm)
	}
	return fmt.Errorf("%s: cannot recreate a %v", rel, n.mode.Type())
}
