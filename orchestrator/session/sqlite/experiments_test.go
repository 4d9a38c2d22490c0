package sqlite

import (
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"lathe/orchestrator/session"
)

func newExperiment(t *testing.T, db *DB) (int64, []session.Attempt) {
	t.Helper()
	e := session.Experiment{Suite: "/suite", Repeat: 2, Jobs: 1, Sandbox: "workspace-write", Version: "lathe dev",
		Created: day,
		Models:  []session.ExperimentModel{{Name: "m1", Quantization: "Q4_K_M", NumCtx: 8192}, {Name: "m2"}},
		Tasks:   []session.ExperimentTask{{Name: "a", Spec: `{"prompt":"x"}`, Digest: "d"}, {Name: "b", Skipped: "no go"}}}
	slots := []session.Slot{{Model: "m1", Task: "a", Rep: 1}, {Model: "m1", Task: "a", Rep: 2}}
	id, err := db.CreateExperiment(t.Context(), e, slots)
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.Experiment(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return id, got.Attempts
}

func TestExperimentRoundTrip(t *testing.T) {
	db := openTest(t)
	id, as := newExperiment(t, db)
	if len(as) != 2 || as[0].State != session.AttemptCreated || as[1].Rep != 2 || as[0].Try != 1 {
		t.Fatalf("attempts %+v", as)
	}
	started := day.Add(time.Minute)
	if err := db.StartAttempt(t.Context(), as[0].ID, started); err != nil {
		t.Fatal(err)
	}
	yes, exit := true, 0
	end := session.AttemptEnd{State: session.AttemptFinished, GoalMet: &yes, StopReason: "done", SessionID: "s1",
		Options: map[string]any{"num_ctx": 8192.0, "temperature": 0.6},
		Result: session.AttemptResult{Turns: 3, ToolCalls: 2, PromptTokens: 900, CompletionTokens: 40, Recoveries: 1,
			Wall: 2 * time.Second, Load: time.Millisecond, Prefill: 3 * time.Millisecond, Decode: 4 * time.Millisecond,
			PrefillRate: 1234.5, DecodeRate: 55.5},
		CheckExit: &exit, CheckOutput: "ok", Completed: started.Add(2 * time.Second)}
	if err := db.EndAttempt(t.Context(), as[0].ID, end); err != nil {
		t.Fatal(err)
	}
	e, err := db.Experiment(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if e.Suite != "/suite" || e.Repeat != 2 || len(e.Models) != 2 || e.Models[0].Quantization != "Q4_K_M" ||
		e.Models[1].Name != "m2" || len(e.Tasks) != 2 || e.Tasks[1].Skipped != "no go" || !e.Created.Equal(day) {
		t.Errorf("experiment %+v", e)
	}
	a := e.Attempts[0]
	if a.State != session.AttemptFinished || a.GoalMet == nil || !*a.GoalMet || a.SessionID != "s1" ||
		a.Options["temperature"] != 0.6 || a.Result != end.Result || a.CheckExit == nil || *a.CheckExit != 0 ||
		!a.Started.Equal(started) || !a.Completed.Equal(end.Completed) || a.RunnerGone {
		t.Errorf("attempt %+v", a)
	}
	if !e.Completed.IsZero() {
		t.Error("completed with an attempt still to run")
	}
	if e.Attempts[1].GoalMet != nil || e.Attempts[1].CheckExit != nil {
		t.Errorf("an attempt not run has a verdict: %+v", e.Attempts[1])
	}
}

// TestAttemptLifecycle: only created → running → finished or failed.
func TestAttemptLifecycle(t *testing.T) {
	db := openTest(t)
	id, as := newExperiment(t, db)
	a, b := as[0].ID, as[1].ID
	failed := session.AttemptEnd{State: session.AttemptFailed, FailureReason: session.FailTimeout}
	for name, err := range map[string]error{
		"touch a created attempt": db.TouchAttempt(t.Context(), a, time.Time{}),
		"end a created attempt":   db.EndAttempt(t.Context(), a, failed),
	} {
		if !errors.Is(err, session.ErrTransition) {
			t.Errorf("%s: %v, want ErrTransition", name, err)
		}
	}
	if err := db.StartAttempt(t.Context(), a, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := db.StartAttempt(t.Context(), a, time.Time{}); !errors.Is(err, session.ErrTransition) {
		t.Errorf("started twice: %v", err)
	}
	if err := db.EndAttempt(t.Context(), a, session.AttemptEnd{State: session.AttemptCreated}); !errors.Is(err, session.ErrTransition) {
		t.Errorf("running back to created: %v", err)
	}
	if err := db.TouchAttempt(t.Context(), a, time.Time{}); err != nil {
		t.Error(err)
	}
	if err := db.EndAttempt(t.Context(), a, failed); err != nil {
		t.Fatal(err)
	}
	if err := db.EndAttempt(t.Context(), a, failed); !errors.Is(err, session.ErrTransition) {
		t.Errorf("ended twice: %v", err)
	}
	// The last attempt to end completes the experiment.
	if err := db.StartAttempt(t.Context(), b, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := db.EndAttempt(t.Context(), b, failed); err != nil {
		t.Fatal(err)
	}
	e, _ := db.Experiment(t.Context(), id)
	if e.Completed.IsZero() {
		t.Error("every attempt ended, and the experiment is not completed")
	}
}

// TestRetryAttempt: a try whose process died is kept, failed and
// abandoned with no completed time, and a new try takes its place.
func TestRetryAttempt(t *testing.T) {
	db := openTest(t)
	id, as := newExperiment(t, db)
	if err := db.StartAttempt(t.Context(), as[0].ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	slot := session.Slot{Model: "m1", Task: "a", Rep: 1}
	next, err := db.RetryAttempt(t.Context(), id, slot)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := db.Experiment(t.Context(), id)
	if len(e.Attempts) != 3 {
		t.Fatalf("%d attempts, want 3", len(e.Attempts))
	}
	old, retry := e.Attempts[0], e.Attempts[2]
	if old.State != session.AttemptFailed || old.FailureReason != session.FailAbandoned || !old.Completed.IsZero() {
		t.Errorf("the abandoned try: %+v", old)
	}
	if retry.ID != next || retry.Try != 2 || retry.State != session.AttemptCreated || retry.Rep != 1 {
		t.Errorf("the new try: %+v", retry)
	}
}

// TestRunnerGone: a running attempt whose process is dead says so; one
// whose process lives does not.
func TestRunnerGone(t *testing.T) {
	db := openTest(t)
	id, as := newExperiment(t, db)
	if err := db.StartAttempt(t.Context(), as[0].ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := db.StartAttempt(t.Context(), as[1].ID, time.Time{}); err != nil {
		t.Fatal(err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	if _, err := db.sql.ExecContext(t.Context(), `UPDATE attempts SET pid = ? WHERE id = ?`,
		dead.Process.Pid, as[1].ID); err != nil {
		t.Fatal(err)
	}
	e, _ := db.Experiment(t.Context(), id)
	if e.Attempts[0].RunnerGone {
		t.Errorf("this process's attempt is taken for dead (pid %d)", os.Getpid())
	}
	if !e.Attempts[1].RunnerGone {
		t.Error("an attempt of a dead process is not taken for dead")
	}
	if _, err := db.Experiment(t.Context(), id+1); !errors.Is(err, session.ErrNoExperiment) {
		t.Errorf("a missing experiment: %v", err)
	}
	if latest, err := db.LatestExperiment(t.Context()); err != nil || latest != id {
		t.Errorf("latest %d, %v", latest, err)
	}
}
