package ui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// loaderFunc reads a session to resume as a store would, and notes the
// ids asked for.
type loaderFunc struct {
	saved session.Saved
	err   error
	mu    sync.Mutex
	asked []string
}

func (l *loaderFunc) LoadResume(_ context.Context, id string) (session.Saved, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked = append(l.asked, id)
	return l.saved, l.err
}

// reads is how many times the session was read.
func (l *loaderFunc) reads() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.asked)
}

// resumingModel is a model that resumes the session whose header is
// given, its history read through loader.
func resumingModel(t *testing.T, header session.Saved, loader orchestrator.ResumeLoader) *model {
	return scaleModel(t, nil, &header, loader)
}

var greetHeader = session.Record{ID: "0123456789abcdef", Title: "greet", Model: "qwen3:8b"}

// TestResumeFirstFrameDoesNotWaitForTheHistory: given only a session's
// header and a loader, the TUI's first frame says that it resumes the
// session before anything is read; preparing reads the history, once,
// and shows it.
func TestResumeFirstFrameDoesNotWaitForTheHistory(t *testing.T) {
	loader := &loaderFunc{saved: session.Saved{Record: greetHeader, Messages: []session.Message{
		{Seq: 0, Message: provider.Message{Role: "user", Content: "greet the user"}},
		{Seq: 1, Message: provider.Message{Role: "assistant", Content: "Added a greeting."}},
	}}}
	m := resumingModel(t, session.Saved{Record: greetHeader}, loader)
	first := screen(m)
	if len(loader.asked) != 0 {
		t.Fatalf("the history was read before the first frame: %v", loader.asked)
	}
	if !strings.Contains(first, `Resuming "greet"`) || strings.Contains(first, "Added a greeting.") {
		t.Fatalf("the first frame:\n%s", first)
	}
	prepare(m)
	s := screen(m)
	if !slices.Equal(loader.asked, []string{greetHeader.ID}) {
		t.Errorf("read %v, want the session once", loader.asked)
	}
	if !strings.Contains(s, `Resumed "greet": 2 messages.`) || !strings.Contains(s, "Added a greeting.") ||
		strings.Contains(s, "Resuming") {
		t.Errorf("after reading:\n%s", s)
	}
	if id := m.session.Snapshot().ID; id != greetHeader.ID {
		t.Errorf("the session goes on as %q", id)
	}
	m.Update(m.prepare()()) // preparing again reads nothing again
	if len(loader.asked) != 1 {
		t.Errorf("read %d times", len(loader.asked))
	}
}

// TestResumeUnreadableStartsANewSession: a history that cannot be read
// is said, and a new session starts instead of the one asked for.
func TestResumeUnreadableStartsANewSession(t *testing.T) {
	loader := &loaderFunc{err: errors.New("load session 0123456789abcdef: database disk image is malformed")}
	m := resumingModel(t, session.Saved{Record: greetHeader}, loader)
	screen(m) // the first frame
	prepare(m)
	s := screen(m)
	if !strings.Contains(s, "Cannot resume") || !strings.Contains(s, "database disk image is malformed") ||
		strings.Contains(s, "Resuming") {
		t.Errorf("screen:\n%s", s)
	}
	if m.conn.phase != phaseReady || m.session.Snapshot().ID == greetHeader.ID {
		t.Errorf("phase %v, session %q: want a new session, ready", m.conn.phase, m.session.Snapshot().ID)
	}
}

// TestResumeReadWaitsForTheFirstFrame: the history is read once the
// first frame is made and the renderer has had a tick to put it out, not
// as soon as preparing starts: reading a long one would slow that frame.
func TestResumeReadWaitsForTheFirstFrame(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		loader := &loaderFunc{saved: session.Saved{Record: greetHeader}}
		m := resumingModel(t, session.Saved{Record: greetHeader}, loader)
		cmd := m.prepare()
		done := make(chan tea.Msg, 1)
		go func() { done <- cmd() }()
		synctest.Wait()
		if n := loader.reads(); n != 0 {
			t.Fatalf("read %d times before the first frame", n)
		}
		m.View()
		synctest.Wait()
		if n := loader.reads(); n != 0 {
			t.Fatalf("read %d times before the renderer's tick", n)
		}
		time.Sleep(firstTick)
		msg := <-done
		if n := loader.reads(); n != 1 {
			t.Errorf("read %d times once the frame was out", n)
		}
		m.Update(msg)
		if m.conn.phase != phaseReady {
			t.Errorf("phase %v after the read", m.conn.phase)
		}
	})
}
