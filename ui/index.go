package ui

import (
	"context"
	"fmt"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Indexer brings the project's code index up to date: it calls wait
// before each request to the model server and tells progress how far it
// has got; it returns a line saying what it did.
type Indexer interface {
	Index(ctx context.Context, wait func(context.Context) error, progress func(done, total int)) (string, error)
}

// idleGate says whether the chat model is idle: no request, compaction or
// model change under way, no model being pulled, nothing asked of the
// user. Update sets it after every message (no I/O: a mutex and a
// channel); the indexer waits on it, so that it never competes with a
// turn for the GPU.
type idleGate struct {
	mu   sync.Mutex
	idle bool
	open chan struct{} // closed while idle
}

func newIdleGate() *idleGate { return &idleGate{open: make(chan struct{})} }

// set records whether the model is idle now.
func (g *idleGate) set(idle bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case idle && !g.idle:
		close(g.open)
	case !idle && g.idle:
		g.open = make(chan struct{})
	}
	g.idle = idle
}

// wait returns once the model is idle, or ctx's error.
func (g *idleGate) wait(ctx context.Context) error {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	select {
	case <-open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// indexState is the background indexing: whether one is under way, how
// far it has got, and whether another is due (files may have changed
// since it started).
type indexState struct {
	gate        *idleGate // open while the model is idle
	running     bool
	again       bool
	done, total int
	failed      bool // an update failed: none is started again this session
}

type (
	// indexProgressMsg comes through the bridge as an update goes.
	indexProgressMsg struct{ done, total int }
	// indexDoneMsg ends an update.
	indexDoneMsg struct {
		summary string
		err     error
	}
)

// idle reports whether the chat model is free for the indexer.
func (m *model) idle() bool {
	return m.conn.phase == phaseReady && m.busy() == "" && m.dialog == nil && m.machine.loading == ""
}

// startIndex starts bringing the code index up to date in the background,
// once the model is ready: at start and after each request (its tools may
// have changed files). One runs at a time; one asked for meanwhile runs
// after it.
func (m *model) startIndex() tea.Cmd {
	ix := m.opts.Indexer
	switch {
	case ix == nil || m.index.failed || m.conn.phase != phaseReady:
		return nil
	case m.index.running:
		m.index.again = true
		return nil
	}
	m.index.running, m.index.again = true, false
	ctx, b, gate := m.ctx, m.bridge, m.index.gate
	m.runs.Add(1) // quitting cancels it and waits for it, as for a run
	return func() tea.Msg {
		defer m.runs.Done()
		var last time.Time
		summary, err := ix.Index(ctx, gate.wait, func(done, total int) {
			// A frame's worth: the status line shows no more.
			if now := time.Now(); done == total || now.Sub(last) >= 100*time.Millisecond {
				last = now
				b.send(indexProgressMsg{done, total})
			}
		})
		b.send(indexDoneMsg{summary, err})
		return nil
	}
}

// indexed ends an update: a failure is told once (and no update starts
// again); success only goes to the log.
func (m *model) indexed(d indexDoneMsg) tea.Cmd {
	m.index.running, m.index.done, m.index.total = false, 0, 0
	switch {
	case d.err != nil && m.ctx.Err() == nil:
		m.index.failed = true
		m.notice(noticeWarn, "", "The code index is not being brought up to date: "+d.err.Error())
		return nil
	case d.err == nil:
		// What was done, or why there is no index to keep.
		m.opts.Engine.Log.Info().Str("index", d.summary).Msg("code index")
	}
	if m.index.again {
		return m.startIndex()
	}
	return nil
}

// Update records how far the update under way got.
func (s indexState) Update(msg tea.Msg) (indexState, tea.Cmd) {
	if p, ok := msg.(indexProgressMsg); ok {
		s.done, s.total = p.done, p.total
	}
	return s, nil
}

// View is what the status line says of the indexing under way; "" when
// none is, or it has not started reading.
func (s indexState) View() string {
	if !s.running || s.total == 0 || s.done == s.total {
		return ""
	}
	return fmt.Sprintf("indexing %d/%d files", s.done, s.total)
}
