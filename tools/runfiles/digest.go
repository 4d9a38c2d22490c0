package runfiles

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// Bounds on what Digest reads: past maxBytes of content, a file counts by
// its size and times; past maxEntries, the rest of a directory is left
// out.
const (
	maxBytes   = 64 << 20
	maxEntries = 20000
)

// Digest returns a digest ("sha256:…") of what the paths (beneath root,
// as Files returns them) hold now: for each, its path relative to root
// and what is there: nothing, a symlink's target (not followed), a
// file's permissions and content, or a directory's entries, recursively
// (.git left out). Past 64 MiB of content, a file counts by its size and
// its modification and change times instead: a command can set the first
// back, not the second. Past 20,000 entries, the rest are left out.
func Digest(root string, paths []string) string {
	d := &digester{h: sha256.New(), root: filepath.Clean(root)}
	for _, p := range slices.Sorted(slices.Values(paths)) {
		d.path(filepath.Clean(p))
	}
	return "sha256:" + hex.EncodeToString(d.h.Sum(nil))
}

type digester struct {
	h       hash.Hash
	root    string
	bytes   int64
	entries int
}

func (d *digester) path(path string) {
	if d.entries >= maxEntries {
		return
	}
	d.entries++
	rel, err := filepath.Rel(d.root, path)
	if err != nil {
		rel = path
	}
	fi, err := os.Lstat(path)
	if err != nil {
		fmt.Fprintf(d.h, "%q absent\n", rel)
		return
	}
	switch mode := fi.Mode(); {
	case mode&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		fmt.Fprintf(d.h, "%q link %q\n", rel, target)
	case mode.IsDir():
		fmt.Fprintf(d.h, "%q dir %v\n", rel, mode.Perm())
		names, _ := readNames(path)
		for _, n := range names {
			if n != ".git" {
				d.path(filepath.Join(path, n))
			}
		}
	case mode.IsRegular():
		d.file(rel, path, fi)
	default:
		fmt.Fprintf(d.h, "%q %v\n", rel, mode.Type())
	}
}

// file digests a regular file: its content while the budget lasts, its
// size and times after.
func (d *digester) file(rel, path string, fi fs.FileInfo) {
	if d.bytes+fi.Size() > maxBytes {
		fmt.Fprintf(d.h, "%q file %v size %d mtime %d ctime %d\n", rel, fi.Mode(), fi.Size(), fi.ModTime().UnixNano(), changed(fi))
		return
	}
	fmt.Fprintf(d.h, "%q file %v %d\n", rel, fi.Mode(), fi.Size())
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		fmt.Fprintf(d.h, "unreadable\n")
		return
	}
	defer f.Close()
	n, _ := io.Copy(d.h, io.LimitReader(f, fi.Size()))
	d.bytes += n
}

func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	slices.Sort(names)
	return names, err
}
