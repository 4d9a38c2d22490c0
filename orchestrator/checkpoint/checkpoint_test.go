package checkpoint

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/orchestrator/session/sqlite/sqlitetest"
)

// env is a directory tracked for session "s1" in a database of its own.
type env struct {
	t   *testing.T
	dir string
	db  *sqlite.DB
	tr  *Tracker
}

func newEnv(t *testing.T, files map[string]string, opts Options) *env {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		write(t, filepath.Join(dir, name), content)
	}
	db := sqlitetest.Open(t)
	if err := db.CreateSession(t.Context(), session.Record{ID: "s1", Dir: dir}); err != nil {
		t.Fatal(err)
	}
	tr, err := New(db, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return &env{t: t, dir: dir, db: db, tr: tr}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tool writes a file as a file tool does: told first, then written.
func (e *env) tool(path, content string) string {
	e.t.Helper()
	note := e.tr.Changing(e.t.Context(), path, []byte(content), 0o644)
	write(e.t, filepath.Join(e.dir, path), content)
	return note
}

// files reads the named files; "-" for a missing one.
func (e *env) files(names ...string) string {
	var out []string
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(e.dir, n))
		if err != nil {
			out = append(out, n+"=-")
			continue
		}
		out = append(out, n+"="+string(b))
	}
	return strings.Join(out, " ")
}

// last is the session's last checkpoint not undone.
func (e *env) last() session.Checkpoint {
	e.t.Helper()
	cps, err := e.db.Checkpoints(e.t.Context(), "s1")
	if err != nil {
		e.t.Fatal(err)
	}
	undo, _ := Last(cps)
	if undo == nil {
		e.t.Fatal("no checkpoint to undo")
	}
	return *undo
}

func (e *env) undo(force bool) (Plan, Outcome) {
	e.t.Helper()
	p, err := e.tr.PlanUndo(e.t.Context(), e.last())
	if err != nil {
		e.t.Fatal(err)
	}
	out, err := e.tr.Apply(e.t.Context(), p, force)
	if err != nil {
		e.t.Fatal(err)
	}
	return p, out
}

// A change told with its ctx cancelled (the user interrupted the call
// while it wrote) is still kept: the file is changed all the same.
func TestChangeKeptWhenCancelled(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "a0"}, Options{})
	if err := e.tr.Begin(t.Context(), "s1", 0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if note := e.tr.Changing(ctx, "a.txt", []byte("a1"), 0o644); note != "" {
		t.Fatalf("note %q", note)
	}
	write(t, filepath.Join(e.dir, "a.txt"), "a1")
	e.tr.End()
	e.undo(false)
	if got := e.files("a.txt"); got != "a.txt=a0" {
		t.Errorf("after undo: %s", got)
	}
}

func TestUndoAndRedoToolChanges(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "a0", "b.txt": "b0"}, Options{})
	ctx := t.Context()
	if err := e.tr.Begin(ctx, "s1", 0); err != nil {
		t.Fatal(err)
	}
	e.tool("a.txt", "a1")
	e.tool("a.txt", "a2") // a second change keeps the first before
	e.tool("new/c.txt", "c1")
	e.tr.End()
	e.tool("b.txt", "b1") // outside a run: not kept
	want := "a.txt=a2 b.txt=b1 new/c.txt=c1"
	if got := e.files("a.txt", "b.txt", "new/c.txt"); got != want {
		t.Fatalf("after the run: %s", got)
	}

	p, out := e.undo(false)
	if got := e.files("a.txt", "b.txt", "new/c.txt"); got != "a.txt=a0 b.txt=b1 new/c.txt=-" {
		t.Errorf("after undo: %s", got)
	}
	if len(out.Done) != 2 || out.Done[0].Do != Restore || out.Done[1].Do != Remove || p.Conflicts() {
		t.Errorf("undo did %+v", out)
	}
	if !strings.Contains(p.Actions[0].Diff, "-a2") || !strings.Contains(p.Actions[0].Diff, "+a0") {
		t.Errorf("diff shown:\n%s", p.Actions[0].Diff)
	}

	cps, _ := e.db.Checkpoints(ctx, "s1")
	undo, redo := Last(cps)
	if undo != nil || redo == nil {
		t.Fatalf("after undo: undo %v, redo %v", undo, redo)
	}
	rp, err := e.tr.PlanRedo(ctx, *redo)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.tr.Apply(ctx, rp, false); err != nil {
		t.Fatal(err)
	}
	if got := e.files("a.txt", "b.txt", "new/c.txt"); got != want {
		t.Errorf("after redo: %s", got)
	}
}

