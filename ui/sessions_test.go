package ui

import (
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/session"
)

// TestResumeOfASessionInUse: a session another lathe uses is not taken;
// the TUI says so and goes on in a new session.
func TestResumeOfASessionInUse(t *testing.T) {
	m, _ := testModel(t)
	before := m.session
	inUse := &session.InUseError{ID: "abcdef0123456789", Holder: session.Holder{PID: 4242, Since: time.Now()}}
	cmd := m.prepared(preparedMsg{err: inUse})
	if cmd == nil || m.session == before || m.conn.phase != phaseConnecting {
		t.Fatalf("no new session prepared: cmd %v, phase %v", cmd != nil, m.conn.phase)
	}
	if got := screen(m); !strings.Contains(got, "session abcdef0123456789 is in use by another lathe (pid 4242") ||
		!strings.Contains(got, "starting a new session instead") {
		t.Errorf("screen:\n%s", got)
	}
}
