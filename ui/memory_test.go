package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/orchestrator/session/sqlite/sqlitetest"
)

func memoryModel(t *testing.T) (*model, *sqlite.DB) {
	t.Helper()
	db := sqlitetest.Open(t)
	m, _ := testModel(t)
	m.opts.Catalog, m.opts.Memory = db, db
	return m, db
}

// TestSearchResumesThere: /search lists the messages holding the words;
// Enter resumes that session with the transcript at the message found.
func TestSearchResumesThere(t *testing.T) {
	m, db := memoryModel(t)
	ctx := t.Context()
	id := "5e55000000000001"
	if err := db.CreateSession(ctx, session.Record{ID: id, Title: "long talk", Dir: m.opts.Dir, Model: "qwen3:8b"}); err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		text := fmt.Sprintf("filler message number %d", i)
		if i == 20 {
			text = "the flaky upload test needs a fixed clock"
		}
		role := map[bool]string{true: "user", false: "assistant"}[i%2 == 0]
		if err := db.SaveMessage(ctx, id, session.Message{Seq: i, Message: provider.Message{Role: role, Content: text}}); err != nil {
			t.Fatal(err)
		}
	}
	m.input.set("/search flaky clock")
	cmd := m.key(keyPress("enter"))
	if _, ok := m.panel.(*list[session.Hit]); cmd == nil || !ok {
		t.Fatal("/search did not open the list")
	}
	m.Update(cmd())
	s := screen(m)
	if !strings.Contains(s, `holding "flaky clock"`) || !strings.Contains(s, "5e550000  ") ||
		!strings.Contains(s, "long talk — the flaky upload test needs a fixed c") {
		t.Fatalf("the hits are not listed:\n%s", s)
	}
	load := choose(m)
	if load == nil || m.panel != nil {
		t.Fatal("enter did not load the session")
	}
	_, prepareCmd := m.Update(load())
	m.Update(prepareCmd())
	s = screen(m)
	if !strings.Contains(s, "the flaky upload test needs a fixed clock") || strings.Contains(s, "filler message number 59") {
		t.Errorf("the transcript is not at the message found:\n%s", s)
	}
	if m.transcript.follow {
		t.Error("the transcript follows the bottom: the next token would scroll away from the message found")
	}

	m.input.set("/search")
	if cmd := m.key(keyPress("enter")); cmd != nil || m.panel != nil || !strings.Contains(statusOf(m), "/search WORDS") {
		t.Errorf("/search without words: status %q", statusOf(m))
	}
}

