package hooks

import (
	"os"
	"testing"

	"lathe/tools/sandbox"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Main(os.Args[2:])) // lathe's helper, as main runs it
	}
	os.Exit(m.Run())
}

// BenchmarkNoOpHook is what a hook that does nothing ("true") adds to a
// tool call: a PreToolUse hook, the call's input written to it, its exit
// read. "group" runs it in a process group, "helper" through the sandbox
// helper unconfined (as lathe does on Linux), "project" a trusted
// project's script through the helper, its files checked first.
func BenchmarkNoOpHook(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	in := preToolUse("edit_file", "Edit")
	for _, bc := range []struct{ name, helper string }{{"group", ""}, {"helper", exe}} {
		b.Run(bc.name, func(b *testing.B) {
			r := New(Options{Hooks: []Hook{{Event: PreToolUse, Command: "true"}}, Dir: b.TempDir(), Environ: os.Environ(), Helper: bc.helper})
			for b.Loop() {
				if o := r.Run(b.Context(), in); o.Runs[0].Status != StatusOK {
					b.Fatalf("%+v", o.Runs[0])
				}
			}
		})
	}
	b.Run("project", func(b *testing.B) { // a trusted project's script: its files checked before each run
		dir := b.TempDir()
		if err := os.WriteFile(dir+"/noop.sh", []byte("#!/bin/sh\n"), 0o755); err != nil {
			b.Fatal(err)
		}
		r := New(Options{Hooks: []Hook{{Event: PreToolUse, Command: "./noop.sh", Project: true}}, Dir: dir, Environ: os.Environ(),
			Helper: exe, Trusted: true})
		for b.Loop() {
			if o := r.Run(b.Context(), in); o.Runs[0].Status != StatusOK {
				b.Fatalf("%+v", o.Runs[0])
			}
		}
	})
	b.Run("none", func(b *testing.B) {
		r := New(Options{Hooks: []Hook{{Event: PostToolUse, Command: "true"}}, Dir: b.TempDir()})
		for b.Loop() {
			if o := r.Run(b.Context(), in); o.Ran() {
				b.Fatal("ran")
			}
		}
	})
}

// BenchmarkTrustCheck is what checking a trusted project hook's files
// costs before each of its runs: finding what its command runs, and
// comparing each file's metadata with what was trusted.
func BenchmarkTrustCheck(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(dir+"/noop.sh", []byte("#!/bin/sh\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	h := Hook{Event: PreToolUse, Command: `"$CLAUDE_PROJECT_DIR"/noop.sh && python3 -m tools.lint`, Project: true}
	p := pinScripts([]Hook{h}, dir, os.Getenv)
	for b.Loop() {
		if c := p.changed(h, dir, os.Getenv); c != "" {
			b.Fatalf("changed %s", c)
		}
	}
}
