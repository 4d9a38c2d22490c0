package sqlite

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// contentOf is message seq's content: long enough to span pages, and
// checkable, so a reader can tell a complete message from a torn one.
func contentOf(seq int) string {
	return fmt.Sprintf("<%d>", seq) + strings.Repeat(fmt.Sprintf("%07d ", seq), 500) + fmt.Sprintf("</%d>", seq)
}

// writeRuns saves n messages to session id, a run around every ten, the
// way the agent does. The run saving message seq first starts at
// day + seq seconds, so that readers can match runs and messages.
func writeRuns(t *testing.T, db *DB, id string, n int) {
	t.Helper()
	ctx := t.Context()
	var run int64
	for seq := range n {
		if seq%10 == 0 {
			var err error
			if run, err = db.StartRun(ctx, session.RunStart{SessionID: id, Model: "m", Started: day.Add(time.Duration(seq) * time.Second)}); err != nil {
				t.Error(err)
				return
			}
		}
		m := session.Message{Seq: seq, Message: provider.Message{Role: "tool", Content: contentOf(seq)},
			Tool: &session.ToolMeta{Outcome: "ok", Summary: fmt.Sprint(seq)}}
		if err := db.SaveMessage(ctx, id, m); err != nil {
			t.Error(err)
			return
		}
		if seq%10 == 9 {
			if err := db.FinishRun(ctx, run, session.RunEnd{StopReason: "done"}); err != nil {
				t.Error(err)
				return
			}
		}
	}
}

// readUntil loads the session and lists its directory until done is
// set, checking that what it sees is whole and never goes backwards.
func readUntil(t *testing.T, db *DB, id string, done *atomic.Bool) {
	ctx := t.Context()
	seen := 0
	for !done.Load() {
		s, err := db.Load(ctx, id)
		if err != nil {
			t.Error(err)
			return
		}
		if len(s.Messages) < seen {
			t.Errorf("messages went from %d to %d", seen, len(s.Messages))
		}
		seen = len(s.Messages)
		for i, m := range s.Messages {
			if m.Seq != i || m.Message.Content != contentOf(i) || m.Tool == nil || m.Tool.Summary != fmt.Sprint(i) {
				t.Errorf("message %d is not message %d as written", m.Seq, i)
				return
			}
		}
		if err := runMatches(s); err != nil {
			t.Error(err)
		}
		list, err := db.List(ctx, "/w")
		if err != nil {
			t.Error(err)
			return
		}
		if len(list) != 2 {
			t.Errorf("listed %d sessions, want 2", len(list))
		}
	}
}

// runMatches checks that a loaded session's last run and messages come
// from one state of the database: a run saves messages first to first+9,
// then finishes; the next run starts after.
func runMatches(s session.Saved) error {
	r := s.LastRun
	if r == nil {
		return nil
	}
	first := int(r.Started.Sub(day) / time.Second)
	finished := !r.Completed.IsZero()
	if finished && r.StopReason != "done" {
		return fmt.Errorf("a finished run without its stop reason: %+v", r)
	}
	if n := len(s.Messages); n < first || n > first+10 || finished && n != first+10 {
		return fmt.Errorf("%d messages with the run from message %d (finished: %v)", n, first, finished)
	}
	return nil
}

// TestConcurrentReadersAndWriters runs a writer per session, one of them
// through a second *DB on the same file (as another lathe process would),
// while readers load and list: no SQLITE_BUSY may surface, and readers
// see only committed, complete states.
func TestConcurrentReadersAndWriters(t *testing.T) {
	const messages, readers = 150, 4
	db := openTest(t)
	other, err := Open(t.Context(), db.path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	createSession(t, db, "mine", "/w", day)
	createSession(t, db, "theirs", "/w", day)

	var done atomic.Bool
	var writers, wg sync.WaitGroup
	writers.Go(func() { writeRuns(t, db, "mine", messages) })
	writers.Go(func() { writeRuns(t, other, "theirs", messages) })
	for i := range readers {
		reader := db
		if i%2 == 1 {
			reader = other
		}
		wg.Go(func() { readUntil(t, reader, []string{"mine", "theirs"}[i/2%2], &done) })
	}
	writers.Wait()
	done.Store(true)
	wg.Wait()

	for _, id := range []string{"mine", "theirs"} {
		s, err := db.Load(t.Context(), id)
		if err != nil || len(s.Messages) != messages {
			t.Errorf("%s: %d messages, %v; want %d", id, len(s.Messages), err, messages)
		}
	}
}
