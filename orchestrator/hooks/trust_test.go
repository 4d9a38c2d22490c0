package hooks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestProjectHooksNeedTrust: a project's hook runs only once trusted, and
// not at all once a script it runs changed since.
func TestProjectHooksNeedTrust(t *testing.T) {
	dir := t.TempDir()
	script(t, dir, ".claude/hooks/guard.sh", `echo ran >> "$CLAUDE_PROJECT_DIR/log"`)
	proj := Hook{Event: PreToolUse, Command: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`, Project: true,
		Source: filepath.Join(dir, ".claude/settings.json")}
	user := Hook{Event: PreToolUse, Command: "true"}
	r := New(Options{Hooks: []Hook{user, proj}, Dir: dir, Environ: os.Environ()})
	if u := r.Untrusted(); len(u) != 1 || u[0].Command != proj.Command {
		t.Fatalf("untrusted %+v", u)
	}
	if o := r.Run(t.Context(), preToolUse("shell")); len(o.Runs) != 1 || o.Runs[0].Hook.Command != "true" {
		t.Fatalf("untrusted project hook ran: %+v", o.Runs)
	}
	r.Trust()
	if len(r.Untrusted()) != 0 {
		t.Error("still untrusted")
	}
	if o := r.Run(t.Context(), preToolUse("shell")); len(o.Runs) != 2 || o.Runs[1].Status != StatusOK {
		t.Fatalf("trusted: %+v", o.Runs)
	}
	// What a sandboxed command could do: change the script.
	script(t, dir, ".claude/hooks/guard.sh", `echo pwned >> "$CLAUDE_PROJECT_DIR/log"`)
	o := r.Run(t.Context(), preToolUse("shell"))
	run := o.Runs[1]
	if run.Status != StatusChanged || !strings.Contains(run.Problem, "guard.sh changed since the project's hooks were trusted") || !run.Warn {
		t.Errorf("changed script: %+v", run)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "log")); string(b) != "ran\n" {
		t.Errorf("log %q: the changed script ran", b)
	}
	// Trusted again, it runs as it is now.
	r.Trust()
	if o := r.Run(t.Context(), preToolUse("shell")); o.Runs[1].Status != StatusOK {
		t.Errorf("trusted again: %+v", o.Runs[1])
	}
}

// TestDigest: the digest changes with a project hook's definition and
// with the content of what its command names, even a file that was not
// there; not with the user's hooks, nor when the project moves.
func TestDigest(t *testing.T) {
	dir := t.TempDir()
	script(t, dir, "fmt.sh", "gofmt -l .")
	hooks := []Hook{{Event: PostToolUse, Matcher: "Write", Command: "./fmt.sh && bash later.sh", Project: true,
		Source: filepath.Join(dir, ".lathe/config.toml")}}
	d0 := Digest(hooks, dir, nil)
	for _, tc := range []struct {
		name   string
		change func() ([]Hook, string)
		same   bool
	}{
		{"the same", func() ([]Hook, string) { return hooks, dir }, true},
		{"a user hook added", func() ([]Hook, string) {
			return append(slices.Clone(hooks), Hook{Event: Stop, Command: "x"}), dir
		}, true},
		{"matcher", func() ([]Hook, string) {
			h := slices.Clone(hooks)
			h[0].Matcher = "Edit"
			return h, dir
		}, false},
		{"timeout", func() ([]Hook, string) {
			h := slices.Clone(hooks)
			h[0].Timeout = time.Second
			return h, dir
		}, false},
		{"a file it does not run", func() ([]Hook, string) {
			if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			return hooks, dir
		}, true},
		{"the project moved", func() ([]Hook, string) {
			moved := t.TempDir()
			script(t, moved, "fmt.sh", "gofmt -l .")
			h := slices.Clone(hooks)
			h[0].Source = filepath.Join(moved, ".lathe/config.toml")
			return h, moved
		}, true},
		{"the script", func() ([]Hook, string) {
			script(t, dir, "fmt.sh", "rm -rf ~")
			return hooks, dir
		}, false},
		{"a file appears", func() ([]Hook, string) {
			script(t, dir, "fmt.sh", "gofmt -l .")
			script(t, dir, "later.sh", "rm -rf ~")
			return hooks, dir
		}, false},
	} {
		h, d := tc.change()
		if same := Digest(h, d, nil) == d0; same != tc.same {
			t.Errorf("%s: same digest %v, want %v", tc.name, same, tc.same)
		}
	}
}

func TestTrustFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe", TrustFileName)
	if ok, err := Trusted(path, "/p", "sha256:1"); ok || err != nil {
		t.Fatalf("no file: %v %v", ok, err)
	}
	if err := Trust(path, "/p", "sha256:1", []string{"./fmt.sh"}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if ok, _ := Trusted(path, "/p", "sha256:1"); !ok {
		t.Error("not trusted after Trust")
	}
	if ok, _ := Trusted(path, "/p", "sha256:2"); ok {
		t.Error("other hooks trusted")
	}
	if ok, _ := Trusted(path, "/q", "sha256:1"); ok {
		t.Error("another directory trusted")
	}
	if err := os.WriteFile(path, []byte("["), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Trusted(path, "/p", "sha256:1"); err == nil || !strings.Contains(err.Error(), "is damaged") {
		t.Errorf("damaged: %v", err)
	}
}

func TestShellWords(t *testing.T) {
	for in, want := range map[string]string{
		`"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh --fast`: `$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh|--fast`,
		`a 'b c' "d \"e\"" f\ g`:                          `a|b c|d "e"|f g`,
		`./fmt.sh&&jq -r .x<in.json|tee out;(cd x)`:       `./fmt.sh / jq|-r|.x|in.json / tee|out / cd|x`,
	} {
		var lines []string
		for _, l := range commandLines(in) {
			lines = append(lines, strings.Join(l, "|"))
		}
		if got := strings.Join(lines, " / "); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

// TestHookRunFiles: what a project's hook runs from the project is found
// as for an MCP server (package runfiles): the package python -m imports,
// the script of an interpreter behind VAR=value; and a file of it that
// changes after the trust stops the hook, while a file the hook only
// reads or writes does not.
func TestHookRunFiles(t *testing.T) {
	dir := t.TempDir()
	script(t, dir, "tools/lint/__init__.py", "")
	script(t, dir, "tools/lint/__main__.py", "print('ok')")
	script(t, dir, "check.sh", "true")
	for _, tc := range []struct{ command, want string }{
		{"python3 -m tools.lint > lint.log", "tools"},
		{"cd . && FAST=1 sh check.sh < input.json", "check.sh"},
	} {
		got := runFiles(tc.command, dir, nil)
		var rel []string
		for _, p := range got {
			r, _ := filepath.Rel(dir, p)
			rel = append(rel, r)
		}
		if !slices.Contains(rel, tc.want) || slices.Contains(rel, "lint.log") || slices.Contains(rel, "input.json") {
			t.Errorf("%s: runs %q, want %s and no data file", tc.command, rel, tc.want)
		}
	}
	h := Hook{Event: PreToolUse, Command: "python3 -m tools.lint > lint.log", Project: true}
	p := pinScripts([]Hook{h}, dir, nil)
	if err := os.WriteFile(filepath.Join(dir, "lint.log"), []byte("written"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := p.changed(h, dir, nil); c != "" {
		t.Errorf("changed %q after the hook's output was written", c)
	}
	script(t, dir, "tools/lint/rules.py", "import os")
	if c := p.changed(h, dir, nil); !strings.HasSuffix(c, "/tools") {
		t.Errorf("changed %q after a module was added to the package it runs, want tools", c)
	}
}

// TestHookScriptBehindALink: a hook's script that is a link to a file
// outside the project is trusted with that file's content: a change to it
// stops the hook.
func TestHookScriptBehindALink(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	target := script(t, elsewhere, "fmt.sh", "gofmt -l .")
	if err := os.Symlink(target, filepath.Join(dir, "fmt.sh")); err != nil {
		t.Fatal(err)
	}
	h := Hook{Event: PostToolUse, Command: "./fmt.sh", Project: true}
	p := pinScripts([]Hook{h}, dir, nil)
	d0 := Digest([]Hook{h}, dir, nil)
	if c := p.changed(h, dir, nil); c != "" {
		t.Fatalf("changed %q before any change", c)
	}
	script(t, elsewhere, "fmt.sh", "rm -rf ~")
	if c := p.changed(h, dir, nil); c == "" {
		t.Error("the file behind the link changed, and the hook would still run")
	}
	if Digest([]Hook{h}, dir, nil) == d0 {
		t.Error("the digest did not change with the file behind the link")
	}
}

// TestUserHooksThatRunProjectFiles: a hook of the user's own that runs a
// file of the project needs trust as a project's hook does, and stops
// once that file changes; one that runs nothing of the project (a program,
// a script of the user's elsewhere) runs unasked.
func TestUserHooksThatRunProjectFiles(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	script(t, dir, "fmt.sh", `echo fmt >> "$CLAUDE_PROJECT_DIR/log"`)
	mine := script(t, home, "check.sh", `echo check >> "$CLAUDE_PROJECT_DIR/log"`)
	fmtHook := Hook{Event: PreToolUse, Command: "./fmt.sh", Source: filepath.Join(home, "config.toml")}
	hooks := []Hook{
		{Event: PreToolUse, Command: `echo hi >> "$CLAUDE_PROJECT_DIR/log"`},
		{Event: PreToolUse, Command: mine},
		fmtHook,
	}
	r := New(Options{Hooks: hooks, Dir: dir, Environ: os.Environ()})
	if u := r.Untrusted(); len(u) != 1 || u[0] != fmtHook {
		t.Fatalf("untrusted %+v, want ./fmt.sh alone", u)
	}
	if why := r.TrustReason(fmtHook); why != "your own hook, but it runs fmt.sh from the project, which a command in the sandbox may have written" {
		t.Errorf("reason %q", why)
	}
	if why := r.TrustReason(hooks[1]); why != "" {
		t.Errorf("a script outside the project: reason %q", why)
	}
	log := func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.Remove(filepath.Join(dir, "log"))
		return string(b)
	}
	if o := r.Run(t.Context(), preToolUse("shell")); len(o.Runs) != 2 {
		t.Fatalf("untrusted: %+v", o.Runs)
	}
	if l := log(); !slices.Equal(sortedLines(l), []string{"check", "hi"}) {
		t.Errorf("untrusted: log %q, want hi and check alone", l)
	}
	r.Trust()
	if o := r.Run(t.Context(), preToolUse("shell")); len(o.Runs) != 3 || o.Runs[2].Status != StatusOK {
		t.Fatalf("trusted: %+v", o.Runs)
	}
	if l := log(); !slices.Equal(sortedLines(l), []string{"check", "fmt", "hi"}) {
		t.Errorf("trusted: log %q", l)
	}
	// What a sandboxed command could do: change the script.
	script(t, dir, "fmt.sh", `echo pwned >> "$CLAUDE_PROJECT_DIR/log"`)
	o := r.Run(t.Context(), preToolUse("shell"))
	if run := o.Runs[2]; run.Status != StatusChanged || !strings.Contains(run.Problem, "fmt.sh changed since") {
		t.Errorf("changed script: %+v", run)
	}
	if l := log(); strings.Contains(l, "pwned") {
		t.Errorf("the changed script ran: log %q", l)
	}
	// The user's own script, outside the project, is the user's: changed,
	// it runs.
	script(t, home, "check.sh", `echo check2 >> "$CLAUDE_PROJECT_DIR/log"`)
	if o := r.Run(t.Context(), preToolUse("shell")); o.Runs[1].Status != StatusOK {
		t.Errorf("the user's own script changed: %+v", o.Runs[1])
	}
}

// TestUserHookComesToRunAProjectFile: a hook of the user's that ran no file
// of the project when trusted (the module python -m names was not there)
// does not run one that appears later.
func TestUserHookComesToRunAProjectFile(t *testing.T) {
	dir := t.TempDir()
	h := Hook{Event: PreToolUse, Command: "python3 -m lintx"}
	r := New(Options{Hooks: []Hook{h}, Dir: dir, Environ: []string{"PATH=/usr/bin:/bin"}, Trusted: true})
	script(t, dir, "lintx.py", "import os")
	o := r.Run(t.Context(), preToolUse("shell"))
	if len(o.Runs) != 1 || o.Runs[0].Status != StatusChanged || !strings.Contains(o.Runs[0].Problem, "lintx.py") {
		t.Errorf("a module of the project appeared: %+v", o.Runs)
	}
	untrusted := New(Options{Hooks: []Hook{h}, Dir: dir, Environ: []string{"PATH=/usr/bin:/bin"}})
	if o := untrusted.Run(t.Context(), preToolUse("shell")); len(o.Runs) != 0 {
		t.Errorf("untrusted, it ran: %+v", o.Runs)
	}
}

// TestDigestOfUserHooks: the digest covers a hook of the user's that runs
// a file of the project, and that file, but not one that runs none.
func TestDigestOfUserHooks(t *testing.T) {
	dir := t.TempDir()
	script(t, dir, "fmt.sh", "gofmt -l .")
	none := Digest(nil, dir, nil)
	if Digest([]Hook{{Event: Stop, Command: "gofmt -l ."}}, dir, nil) != none {
		t.Error("a user hook that runs no file of the project changed the digest")
	}
	hooks := []Hook{{Event: Stop, Command: "./fmt.sh"}}
	d0 := Digest(hooks, dir, nil)
	if d0 == none {
		t.Fatal("a user hook that runs fmt.sh is not in the digest")
	}
	script(t, dir, "fmt.sh", "rm -rf ~")
	if Digest(hooks, dir, nil) == d0 {
		t.Error("the digest did not change with fmt.sh")
	}
}

// sortedLines are the lines of s, sorted: hooks run at once, and write in
// any order.
func sortedLines(s string) []string {
	l := strings.Fields(s)
	slices.Sort(l)
	return l
}
