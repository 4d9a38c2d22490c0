package tools

import (
	"bytes"
	"io"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	// maxGrepFile is the largest file grep reads; larger ones are skipped.
	maxGrepFile = 64 << 20
	// grepBlock is how much of a file grep reads at a time. The first block
	// tells a binary file, which is read no further; a block then holds
	// whole lines, so a line longer than a block grows the buffer for the
	// file that has it.
	grepBlock = 128 << 10
)

// grepFile is a regular file open for grep.
type grepFile struct {
	fd   int      // from openat(2), or -1 if f is set
	f    *os.File // from the os.Root
	size int64
}

// openRegular opens the regular file e. ok is false for anything that is
// not a regular file or cannot be opened, and for files over maxGrepFile.
// O_NONBLOCK keeps a FIFO that replaced a file since the directory was read
// from blocking the open.
//
// A file met by the walk is opened with openat(2) on its directory's
// descriptor, which costs three system calls fewer than an os.File (no
// registering with the poller, no finalizer) and is as safe as the os.Root
// it stands for: the name is one component read from the directory, and
// O_NOFOLLOW refuses a symlink put in its place.
func openRegular(e entry) (grepFile, bool) {
	if e.dirFD < 0 || strings.Contains(e.name, "/") || e.name == ".." {
		return openRegularInRoot(e.dir, e.name)
	}
	var fd int
	var err error
	for {
		fd, err = unix.Openat(e.dirFD, e.name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return grepFile{}, false
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > maxGrepFile {
		unix.Close(fd)
		return grepFile{}, false
	}
	return grepFile{fd: fd, size: st.Size}, true
}

func openRegularInRoot(dir *os.Root, name string) (grepFile, bool) {
	f, err := dir.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return grepFile{}, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxGrepFile {
		f.Close()
		return grepFile{}, false
	}
	return grepFile{fd: -1, f: f, size: fi.Size()}, true
}

func (g grepFile) Read(p []byte) (int, error) {
	if g.f != nil {
		return g.f.Read(p)
	}
	for {
		n, err := unix.Read(g.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (g grepFile) Close() {
	if g.f != nil {
		g.f.Close()
		return
	}
	unix.Close(g.fd)
}

// blockReader reads a file in blocks of whole lines into a buffer it keeps
// from file to file.
type blockReader struct {
	buf  []byte
	f    grepFile
	left int64 // bytes of the file not read yet, by its size when opened
	n    int   // bytes in buf
	used int   // bytes of buf handed out by the last next
	eof  bool  // the file is read to the end
	err  error
}

// reset starts reading f, of size bytes, and returns its first block, at
// most grepBlock bytes, without cutting it at a line end: enough to tell a
// binary file. Like the size, the end of a file that grows while it is
// read is left out.
func (r *blockReader) reset(f grepFile, size int64) []byte {
	if cap(r.buf) != grepBlock {
		r.buf = make([]byte, grepBlock)
	}
	r.buf = r.buf[:grepBlock]
	r.f, r.left, r.n, r.used, r.eof, r.err = f, size, 0, 0, false, nil
	r.fill()
	return r.buf[:r.n]
}

// fill reads until the buffer is full or the file ends.
func (r *blockReader) fill() {
	for r.n < len(r.buf) && !r.eof {
		if r.left == 0 {
			r.eof = true
			break
		}
		end := len(r.buf)
		if int64(end-r.n) > r.left {
			end = r.n + int(r.left)
		}
		k, err := r.f.Read(r.buf[r.n:end])
		r.n += k
		r.left -= int64(k)
		switch {
		case err == io.EOF:
			r.eof = true
		case err != nil:
			r.eof, r.err = true, err
		}
	}
}

// next returns the next block of whole lines (the last one may lack its
// newline), or nil at the end of the file or on a read error, which err
// then holds.
func (r *blockReader) next() []byte {
	copy(r.buf, r.buf[r.used:r.n])
	r.n -= r.used
	r.used = 0
	for {
		r.fill()
		if r.err != nil || r.n == 0 {
			return nil
		}
		if r.eof {
			r.used = r.n
			return r.buf[:r.n]
		}
		if end := bytes.LastIndexByte(r.buf[:r.n], '\n'); end >= 0 {
			r.used = end + 1
			return r.buf[:r.used]
		}
		// A line longer than the buffer: make room for more of it.
		r.buf = append(r.buf, make([]byte, len(r.buf))...)
	}
}
