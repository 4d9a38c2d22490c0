package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools/sandbox"
)

// fakeEnv, set, makes the test binary a fake lathe that behaves as its
// value says (see fakeLathe): the runner's subprocess handling is tested
// on a real process, the engine itself in the command's testscripts.
const fakeEnv = "LATHE_EVAL_FAKE"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Main(os.Args[2:])) // the sandbox helper, as lathe's main runs it
	}
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeLathe(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeLathe plays a one-shot lathe run in the directory after -C:
//
//	solve   writes done.txt and answers (exit 0)
//	refuse  answers without doing anything (exit 0)
//	attempt answers, writing the LATHE_EVAL_* variables to a file
//	limit   writes done.txt, then stops on the turn limit (exit 3)
//	crash   prints an error and no result (exit 1)
//	hang    waits for SIGTERM, then records the run as interrupted (exit 130)
//	stuck   ignores SIGTERM: only SIGKILL ends it
//	copy:SRC:DST   copies file SRC to DST in the directory (the reference
//	               solution, say), and answers
//	retry:SRC:DST  the same, but only when it continues a session (a
//	               second try)
//
// Given --trajectory, it writes a trajectory of one step there.
func fakeLathe(mode string, args []string) int {
	dir := args[slices.Index(args, "-C")+1]
	flag := func(name string) string {
		if i := slices.Index(args, name); i >= 0 {
			return args[i+1]
		}
		return ""
	}
	if path := flag("--trajectory"); path != "" {
		os.WriteFile(path, []byte(`{"schema_version":"ATIF-v1.6","session_id":"fake-session",`+
			`"agent":{"name":"lathe","version":"test"},"steps":[{"step_id":1,"source":"user","message":"p"}],`+
			`"final_metrics":{"total_prompt_tokens":1000,"total_steps":1}}`), 0o644)
	}
	if from, to, ok := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(mode, "copy:"), "retry:"), ":"); ok {
		if !strings.HasPrefix(mode, "retry:") || flag("--resume") == "fake-session" {
			b, _ := os.ReadFile(from)
			os.WriteFile(filepath.Join(dir, to), b, 0o644)
		}
		mode = "refuse"
	}
	result := func(stop string, code int) int {
		b, _ := json.Marshal(map[string]any{"type": "result", "stop_reason": stop, "turns": 2, "tool_calls": 1,
			"session_id": "fake-session",
			"usage":      map[string]int{"prompt_tokens": 1000, "completion_tokens": 50},
			"recoveries": map[string]int{"text_calls": 1, "empty_nudges": 1},
			"timing": map[string]any{"load_ms": 5, "prefill_ms": 100, "decode_ms": 1000, "prefill_tps": 1000.5,
				"decode_tps": 50.25}})
		fmt.Println(string(b))
		return code
	}
	solve := func() { os.WriteFile(filepath.Join(dir, "done.txt"), []byte("done\n"), 0o644) }
	switch mode {
	case "solve":
		solve()
		return result("done", 0)
	case "refuse":
		return result("done", 0)
	case "attempt": // says which attempt it is, in the file LATHE_EVAL_FAKE_OUT names
		var vars []string
		for _, kv := range os.Environ() {
			if strings.HasPrefix(kv, "LATHE_EVAL_") && !strings.HasPrefix(kv, fakeEnv) {
				vars = append(vars, kv)
			}
		}
		slices.Sort(vars)
		os.WriteFile(os.Getenv(fakeEnv+"_OUT"), []byte(strings.Join(vars, "\n")), 0o644)
		return result("done", 0)
	case "limit":
		solve()
		fmt.Fprintln(os.Stderr, "lathe: stopped after 2 turns, the limit")
		return result("max_turns", 3)
	case "crash":
		fmt.Fprintln(os.Stderr, "lathe: cannot reach Ollama at http://127.0.0.1:1")
		return 1
	case "hang":
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		<-ctx.Done()
		return result("interrupted", 130)
	case "stuck":
		signal.Ignore(syscall.SIGTERM)
		time.Sleep(time.Hour)
	}
	return 2
}

// fakeModels describes every model and loads it at once.
type fakeModels struct {
	mu     sync.Mutex
	loaded []string
}