// TestUndoRefusesWhatChangedSince: a file changed after the run is left
// alone and the rest restored; with force it is overwritten. The plan
// shows the three versions: what changed since lathe left it, and what
// forcing would make of it now.
func TestUndoRefusesWhatChangedSince(t *testing.T) {
	for _, force := range []bool{false, true} {
		e := newEnv(t, map[string]string{"a.txt": "a0", "b.txt": "b0"}, Options{})
		e.tr.Begin(t.Context(), "s1", 0)
		e.tool("a.txt", "a1")
		e.tool("b.txt", "b1")
		e.tr.End()
		write(t, filepath.Join(e.dir, "a.txt"), "mine")
		p, out := e.undo(force)
		a := p.Actions[0]
		since := "--- a.txt (as lathe left it)\n+++ a.txt (now)\n@@ -1 +1 @@\n-a1\n"
		forced := "--- a.txt (now)\n+++ a.txt (before the request)\n@@ -1 +1 @@\n-mine\n"
		if !p.Conflicts() || !strings.HasPrefix(a.Since, since) || !strings.Contains(a.Since, "+mine") ||
			!strings.HasPrefix(a.Diff, forced) || !strings.Contains(a.Diff, "+a0") {
			t.Errorf("the conflict is not shown:\nsince:\n%s\nforced:\n%s", a.Since, a.Diff)
		}
		want, refused := "a.txt=mine b.txt=b0", 1
		if force {
			want, refused = "a.txt=a0 b.txt=b0", 0
		}
		if got := e.files("a.txt", "b.txt"); got != want || len(out.Refused) != refused {
			t.Errorf("force %v: %s, refused %+v", force, got, out.Refused)
		}
	}
}

// TestUndoPastADirectoryReplaced: a directory replaced since the run by a
// symlink leading outside, or by a file, keeps its files from being
// restored: each is named with why, the rest are restored, and nothing
// outside is touched (the whole undo used to fail on "statat sub/b.txt:
// path escapes from parent").
func TestUndoPastADirectoryReplaced(t *testing.T) {
	for _, c := range []struct {
		name, why string
		replace   func(t *testing.T, sub, outside string)
	}{
		{"by a symlink out", "leads outside the working directory through sub, a symlink now: undo cannot restore it",
			func(t *testing.T, sub, outside string) { mustDo(t, os.Symlink(outside, sub)) }},
		{"by a file", "sub is no longer a directory: undo cannot restore it",
			func(t *testing.T, sub, _ string) { write(t, sub, "a file now") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, map[string]string{"sub/b.txt": "b0", "c.txt": "c0"}, Options{})
			outside := t.TempDir()
			write(t, filepath.Join(outside, "b.txt"), "outside")
			e.tr.Begin(t.Context(), "s1", 0)
			e.tool("sub/b.txt", "b1")
			e.tool("c.txt", "c1")
			e.tr.End()
			mustDo(t, os.Rename(filepath.Join(e.dir, "sub"), filepath.Join(e.dir, "sub_old")))
			c.replace(t, filepath.Join(e.dir, "sub"), outside)
			p, out := e.undo(false)
			if len(p.Actions) != 2 || p.Actions[1].Path != "sub/b.txt" || p.Actions[1].Do != Refuse || p.Actions[1].Why != c.why {
				t.Fatalf("plan %+v", p.Actions)
			}
			if got := e.files("c.txt"); got != "c.txt=c0" || len(out.Done) != 1 || len(out.Refused) != 1 {
				t.Errorf("%s, done %+v, refused %+v", got, out.Done, out.Refused)
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "b.txt")); string(b) != "outside" {
				t.Errorf("the file outside became %q", b)
			}
		})
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestRewind: rewinding takes several runs back at once, each file to what
// it was before the oldest run that changed it, or leaves it alone whole
// when it was changed after the newest run or between two of them.
func TestRewind(t *testing.T) {
	for _, tt := range []struct {
		name    string
		between string // what someone writes to a.txt after the first run
		after   string // and after the last
		force   bool
		want    string
		why     string
		since   []string // what the diff of what changed shows
		forced  string   // what the diff of what forcing does removes
	}{
		{name: "clean", want: "a.txt=a0 b.txt=-"},
		{name: "changed since", after: "mine", want: "a.txt=mine b.txt=-",
			why: "changed since the run", since: []string{"+++ a.txt (now)", "-a3", "+mine"}, forced: "-mine"},
		{name: "changed between", between: "mine", want: "a.txt=a3 b.txt=-",
			why: "changed between two of the requests", since: []string{"+++ a.txt (as the next request found it)", "-a1", "+mine"},
			forced: "-a3"},
		{name: "changed between, forced", between: "mine", force: true, want: "a.txt=a0 b.txt=-",
			why: "changed between two of the requests"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, map[string]string{"a.txt": "a0"}, Options{})
			for i, content := range []string{"a1", "a2", "a3"} {
				e.tr.Begin(t.Context(), "s1", i)
				e.tool("a.txt", content)
				if i == 1 {
					e.tool("b.txt", "b1")
				}
				e.tr.End()
				if i == 0 && tt.between != "" {
					write(t, filepath.Join(e.dir, "a.txt"), tt.between)
				}
			}
			if tt.after != "" {
				write(t, filepath.Join(e.dir, "a.txt"), tt.after)
			}
			cps, _ := e.db.Checkpoints(t.Context(), "s1")
			p, err := e.tr.PlanRewind(t.Context(), cps)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Runs) != 3 || p.Runs[0].ID != cps[2].ID || len(p.Actions) != 2 || p.Actions[1].Do != Remove {
				t.Fatalf("plan %+v", p)
			}
			a := p.Actions[0]
			if a.Why != tt.why || a.Conflict != (tt.why != "") {
				t.Errorf("a.txt: %s %q, want %q", a.Do, a.Why, tt.why)
			}
			for _, w := range tt.since {
				if !strings.Contains(a.Since, w) {
					t.Errorf("what changed lacks %q:\n%s", w, a.Since)
				}
			}
			if tt.forced != "" && !strings.Contains(a.Diff, "+++ a.txt (before the requests)\n@@ -1 +1 @@\n"+tt.forced) {
				t.Errorf("what forcing does:\n%s", a.Diff)
			}
			if _, err := e.tr.Apply(t.Context(), p, tt.force); err != nil {
				t.Fatal(err)
			}
			if got := e.files("a.txt", "b.txt"); got != tt.want {
				t.Errorf("after the rewind: %s, want %s", got, tt.want)
			}
			cps, _ = e.db.Checkpoints(t.Context(), "s1")
			if undo, _ := Last(cps); undo != nil {
				t.Errorf("run %d is not undone", undo.ID)
			}
		})
	}
}

