package demo_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/demo"
	"lathe/prompts"
	"lathe/tools"
)

// session is a session of the demo model in the sample project, which
// allows every call and plan.
func session(t *testing.T, m mode.Mode) (*orchestrator.Session, string) {
	t.Helper()
	dir := t.TempDir()
	if err := demo.WriteProject(dir); err != nil {
		t.Fatal(err)
	}
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	cfg := config.Defaults()
	cfg.Model = demo.Name
	s := orchestrator.New(orchestrator.Options{Provider: &demo.Model{}, Tools: tools.Default(ws, tools.Options{}),
		Approver: orchestrator.Rules{All: true}, Reviewer: mode.ApproveAll{}, Log: zerolog.Nop(), Config: cfg,
		Env: prompts.Env{Dir: dir}, Dir: dir, Mode: m})
	return s, dir
}

// run runs prompt to its end and returns the answer.
func run(t *testing.T, s *orchestrator.Session, prompt string) orchestrator.Result {
	t.Helper()
	res, err := s.RunPrompt(t.Context(), orchestrator.Prompt{Text: prompt}, func(orchestrator.Event) {})
	if err != nil || res.StopReason != orchestrator.StopDone {
		t.Fatalf("%q: %v, stop %s", prompt, err, res.StopReason)
	}
	return res
}

// TestDemoStaysInStep: the demo model answers from the request, so the
// requests lathe makes on its own (a title between two prompts) never
// put it out of step, whatever is typed: each prompt does what it says
// (F4).
func TestDemoStaysInStep(t *testing.T) {
	s, dir := session(t, nil)
	res := run(t, s, "create hello.txt please")
	if b, err := os.ReadFile(filepath.Join(dir, "hello.txt")); err != nil || !strings.Contains(string(b), "Hello") {
		t.Fatalf("hello.txt: %q, %v", b, err)
	}
	if res.ToolCalls != 1 || !strings.Contains(res.Text, "Created **hello.txt**") {
		t.Errorf("the answer to create: %d calls, %q", res.ToolCalls, res.Text)
	}
	titler := s.Titler()
	if titler == nil {
		t.Fatal("no title asked")
	}
	if title, err := titler(t.Context()); err != nil || title != "Demo: create hello.txt please" {
		t.Errorf("title %q, %v", title, err)
	}
	res = run(t, s, "now fix the bug")
	if b, _ := os.ReadFile(filepath.Join(dir, "greet.go")); !strings.Contains(string(b), `"Hello, "`) {
		t.Errorf("greet.go not fixed:\n%s", b)
	}
	if res.ToolCalls != 3 || !strings.Contains(res.Text, "Fixed") {
		t.Errorf("the answer to fix: %d calls, %q", res.ToolCalls, res.Text)
	}
	if res = run(t, s, "what is this?"); !strings.Contains(res.Text, "demo model") {
		t.Errorf("the tour's answer: %q", res.Text)
	}
}

// TestDemoPlans: in plan mode the demo proposes a plan and, approved,
// carries it out, checking off its steps.
func TestDemoPlans(t *testing.T) {
	s, dir := session(t, mode.Plan{})
	var steps []string
	res, err := s.RunPrompt(t.Context(), orchestrator.Prompt{Text: "anything"}, func(ev orchestrator.Event) {
		if p, ok := ev.(orchestrator.PlanUpdated); ok {
			steps = append(steps, p.Plan.Progress())
		}
	})
	if err != nil || res.StopReason != orchestrator.StopDone {
		t.Fatalf("%v, stop %s", err, res.StopReason)
	}
	if _, err := os.Stat(filepath.Join(dir, "hello.txt")); err != nil {
		t.Errorf("the plan was not carried out: %v", err)
	}
	if !strings.Contains(res.Text, "The plan is done") {
		t.Errorf("answer %q (plan progress %v)", res.Text, steps)
	}
}

// TestDemoCancels: a reply streams at the model's pace until the request
// is cancelled; another model's name is not the demo's.
func TestDemoCancels(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	m := &demo.Model{Pace: time.Hour}
	got := make(chan error, 1)
	go func() {
		got <- m.Chat(ctx, &provider.Request{Messages: []provider.Message{{Role: "user", Content: "hi"}}},
			func(provider.Chunk) error { return nil })
	}()
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled, the reply ended with %v", err)
	}
	if _, err := m.Model(t.Context(), "qwen3:8b"); !errors.Is(err, provider.ErrModelNotFound) {
		t.Errorf("another model: %v", err)
	}
}