func (f *fakeModels) Describe(_ context.Context, name string) (session.ExperimentModel, error) {
	if name == "missing" {
		return session.ExperimentModel{}, errors.New(`model "missing" is not installed`)
	}
	return session.ExperimentModel{Name: name, Quantization: "Q4_K_M", NumCtx: 8192}, nil
}

func (f *fakeModels) Load(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loaded = append(f.loaded, name)
	return nil
}

// testRunner is a runner on a fresh database whose lathe is the fake in
// mode.
func testRunner(t *testing.T, mode string) (*Runner, *sqlite.DB) {
	t.Helper()
	db := sqlitetest.Open(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &Runner{Store: db, Models: &fakeModels{}, TempDir: t.TempDir(),
		Lathe: Lathe{Exe: exe, Args0: "lathe", Env: append(os.Environ(), fakeEnv+"="+mode), Grace: 200 * time.Millisecond},
	}, db
}

// oneTask is a suite of one task whose check wants done.txt.
func oneTask(t *testing.T, timeout string) *Suite {
	t.Helper()
	dir := t.TempDir()
	writeTask(t, dir, "done", fmt.Sprintf("prompt = 'write done.txt'\ntimeout = %q\ncheck = 'test -f done.txt'\n", timeout),
		map[string]string{"files/README": "x"})
	s, err := LoadSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAttemptOutcomes: how each way a run can go is recorded.
func TestAttemptOutcomes(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		mode, timeout string
		state         session.AttemptState
		reason        string
		met           *bool
		failure       string
	}{
		{"solve", "1m", session.AttemptFinished, "", &yes, ""},
		{"refuse", "1m", session.AttemptFinished, "", &no, ""},
		{"limit", "1m", session.AttemptFailed, session.FailLimit, &yes, "stopped after 2 turns, the limit"},
		{"crash", "1m", session.AttemptFailed, session.FailError, &no,
			"lathe exited with code 1 and printed no result: cannot reach Ollama at http://127.0.0.1:1"},
		{"hang", "300ms", session.AttemptFailed, session.FailTimeout, &no, "stopped at the task's timeout, 300ms"},
		{"stuck", "300ms", session.AttemptFailed, session.FailTimeout, &no, "stopped at the task's timeout, 300ms"},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			r, db := testRunner(t, c.mode)
			id, err := r.Start(t.Context(), Plan{Suite: oneTask(t, c.timeout), Models: []string{"m"}, Repeat: 1, Jobs: 1})
			if err != nil {
				t.Fatal(err)
			}
			e, err := db.Experiment(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			a := e.Attempts[0]
			if a.State != c.state || a.FailureReason != c.reason || a.Failure != c.failure ||
				(a.GoalMet == nil) != (c.met == nil) || (a.GoalMet != nil && *a.GoalMet != *c.met) {
				t.Errorf("attempt %s/%s/%q met %v, want %s/%s/%q met %v", a.State, a.FailureReason, a.Failure,
					deref(a.GoalMet), c.state, c.reason, c.failure, deref(c.met))
			}
			if a.Completed.IsZero() || a.Started.IsZero() || e.Completed.IsZero() {
				t.Errorf("times: %+v; experiment completed %v", a, e.Completed)
			}
			if c.mode == "solve" && (a.Result.Turns != 2 || a.Result.PromptTokens != 1000 || a.Result.Recoveries != 2 ||
				a.Result.Prefill != 100*time.Millisecond || a.Result.DecodeRate != 50.25 || a.Result.Wall <= 0) {
				t.Errorf("counts %+v", a.Result)
			}
			if c.mode == "stuck" && a.Result.Wall > time.Minute {
				t.Errorf("a run that ignores SIGTERM was waited for %s", a.Result.Wall)
			}
		})
	}
}

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// TestRunOrder: models run one after another, each loaded before its
// tasks, every task repeated; skipped tasks are recorded, not run.
func TestRunOrder(t *testing.T) {
	r, db := testRunner(t, "solve")
	models := r.Models.(*fakeModels)
	dir := t.TempDir()
	writeTask(t, dir, "a", "prompt = 'p'\ncheck = 'test -f done.txt'\n", nil)
	writeTask(t, dir, "b", "prompt = 'p'\ncheck = 'test -f done.txt'\n", nil)
	writeTask(t, dir, "needs", "prompt = 'p'\ncheck = 'true'\nrequires = ['no-such-program-xyz']\n", nil)
	writeTask(t, dir, "bad", "prompt = 'p'\n", nil)
	suite, err := LoadSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	var progress strings.Builder
	r.Progress = NewProgress(&progress, false)
	id, err := r.Start(t.Context(), Plan{Suite: suite, Models: []string{"m1", "m2"}, Repeat: 2, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := db.Experiment(t.Context(), id)
	if len(e.Attempts) != 8 {
		t.Fatalf("%d attempts, want 2 models × 2 tasks × 2", len(e.Attempts))
	}
	for i, a := range e.Attempts {
		if want := []string{"m1", "m2"}[i/4]; a.Model != want || a.State != session.AttemptFinished {
			t.Errorf("attempt %d: %s %s, want %s finished", i, a.Model, a.State, want)
		}
	}
	if strings.Join(models.loaded, ",") != "m1,m2" {
		t.Errorf("loaded %v", models.loaded)
	}
	skipped := map[string]string{}
	for _, task := range e.Tasks {
		skipped[task.Name] = task.Skipped
	}
	if skipped["needs"] != "needs no-such-program-xyz, which is not installed" || !strings.Contains(skipped["bad"], "task.toml: check: a task needs a check") ||
		skipped["a"] != "" {
		t.Errorf("skipped %q", skipped)
	}
	for _, want := range []string{"skipped needs: needs no-such-program-xyz, which is not installed",
		"m1: 4 attempts to run", "m2: goal met in 4 of 4"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, progress.String())
		}
	}
	if _, err := r.Start(t.Context(), Plan{Suite: suite, Models: []string{"missing"}, Repeat: 1}); err == nil {
		t.Error("a missing model was run")
	}
}

