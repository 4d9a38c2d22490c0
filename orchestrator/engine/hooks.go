package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator/hooks"
)

// HooksEnv is what the hooks are wired in.
type HooksEnv struct {
	Dir     string // the workspace: where hooks run
	Environ []string
	Getenv  func(string) string
	// Helper is lathe's executable, whose sandbox helper runs the hooks
	// unconfined and kills what they leave; "" for none.
	Helper string
	// Trust runs the hooks that need trust without asking
	// (--trust-project-hooks): the project's, and the user's own that run
	// files of the project.
	Trust bool
	Log   zerolog.Logger
}

// NewHooks returns the runner of the configured hooks; nil when none is
// configured. The hooks that need trust (the project's, and the user's own
// that run files of the project: hooks.NeedsTrust) run only when trusted:
// with env.Trust, or when the user trusted these very hooks, and the files
// they run, before (the trust file); the warning says why they were not,
// when the trust could not be read.
func NewHooks(loaded config.Loaded, env HooksEnv) (r *hooks.Runner, warning string) {
	all := hookList(loaded.Hooks)
	if len(all) == 0 {
		return nil, ""
	}
	trusted, err := hooksTrusted(all, env)
	if err != nil {
		warning = "the project's hooks do not run: " + err.Error()
	}
	if runtime.GOOS != "linux" {
		env.Helper = ""
	}
	return hooks.New(hooks.Options{Hooks: all, Dir: env.Dir, Environ: env.Environ, Helper: env.Helper,
		Trusted: trusted, Log: env.Log}), warning
}

// hookList is the config's hooks as the runner takes them.
func hookList(h config.Hooks) []hooks.Hook {
	var out []hooks.Hook
	for _, c := range h.All() {
		out = append(out, hooks.Hook{Event: c.Event, Matcher: c.Matcher, Command: c.Command,
			Timeout: time.Duration(c.Timeout) * time.Second, Source: c.Source, Project: c.Project})
	}
	return out
}

// hooksTrusted reports whether the hooks that need trust may run.
func hooksTrusted(all []hooks.Hook, env HooksEnv) (bool, error) {
	if !anyNeedsTrust(all, env.Dir, env.Getenv) || env.Trust {
		return true, nil
	}
	path := hooksTrustFile(env.Getenv)
	if path == "" {
		return false, errors.New("no data directory to keep trust in (set HOME or XDG_DATA_HOME)")
	}
	return hooks.Trusted(path, env.Dir, hooks.Digest(all, env.Dir, env.Getenv))
}

func anyNeedsTrust(all []hooks.Hook, dir string, getenv func(string) string) bool {
	return slices.ContainsFunc(all, func(h hooks.Hook) bool { return hooks.NeedsTrust(h, dir, getenv) })
}

// hooksTrustFile is where the trusted project hooks are kept; "" when
// there is no data directory.
func hooksTrustFile(getenv func(string) string) string {
	dir := config.DataDir(getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, hooks.TrustFileName)
}

// UntrustedHooksNotes say which hooks wait for trust, and how to give
// it: one line for the project's, one for each of the user's own that runs
// files of the project.
func UntrustedHooksNotes(r *hooks.Runner, oneShot bool) []string {
	var project []string
	var notes []string
	for _, h := range r.Untrusted() {
		if h.Project {
			project = append(project, fmt.Sprintf("%s %q", h.Event, h.Command))
			continue
		}
		how := "lathe asks when it starts in the UI; --trust-project-hooks runs it for one run"
		if oneShot {
			how = "pass --trust-project-hooks to run it"
		}
		notes = append(notes, fmt.Sprintf("the hook %s %q does not run: %s (%s)", h.Event, h.Command, r.TrustReason(h), how))
	}
	if len(project) == 0 {
		return notes
	}
	how := "lathe asks when it starts in the UI; --trust-project-hooks runs them for one run"
	if oneShot {
		how = "pass --trust-project-hooks to run them"
	}
	return append([]string{fmt.Sprintf("the project's hooks do not run: %s (a cloned repository must not run programs unasked; %s)",
		strings.Join(project, ", "), how)}, notes...)
}

// KeepHooksTrust returns what records the user's trust in the hooks of dir
// that need it, and the files they run, as they are now, in the trust
// file; nil when none needs it.
func KeepHooksTrust(loaded config.Loaded, dir string, getenv func(string) string) func() error {
	all := hookList(loaded.Hooks)
	if !anyNeedsTrust(all, dir, getenv) {
		return nil
	}
	return func() error {
		path := hooksTrustFile(getenv)
		if path == "" {
			return errors.New("no data directory to keep it in (set HOME or XDG_DATA_HOME)")
		}
		var commands []string
		for _, h := range all {
			if hooks.NeedsTrust(h, dir, getenv) {
				commands = append(commands, h.Command)
			}
		}
		return hooks.Trust(path, dir, hooks.Digest(all, dir, getenv), commands, time.Now())
	}
}
