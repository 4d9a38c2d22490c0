package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"lathe/orchestrator/session"
)

// ShellLimits bound the watch around a command.
type ShellLimits struct {
	// MaxFiles is how many files are listed; past it, changes go unseen
	// (and the note says so). 0 means 20,000.
	MaxFiles int
	// MaxBytes is how much is hashed into the repository before a
	// command (only files changed since the last command are); past it,
	// the files left are not restorable. 0 means 256 MiB.
	MaxBytes int64
	// MaxChanged is how many changed files of one command are kept; 0
	// means 1,000.
	MaxChanged int
}

func (l ShellLimits) withDefaults() ShellLimits {
	if l.MaxFiles == 0 {
		l.MaxFiles = 20000
	}
	if l.MaxBytes == 0 {
		l.MaxBytes = 256 << 20
	}
	if l.MaxChanged == 0 {
		l.MaxChanged = 1000
	}
	return l
}

// stat is what tells a file apart from its earlier self without reading it.
type stat struct {
	size         int64
	mtime, ctime int64
	ino          uint64
	mode         fs.FileMode
}

// entry is a listed file: its stat, and for a git work tree the id of the
// blob holding its content as of that stat ("" when not hashed), or that
// git ignores it (it is watched, never hashed).
type entry struct {
	stat
	blob    string
	ignored bool
}

// shellWatch finds the files a command changed.
type shellWatch struct {
	t   *Tracker
	lim ShellLimits

	mu      sync.Mutex
	checked bool
	git     string           // the git program, when the directory is in a work tree
	cache   map[string]entry // the listing after the last command, with blobs
}

func newShellWatch(t *Tracker, lim ShellLimits) *shellWatch {
	return &shellWatch{t: t, lim: lim.withDefaults()}
}

// Running implements tools.Changes: it lists the directory before the
// command (in a git work tree, hashing what changed since the last
// command into the repository's object store, so that its content can be
// had back), and the returned function lists it again after, keeping what
// each changed file was and became, and returns them (sorted).
func (t *Tracker) Running(ctx context.Context) func() (string, []string) {
	if t.running() == 0 {
		return func() (string, []string) { return "", nil }
	}
	w := t.shell
	w.mu.Lock()
	before, partial := w.before(ctx)
	return func() (string, []string) {
		defer w.mu.Unlock()
		return w.after(context.WithoutCancel(ctx), before, partial)
	}
}

// gitArgs are the arguments every git command starts with: nothing a
// repository's config names runs (no fsmonitor), and no lock is taken.
var gitArgs = []string{"-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "--no-optional-locks"}

func (w *shellWatch) gitCmd(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, w.git, append(append([]string{}, gitArgs...), args...)...)
	cmd.Dir = w.t.dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	return cmd
}

// detect finds out, once, whether the directory is in a git work tree.
func (w *shellWatch) detect(ctx context.Context) {
	if w.checked {
		return
	}
	w.checked = true
	git, err := exec.LookPath("git")
	if err != nil {
		return
	}
	w.git = git
	out, err := w.gitCmd(ctx, "rev-parse", "--is-inside-work-tree").Output()
	if err != nil || strings.TrimSpace(string(out)) != "true" {
		w.git = ""
	}
}

// before lists the directory and, in a git work tree, makes sure every
// listed file has a blob of its content now. partial says the listing
// stopped at MaxFiles.
func (w *shellWatch) before(ctx context.Context) (map[string]entry, bool) {
	w.detect(ctx)
	now, partial := w.list(ctx)
	if w.git == "" {
		return now, partial
	}
	var todo []string
	var bytes int64
	for p, e := range now {
		if old, ok := w.cache[p]; ok && old.stat == e.stat && old.blob != "" {
			e.blob = old.blob
			now[p] = e
			continue
		}
		if !e.ignored && e.mode.IsRegular() && e.size <= w.t.opts.MaxFile && bytes+e.size <= w.lim.MaxBytes {
			todo = append(todo, p)
			bytes += e.size
		}
	}
	if ids, err := w.hash(ctx, todo); err == nil {
		for i, p := range todo {
			e := now[p]
			e.blob = ids[i]
			now[p] = e
		}
	} else {
		w.t.opts.Log.Warn().Err(err).Msg("checkpoint: hashing before a command failed")
	}
	return now, partial
}

// after lists the directory again and keeps each change since before. A
// file git ignores counts only when it was there before: one the command
// made (a build's output, a log) is not the user's to lose.
func (w *shellWatch) after(ctx context.Context, before map[string]entry, partial bool) (string, []string) {
	cp := w.t.running()
	now, partialNow := w.list(ctx)
	var changed []string
	for p, e := range now {
		old, ok := before[p]
		if (!ok && !e.ignored) || (ok && old.stat != e.stat) {
			changed = append(changed, p)
		}
	}
	for p := range before {
		if _, ok := now[p]; !ok {
			changed = append(changed, p)
		}
	}
	sort.Strings(changed)
	var lost []string
	for i, p := range changed {
		if i == w.lim.MaxChanged {
			lost = append(lost, fmt.Sprintf("%d more files", len(changed)-i))
			break
		}
		f := w.change(ctx, p, before, now)
		if cp != 0 {
			if err := w.t.store.SaveFileChange(ctx, cp, f); err != nil {
				return w.t.failed(p, err), changed
			}
			w.t.keep(p)
		}
		if f.Problem != "" {
			lost = append(lost, p)
		}
	}
	// Carry the blobs of unchanged files over to the next command.
	for p, e := range now {
		if old, ok := before[p]; ok && old.stat == e.stat {
			e.blob = old.blob
			now[p] = e
		}
	}
	w.cache = now
	var notes []string
	if len(lost) > 0 {
		notes = append(notes, "changed by the command, not restorable by undo: "+strings.Join(lost, ", "))
	}
	if partial || partialNow {
		notes = append(notes, fmt.Sprintf("only the first %d files of the directory are watched for changes", w.lim.MaxFiles))
	}
	return strings.Join(notes, "; "), changed
}

