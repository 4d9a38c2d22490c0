package orchestrator

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"lathe/orchestrator/provider/ollama/ollamatest"
)

// watcher is an Observer that keeps what it is told.
type watcher struct {
	session, prompt string
	events          []Event
	results         []Result
}

func (w *watcher) Run(session, prompt string) (func(Event), func(Result, error)) {
	w.session, w.prompt = session, prompt
	return func(e Event) { w.events = append(w.events, e) },
		func(res Result, _ error) { w.results = append(w.results, res) }
}

// clock is a clock that moves only when told to.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// slowApprover approves after the clock moved by wait.
type slowApprover struct {
	c    *clock
	wait time.Duration
}

func (a slowApprover) Approve(context.Context, ApprovalRequest) (Decision, error) {
	a.c.advance(a.wait)
	return Decision{Allow: true}, nil
}

// TestObserverSeesTheRun: the Observer is told of the run with the
// session's id and the prompt, gets every event the UI gets, in the same
// order, and the result once; a call's wait for its approval and the
// turn's time to the reply's end are in the events.
func TestObserverSeesTheRun(t *testing.T) {
	c := &clock{now: time.Unix(1_700_000_000, 0)}
	w := &watcher{}
	e := newEnv(t, nil, withApprover(slowApprover{c: c, wait: 3 * time.Second}), func(o *Options) {
		o.Observer, o.Now = w, c.Now
	})
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"a"}`)}},
		ollamatest.Reply{Content: "Written."})
	res, err := e.run(t.Context(), "write a")
	if err != nil {
		t.Fatal(err)
	}
	if w.session != e.session.Snapshot().ID || w.session == "" || w.prompt != "write a" {
		t.Errorf("told of session %q, prompt %q", w.session, w.prompt)
	}
	if !reflect.DeepEqual(w.events, e.events) {
		t.Errorf("the observer saw %d events, the UI %d:\n%#v\n%#v", len(w.events), len(e.events), w.events, e.events)
	}
	if len(w.results) != 1 || w.results[0].SessionID != res.SessionID || w.results[0].Turns != 2 {
		t.Errorf("results %+v", w.results)
	}
	var waited []time.Duration
	for _, ev := range e.events {
		if tf, ok := ev.(ToolFinished); ok {
			waited = append(waited, tf.Waited)
		}
	}
	if !reflect.DeepEqual(waited, []time.Duration{3 * time.Second}) {
		t.Errorf("waited for approval %v, want [3s]", waited)
	}
	tf := turnsFinished(e.events)
	if len(tf) != 2 || tf[0].Reply != 0 || tf[0].Duration != 3*time.Second || tf[1].Reply != 0 {
		t.Errorf("turns: %+v", tf)
	}
}

// TestNoObserver: without an Observer the run goes as ever.
func TestNoObserver(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(ollamatest.Reply{Content: "Hi."})
	if _, err := e.run(t.Context(), "hi"); err != nil {
		t.Fatal(err)
	}
	if tf := turnsFinished(e.events); len(tf) != 1 || tf[0].Reply <= 0 || tf[0].Reply > tf[0].Duration {
		t.Errorf("turns: %+v", tf)
	}
}