// TestCrashMidRun: what a run kept before it wrote survives the process:
// a tracker opened afresh undoes it.
func TestCrashMidRun(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "a0"}, Options{})
	e.tr.Begin(t.Context(), "s1", 0)
	e.tool("a.txt", "a1")
	// The process dies here: no End.
	fresh, err := New(e.db, e.dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	e.tr = fresh
	e.undo(false)
	if got := e.files("a.txt"); got != "a.txt=a0" {
		t.Errorf("after undo: %s", got)
	}
}

func TestTooLarge(t *testing.T) {
	e := newEnv(t, map[string]string{"big.bin": strings.Repeat("x", 100)}, Options{MaxFile: 64})
	if note := e.tr.Note("big.bin"); !strings.Contains(note, "too large to checkpoint") {
		t.Errorf("note before the write: %q", note)
	}
	e.tr.Begin(t.Context(), "s1", 0)
	if note := e.tool("big.bin", "small"); !strings.Contains(note, "too large to checkpoint") {
		t.Errorf("note of the write: %q", note)
	}
	e.tr.End()
	_, out := e.undo(false)
	if len(out.Refused) != 1 || !strings.Contains(out.Refused[0].Why, "too large") || e.files("big.bin") != "big.bin=small" {
		t.Errorf("undo of a file too large: %+v, %s", out, e.files("big.bin"))
	}
}

// TestKeepNoFile: with KeepNoFile, every write is said not undoable before
// it is approved, empty and new files too, and undo restores nothing; a
// run checkpointed before, with files kept, is still undone.
func TestKeepNoFile(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "a0", "empty.txt": ""}, Options{})
	e.tr.Begin(t.Context(), "s1", 0)
	e.tool("a.txt", "a1")
	e.tr.End()
	none, err := New(e.db, e.dir, Options{MaxFile: KeepNoFile})
	if err != nil {
		t.Fatal(err)
	}
	defer none.Close()
	e.tr = none
	kept, _ := e.db.CheckpointBytes(t.Context())
	for _, p := range []string{"a.txt", "empty.txt", "new.txt"} {
		if note := none.Note(p); !strings.Contains(note, "undo keeps no file") {
			t.Errorf("note before a write to %s: %q", p, note)
		}
	}
	e.tr.Begin(t.Context(), "s1", 1)
	for _, p := range []string{"empty.txt", "new.txt"} {
		if note := e.tool(p, "x"); !strings.Contains(note, "undo keeps no file") {
			t.Errorf("note of the write to %s: %q", p, note)
		}
	}
	e.tr.End()
	if n, _ := e.db.CheckpointBytes(t.Context()); n != kept {
		t.Errorf("%d bytes kept, %d before the run", n, kept)
	}
	_, out := e.undo(false)
	if len(out.Done) != 0 || len(out.Refused) != 2 || !strings.Contains(out.Refused[0].Why, "undo keeps no file") {
		t.Errorf("undo with no file kept: %+v", out)
	}
	if _, out = e.undo(false); len(out.Done) != 1 || e.files("a.txt") != "a.txt=a0" {
		t.Errorf("undo of the run before: %+v, %s", out, e.files("a.txt"))
	}
}