// change is what the command did to path: its state before (from the
// blob hashed before the command, or the run's earlier record) and after.
// A file git ignores, not kept before, is only named: what it became is
// not kept either.
func (w *shellWatch) change(ctx context.Context, path string, before, now map[string]entry) session.FileChange {
	f := session.FileChange{Path: path, By: "command"}
	if w.t.first(path) {
		if old, ok := before[path]; ok {
			switch {
			case old.ignored:
				f.Problem = "ignored by git, so not snapshotted before the command: undo cannot restore it"
				return f
			case old.blob == "" && w.git == "":
				f.Problem = "changed by a command outside a git work tree: undo cannot restore it"
			case old.blob == "" && old.mode.IsRegular() && old.size > w.t.opts.MaxFile:
				f.Problem = w.t.tooLarge(old.size)
			case old.blob == "":
				f.Problem = "not snapshotted before the command (not a regular file, or past the limits): undo cannot restore it"
			default:
				data, err := w.blob(ctx, old.blob)
				if err == nil {
					f.Before.Hash, err = w.t.store.PutBlob(ctx, data)
				}
				if err != nil {
					f.Problem = "its content before the command could not be kept: " + err.Error()
				}
				f.Before.Mode, f.Before.Size = old.mode.Perm(), old.size
			}
		}
	}
	if _, ok := now[path]; ok {
		after, problem, err := w.t.state(ctx, path)
		switch {
		case err != nil:
			f.Problem = "what the command left could not be read: " + err.Error()
		case problem != "" && f.Problem == "":
			f.Problem = problem
		}
		f.After = after
	}
	return f
}

// list lists the files of the directory: in a git work tree those git
// tracks or would, then those it ignores (marked, and but for those in
// directories it ignores whole, which it does not look into); else every
// file but those in .git directories. At most MaxFiles (partial then).
func (w *shellWatch) list(ctx context.Context) (map[string]entry, bool) {
	out := map[string]entry{}
	add := func(p string, ignored bool) bool {
		if len(out) >= w.lim.MaxFiles {
			return false
		}
		if fi, err := w.t.root.Lstat(filepath.FromSlash(p)); err == nil && !fi.IsDir() {
			out[p] = entry{stat: statOf(fi), ignored: ignored}
		}
		return true
	}
	if w.git != "" {
		listed, err := w.gitCmd(ctx, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
		var ignored []byte
		if err == nil {
			ignored, err = w.gitCmd(ctx, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory").Output()
		}
		if err == nil {
			for i, b := range [][]byte{listed, ignored} {
				for _, p := range strings.Split(string(b), "\x00") {
					if p == "" || strings.HasSuffix(p, "/") {
						continue
					}
					if _, seen := out[p]; !seen && !add(p, i == 1) {
						return out, true
					}
				}
			}
			return out, false
		}
		w.t.opts.Log.Warn().Err(err).Msg("checkpoint: git ls-files failed; listing the directory")
	}
	partial := false
	_ = fs.WalkDir(w.t.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && d.Name() == ".git":
			return fs.SkipDir
		case d.IsDir():
			return nil
		}
		if !add(p, false) {
			partial = true
			return fs.SkipAll
		}
		return nil
	})
	return out, partial
}

func statOf(fi fs.FileInfo) stat {
	s := stat{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.ctime = ctime(st)
		s.ino = st.Ino
	}
	return s
}

// hash writes blobs of paths to the repository's object store, content
// as it is on disk (no filter runs), and returns their ids in order.
func (w *shellWatch) hash(ctx context.Context, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	cmd := w.gitCmd(ctx, "hash-object", "-w", "--no-filters", "--stdin-paths")
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git hash-object: %w", err)
	}
	ids := strings.Fields(string(out))
	if len(ids) != len(paths) {
		return nil, fmt.Errorf("git hash-object gave %d ids for %d files", len(ids), len(paths))
	}
	return ids, nil
}

// blob reads a blob from the repository's object store.
func (w *shellWatch) blob(ctx context.Context, id string) ([]byte, error) {
	cmd := w.gitCmd(ctx, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(id + "\n")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	r := bufio.NewReader(bytes.NewReader(out))
	header, err := r.ReadString('\n')
	if err != nil {
		return nil, errors.New("git cat-file: no header")
	}
	fields := strings.Fields(header)
	if len(fields) != 3 || fields[1] != "blob" {
		return nil, fmt.Errorf("git cat-file: %s", strings.TrimSpace(header))
	}
	size, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil {
		return nil, err
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	return data, nil
}
