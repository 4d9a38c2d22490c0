package eval

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite/sqlitetest"
)

// TestImportHarbor reads a hand-made Harbor job: five trials of two
// models, one of which timed out, one with a partial reward written only
// to its reward.json, one with lathe's trajectory.
func TestImportHarbor(t *testing.T) {
	db := sqlitetest.Open(t)
	dir, _ := filepath.Abs(filepath.Join("testdata", "harbor-job"))
	now := time.Date(2026, 5, 3, 9, 0, 0, 0, time.UTC)
	id, err := ImportHarbor(t.Context(), db, dir, now)
	if err != nil {
		t.Fatal(err)
	}
	e, err := db.Experiment(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if e.Suite != "harbor:"+dir || e.Repeat != 2 || e.Jobs != 4 || e.Sandbox != "docker" ||
		e.Version != "lathe v0.9.0 (run by Harbor)" || e.Completed.IsZero() || len(e.Attempts) != 5 {
		t.Errorf("experiment %+v", e)
	}
	if len(e.Models) != 2 || e.Models[0].Name != "qwen3:8b" || e.Models[1].Name != "devstral:24b" {
		t.Errorf("models %+v", e.Models)
	}
	byTrial := map[string]session.Attempt{}
	first := now
	for _, a := range e.Attempts {
		byTrial[a.Model+" "+a.Task+" "+itoa(int64(a.Rep))] = a
		if !a.Started.IsZero() && a.Started.Before(first) {
			first = a.Started
		}
	}
	if !e.Created.Equal(first) { // not the time of the import: "finished in" would be negative
		t.Errorf("created %s, want the first trial's start %s", e.Created, first)
	}
	solved := byTrial["qwen3:8b hello 1"]
	if solved.State != session.AttemptFinished || !*solved.GoalMet || *solved.Reward != 1 || solved.SessionID != "a1b2c3d4e5f60718" ||
		solved.Result.Turns != 2 || solved.Result.ToolCalls != 1 || solved.Result.PromptTokens != 5200 ||
		solved.Result.Wall != 30500*time.Millisecond || solved.Result.PrefillRate != 1000 || solved.Result.DecodeRate != 42 ||
		solved.Result.Decode != 7300*time.Millisecond || solved.Result.Recoveries != 1 || solved.StopReason != "done" ||
		!strings.HasSuffix(solved.Trajectory, "hello__Ab3dE/agent/trajectory.json") {
		t.Errorf("the solved trial: %+v", solved)
	}
	if !solved.Started.Equal(time.Date(2026, 5, 2, 10, 1, 0, 0, time.UTC)) {
		t.Errorf("started %s", solved.Started)
	}
	if a := byTrial["qwen3:8b hello 2"]; *a.GoalMet || *a.Reward != 0 || a.State != session.AttemptFinished {
		t.Errorf("the failed trial: %+v", a)
	}
	timedOut := byTrial["qwen3:8b boxed 1"]
	if timedOut.State != session.AttemptFailed || timedOut.FailureReason != session.FailTimeout || *timedOut.GoalMet ||
		timedOut.Reward != nil || timedOut.Failure != "AgentTimeoutError: Agent execution timed out after 600.0 seconds" {
		t.Errorf("the trial that timed out: %+v", timedOut)
	}
	if a := byTrial["qwen3:8b partial 1"]; a.Reward == nil || *a.Reward != 0.5 || *a.GoalMet {
		t.Errorf("the partial trial: %+v", a)
	}
	sums := Summarize(e, now)
	if s := sums[0]; s.Met != 1 || s.Ended != 4 || s.Failures[session.FailTimeout] != 1 || s.PrefillRate != 1000 {
		t.Errorf("qwen3:8b: %+v", s)
	}
	if s := sums[1]; s.Met != 1 || s.Ended != 1 {
		t.Errorf("devstral:24b: %+v", s)
	}
	if _, err := ImportHarbor(t.Context(), db, t.TempDir(), now); err == nil || !strings.Contains(err.Error(), "not a Harbor job directory") {
		t.Errorf("an empty directory: %v", err)
	}
}