// TestSameContentKeptOnce: a hundred edits of one file cost one blob per
// distinct content, and an unchanged file nothing more.
func TestSameContentKeptOnce(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "v0"}, Options{})
	for i := range 10 {
		e.tr.Begin(t.Context(), "s1", i)
		e.tool("a.txt", "v1")
		e.tool("a.txt", "v0")
		e.tr.End()
	}
	var n int
	if b, err := e.db.CheckpointBytes(t.Context()); err != nil || b == 0 {
		t.Fatalf("bytes %d, %v", b, err)
	}
	cps, _ := e.db.Checkpoints(t.Context(), "s1")
	hashes := map[string]bool{}
	for _, c := range cps {
		for _, f := range c.Files {
			hashes[f.Before.Hash], hashes[f.After.Hash] = true, true
			n++
		}
	}
	if len(cps) != 10 || n != 10 || len(hashes) != 1 {
		t.Errorf("%d checkpoints, %d files, %d distinct contents", len(cps), n, len(hashes))
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// command changes files as a shell command would, around Running.
func (e *env) command(fn func()) string {
	done := e.tr.Running(context.Background())
	fn()
	time.Sleep(2 * time.Millisecond) // distinct times, on coarse clocks too
	note, _ := done()
	return note
}

func TestShellChangesInAGitWorkTree(t *testing.T) {
	e := newEnv(t, map[string]string{"kept.txt": "k0", "edited.txt": "e0", "gone.txt": "g0",
		"untracked.txt": "u0", "ignored.log": "i0", ".gitignore": "*.log\n"}, Options{})
	git(t, e.dir, "init", "-q")
	git(t, e.dir, "add", "kept.txt", "edited.txt", "gone.txt", ".gitignore")
	git(t, e.dir, "commit", "-qm", "init")
	write(t, filepath.Join(e.dir, "edited.txt"), "e-uncommitted") // changed before the run: that is what undo restores
	e.tr.Begin(t.Context(), "s1", 0)
	note := e.command(func() {
		write(t, filepath.Join(e.dir, "edited.txt"), "e1")
		write(t, filepath.Join(e.dir, "untracked.txt"), "u1")
		write(t, filepath.Join(e.dir, "made.txt"), "m1")
		write(t, filepath.Join(e.dir, "ignored.log"), "i1")
		os.Remove(filepath.Join(e.dir, "gone.txt"))
	})
	e.tr.End()
	if note != "changed by the command, not restorable by undo: ignored.log" {
		t.Errorf("note: %q", note)
	}
	_, out := e.undo(false)
	got := e.files("kept.txt", "edited.txt", "gone.txt", "untracked.txt", "made.txt", "ignored.log")
	if want := "kept.txt=k0 edited.txt=e-uncommitted gone.txt=g0 untracked.txt=u0 made.txt=- ignored.log=i1"; got != want {
		t.Errorf("after undo:\n%s\nwant\n%s\n(%+v)", got, want, out)
	}
	status, _ := exec.Command("git", "-C", e.dir, "status", "--porcelain").Output()
	if !strings.Contains(string(status), " M edited.txt") || strings.Contains(string(status), "A ") {
		t.Errorf("the user's index was touched:\n%s", status)
	}
}

// TestShellChangesToIgnoredFiles: in a git work tree, a file git ignores
// that a command changes or removes is not restorable, and said so, by
// the command's note and by undo; one the command makes is not named, nor
// are the files of a directory git ignores whole.
func TestShellChangesToIgnoredFiles(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "a0", ".env": "SECRET=1", "app.log": "l0", "build/out.o": "o0",
		".gitignore": ".env\n*.log\nbuild/\n"}, Options{})
	git(t, e.dir, "init", "-q")
	git(t, e.dir, "add", "a.txt", ".gitignore")
	git(t, e.dir, "commit", "-qm", "init")
	e.tr.Begin(t.Context(), "s1", 0)
	note := e.command(func() {
		os.Remove(filepath.Join(e.dir, ".env"))
		write(t, filepath.Join(e.dir, "app.log"), "l1")
		write(t, filepath.Join(e.dir, "new.log"), "n1")
		write(t, filepath.Join(e.dir, "build/out.o"), "o1")
		write(t, filepath.Join(e.dir, "a.txt"), "a1")
	})
	e.tr.End()
	if want := "changed by the command, not restorable by undo: .env, app.log"; note != want {
		t.Errorf("note: %q, want %q", note, want)
	}
	var paths []string
	for _, f := range e.last().Files {
		paths = append(paths, f.Path)
		if f.Path != "a.txt" && (f.After.Exists() || !strings.Contains(f.Problem, "ignored by git")) {
			t.Errorf("%s: kept %+v", f.Path, f)
		}
	}
	if strings.Join(paths, " ") != ".env a.txt app.log" {
		t.Errorf("the checkpoint holds %q", paths)
	}
	_, out := e.undo(false)
	if got := e.files("a.txt", ".env", "app.log"); got != "a.txt=a0 .env=- app.log=l1" {
		t.Errorf("after undo: %s", got)
	}
	if len(out.Refused) != 2 || out.Refused[0].Path != ".env" || !strings.Contains(out.Refused[0].Why, "ignored by git") {
		t.Errorf("refused: %+v", out.Refused)
	}
}

