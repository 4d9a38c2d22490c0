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
// helper unconfined (as lathe does on Linux).
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
	b.Run("none", func(b *testing.B) {
		r := New(Options{Hooks: []Hook{{Event: PostToolUse, Command: "true"}}, Dir: b.TempDir()})
		for b.Loop() {
			if o := r.Run(b.Context(), in); o.Ran() {
				b.Fatal("ran")
			}
		}
	})
}
