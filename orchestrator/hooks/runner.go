package hooks

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Options configure a Runner.
type Options struct {
	Hooks []Hook
	// Dir is the workspace: where hooks run, and their cwd and
	// CLAUDE_PROJECT_DIR.
	Dir string
	// Environ is the environment hooks inherit (KEY=VALUE).
	Environ []string
	// Helper is lathe's executable, to run hooks through the sandbox
	// helper unconfined (it kills every process a hook leaves, however it
	// detached); "" runs them in a process group of their own.
	Helper string
	// Trusted lets the hooks that need trust run (the project's, and the
	// user's own that run files of the project: see NeedsTrust), as the
	// user trusted them, or --trust-project-hooks; Trust does later.
	Trusted bool
	// OutputBytes caps what is kept of each of a hook's stdout and
	// stderr; 0 means 64 KiB.
	OutputBytes int
	Log         zerolog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// DefaultOutputBytes caps a hook's stdout and stderr each, by default.
const DefaultOutputBytes = 64 << 10

// Runner runs the configured hooks. Its methods may be called
// concurrently.
type Runner struct {
	opts     Options
	matchers []matcher

	mu      sync.Mutex
	trusted bool
	pins    pins            // the scripts the hooks run in the workspace, as trusted
	warned  map[string]bool // hooks whose problem the user was told of
}

// New returns a runner of opts.Hooks. With opts.Trusted, the scripts the
// hooks run in the workspace are read now: a hook whose script changes
// afterwards does not run.
func New(opts Options) *Runner {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.OutputBytes <= 0 {
		opts.OutputBytes = DefaultOutputBytes
	}
	r := &Runner{opts: opts, warned: map[string]bool{}}
	for _, h := range opts.Hooks {
		r.matchers = append(r.matchers, compile(h.Matcher))
	}
	if opts.Trusted {
		r.Trust()
	}
	return r
}

// Hooks returns the configured hooks, in order.
func (r *Runner) Hooks() []Hook { return slices.Clone(r.opts.Hooks) }

// Untrusted returns the hooks that do not run for want of the user's
// trust (see NeedsTrust); nil when there are none, or they are trusted.
func (r *Runner) Untrusted() []Hook {
	r.mu.Lock()
	trusted := r.trusted
	r.mu.Unlock()
	if trusted {
		return nil
	}
	return slices.DeleteFunc(r.Hooks(), func(h Hook) bool { return !NeedsTrust(h, r.opts.Dir, r.getenv) })
}

// ProjectFiles returns the files of the workspace that h, one of the
// user's own hooks, runs (see ProjectFiles); nil for a project's hook.
func (r *Runner) ProjectFiles(h Hook) []string { return ProjectFiles(h, r.opts.Dir, r.getenv) }

// TrustReason says, plainly, why h, one of the user's own hooks, needs
// trust: it runs files of the project that a command in the sandbox may
// have written. "" for a project's hook, and for one that needs none.
func (r *Runner) TrustReason(h Hook) string {
	runs := r.ProjectFiles(h)
	if len(runs) == 0 {
		return ""
	}
	return "your own hook, but it runs " + strings.Join(runs, ", ") + " from the project, which a command in the sandbox may have written"
}

// Trust lets the hooks that need trust run from now on, pinning the
// scripts in the workspace they run as they are now.
func (r *Runner) Trust() {
	p := pinScripts(r.opts.Hooks, r.opts.Dir, r.getenv)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.trusted, r.pins = true, p
}

// Has reports whether any hook may run at event: the loop asks before it
// builds an input.
func (r *Runner) Has(event string) bool {
	if r == nil {
		return false
	}
	return slices.ContainsFunc(r.opts.Hooks, func(h Hook) bool { return h.Event == event })
}

// Run runs the hooks in.Event matches, at once, and returns what they
// decided, their runs in the order configured. A hook that fails, hangs
// or prints what cannot be read is reported in its Run, never a Go error.
func (r *Runner) Run(ctx context.Context, in Input) Outcome {
	var out Outcome
	if r == nil {
		return out
	}
	chosen := r.choose(in)
	if len(chosen) == 0 {
		return out
	}
	stdin, _ := json.Marshal(in) // plain data: cannot fail
	runs := make([]Run, len(chosen))
	parts := make([]Outcome, len(chosen))
	var wg sync.WaitGroup
	for i, h := range chosen {
		wg.Go(func() { runs[i], parts[i] = r.runOne(ctx, in.Event, h, stdin) })
	}
	wg.Wait()
	for i := range chosen {
		out.merge(parts[i])
		out.Runs = append(out.Runs, runs[i])
	}
	return out
}

// choose returns the hooks of in's event that match it and may run, each
// command once.
func (r *Runner) choose(in Input) []Hook {
	r.mu.Lock()
	trusted := r.trusted
	r.mu.Unlock()
	keys := in.matchKeys()
	var out []Hook
	for i, h := range r.opts.Hooks {
		switch {
		case h.Event != in.Event, h.Project && !trusted, !r.matchers[i].matches(keys):
		case !trusted && NeedsTrust(h, r.opts.Dir, r.getenv): // the user's, but runs files of the project
		case slices.ContainsFunc(out, func(o Hook) bool { return o.Command == h.Command }):
		default:
			out = append(out, h)
		}
	}
	return out
}

// runOne runs one hook, unless a script it runs from the workspace
// changed since it was trusted.
func (r *Runner) runOne(ctx context.Context, event string, h Hook, stdin []byte) (Run, Outcome) {
	var run Run
	var part Outcome
	if changed := r.changedScript(h); changed != "" {
		run = Run{Hook: h, Status: StatusChanged, ExitCode: -1,
			Problem: "not run: " + changed + " changed since the project's hooks were trusted; trust them again to run it"}
	} else {
		run, part = decide(event, h, r.exec(ctx, h, stdin))
	}
	if run.Problem != "" {
		run.Warn = r.firstProblem(h)
	}
	r.opts.Log.Debug().Str("event", event).Str("command", abbreviate(h.Command, 120)).Str("source", h.Source).
		Str("status", string(run.Status)).Int("exit_code", run.ExitCode).Dur("duration_ms", run.Duration).
		Str("problem", run.Problem).Msg("hook")
	return run, part
}

// changedScript returns the first script h runs from the workspace that
// is no longer what was trusted; "" when none, or when no trust was given
// (only hooks that need none run then).
func (r *Runner) changedScript(h Hook) string {
	r.mu.Lock()
	p, trusted := r.pins, r.trusted
	r.mu.Unlock()
	if !trusted {
		return ""
	}
	return p.changed(h, r.opts.Dir, r.getenv)
}

// firstProblem reports whether h had no problem before in the session,
// and remembers it has now.
func (r *Runner) firstProblem(h Hook) bool {
	key := h.Event + "\x00" + h.Command
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.warned[key] {
		return false
	}
	r.warned[key] = true
	return true
}

// getenv reads the environment hooks inherit.
func (r *Runner) getenv(key string) string {
	for _, kv := range slices.Backward(r.opts.Environ) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// abbreviate cuts s to about n bytes for the log.
func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