// TestShellWatchCap: the files git ignores count towards the cap on the
// files watched, listed after those it tracks or would, so that they
// never push those out; past the cap, changes go unseen, and that is said.
func TestShellWatchCap(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "a0", "x.log": "x0", "y.log": "y0", ".gitignore": "*.log\n"},
		Options{Shell: ShellLimits{MaxFiles: 3}})
	git(t, e.dir, "init", "-q")
	git(t, e.dir, "add", "a.txt", ".gitignore")
	git(t, e.dir, "commit", "-qm", "init")
	e.tr.Begin(t.Context(), "s1", 0)
	note := e.command(func() {
		for _, name := range []string{"a.txt", "x.log", "y.log"} {
			write(t, filepath.Join(e.dir, name), "changed")
		}
	})
	e.tr.End()
	if want := "changed by the command, not restorable by undo: x.log; only the first 3 files of the directory are watched for changes"; note != want {
		t.Errorf("note: %q\nwant  %q", note, want)
	}
	e.undo(false)
	if got := e.files("a.txt"); got != "a.txt=a0" {
		t.Errorf("after undo: %s", got)
	}
}

func TestShellChangesOutsideGit(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "a0"}, Options{})
	e.tr.Begin(t.Context(), "s1", 0)
	note := e.command(func() { write(t, filepath.Join(e.dir, "a.txt"), "a1"); write(t, filepath.Join(e.dir, "b.txt"), "b1") })
	e.tr.End()
	if note != "changed by the command, not restorable by undo: a.txt" {
		t.Errorf("note: %q", note)
	}
	_, out := e.undo(false)
	if got := e.files("a.txt", "b.txt"); got != "a.txt=a1 b.txt=-" {
		t.Errorf("after undo: %s", got)
	}
	if len(out.Refused) != 1 || !strings.Contains(out.Refused[0].Why, "outside a git work tree") {
		t.Errorf("refused: %+v", out.Refused)
	}
}

func TestPruneCheckpoints(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "a0"}, Options{})
	for i := range 5 {
		e.tr.Begin(t.Context(), "s1", i)
		e.tool("a.txt", strings.Repeat(string(rune('a'+i)), 10000)+randomish(i))
		e.tr.End()
	}
	before, _ := e.db.CheckpointBytes(t.Context())
	n, err := e.db.PruneCheckpoints(t.Context(), before/2)
	if err != nil || n == 0 {
		t.Fatalf("pruned %d, %v", n, err)
	}
	after, _ := e.db.CheckpointBytes(t.Context())
	cps, _ := e.db.Checkpoints(t.Context(), "s1")
	if after > before/2 || len(cps) != 5-n || cps[len(cps)-1].Seq != 4 {
		t.Errorf("%d → %d bytes, %d checkpoints left (newest seq %d)", before, after, len(cps), cps[len(cps)-1].Seq)
	}
}

// randomish is content that does not compress away.
func randomish(i int) string {
	var b strings.Builder
	x := uint32(i*7919 + 1)
	for range 4000 {
		x = x*1664525 + 1013904223
		b.WriteByte(byte('!' + x>>24%90))
	}
	return b.String()
}
