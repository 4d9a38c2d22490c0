package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/rs/zerolog"

	"lathe/orchestrator"
	"lathe/orchestrator/hooks"
	"lathe/tools"
)

// TestCardShowsItsHooks: a call's card says what its hooks did, under
// its header.
func TestCardShowsItsHooks(t *testing.T) {
	st := newTheme(true, true)
	c := &toolCard{start: orchestrator.ToolStarted{Name: "write_file", Kind: tools.KindWrite, Subject: "vendor/x.go"}}
	c.finish(orchestrator.ToolFinished{Outcome: orchestrator.OutcomeDenied, Result: tools.Result{Summary: "blocked by a hook"},
		HookNotes: []string{"PreToolUse hook blocked it: no writes under vendor/"}, Duration: time.Millisecond})
	got := ansi.Strip(strings.Join(c.lines(80, &st), "\n"))
	if !strings.Contains(got, "⊘ write_file vendor/x.go · blocked by a hook") || !strings.Contains(got, "⚑ PreToolUse hook blocked it: no writes under vendor/") {
		t.Errorf("card:\n%s", got)
	}
}

// hooksModel is a test model with a user hook and a project hook, the
// project's not trusted.
func hooksModel(t *testing.T) (*model, *hooks.Runner, *bool) {
	t.Helper()
	r := hooks.New(hooks.Options{Dir: t.TempDir(), Log: zerolog.Nop(), Hooks: []hooks.Hook{
		{Event: hooks.Stop, Command: "notify-send done", Source: "/home/dev/.config/lathe/config.toml"},
		{Event: hooks.PreToolUse, Matcher: "Edit|Write", Command: "./guard.sh", Project: true, Source: "/home/dev/proj/.claude/settings.json"},
	}})
	m, _ := testModel(t)
	kept := false
	m.opts.Hooks, m.opts.TrustHooks = r, func() error { kept = true; return nil }
	m.offerHooksTrust()
	m.layout()
	return m, r, &kept
}

func TestHooksTrustDialog(t *testing.T) {
	m, r, kept := hooksModel(t)
	if _, ok := m.dialog.(*hooksTrustDialog); !ok {
		t.Fatalf("no trust dialog: %T", m.dialog)
	}
	s := screen(m)
	if !strings.Contains(s, "This project declares hooks") || !strings.Contains(s, "PreToolUse Edit|Write: ./guard.sh") ||
		strings.Contains(s, "notify-send") {
		t.Errorf("the dialog:\n%s", s)
	}
	_, cmd := m.Update(keyPress("y"))
	_, cmd = m.Update(cmd()) // the dialog closes
	finish(m, cmd)
	if !*kept || len(r.Untrusted()) != 0 {
		t.Errorf("kept %v, untrusted %v", *kept, r.Untrusted())
	}
	if !strings.Contains(screen(m), "The project's hooks run from now on.") {
		t.Errorf("no notice:\n%s", screen(m))
	}
	m.offerHooksTrust()
	if m.dialog != nil {
		t.Error("asked twice")
	}
}

// TestUserHooksTrustDialog: a hook of the user's own that runs a file of
// the project is asked about at start, with why; y lets it run and keeps
// the trust; /hooks tells why it waits.
func TestUserHooksTrustDialog(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fmt.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := hooks.New(hooks.Options{Dir: dir, Log: zerolog.Nop(), Hooks: []hooks.Hook{
		{Event: hooks.Stop, Command: "notify-send done", Source: "/home/dev/.config/lathe/config.toml"},
		{Event: hooks.PostToolUse, Matcher: "Write", Command: "./fmt.sh", Source: "/home/dev/.config/lathe/config.toml"},
	}})
	m, _ := testModel(t)
	kept := false
	m.opts.Hooks, m.opts.TrustHooks = r, func() error { kept = true; return nil }
	m.offerHooksTrust()
	m.layout()
	if _, ok := m.dialog.(*hooksTrustDialog); !ok {
		t.Fatalf("no trust dialog: %T", m.dialog)
	}
	s := strings.Join(strings.Fields(screen(m)), " ")
	for _, want := range []string{"Hooks of yours run files of this project", "PostToolUse Write: ./fmt.sh (your own hook, but it runs fmt.sh"} {
		if !strings.Contains(s, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, screen(m))
		}
	}
	if strings.Contains(s, "notify-send") || strings.Contains(s, "This project declares hooks") {
		t.Errorf("the dialog:\n%s", screen(m))
	}
	m.dialog = nil
	typeText(m, "/hooks")
	press(m, "enter")
	if s := strings.Join(strings.Fields(screen(m)), " "); !strings.Contains(s, "not trusted: does not run: your own hook, but it runs fmt.sh from the project") ||
		!strings.Contains(s, "Hooks that run files of the project run outside the sandbox") {
		t.Errorf("/hooks:\n%s", screen(m))
	}
	m.hooks.asked = false
	m.offerHooksTrust()
	_, cmd := m.Update(keyPress("y"))
	_, cmd = m.Update(cmd()) // the dialog closes
	finish(m, cmd)
	if !kept || len(r.Untrusted()) != 0 {
		t.Errorf("kept %v, untrusted %v", kept, r.Untrusted())
	}
	if s := screen(m); !strings.Contains(s, "Your hooks that run the project's files run from now on.") ||
		strings.Contains(s, "The project's hooks") {
		t.Errorf("the notice speaks of the project's hooks:\n%s", s)
	}
}

func TestHooksCommand(t *testing.T) {
	m, _, _ := hooksModel(t)
	m.dialog = nil
	typeText(m, "/hooks")
	press(m, "enter")
	s := screen(m)
	for _, want := range []string{"Stop *", "notify-send done (~/.config/lathe/config.toml)",
		"PreToolUse Edit|Write", "./guard.sh (.claude/settings.json, not trusted: does", "/hooks trust"} {
		if !strings.Contains(s, want) {
			t.Errorf("/hooks lacks %q:\n%s", want, s)
		}
	}
}

// TestHookNotices: the hooks of events other than a call's are told.
func TestHookNotices(t *testing.T) {
	m, _ := testModel(t)
	m.hookRan(orchestrator.HookRan{Event: hooks.UserPromptSubmit, Index: -1, Outcome: hooks.Outcome{Block: true, Reason: "holds a password",
		Runs: []hooks.Run{{Status: hooks.StatusBlocked, Output: "holds a password"}}}})
	m.hookRan(orchestrator.HookRan{Event: hooks.SessionStart, Index: -1, Outcome: hooks.Outcome{Runs: []hooks.Run{{Status: hooks.StatusOK, Output: "on branch main"}}}})
	m.hookRan(orchestrator.HookRan{Event: hooks.PreToolUse, Tool: "shell", Index: 0, Outcome: hooks.Outcome{Block: true, Reason: "card only"}})
	s := screen(m)
	if !strings.Contains(s, "A UserPromptSubmit hook blocked the prompt: holds a password") || !strings.Contains(s, "SessionStart hook: on branch main") ||
		strings.Contains(s, "card only") {
		t.Errorf("notices:\n%s", s)
	}
}
