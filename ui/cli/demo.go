package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"lathe/orchestrator/engine"
	"lathe/orchestrator/provider/demo"
)

// lathe --demo runs a session of the demo model (orchestrator/provider/demo),
// which needs no model server: for trying lathe on any machine.

// demoPace is how fast the demo model writes in the UI: a word every
// 20 ms, the speed of a small model on a laptop's CPU.
const demoPace = 20 * time.Millisecond

// useDemo sets the run up for --demo. A temporary directory, removed once
// the command ends, holds the sessions (none of yours is touched or
// added to) and an empty config directory (yours is not read, so that the
// demo behaves the same everywhere); the working directory is a sample
// project in it, unless -C names one.
func (f *Factory) useDemo() error {
	root, err := os.MkdirTemp("", "lathe-demo-")
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	f.temp = root
	f.Env = newEnv(append(slices.Clone(f.Env.list),
		"XDG_DATA_HOME="+filepath.Join(root, "data"), "XDG_CONFIG_HOME="+filepath.Join(root, "config")))
	f.Flags.Model = demo.Name
	if f.DirSet {
		return nil
	}
	dir := filepath.Join(root, "greet")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if err := demo.WriteProject(dir); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	f.Dir = dir
	return nil
}

// useDemoModel has e talk to the demo model, writing at pace, instead of a
// server; there is no code index to keep.
func useDemoModel(e *engine.Engine, pace time.Duration) {
	m := &demo.Model{Pace: pace}
	e.Backend = engine.Backend{Provider: m, URL: "lathe's demo model (no server)"}
	e.Options.Provider = m
	e.Indexer = nil
}

// demoIntro is what the UI says first in a demo.
func demoIntro(f *Factory) string {
	where := "in " + f.Dir
	if !f.DirSet {
		where = "in a sample project, " + f.Dir + ", removed when you quit"
	}
	return "This is lathe's demo: the model is a stand-in that needs no server, " + where +
		". Try \"create hello.txt\", \"fix the bug\", \"run ls\", or Shift+Tab for plan mode."
}