// TestMemoryCommand: /memory lists the facts, marking those the prompt
// leaves out; rm forgets one, edit rewrites one.
func TestMemoryCommand(t *testing.T) {
	m, db := memoryModel(t)
	ctx := t.Context()
	run := func(line string) {
		t.Helper()
		m.input.set(line)
		cmd := m.key(keyPress("enter"))
		if cmd == nil {
			t.Fatalf("%s did nothing: %q", line, statusOf(m))
		}
		m.Update(cmd())
	}
	run("/memory")
	if s := screen(m); !strings.Contains(s, "Nothing is remembered about this directory.") {
		t.Errorf("no facts:\n%s", s)
	}
	for i := range 40 {
		if _, err := db.AddFact(ctx, m.opts.Dir, fmt.Sprintf("fact %02d %s", i, strings.Repeat("x", 30)), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	run("/memory")
	s := screen(m)
	if !strings.Contains(s, "fact 39") || !strings.Contains(s, "/memory rm N") {
		t.Errorf("the facts are not listed:\n%s", s)
	}
	if !strings.Contains(strings.Join(m.transcript.items[len(m.transcript.items)-1].lines(100, &m.st), "\n"),
		"fact 00 "+strings.Repeat("x", 30)+" (left out of the prompt for room)") {
		t.Error("the oldest fact is not marked as left out")
	}
	run("/memory rm 1")
	run("/memory edit 2 tests run with make check")
	if s := screen(m); !strings.Contains(s, "Forgot fact 1.") || !strings.Contains(s, "Fact 2 rewritten.") {
		t.Errorf("rm and edit:\n%s", s)
	}
	facts, _ := db.Facts(ctx, m.opts.Dir)
	if len(facts) != 39 || facts[0].ID != 2 || facts[0].Text != "tests run with make check" {
		t.Errorf("facts after rm and edit: %d, first %+v", len(facts), facts[0])
	}
	run("/memory rm 1")
	if s := screen(m); !strings.Contains(s, "no such fact") {
		t.Errorf("rm of a fact gone:\n%s", s)
	}
	m.input.set("/memory edit 3")
	if cmd := m.key(keyPress("enter")); cmd != nil || !strings.Contains(statusOf(m), "/memory edit N TEXT") {
		t.Errorf("edit without a text: status %q", statusOf(m))
	}
}

// stubIndexer records its updates, each waiting on the gate once and
// reporting progress, and ends when told.
type stubIndexer struct {
	mu      sync.Mutex
	started int
	waited  chan struct{}
	finish  chan error
}

func (s *stubIndexer) Index(ctx context.Context, wait func(context.Context) error, progress func(done, total int)) (string, error) {
	s.mu.Lock()
	s.started++
	s.mu.Unlock()
	if err := wait(ctx); err != nil {
		return "", err
	}
	progress(3, 10)
	s.waited <- struct{}{}
	if err := <-s.finish; err != nil {
		return "", err
	}
	progress(10, 10)
	return "indexed", nil
}

// gateOpen reports whether the gate lets the indexer through now.
func gateOpen(g *idleGate) bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	select {
	case <-open:
		return true
	default:
		return g.wait(ctx) == nil
	}
}

// TestIndexWhileIdle: the index is brought up to date once the model is
// ready and only while it is idle: a request under way holds it back; its
// progress shows on the status line; a request ending starts another
// update after the one under way; a failure is told once and stops them.
func TestIndexWhileIdle(t *testing.T) {
	m, _ := testModel(t)
	ix := &stubIndexer{waited: make(chan struct{}, 4), finish: make(chan error, 4)}
	m.opts.Indexer = ix
	m.conn.phase = phaseReady
	m.startRun(orchestrator.Prompt{Text: "a request"})
	m.Update(frameMsg{})
	if gateOpen(m.index.gate) {
		t.Fatal("the gate is open while a request is under way")
	}
	start := m.startIndex()
	if start == nil {
		t.Fatal("no update started")
	}
	go start()
	m.Update(engineMsg{runDoneMsg{res: orchestrator.Result{StopReason: orchestrator.StopDone}}})
	if !gateOpen(m.index.gate) {
		t.Fatalf("the gate is closed once the request ended: busy %q", m.busy())
	}
	if !m.index.again {
		t.Error("the request's end did not ask for another update after this one")
	}
	<-ix.waited
	m.Update((m.bridge.wait())().(engineMsg))
	if got := statusOf(m); !strings.Contains(got, "indexing 3/10 files") {
		t.Errorf("status while indexing: %q", got)
	}
	ix.finish <- nil
	for m.index.total != 0 || m.index.again {
		m.Update((m.bridge.wait())().(engineMsg))
	}
	if !m.index.running || m.index.again {
		t.Errorf("the update asked for meanwhile did not start: %+v", m.index)
	}
	if strings.Contains(statusOf(m), "indexing") {
		t.Errorf("status after the update: %q", statusOf(m))
	}

	m.indexed(indexDoneMsg{err: errors.New("model gone")})
	if s := screen(m); !strings.Contains(s, "The code index is not being brought up to date: model gone") {
		t.Errorf("a failure is not told:\n%s", s)
	}
	if cmd := m.startIndex(); cmd != nil {
		t.Error("an update starts again after a failure")
	}
}

func TestIdleGate(t *testing.T) {
	g := newIdleGate()
	if gateOpen(g) {
		t.Fatal("a new gate is open: the model is not known idle yet")
	}
	g.set(true)
	if !gateOpen(g) || g.wait(t.Context()) != nil {
		t.Fatal("an open gate holds the indexer back")
	}
	g.set(true) // again: no double close
	g.set(false)
	if gateOpen(g) {
		t.Fatal("a gate closed again lets the indexer through")
	}
}

// TestSearchSnippetsAreWords: a /search hit's snippet shows the words of
// the markdown it was found in, not its markup (F16).
func TestSearchSnippetsAreWords(t *testing.T) {
	for in, want := range map[string]string{
		"…I created **a.txt** and `b.txt`. | file | lines | purpose | |---|---|---| | a.txt | 1 |": "…I created a.txt and b.txt. · file · lines · purpose · a.txt · 1",
		"plain words, __bold__ and ``code``": "plain words, bold and code",
	} {
		if got := plainMarkdown(in); got != want {
			t.Errorf("plainMarkdown(%q) = %q, want %q", in, got, want)
		}
	}
}