// TestResume: only the attempts with no result are run again: never
// started, stale (silent for StaleAfter, or their process dead), or cut
// short by an interrupted experiment; one running with signs of life is
// left alone.
func TestResume(t *testing.T) {
	r, db := testRunner(t, "solve")
	suite := oneTask(t, "1m")
	dir := suite.Root
	writeTask(t, dir, "other", "prompt = 'p'\ncheck = 'test -f done.txt'\n", nil)
	suite, _ = LoadSuite(dir)
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	e := session.Experiment{Suite: suite.Name, Repeat: 3, Jobs: 1, Models: []session.ExperimentModel{{Name: "m"}}}
	e.Tasks = r.experimentTasks(t.Context(), suite)
	slots := []session.Slot{{Model: "m", Task: "done", Rep: 1}, {Model: "m", Task: "done", Rep: 2},
		{Model: "m", Task: "done", Rep: 3}, {Model: "m", Task: "other", Rep: 1}} // other #2 and #3: missing
	id, err := db.CreateExperiment(t.Context(), e, slots)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := db.Experiment(t.Context(), id)
	ctx := t.Context()
	// done #1: silent for 6 minutes. done #2: alive a minute ago. done #3:
	// cut short. other #1: finished.
	db.StartAttempt(ctx, got.Attempts[0].ID, t0)
	db.StartAttempt(ctx, got.Attempts[1].ID, t0.Add(5*time.Minute))
	db.StartAttempt(ctx, got.Attempts[2].ID, t0)
	db.EndAttempt(ctx, got.Attempts[2].ID, session.AttemptEnd{State: session.AttemptFailed, FailureReason: session.FailInterrupted})
	db.StartAttempt(ctx, got.Attempts[3].ID, t0)
	db.EndAttempt(ctx, got.Attempts[3].ID, session.AttemptEnd{State: session.AttemptFinished})

	r.Now = func() time.Time { return t0.Add(6 * time.Minute) }
	ran, running, err := r.Resume(ctx, id, suite)
	if err != nil {
		t.Fatal(err)
	}
	if ran != 4 || running != 1 {
		t.Errorf("ran %d, left %d running; want 4 (done #1, #3, other #2, #3) and 1", ran, running)
	}
	after, _ := db.Experiment(ctx, id)
	latest := Latest(after.Attempts)
	for slot, want := range map[session.Slot]struct {
		try   int
		state session.AttemptState
	}{
		{Model: "m", Task: "done", Rep: 1}: {2, session.AttemptFinished}, {Model: "m", Task: "done", Rep: 2}: {1, session.AttemptRunning},
		{Model: "m", Task: "done", Rep: 3}: {2, session.AttemptFinished}, {Model: "m", Task: "other", Rep: 1}: {1, session.AttemptFinished},
		{Model: "m", Task: "other", Rep: 2}: {1, session.AttemptFinished}, {Model: "m", Task: "other", Rep: 3}: {1, session.AttemptFinished},
	} {
		if a := latest[slot]; a.Try != want.try || a.State != want.state {
			t.Errorf("%v: try %d %s, want try %d %s", slot, a.Try, a.State, want.try, want.state)
		}
	}
	if old := after.Attempts[0]; old.FailureReason != session.FailAbandoned || !old.Completed.IsZero() {
		t.Errorf("the stale try: %+v", old)
	}

	// A task changed since: resuming would mix two versions of it.
	os.WriteFile(filepath.Join(dir, "done", "files", "README"), []byte("changed"), 0o644)
	changed, _ := LoadSuite(dir)
	if _, _, err := r.Resume(ctx, id, changed); !errors.Is(err, ErrTaskChanged) {
		t.Errorf("resume of a changed task: %v", err)
	}
}

