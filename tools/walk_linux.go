package tools

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// readDir reads the entries of the directory fd with getdents(2), with
// the types it gives (an entry of unknown type is lstat'ed by name, from
// fd), leaving out . and ..; it reads nothing else, where os.File's ReadDir
// through an os.Root would lstat every entry.
func (w *walker) readDir(fd int) ([]dirent, error) {
	if w.buf == nil {
		w.buf = make([]byte, 32<<10)
	}
	var ents []dirent
	for {
		n, err := unix.Getdents(fd, w.buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return ents, nil
		}
		ents = slices.Grow(ents, direntCount(w.buf[:n])) // at once, not by doubling
		for b := w.buf[:n]; len(b) >= 19; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(binary.NativeEndian.Uint16(b[16:]))
			if reclen < 19 || reclen > len(b) {
				return nil, syscall.EIO
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if s := string(name); s != "." && s != ".." {
				ents = append(ents, dirent{name: s, typ: direntType(fd, s, b[18])})
			}
			b = b[reclen:]
		}
	}
}

// direntCount returns how many entries a getdents read holds.
func direntCount(b []byte) int {
	n := 0
	for len(b) >= 19 {
		reclen := int(binary.NativeEndian.Uint16(b[16:]))
		if reclen < 19 || reclen > len(b) {
			break // readDir reports it
		}
		n++
		b = b[reclen:]
	}
	return n
}

// direntType returns the type bits of a getdents type, lstat'ing name in
// the directory fd if the file system does not give it.
func direntType(fd int, name string, t byte) fs.FileMode {
	switch t {
	case unix.DT_REG:
		return 0
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	case unix.DT_FIFO:
		return fs.ModeNamedPipe
	case unix.DT_SOCK:
		return fs.ModeSocket
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.DT_BLK:
		return fs.ModeDevice
	}
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fs.ModeIrregular
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}
