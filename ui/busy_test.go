package ui

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ollama/ollama/api"
	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools"
)

// loop runs a model the way Bubble Tea does: Update on one goroutine (the
// test's), every command on a goroutine of its own, batches unpacked. It is
// what lets a test act while work started by a key is under way.
type loop struct {
	t    testing.TB
	m    *model
	msgs chan tea.Msg
}

func newLoop(t testing.TB, m *model) *loop {
	l := &loop{t: t, m: m, msgs: make(chan tea.Msg, 64)}
	l.start(m.bridge.wait())
	return l
}

// readyLoop runs a model of opts in a loop, sized as opts says, until it
// is ready; the model is shut down when the test ends.
func readyLoop(t testing.TB, opts Options) *loop {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	m := newModel(ctx, opts)
	m.Update(tea.WindowSizeMsg{Width: opts.Width, Height: opts.Height})
	l := newLoop(t, m)
	t.Cleanup(func() {
		cancel()
		m.shutdown(cancel)
	})
	l.start(m.prepare())
	l.until("the model to be ready", func() bool { return m.conn.phase == phaseReady })
	return l
}

func (l *loop) start(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				l.start(c)
			}
			return
		}
		if msg != nil {
			l.msgs <- msg
		}
	}()
}

// key presses a key and starts what it asks for.
func (l *loop) key(name string) {
	_, cmd := l.m.Update(keyPress(name))
	l.start(cmd)
}

// enter types text and presses enter.
func (l *loop) enter(text string) {
	l.m.input.set(text)
	l.key("enter")
}

// until handles messages until cond holds.
func (l *loop) until(what string, cond func() bool) {
	l.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case msg := <-l.msgs:
			_, cmd := l.m.Update(msg)
			l.start(cmd)
		case <-deadline:
			l.t.Fatalf("waiting for %s: the screen is\n%s", what, screen(l.m))
		}
	}
}

// gate holds the provider calls named in hold until release is closed,
// telling entered when one waits.
type gate struct {
	provider.Provider
	mu      sync.Mutex
	hold    map[string]bool
	entered chan string
	release chan struct{}
}

func (g *gate) set(hold ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.hold = map[string]bool{}
	for _, h := range hold {
		g.hold[h] = true
	}
}

func (g *gate) wait(name string) {
	g.mu.Lock()
	held := g.hold[name]
	g.mu.Unlock()
	if held {
		g.entered <- name
		<-g.release
	}
}

func (g *gate) Chat(ctx context.Context, req *provider.Request, fn func(provider.Chunk) error) error {
	g.wait("chat")
	return g.Provider.Chat(ctx, req, fn)
}

func (g *gate) Model(ctx context.Context, name string) (provider.ModelInfo, error) {
	g.wait("model")
	return g.Provider.Model(ctx, name)
}

// slowModes holds the saving of a mode change until release is closed.
type slowModes struct {
	*sqlite.DB
	entered chan struct{}
	release chan struct{}
}

func (r *slowModes) SaveMode(ctx context.Context, id string, rec session.ModeRecord) error {
	if rec.Reason == "shift+tab" {
		r.entered <- struct{}{}
		<-r.release
	}
	return r.DB.SaveMode(ctx, id, rec)
}

// liveModel is a TUI on the fake server through the real Ollama backend,
// its calls held by a gate, its sessions saved in a database; the
// conversation has one exchange already.
func liveModel(t *testing.T) (*loop, *ollamatest.Server, *gate, *slowModes) {
	t.Helper()
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: "qwen3:8b"}, ollamatest.Model{Name: "small:1b"}))
	srv.Respond(func(req api.ChatRequest) ollamatest.Reply {
		return ollamatest.Reply{Content: "answer to " + req.Messages[len(req.Messages)-1].Content}
	})
	base, _ := url.Parse(srv.URL())
	cfg := config.Defaults()
	cfg.Model = "qwen3:8b"
	g := &gate{Provider: ollama.New(ollama.Options{URL: base, Options: cfg.Options}), hold: map[string]bool{},
		entered: make(chan string, 4), release: make(chan struct{})}
	db := sqlitetest.Open(t)
	rec := &slowModes{DB: db, entered: make(chan struct{}, 1), release: make(chan struct{})}
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	l := readyLoop(t, Options{
		Engine: orchestrator.Options{Provider: g, Tools: tools.Default(ws, tools.Options{}), Log: zerolog.Nop(),
			Config: cfg, Recorder: rec, Approver: nil},
		Catalog: db, Dir: ws.Dir(), NoColor: true, Width: 100, Height: 30,
	})
	m := l.m
	l.enter("first")
	l.until("the first answer and the title", func() bool {
		return m.run == nil && strings.Contains(screen(m), "answer to first") && m.title.text != ""
	})
	return l, srv, g, rec
}