// TestInterrupted: an experiment interrupted mid-attempt records that
// attempt as interrupted, and leaves the rest to resume.
func TestInterrupted(t *testing.T) {
	r, db := testRunner(t, "hang")
	suite := oneTask(t, "1h")
	ctx, cancel := context.WithCancel(t.Context())
	r.Store = &cancelOnTouch{Store: db, cancel: cancel}
	r.Heartbeat = 10 * time.Millisecond // the first sign of life cancels
	id, err := r.Start(ctx, Plan{Suite: suite, Models: []string{"m"}, Repeat: 2})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	e, _ := db.Experiment(t.Context(), id)
	if a := e.Attempts[0]; a.State != session.AttemptFailed || a.FailureReason != session.FailInterrupted ||
		a.GoalMet != nil || a.Completed.IsZero() {
		t.Errorf("the attempt running: %+v", a)
	}
	if a := e.Attempts[1]; a.State != session.AttemptCreated {
		t.Errorf("the attempt after it: %s", a.State)
	}
}

// cancelOnTouch cancels the experiment at its first sign of life, while
// lathe runs.
type cancelOnTouch struct {
	Store
	cancel context.CancelFunc
}

func (c *cancelOnTouch) TouchAttempt(ctx context.Context, id int64, at time.Time) error {
	c.cancel()
	return c.Store.TouchAttempt(ctx, id, at)
}

// TestAttemptSaysWhichItIs: an attempt's run is told its experiment,
// suite, task, attempt, repetition and try, for its telemetry, whatever
// the runner's own environment said of them.
func TestAttemptSaysWhichItIs(t *testing.T) {
	r, db := testRunner(t, "attempt")
	out := filepath.Join(t.TempDir(), "vars")
	r.Lathe.Env = append(r.Lathe.Env, fakeEnv+"_OUT="+out, "LATHE_EVAL_TASK=stale")
	suite := oneTask(t, "1m")
	id, err := r.Start(t.Context(), Plan{Suite: suite, Models: []string{"m"}, Repeat: 1, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	e, err := db.Experiment(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	a := e.Attempts[0]
	want := fmt.Sprintf("LATHE_EVAL_ATTEMPT=%d\nLATHE_EVAL_EXPERIMENT=%d\nLATHE_EVAL_REP=1\nLATHE_EVAL_SUITE=%s\n"+
		"LATHE_EVAL_TASK=done\nLATHE_EVAL_TRY=1", a.ID, id, filepath.Base(e.Suite))
	if string(got) != want {
		t.Errorf("the run was told:\n%s\nwant:\n%s", got, want)
	}
}
