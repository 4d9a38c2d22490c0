package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"lathe/orchestrator/session"
)

// StaleAfter is how long a running attempt may show no sign of life
// before it is taken for dead.
const StaleAfter = 5 * time.Minute

// heartbeat is how often a running attempt shows it is alive.
const heartbeat = time.Minute

// Stale reports whether attempt a is running but its process is dead:
// known to be (on this machine), or silent for StaleAfter.
func Stale(a session.Attempt, now time.Time) bool {
	return a.State == session.AttemptRunning && (a.RunnerGone || now.Sub(a.Active) >= StaleAfter)
}

// Store keeps the experiments (session/sqlite).
type Store interface {
	CreateExperiment(ctx context.Context, e session.Experiment, slots []session.Slot) (int64, error)
	RetryAttempt(ctx context.Context, id int64, s session.Slot) (int64, error)
	StartAttempt(ctx context.Context, id int64, at time.Time) error
	TouchAttempt(ctx context.Context, id int64, at time.Time) error
	EndAttempt(ctx context.Context, id int64, end session.AttemptEnd) error
	SetModelLoad(ctx context.Context, id int64, model string, load time.Duration) error
	Experiment(ctx context.Context, id int64) (session.Experiment, error)
	RunOptions(ctx context.Context, sessionID string) (map[string]any, error)
}

// Models asks the server about models.
type Models interface {
	// Describe checks that the model can run lathe's tasks and says what
	// it is.
	Describe(ctx context.Context, name string) (session.ExperimentModel, error)
	// Load has the server load the model, to keep it loaded across its
	// tasks.
	Load(ctx context.Context, name string) error
}

// Runner runs experiments.
type Runner struct {
	Store  Store
	Models Models
	Lathe  Lathe
	// TempDir is where attempts' working directories are made ("": the
	// system's).
	TempDir string
	// Check runs a task's check; nil is RunCheck.
	Check    Checker
	Progress Progress
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Heartbeat is how often a running attempt shows it is alive; 0 is a
	// minute.
	Heartbeat time.Duration
}

// Plan is an experiment to run.
type Plan struct {
	Suite   *Suite
	Models  []string
	Repeat  int
	Jobs    int
	Sandbox string
	Version string
}

// ErrTaskChanged is Resume's error when a task's files changed since the
// experiment began: its attempts would not measure the same thing.
var ErrTaskChanged = errors.New("the task changed since the experiment began")

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Start records a new experiment of plan and runs it; it returns the
// experiment's id, also when running it failed.
func (r *Runner) Start(ctx context.Context, p Plan) (int64, error) {
	e := session.Experiment{Suite: p.Suite.Name, Repeat: max(p.Repeat, 1), Jobs: max(p.Jobs, 1),
		Sandbox: p.Sandbox, Version: p.Version}
	for _, name := range p.Models {
		m, err := r.Models.Describe(ctx, name)
		if err != nil {
			return 0, err
		}
		e.Models = append(e.Models, m)
	}
	e.Tasks = experimentTasks(p.Suite)
	id, err := r.Store.CreateExperiment(ctx, e, Slots(e))
	if err != nil {
		return 0, err
	}
	r.progress().Began(id, e, len(runnableTasks(e)))
	_, err = r.execute(ctx, id, p.Suite)
	return id, err
}

// experimentTasks are the tasks of suite as recorded, the bad ones and
// those whose toolchain is missing skipped with why.
func experimentTasks(suite *Suite) []session.ExperimentTask {
	var out []session.ExperimentTask
	for _, t := range suite.Tasks {
		spec, _ := json.Marshal(t)
		out = append(out, session.ExperimentTask{Name: t.Name, Spec: string(spec), Digest: t.Digest, Skipped: missing(t)})
	}
	for _, b := range suite.Bad {
		out = append(out, session.ExperimentTask{Name: b.Task, Skipped: b.Error()})
	}
	return out
}

// missing says which program task t needs is not installed; "" when
// none.
func missing(t Task) string {
	for _, prog := range t.Requires {
		if _, err := exec.LookPath(prog); err != nil {
			return fmt.Sprintf("needs %s, which is not installed", prog)
		}
	}
	return ""
}

// Resume runs again the attempts of experiment id that have no result:
// never started, stale (their process died), or cut short when the
// experiment was interrupted. Attempts still running elsewhere are left
// alone. It returns how many attempts it ran, and how many it left to
// the process running them.
func (r *Runner) Resume(ctx context.Context, id int64, suite *Suite) (ran, running int, err error) {
	e, err := r.Store.Experiment(ctx, id)
	if err != nil {
		return 0, 0, err
	}
	for _, et := range e.Tasks {
		if et.Skipped != "" {
			continue
		}
		t, ok := suite.Task(et.Name)
		switch {
		case !ok:
			return 0, 0, fmt.Errorf("task %s: %w: it is no longer in the suite", et.Name, ErrTaskChanged)
		case t.Digest != et.Digest:
			return 0, 0, fmt.Errorf("task %s: %w: start a new experiment", et.Name, ErrTaskChanged)
		}
	}
	now := r.now()
	latest := Latest(e.Attempts)
	for _, s := range Slots(e) {
		a, ok := latest[s]
		switch {
		case ok && a.State == session.AttemptCreated:
		case ok && a.State == session.AttemptRunning && !Stale(a, now):
			running++
		case !ok, a.State == session.AttemptRunning,
			a.State == session.AttemptFailed && a.FailureReason == session.FailInterrupted:
			if _, err := r.Store.RetryAttempt(ctx, id, s); err != nil {
				return 0, running, err
			}
		}
	}
	r.progress().Began(id, e, len(runnableTasks(e)))
	ran, err = r.execute(ctx, id, suite)
	return ran, running, err
}

