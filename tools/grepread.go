package tools

import (
	"bytes"
	"io"
	"os"
	"syscall"
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

// openRegular opens the regular file name in dir. ok is false for anything
// that is not a regular file or cannot be opened, and for files over
// maxGrepFile. O_NONBLOCK keeps a FIFO that replaced a file since the
// directory was read from blocking the open.
func openRegular(dir *os.Root, name string) (f *os.File, ok bool) {
	f, err := dir.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxGrepFile {
		f.Close()
		return nil, false
	}
	return f, true
}

// blockReader reads a file in blocks of whole lines into a buffer it keeps
// from file to file.
type blockReader struct {
	buf  []byte
	f    *os.File
	n    int  // bytes in buf
	used int  // bytes of buf handed out by the last next
	eof  bool // the file is read to the end
	err  error
}

// reset starts reading f and returns its first block, at most grepBlock
// bytes, without cutting it at a line end: enough to tell a binary file.
func (r *blockReader) reset(f *os.File) []byte {
	if cap(r.buf) != grepBlock {
		r.buf = make([]byte, grepBlock)
	}
	r.buf = r.buf[:grepBlock]
	r.f, r.n, r.used, r.eof, r.err = f, 0, 0, false, nil
	r.fill()
	return r.buf[:r.n]
}

// fill reads until the buffer is full or the file ends.
func (r *blockReader) fill() {
	for r.n < len(r.buf) && !r.eof {
		k, err := r.f.Read(r.buf[r.n:])
		r.n += k
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
