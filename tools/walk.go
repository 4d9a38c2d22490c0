package tools

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// fileBatch is how many files of one directory a worker takes at a time, so
// that a directory with thousands of files is shared between workers.
const fileBatch = 64

// entry is one directory entry met by walk.
type entry struct {
	dir    *os.Root // the directory holding the entry if dirFD is -1; open it by name
	dirFD  int      // a descriptor of that directory for openat(2), or -1
	dirRel string   // that directory, root-relative
	name   string
	typ    fs.FileMode // type bits only, as from ReadDir
}

// rel returns the entry's root-relative path.
func (e entry) rel() string {
	if e.dirRel == "." {
		return e.name
	}
	return e.dirRel + "/" + e.name
}

// visitFunc is called by walk for every entry, from several goroutines at
// once; worker, from 0 to workers-1, tells which, so each can keep its own
// state. For a directory the return value says whether to enter it.
type visitFunc func(worker int, e entry) bool

// walkOpts says where walk goes.
type walkOpts struct {
	start   string   // root-relative directory to walk
	ignore  *ignorer // rules from above start (loadIgnorer); nil for none
	workers int
}

// walk visits every entry below opts.start with a pool of workers. It
// skips .git, entries .gitignore rules exclude, and never follows symlinks:
// a link is visited as an entry but not entered. The start directory is
// opened through the os.Root; below it each directory is opened by name
// from its parent's descriptor, and its files from its own
// (entry.dirFD), with openat(2) and O_NOFOLLOW: the name is one component
// read from the directory, and a symlink put in its place is refused, so
// this is as safe as the os.Root and costs one openat a directory or file
// instead of one per path component (BenchmarkOpen measures the
// difference). A directory is read with getdents(2) on that descriptor
// alone: four system calls a directory where the os.Root and os.File took
// twelve. A directory that cannot be read is skipped. walk returns ctx's
// error if ctx ends first.
func walk(ctx context.Context, root *os.Root, opts walkOpts, visit visitFunc) error {
	if opts.workers <= 0 {
		opts.workers = runtime.GOMAXPROCS(0)
	}
	q := newQueue()
	stop := context.AfterFunc(ctx, q.close)
	defer stop()
	var parts []string
	if opts.start != "." {
		parts = strings.Split(opts.start, "/")
	}
	q.push(job{rel: opts.start, parts: parts, ign: opts.ignore})
	var wg sync.WaitGroup
	for w := range opts.workers {
		wg.Go(func() {
			wk := walker{ctx: ctx, root: root, q: q, visit: visit, id: w}
			for j, ok := q.pop(); ok; j, ok = q.pop() {
				wk.do(j)
				q.done()
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// job is a directory to read, or a batch of the files of one.
type job struct {
	rel    string
	parts  []string
	ign    *ignorer
	parent *dirHandle // the directory holding rel, to open it by name
	dir    *dirHandle // for a batch: the directory holding the files
	files  []dirent   // a batch of files in dir
}

// release gives up the directories j holds, when it is done or dropped.
func (j job) release() {
	for _, h := range []*dirHandle{j.parent, j.dir} {
		if h != nil {
			h.release()
		}
	}
}

// dirHandle is an open directory shared by the jobs that need it: those of
// its subdirectories, which open them from it by name (one openat instead
// of one per path component), and those holding batches of its files. The
// last one done closes it.
type dirHandle struct {
	fd   int
	refs atomic.Int32
}

func (h *dirHandle) hold() *dirHandle {
	h.refs.Add(1)
	return h
}

func (h *dirHandle) release() {
	if h.refs.Add(-1) == 0 {
		unix.Close(h.fd)
	}
}

type walker struct {
	ctx   context.Context
	root  *os.Root
	q     *queue
	visit visitFunc
	id    int
	buf   []byte // for readDir
}

func (w *walker) do(j job) {
	defer j.release()
	if j.dir != nil {
		w.files(j.dir, j.rel, j.files)
		return
	}
	fd, err := w.open(j)
	if err != nil {
		return
	}
	h := &dirHandle{fd: fd}
	h.refs.Store(1)
	defer h.release()
	ents, err := w.readDir(fd)
	if err != nil {
		return
	}
	j.ign = w.loadIgnore(fd, j, ents)
	rules := j.ign.at(j.parts)
	files := ents[:0] // the files among ents, filtered in place
	for _, e := range ents {
		isDir := e.typ.IsDir()
		switch {
		case w.ctx.Err() != nil:
			return
		case e.name == ".git" || rules.ignored(e.name, isDir):
		case !isDir:
			files = append(files, e)
		case w.visit(w.id, entry{dirFD: h.fd, dirRel: j.rel, name: e.name, typ: e.typ}):
			parts := append(j.parts[:len(j.parts):len(j.parts)], e.name)
			w.q.push(job{rel: path.Join(j.rel, e.name), parts: parts, ign: j.ign, parent: h.hold()})
		}
	}
	for len(files) > fileBatch {
		w.q.push(job{rel: j.rel, dir: h.hold(), files: files[len(files)-fileBatch:]})
		files = files[:len(files)-fileBatch]
	}
	w.files(h, j.rel, files)
}

// open returns a descriptor of the job's directory, opened by name from
// its parent if it has one, else through the os.Root.
func (w *walker) open(j job) (int, error) {
	if j.parent != nil {
		return openat(j.parent.fd, path.Base(j.rel), unix.O_DIRECTORY)
	}
	f, err := w.root.OpenFile(j.rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return -1, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		return -1, syscall.ENOTDIR
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	dup, derr := -1, error(nil)
	if err := rc.Control(func(fd uintptr) { dup, derr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return -1, err
	}
	return dup, derr
}

// openat opens the entry name of the directory dirFD for reading, refusing
// a symlink.
func openat(dirFD int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirFD, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC|flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// loadIgnore returns the ignorer for the directory fd of job j: j's, with
// the rules of its .gitignore if it has one.
func (w *walker) loadIgnore(fd int, j job, ents []dirent) *ignorer {
	for _, e := range ents {
		if e.name == ".gitignore" && e.typ.IsRegular() {
			if data, err := readAt(fd, ".gitignore"); err == nil {
				return j.ign.with(j.parts, data)
			}
		}
	}
	return j.ign
}

// readAt reads the regular file name of the directory dirFD.
func readAt(dirFD int, name string) ([]byte, error) {
	fd, err := openat(dirFD, name, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, syscall.EINVAL
	}
	return io.ReadAll(f)
}

func (w *walker) files(h *dirHandle, rel string, files []dirent) {
	for _, e := range files {
		if w.ctx.Err() != nil {
			return
		}
		w.visit(w.id, entry{dirFD: h.fd, dirRel: rel, name: e.name, typ: e.typ})
	}
}

// dirent is a directory entry as getdents(2) gives it: a name and a type.
type dirent struct {
	name string
	typ  fs.FileMode // type bits only
}

// queue is the walk's work list: a stack, so the walk goes depth first and
// few directories wait at a time. pop blocks until there is a job or no
// job can come any more.
type queue struct {
	mu     sync.Mutex
	cond   sync.Cond
	jobs   []job
	active int
	closed bool
}

func newQueue() *queue {
	q := &queue{}
	q.cond.L = &q.mu
	return q
}

func (q *queue) push(j job) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		j.release()
		return
	}
	q.jobs = append(q.jobs, j)
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *queue) pop() (job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.jobs) == 0 && q.active > 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.jobs) == 0 || q.closed {
		q.drain()
		return job{}, false
	}
	j := q.jobs[len(q.jobs)-1]
	q.jobs = q.jobs[:len(q.jobs)-1]
	q.active++
	return j, true
}

// drain releases the directories held by jobs that will not run. Called
// with mu held.
func (q *queue) drain() {
	for _, j := range q.jobs {
		j.release()
	}
	q.jobs = nil
}

func (q *queue) done() {
	q.mu.Lock()
	q.active--
	idle := q.active == 0 && len(q.jobs) == 0
	q.mu.Unlock()
	if idle {
		q.cond.Broadcast()
	}
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}