// Slots are the attempts experiment e plans, model by model.
func Slots(e session.Experiment) []session.Slot {
	var out []session.Slot
	tasks := runnableTasks(e)
	for _, m := range e.Models {
		for _, t := range tasks {
			for rep := 1; rep <= e.Repeat; rep++ {
				out = append(out, session.Slot{Model: m.Name, Task: t, Rep: rep})
			}
		}
	}
	return out
}

func runnableTasks(e session.Experiment) []string {
	var out []string
	for _, t := range e.Tasks {
		if t.Skipped == "" {
			out = append(out, t.Name)
		}
	}
	return out
}

// Latest is the last try of each slot.
func Latest(attempts []session.Attempt) map[session.Slot]session.Attempt {
	out := make(map[session.Slot]session.Attempt, len(attempts))
	for _, a := range attempts {
		s := session.Slot{Model: a.Model, Task: a.Task, Rep: a.Rep}
		if prev, ok := out[s]; !ok || a.Try > prev.Try {
			out[s] = a
		}
	}
	return out
}

// execute runs the attempts of experiment id still in state created,
// model after model, loading each model first; it returns how many it
// ran.
func (r *Runner) execute(ctx context.Context, id int64, suite *Suite) (ran int, err error) {
	e, err := r.Store.Experiment(ctx, id)
	if err != nil {
		return 0, err
	}
	latest := Latest(e.Attempts)
	for _, m := range e.Models {
		var todo []session.Attempt
		for _, s := range Slots(e) {
			if a := latest[s]; s.Model == m.Name && a.State == session.AttemptCreated {
				todo = append(todo, a)
			}
		}
		if len(todo) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return ran, err
		}
		r.loadModel(ctx, id, m.Name)
		n, err := r.runModel(ctx, e, m.Name, todo, suite)
		ran += n
		if err != nil {
			return ran, err
		}
	}
	return ran, ctx.Err()
}

// loadModel has the server load model before its tasks, so that the
// first does not pay for it, and records how long that took.
func (r *Runner) loadModel(ctx context.Context, id int64, model string) {
	start := time.Now()
	err := r.Models.Load(ctx, model)
	if err == nil {
		err = r.Store.SetModelLoad(ctx, id, model, time.Since(start))
	}
	if err != nil && ctx.Err() == nil {
		r.progress().Warn(fmt.Sprintf("%s: %v", model, err))
	}
}

// runModel runs the attempts todo of model, e.Jobs at a time; it returns
// how many it ran.
func (r *Runner) runModel(ctx context.Context, e session.Experiment, model string, todo []session.Attempt,
	suite *Suite) (int, error) {
	tally := &Tally{Model: model, Total: len(todo), Start: time.Now()}
	r.progress().ModelStarted(*tally)
	work := make(chan session.Attempt)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range max(e.Jobs, 1) {
		wg.Go(func() {
			for a := range work {
				t, _ := suite.Task(a.Task)
				end, err := r.attempt(ctx, e, a, t)
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				tally.add(end)
				r.progress().AttemptEnded(*tally, a, end)
				mu.Unlock()
			}
		})
	}
	for _, a := range todo {
		if ctx.Err() != nil {
			break
		}
		work <- a
	}
	close(work)
	wg.Wait()
	r.progress().ModelDone(*tally)
	return tally.Done, first
}

// attempt runs attempt a of task t: lathe in a fresh copy of the task's
// files, then the check, recording each step.
func (r *Runner) attempt(ctx context.Context, e session.Experiment, a session.Attempt, t Task) (session.AttemptEnd, error) {
	if err := r.Store.StartAttempt(ctx, a.ID, r.now()); err != nil {
		return session.AttemptEnd{}, err
	}
	stop := r.keepAlive(ctx, a.ID)
	end := r.run(ctx, e, a, t)
	stop()
	end.Completed = r.now()
	// Recorded even when the experiment was interrupted: the attempt ends
	// as such.
	err := r.Store.EndAttempt(context.WithoutCancel(ctx), a.ID, end)
	return end, err
}

// run runs lathe and the check, and says how the attempt ended.
func (r *Runner) run(ctx context.Context, e session.Experiment, a session.Attempt, t Task) session.AttemptEnd {
	dir, err := prepare(r.TempDir, t)
	if err != nil {
		return session.AttemptEnd{State: session.AttemptFailed, FailureReason: session.FailError, Failure: err.Error()}
	}
	defer os.RemoveAll(dir)
	l := r.Lathe.forAttempt(e, a).launch(ctx, t, a.Model, dir, e.Sandbox)
	var check *CheckResult
	if !l.interrupted && l.err == nil {
		c := r.checker()(ctx, dir, t.Check, checkEnv(r.Lathe.Env, t.Dir), t.CheckTimeout)
		if ctx.Err() == nil {
			check = &c
		} else {
			l.interrupted = true
		}
	}
	end := l.end(t, check)
	if end.SessionID != "" {
		end.Options, _ = r.Store.RunOptions(context.WithoutCancel(ctx), end.SessionID)
	}
	return end
}

func (r *Runner) checker() Checker {
	if r.Check != nil {
		return r.Check
	}
	return RunCheck
}

// keepAlive shows that attempt id is alive every Heartbeat until stop is
// called.
func (r *Runner) keepAlive(ctx context.Context, id int64) (stop func()) {
	every := r.Heartbeat
	if every <= 0 {
		every = heartbeat
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				_ = r.Store.TouchAttempt(ctx, id, r.now())
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

func (r *Runner) progress() Progress {
	if r.Progress != nil {
		return r.Progress
	}
	return quiet{}
}
