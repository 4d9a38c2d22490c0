package tools

import (
	"context"
	"io/fs"
	"os"
	"path"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// fileBatch is how many files of one directory a worker takes at a time, so
// that a directory with thousands of files is shared between workers.
const fileBatch = 64

// entry is one directory entry met by walk.
type entry struct {
	dir    *os.Root // the directory holding the entry; open it by name
	dirFD  int      // a descriptor of dir for openat(2), or -1
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
// a link is visited as an entry but not entered. Everything is opened
// through an os.Root: each directory by name from its parent's, and its
// files from its own (entry.dir, or entry.dirFD for openat with
// O_NOFOLLOW), which costs one openat each instead of one per path
// component (BenchmarkOpen measures the difference). A directory that cannot
// be read is skipped. walk returns ctx's error if ctx ends first.
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
	parent *dirHandle    // the directory holding rel, to open it by name
	dir    *dirHandle    // for a batch: the directory holding the files
	files  []fs.DirEntry // a batch of files in dir
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
	root *os.Root
	file *os.File // the directory opened as a plain file
	fd   int      // file's descriptor
	refs atomic.Int32
}

func (h *dirHandle) hold() *dirHandle {
	h.refs.Add(1)
	return h
}

func (h *dirHandle) release() {
	if h.refs.Add(-1) == 0 {
		h.file.Close()
		h.root.Close()
	}
}

type walker struct {
	ctx   context.Context
	root  *os.Root
	q     *queue
	visit visitFunc
	id    int
}

func (w *walker) do(j job) {
	defer j.release()
	if j.dir != nil {
		w.files(j.dir, j.rel, j.files)
		return
	}
	d, err := w.open(j)
	if err != nil {
		return
	}
	ents, file, err := readDir(d)
	if err != nil {
		d.Close()
		return
	}
	h := &dirHandle{root: d, file: file, fd: int(file.Fd())}
	h.refs.Store(1)
	defer h.release()
	j.ign = w.loadIgnore(d, j, ents)
	rules := j.ign.at(j.parts)
	var files []fs.DirEntry
	for _, e := range ents {
		switch {
		case w.ctx.Err() != nil:
			return
		case e.Name() == ".git" || rules.ignored(e.Name(), e.IsDir()):
		case !e.IsDir():
			files = append(files, e)
		case w.visit(w.id, entry{dir: d, dirFD: h.fd, dirRel: j.rel, name: e.Name(), typ: e.Type()}):
			parts := append(j.parts[:len(j.parts):len(j.parts)], e.Name())
			w.q.push(job{rel: path.Join(j.rel, e.Name()), parts: parts, ign: j.ign, parent: h.hold()})
		}
	}
	for len(files) > fileBatch {
		w.q.push(job{rel: j.rel, dir: h.hold(), files: files[len(files)-fileBatch:]})
		files = files[:len(files)-fileBatch]
	}
	w.files(h, j.rel, files)
}

// open opens the job's directory, by name from its parent if it has one.
func (w *walker) open(j job) (*os.Root, error) {
	if j.parent == nil {
		return w.root.OpenRoot(j.rel)
	}
	return j.parent.root.OpenRoot(path.Base(j.rel))
}

// loadIgnore returns the ignorer for the directory d of job j: j's, with
// the rules of d's .gitignore if it has one.
func (w *walker) loadIgnore(d *os.Root, j job, ents []fs.DirEntry) *ignorer {
	for _, e := range ents {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			if data, err := d.ReadFile(".gitignore"); err == nil {
				return j.ign.with(j.parts, data)
			}
		}
	}
	return j.ign
}

func (w *walker) files(h *dirHandle, rel string, files []fs.DirEntry) {
	for _, e := range files {
		if w.ctx.Err() != nil {
			return
		}
		w.visit(w.id, entry{dir: h.root, dirFD: h.fd, dirRel: rel, name: e.Name(), typ: e.Type()})
	}
}

// readDir reads the entries of the directory d, with their types, and
// returns the directory opened as a plain file, for the caller to close.
// A directory opened through an os.Root lstats every entry as it reads it
// (to fill in FileInfo safely); the walk needs only the types getdents
// returns, so it reads through a duplicate of the descriptor opened as a
// plain file. Info must not be called on the entries: it would lstat by
// path name, outside the Root's checks.
func readDir(d *os.Root) ([]fs.DirEntry, *os.File, error) {
	f, err := d.OpenFile(".", os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, nil, err
	}
	var dup uintptr
	var errno syscall.Errno
	cerr := rc.Control(func(fd uintptr) {
		dup, _, errno = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_DUPFD_CLOEXEC, 0)
	})
	if cerr != nil {
		return nil, nil, cerr
	}
	if errno != 0 {
		return nil, nil, errno
	}
	plain := os.NewFile(dup, f.Name())
	ents, err := plain.ReadDir(-1)
	if err != nil {
		plain.Close()
		return nil, nil, err
	}
	return ents, plain, nil
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
