package sqlite

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"lathe/orchestrator/session"
)

func TestRuns(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	createSession(t, db, "s1", "/w", day)
	saved, err := db.Load(ctx, "s1")
	if err != nil || saved.LastRun != nil {
		t.Fatalf("before any run: last run %+v, %v; want nil", saved.LastRun, err)
	}
	opts := map[string]any{"num_ctx": 32768, "temperature": 0.2}
	first, err := db.StartRun(ctx, session.RunStart{SessionID: "s1", Model: "qwen3:8b", Options: opts, Started: day})
	if err != nil {
		t.Fatal(err)
	}
	end := session.RunEnd{StopReason: "error", Failure: "ollama: model not found", Turns: 3,
		ToolCalls: 7, PromptTokens: 12000, CompletionTokens: 800, Completed: day.Add(time.Minute)}
	if err := db.FinishRun(ctx, first, end); err != nil {
		t.Fatal(err)
	}
	want := session.RunSummary{Started: day, Completed: day.Add(time.Minute), StopReason: "error", Failure: "ollama: model not found"}
	checkLastRun(t, db, want, "error")

	// The run's counters and options, which no summary shows.
	var turns, calls, prompt, completion int
	var options string
	err = db.sql.QueryRowContext(ctx, `SELECT turns, tool_calls, prompt_tokens, completion_tokens, options
		FROM runs WHERE id = ?`, first).Scan(&turns, &calls, &prompt, &completion, &options)
	if err != nil {
		t.Fatal(err)
	}
	if turns != 3 || calls != 7 || prompt != 12000 || completion != 800 || options != `{"num_ctx":32768,"temperature":0.2}` {
		t.Errorf("run row: %d %d %d %d %s", turns, calls, prompt, completion, options)
	}

	// A later run the process never finished is the last one: interrupted.
	second, err := db.StartRun(ctx, session.RunStart{SessionID: "s1", Model: "qwen3:8b", Started: day.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if second == first || second == 0 {
		t.Errorf("run ids %d then %d", first, second)
	}
	checkLastRun(t, db, session.RunSummary{Started: day.Add(time.Hour)}, "interrupted")

	// The last run is the last started, not the last recorded.
	if _, err := db.StartRun(ctx, session.RunStart{SessionID: "s1", Started: day.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	checkLastRun(t, db, session.RunSummary{Started: day.Add(time.Hour)}, "interrupted")
}

func checkLastRun(t *testing.T, db *DB, want session.RunSummary, ending string) {
	t.Helper()
	saved, err := db.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	r := saved.LastRun
	if r == nil {
		t.Fatal("no last run")
	}
	if !r.Started.Equal(want.Started) || !r.Completed.Equal(want.Completed) || r.Completed.IsZero() != want.Completed.IsZero() ||
		r.StopReason != want.StopReason || r.Failure != want.Failure {
		t.Errorf("last run %+v, want %+v", *r, want)
	}
	if r.Ending() != ending {
		t.Errorf("ending %q, want %q", r.Ending(), ending)
	}
}

func TestRunErrors(t *testing.T) {
	db := openTest(t)
	_, err := db.StartRun(t.Context(), session.RunStart{SessionID: "nope"})
	if !errors.Is(err, session.ErrNotFound) {
		t.Errorf("StartRun of an unknown session: %v, want ErrSessionNotFound", err)
	}
	if err := db.FinishRun(t.Context(), 42, session.RunEnd{}); !errors.Is(err, errRunNotFound) {
		t.Errorf("FinishRun of an unknown run: %v, want errRunNotFound", err)
	}
}

func TestCompactions(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	createSession(t, db, "s1", "/w", day)
	steps := []struct {
		save session.Compaction
		want string // the latest compaction's seq:summary
	}{
		{session.Compaction{Seq: 10, Summary: "first ten", Created: day}, "10:first ten"},
		{session.Compaction{Seq: 4, Summary: "older", Created: day.Add(time.Hour)}, "10:first ten"},
		{session.Compaction{Seq: 30, Summary: "up to thirty", Created: day.Add(time.Minute)}, "30:up to thirty"},
		{session.Compaction{Seq: 30, Summary: "redone", Created: day.Add(2 * time.Minute)}, "30:redone"},
	}
	saved, err := db.Load(ctx, "s1")
	if err != nil || saved.Compaction != nil {
		t.Fatalf("before any compaction: %+v, %v; want nil", saved.Compaction, err)
	}
	for _, s := range steps {
		if err := db.SaveCompaction(ctx, "s1", s.save); err != nil {
			t.Fatal(err)
		}
		saved, err := db.Load(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		c := saved.Compaction
		if c == nil {
			t.Fatal("no compaction loaded")
		}
		if got := strconv.Itoa(c.Seq) + ":" + c.Summary; got != s.want {
			t.Errorf("after saving %d: latest %s, want %s", s.save.Seq, got, s.want)
		}
		if got := strconv.Itoa(s.save.Seq) + ":" + s.save.Summary; got == s.want && !c.Created.Equal(s.save.Created) {
			t.Errorf("compaction created %v, want %v", c.Created, s.save.Created)
		}
	}
	if saved, _ := db.Load(ctx, "s1"); !saved.Updated.Equal(day) {
		t.Errorf("a compaction moved the session's updated time to %v", saved.Updated)
	}
	if err := db.SaveCompaction(ctx, "nope", session.Compaction{}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("SaveCompaction of an unknown session: %v, want ErrSessionNotFound", err)
	}
}