// TestWorkInFlight acts while each kind of work is under way: keys that
// would start other work are refused with "busy: …", a prompt is queued
// and shown, and once the work ends the queued prompt is sent. Run with
// -race: the session is never touched from two goroutines.
func TestWorkInFlight(t *testing.T) {
	cases := []struct {
		name  string
		doing string
		start func(l *loop, g *gate, rec *slowModes)
		wait  func(g *gate, rec *slowModes)
		done  func(l *loop) bool
	}{
		{"model switch", "busy: switching the model", func(l *loop, g *gate, _ *slowModes) {
			g.set("model")
			l.enter("/model small:1b")
		}, func(g *gate, _ *slowModes) { <-g.entered }, func(l *loop) bool { return l.m.conn.info.Name == "small:1b" }},
		{"compaction", "busy: compacting", func(l *loop, g *gate, _ *slowModes) {
			g.set("chat")
			l.enter("/compact")
		}, func(g *gate, _ *slowModes) { <-g.entered }, func(l *loop) bool {
			// Compacted, or not for nothing to gain: either way it ended.
			return strings.Contains(screen(l.m), "Compacted") || strings.Contains(screen(l.m), "nothing to gain")
		}},
		{"request", "busy: a request is running", func(l *loop, g *gate, _ *slowModes) {
			g.set("chat")
			l.enter("second")
		}, func(g *gate, _ *slowModes) { <-g.entered }, func(l *loop) bool { return strings.Contains(screen(l.m), "answer to second") }},
		{"mode change", "busy: changing the mode", func(l *loop, _ *gate, _ *slowModes) {
			l.key("shift+tab")
		}, func(_ *gate, rec *slowModes) { <-rec.entered }, func(l *loop) bool { return l.m.mode.name == "plan" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, srv, g, rec := liveModel(t)
			m := l.m
			mode := m.mode.name
			c.start(l, g, rec)
			c.wait(g, rec)
			for _, try := range []func(){
				func() { l.key("shift+tab") },
				func() { l.enter("/model small:1b") },
				func() { l.enter("/compact") },
				func() { l.enter("/new") },
				func() { l.enter("/sessions") },
			} {
				m.status.note = ""
				try()
				if st := statusOf(m); !strings.Contains(st, c.doing) {
					t.Errorf("while %s: status %q, want %q", c.name, st, c.doing)
				}
			}
			if m.panel != nil {
				t.Errorf("while %s: a panel opened", c.name)
			}
			if c.name != "mode change" && m.mode.name != mode {
				t.Errorf("while %s the mode changed to %s", c.name, m.mode.name)
			}
			l.enter("queued prompt")
			if len(m.work.queued) != 1 || !strings.Contains(screen(m), "queued queued prompt") {
				t.Fatalf("while %s the prompt was not queued and shown:\n%s", c.name, screen(m))
			}
			when := "queued: sent when " + strings.TrimPrefix(strings.TrimPrefix(c.doing, "busy: "), "a request is running") + " ends"
			if c.name == "request" {
				when = "queued: sent when the request ends"
			}
			if st := statusOf(m); !strings.Contains(st, when) {
				t.Errorf("while %s: status %q, want %q", c.name, st, when)
			}
			if c.name == "mode change" {
				close(rec.release)
			} else {
				close(g.release)
			}
			l.until(c.name+" to end", func() bool { return c.done(l) })
			l.until("the queued prompt's answer", func() bool {
				return m.run == nil && strings.Contains(screen(m), "answer to queued prompt")
			})
			if len(m.work.queued) != 0 {
				t.Errorf("queue left: %v", m.work.queued)
			}
			var sent []api.ChatRequest
			for _, r := range srv.ChatRequests() {
				if r.Messages[len(r.Messages)-1].Content == "queued prompt" {
					sent = append(sent, r)
				}
			}
			if len(sent) != 1 {
				t.Fatalf("the queued prompt was sent %d times", len(sent))
			}
			if c.name == "model switch" && sent[0].Model != "small:1b" {
				t.Errorf("the queued prompt went to %s, not the model switched to", sent[0].Model)
			}
		})
	}
}

