package sqlite

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// childEnv names the database a re-executed test binary writes to until
// it is killed (see TestMain).
const childEnv = "LATHE_STORE_TEST_CHILD_DB"

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		os.Exit(writeUntilKilled(path))
	}
	os.Exit(m.Run())
}

// writeUntilKilled starts a run and saves messages forever, printing each
// seq once its message is committed. It never closes the database.
func writeUntilKilled(path string) int {
	ctx := context.Background()
	db, err := Open(ctx, path, Options{})
	if err == nil {
		err = db.CreateSession(ctx, session.Record{ID: "s1", Dir: "/w"})
	}
	if err == nil {
		_, err = db.StartRun(ctx, session.RunStart{SessionID: "s1"})
	}
	for seq := 0; err == nil; seq++ {
		m := session.Message{Seq: seq, Message: provider.Message{Role: "tool", Content: contentOf(seq)}}
		if err = db.SaveMessage(ctx, "s1", m); err == nil {
			_, err = fmt.Println(seq)
		}
	}
	fmt.Fprintln(os.Stderr, err)
	return 1
}

// TestKilledWriterLosesNothingCommitted kills (SIGKILL) a process in the
// middle of writing messages: every message it reported committed is
// there, whole, and its run reads as interrupted.
func TestKilledWriterLosesNothingCommitted(t *testing.T) {
	const atLeast = 100
	path := filepath.Join(t.TempDir(), "lathe.db")
	cmd := exec.CommandContext(t.Context(), os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	committed := -1
	for lines := bufio.NewScanner(out); committed < atLeast && lines.Scan(); {
		if committed, err = strconv.Atoi(lines.Text()); err != nil {
			t.Fatal(err)
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if committed < atLeast {
		t.Fatalf("the writer stopped after %d messages", committed+1)
	}

	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Messages) <= committed {
		t.Errorf("%d messages after the kill, want at least %d", len(s.Messages), committed+1)
	}
	for i, m := range s.Messages {
		if m.Seq != i || m.Message.Content != contentOf(i) {
			t.Fatalf("message %d is not message %d as written", m.Seq, i)
		}
	}
	if s.LastRun == nil || s.LastRun.Ending() != "interrupted" {
		t.Errorf("last run %+v, want one interrupted", s.LastRun)
	}
}

// TestSecondHandleSeesCommits reads through a second *DB on the file
// while the first, never closed, goes on writing.
func TestSecondHandleSeesCommits(t *testing.T) {
	writer := openTest(t)
	createSession(t, writer, "s1", "/w", day)
	reader, err := Open(t.Context(), writer.path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	for seq := range 30 {
		m := session.Message{Seq: seq, Message: provider.Message{Role: "user", Content: contentOf(seq)}}
		if err := writer.SaveMessage(t.Context(), "s1", m); err != nil {
			t.Fatal(err)
		}
		s, err := reader.Load(t.Context(), "s1")
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Messages) != seq+1 || s.Messages[seq].Message.Content != contentOf(seq) {
			t.Fatalf("after committing message %d, the other handle sees %d messages", seq, len(s.Messages))
		}
	}
}
