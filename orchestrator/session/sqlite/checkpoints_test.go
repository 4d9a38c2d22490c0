package sqlite

import (
	"errors"
	"testing"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// TestUndoRunTakesBackTheHistory: an undone run's messages, the
// compactions made during it and its mode records leave the history,
// kept aside; a redo puts them back while nothing came after.
func TestUndoRunTakesBackTheHistory(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	createSession(t, db, "s1", "/w", day)
	msg := func(seq int, role, content string, at time.Time) {
		if err := db.SaveMessage(ctx, "s1", session.Message{Seq: seq, Message: provider.Message{Role: role, Content: content}, Created: at}); err != nil {
			t.Fatal(err)
		}
	}
	msg(0, "user", "first", day)
	msg(1, "assistant", "one", day)
	runAt := day.Add(time.Minute)
	cpID, err := db.CreateCheckpoint(ctx, "s1", 2, runAt)
	if err != nil {
		t.Fatal(err)
	}
	msg(2, "user", "second", runAt)
	msg(3, "assistant", "two", runAt)
	saveMode(t, db, "s1", session.ModeRecord{Seq: 3, Mode: "build", Reason: "start_task", Created: runAt})
	if err := db.SaveCompaction(ctx, "s1", session.Compaction{Seq: 1, Summary: "sum", Created: runAt.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	cps, err := db.Checkpoints(ctx, "s1")
	if err != nil || len(cps) != 1 || cps[0].ID != cpID {
		t.Fatalf("checkpoints %+v, %v", cps, err)
	}
	if err := db.UndoRun(ctx, cps[0], runAt.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	saved, err := db.Load(ctx, "s1")
	if err != nil || len(saved.Messages) != 2 || saved.Compaction != nil || len(saved.Modes) != 0 {
		t.Fatalf("after undo: %d messages, compaction %v, modes %v, %v", len(saved.Messages), saved.Compaction, saved.Modes, err)
	}
	cps, _ = db.Checkpoints(ctx, "s1")
	if cps[0].Undone.IsZero() {
		t.Error("the checkpoint is not marked undone")
	}
	if err := db.RedoRun(ctx, cps[0]); err != nil {
		t.Fatal(err)
	}
	saved, _ = db.Load(ctx, "s1")
	if len(saved.Messages) != 4 || saved.Messages[3].Message.Content != "two" || saved.Compaction == nil || len(saved.Modes) != 1 {
		t.Errorf("after redo: %d messages, compaction %v, modes %v", len(saved.Messages), saved.Compaction, saved.Modes)
	}

	// Undo again, then the conversation goes on: the undone part cannot
	// come back, and stays kept aside.
	cps, _ = db.Checkpoints(ctx, "s1")
	if err := db.UndoRun(ctx, cps[0], runAt.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	msg(2, "user", "instead", runAt.Add(3*time.Hour))
	if err := db.RedoRun(ctx, cps[0]); !errors.Is(err, session.ErrNothingToRedo) {
		t.Errorf("redo after the conversation went on: %v", err)
	}
	var kept int
	db.sql.QueryRowContext(ctx, `SELECT count(*) FROM undone_messages WHERE checkpoint_id = ?`, cpID).Scan(&kept)
	if kept != 2 {
		t.Errorf("%d undone messages kept aside, want 2", kept)
	}
}