// TestInterruptReturnsTheQueue: Esc stops the request, and the prompts
// queued behind it go back into the input instead of starting.
func TestInterruptReturnsTheQueue(t *testing.T) {
	l, srv, g, _ := liveModel(t)
	m := l.m
	g.set("chat")
	l.enter("slow")
	<-g.entered
	l.enter("next one")
	l.key("esc")
	if got := m.input.value(); got != "next one" || len(m.work.queued) != 0 {
		t.Fatalf("after esc: input %q, queue %v", got, m.work.queued)
	}
	close(g.release)
	l.until("the run to end", func() bool { return m.run == nil })
	for _, r := range srv.ChatRequests() {
		if last := r.Messages[len(r.Messages)-1]; last.Content == "next one" {
			t.Error("the queued prompt was sent after the interrupt")
		}
	}
}

// TestCompactWithNothingToCompact: /compact on a new conversation says
// there is nothing to compact yet, as information, not as an error (B2).
func TestCompactWithNothingToCompact(t *testing.T) {
	m, _ := testModel(t)
	m.input.set("/compact")
	finish(m, m.key(keyPress("enter")))
	m.Update(m.bridge.wait()())
	s := screen(m)
	if !strings.Contains(s, "Nothing to compact yet.") || strings.Contains(s, "✗") || strings.Contains(s, "Cannot compact") {
		t.Errorf("/compact on a new conversation:\n%s", s)
	}
	if m.work.op != "" || strings.Contains(statusOf(m), "compacting") {
		t.Errorf("still compacting: op %q, status %q", m.work.op, statusOf(m))
	}
}

// TestRefusalsDoNotPileUp: commands refused while a request runs say so on
// the status line, not in the transcript, and a notice repeated is shown
// once (R11).
func TestRefusalsDoNotPileUp(t *testing.T) {
	m, _ := testModel(t)
	m.beginRun("long task")
	events(m, orchestrator.TurnStarted{Turn: 1}, orchestrator.TextDelta{Turn: 1, Text: "Working"})
	items := len(m.transcript.items)
	for _, c := range []string{"/new", "/model", "/sessions", "/new"} {
		m.input.set(c)
		press(m, "enter")
		if st := statusOf(m); !strings.Contains(st, "busy: a request is running") {
			t.Errorf("%s during a run: status %q", c, st)
		}
	}
	if len(m.transcript.items) != items {
		t.Errorf("refusals were added to the transcript:\n%s", screen(m))
	}
	events(m, orchestrator.Warning{Text: "the reply was cut off"}, orchestrator.Warning{Text: "the reply was cut off"})
	finishRun(m)
	for range 2 {
		m.input.set("/frobnicate")
		press(m, "enter")
	}
	s := screen(m)
	if n := strings.Count(s, "the reply was cut off"); n != 1 {
		t.Errorf("a warning repeated shows %d times:\n%s", n, s)
	}
	if n := strings.Count(s, "unknown command /frobnicate"); n != 1 {
		t.Errorf("a notice repeated shows %d times:\n%s", n, s)
	}
}

// TestExitHint: once the program ends, a saved session is named with the
// command that resumes it; one never saved is not (item 13).
func TestExitHint(t *testing.T) {
	l, _, _, _ := liveModel(t)
	var out strings.Builder
	l.m.exitHint(&out)
	id := l.m.session.Snapshot().SavedID()
	if want := "Resume this session with: lathe --resume " + id + "\n"; id == "" || out.String() != want {
		t.Errorf("exit hint %q, want %q", out.String(), want)
	}
	fresh, _ := testModel(t)
	out.Reset()
	fresh.exitHint(&out)
	if out.Len() != 0 {
		t.Errorf("a session never saved: exit hint %q", out.String())
	}
}

// TestStreamGathersForAFrame: a batch that starts with streamed text waits
// a frame's interval for the tokens that follow, so that a stream wakes
// the UI once a frame, not once a token; anything else goes at once.
func TestStreamGathersForAFrame(t *testing.T) {
	b := newBridge(80 * time.Millisecond)
	var slept []time.Duration
	b.sleep = func(d time.Duration) {
		slept = append(slept, d)
		for i := range 5 { // what streams in meanwhile
			b.send(orchestrator.TextDelta{Turn: 1, Text: fmt.Sprint(i)})
		}
	}
	b.send(orchestrator.TextDelta{Turn: 1, Text: "first"})
	batch := b.wait()().(engineMsg)
	if len(batch) != 6 || !slices.Equal(slept, []time.Duration{80 * time.Millisecond}) {
		t.Errorf("a streamed token: batch of %d after sleeping %v; want 6 after one frame (80ms)", len(batch), slept)
	}
	slept = nil
	b.send(orchestrator.ToolStarted{Turn: 1, Name: "read_file"})
	if batch := b.wait()().(engineMsg); len(batch) != 1 || slept != nil {
		t.Errorf("a tool call: batch of %d after sleeping %v; want it alone, at once", len(batch), slept)
	}
}
