package orchestrator

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"lathe/orchestrator/mode"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/session"

	"github.com/ollama/ollama/api"
)

// gate holds the provider calls named in hold until release is closed,
// telling entered when one waits: an operation stays in flight for as
// long as a test needs.
type gate struct {
	provider.Provider
	hold    map[string]bool // "chat", "model"
	entered chan string
	release chan struct{}
}

func newGate(p provider.Provider, hold ...string) *gate {
	g := &gate{Provider: p, hold: map[string]bool{}, entered: make(chan string, 8), release: make(chan struct{})}
	for _, h := range hold {
		g.hold[h] = true
	}
	return g
}

func (g *gate) wait(name string) {
	if g.hold[name] {
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

// slowRecorder holds SaveMode, once armed, until release is closed.
type slowRecorder struct {
	*memStore
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (r *slowRecorder) SaveMode(ctx context.Context, id string, rec session.ModeRecord) error {
	if r.armed.Load() {
		r.entered <- struct{}{}
		<-r.release
	}
	return r.memStore.SaveMode(ctx, id, rec)
}

// TestOneOperationAtATime: while a request, a compaction, a model switch, a
// mode change or the first contact with the server is under way, every
// other operation fails at once with a BusyError naming it, and nothing of
// the session changes; once it ends, the next one runs. Run with -race.
func TestOneOperationAtATime(t *testing.T) {
	models := []ollamatest.Model{{Name: "qwen3:8b"}, {Name: "small:1b"}}
	type inFlight struct {
		name  string
		doing string
		start func(e *env, g *gate, rec *slowRecorder) error // blocks until released
		wait  func(g *gate, rec *slowRecorder)               // returns once it is under way
	}
	chatting := func(g *gate, _ *slowRecorder) { <-g.entered }
	cases := []inFlight{
		{"run", opRun, func(e *env, _ *gate, _ *slowRecorder) error {
			_, err := e.run(context.Background(), "hello")
			return err
		}, chatting},
		{"compact", opCompact, func(e *env, _ *gate, _ *slowRecorder) error {
			err := e.session.Compact(context.Background(), func(Event) {})
			var ng *NoGainError
			if errors.As(err, &ng) {
				return nil // a one-exchange conversation: summarized, and found no smaller
			}
			return err
		}, chatting},
		{"set model", opModel, func(e *env, _ *gate, _ *slowRecorder) error {
			_, err := e.session.SetModel(context.Background(), "small:1b")
			return err
		}, chatting},
		{"set mode", opMode, func(e *env, _ *gate, _ *slowRecorder) error {
			return e.session.SetMode(context.Background(), mode.Plan{}, "test")
		}, func(_ *gate, rec *slowRecorder) { <-rec.entered }},
		{"prepare", opPrepare, func(e *env, _ *gate, _ *slowRecorder) error {
			_, err := e.session.Prepare(context.Background())
			return err
		}, chatting},
	}
	others := map[string]func(e *env) error{
		"run": func(e *env) error { _, err := e.run(t.Context(), "second"); return err },
		"compact": func(e *env) error {
			return e.session.Compact(t.Context(), func(Event) {})
		},
		"set model": func(e *env) error { _, err := e.session.SetModel(t.Context(), "small:1b"); return err },
		"set mode":  func(e *env) error { return e.session.SetMode(t.Context(), mode.Ask{}, "test") },
		"reset":     func(e *env) error { return e.session.Reset(t.Context()) },
		"prepare":   func(e *env) error { _, err := e.session.Prepare(t.Context()); return err },
		"resume":    func(e *env) error { return e.session.ResumeFrom(session.Saved{Record: session.Record{ID: "x"}}) },
		"title": func(e *env) error {
			if e.session.Titler() != nil {
				return errors.New("Titler went ahead")
			}
			return &BusyError{Doing: "(Titler returned nil)"}
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.WithModels(models...))
			hold := "chat"
			if c.name == "set model" || c.name == "prepare" {
				hold = "model"
			}
			var g *gate
			rec := &slowRecorder{memStore: newMemStore(), entered: make(chan struct{}, 1), release: make(chan struct{})}
			e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(models...)}, withStore(rec), func(o *Options) {
				g = newGate(fakeProvider(t, srv, o.Config), hold)
				o.Provider = g
			})
			e.srv = srv
			srv.Respond(func(req api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "ok"} })
			if c.name != "prepare" {
				// A conversation to compact; the gate lets it through.
				g.hold = map[string]bool{}
				if _, err := e.run(t.Context(), "first"); err != nil {
					t.Fatal(err)
				}
				g.hold = map[string]bool{hold: true}
			}
			if c.name == "set mode" {
				rec.armed.Store(true)
				close(g.release)
			}
			before := e.session.Snapshot()
			done := make(chan error, 1)
			go func() { done <- c.start(e, g, rec) }()
			c.wait(g, rec)
			if got := e.session.Snapshot().Busy; got != c.doing {
				t.Errorf("Snapshot().Busy = %q, want %q", got, c.doing)
			}
			for name, op := range others {
				err := op(e)
				var busy *BusyError
				if !errors.Is(err, ErrBusy) || !errors.As(err, &busy) {
					t.Errorf("%s while %s: err = %v, want ErrBusy", name, c.doing, err)
				}
			}
			if snap := e.session.Snapshot(); snap.ID != before.ID || snap.Mode != before.Mode {
				t.Errorf("refused operations changed the session: %+v → %+v", before, snap)
			}
			if c.name == "set mode" {
				close(rec.release)
			} else {
				close(g.release)
			}
			if err := <-done; err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if got := e.session.Snapshot().Busy; got != "" {
				t.Errorf("after %s ended, Busy = %q", c.name, got)
			}
			if _, err := e.run(t.Context(), "after"); err != nil {
				t.Errorf("a run after %s ended: %v", c.name, err)
			}
		})
	}
}

// TestSnapshotDuringARun reads the session's snapshot while a run changes
// the plan's checklist and the mode: the race detector checks that no read
// races the run's writes.
func TestSnapshotDuringARun(t *testing.T) {
	e := newEnv(t, nil, withMode(mode.Plan{}), withReviewer(&reviewer{reviews: []mode.Verdict{{Decision: mode.Approve}}}))
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("propose_plan", `{"summary":"s","steps":["a","b"]}`)}},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("update_plan", `{"step":1,"status":"done"}`)}},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("update_plan", `{"step":2,"status":"done"}`)}},
		ollamatest.Reply{Content: "done"},
	)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				if p := e.session.Snapshot().Plan; p != nil {
					_ = p.Progress()
				}
			}
		}
	})
	res, err := e.run(t.Context(), "plan it")
	close(stop)
	wg.Wait()
	if err != nil || res.StopReason != StopDone {
		t.Fatalf("run: %+v %v", res, err)
	}
	if snap := e.session.Snapshot(); snap.Mode != "build" || snap.Plan == nil || snap.Plan.Finished() != 2 {
		t.Errorf("snapshot after the run: %+v", snap)
	}
}
