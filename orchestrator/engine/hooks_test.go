package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator/hooks"
)

// TestUserHookThatRunsAProjectFile: a hook of the user's own config that
// runs ./fmt.sh of the project does not run until trusted, as a project's
// hook; --trust-project-hooks runs it for one run; trusted and kept, it
// runs the next time, until fmt.sh changes. A hook of the user's that runs
// nothing of the project (echo hi) runs unasked.
func TestUserHookThatRunsAProjectFile(t *testing.T) {
	ws, data, home := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(content string) {
		if err := os.WriteFile(filepath.Join(ws, "fmt.sh"), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("#!/bin/sh\necho fmt >> log\n")
	getenv := func(k string) string { return map[string]string{"XDG_DATA_HOME": data}[k] }
	user := filepath.Join(home, "lathe", "config.toml")
	load := func(commands ...string) config.Loaded {
		var loaded config.Loaded
		for _, c := range commands {
			loaded.Hooks.PreToolUse = append(loaded.Hooks.PreToolUse,
				config.Hook{Event: hooks.PreToolUse, Command: c, Source: user})
		}
		return loaded
	}
	env := func(trust bool) HooksEnv {
		return HooksEnv{Dir: ws, Environ: []string{"PATH=/usr/bin:/bin"}, Getenv: getenv, Trust: trust, Log: zerolog.Nop()}
	}
	ran := func(r *hooks.Runner) []string {
		var out []string
		for _, run := range r.Run(t.Context(), hooks.Input{Event: hooks.PreToolUse, ToolName: "shell"}).Runs {
			if run.Status == hooks.StatusOK {
				out = append(out, run.Hook.Command)
			}
		}
		return out
	}

	echo := load("echo hi")
	if r, warning := NewHooks(echo, env(false)); warning != "" || r.Untrusted() != nil || strings.Join(ran(r), ",") != "echo hi" {
		t.Errorf("echo hi: warning %q, ran %q", warning, ran(r))
	}
	if KeepHooksTrust(echo, ws, getenv) != nil {
		t.Error("echo hi needs no trust, yet there is some to keep")
	}

	loaded := load("echo hi", "./fmt.sh")
	r, _ := NewHooks(loaded, env(false))
	if got := ran(r); strings.Join(got, ",") != "echo hi" {
		t.Errorf("untrusted: ran %q, want echo hi alone", got)
	}
	notes := UntrustedHooksNotes(r, true)
	want := `the hook PreToolUse "./fmt.sh" does not run: your own hook, but it runs fmt.sh from the project, ` +
		`which a command in the sandbox may have written (pass --trust-project-hooks to run it)`
	if len(notes) != 1 || notes[0] != want {
		t.Errorf("notes %q,\nwant %q", notes, want)
	}
	if r, _ := NewHooks(loaded, env(true)); strings.Join(ran(r), ",") != "echo hi,./fmt.sh" {
		t.Errorf("--trust-project-hooks: ran %q", ran(r))
	}

	keep := KeepHooksTrust(loaded, ws, getenv)
	if keep == nil {
		t.Fatal("no trust to keep")
	}
	if err := keep(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(data, "lathe", hooks.TrustFileName))
	if !strings.Contains(string(b), `"./fmt.sh"`) {
		t.Errorf("trust file:\n%s", b)
	}
	r, _ = NewHooks(loaded, env(false))
	if r.Untrusted() != nil || strings.Join(ran(r), ",") != "echo hi,./fmt.sh" {
		t.Errorf("kept trust: ran %q", ran(r))
	}
	write("#!/bin/sh\necho pwned >> log\n") // what a sandboxed command could do
	if got := ran(r); strings.Join(got, ",") != "echo hi" {
		t.Errorf("fmt.sh changed in the session: ran %q", got)
	}
	r, _ = NewHooks(loaded, env(false))
	if got := ran(r); strings.Join(got, ",") != "echo hi" || len(r.Untrusted()) != 1 {
		t.Errorf("fmt.sh changed since trusted: ran %q, untrusted %v", got, r.Untrusted())
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "log")); strings.Contains(string(b), "pwned") {
		t.Errorf("the changed fmt.sh ran: log %q", b)
	}
}
