package ui

import (
	"net/url"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/provider/ollama"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/tools"
)

// machineModel is a TUI on the fake server, with model, through the real
// backend.
func machineModel(t *testing.T, model ollamatest.Model, others ...ollamatest.Model) (*loop, *ollamatest.Server) {
	t.Helper()
	srv := ollamatest.New(t, ollamatest.WithModels(append([]ollamatest.Model{model}, others...)...))
	srv.Respond(func(req api.ChatRequest) ollamatest.Reply {
		return ollamatest.Reply{Content: "answer to " + req.Messages[len(req.Messages)-1].Content}
	})
	base, _ := url.Parse(srv.URL())
	cfg := config.Defaults()
	cfg.Model = model.Name
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	l := readyLoop(t, Options{
		Engine: orchestrator.Options{Provider: ollama.New(ollama.Options{URL: base, Options: cfg.Options, KeepAlive: cfg.KeepAlive.Duration}),
			Tools: tools.Default(ws, tools.Options{}), Log: zerolog.Nop(), Config: cfg},
		Dir: ws.Dir(), NoColor: true, Width: 100, Height: 30,
	})
	return l, srv
}

// TestPreloadAtStart: once ready, the TUI has the model loaded in the
// background, says so, and the first prompt finds it loaded.
func TestPreloadAtStart(t *testing.T) {
	l, srv := machineModel(t, ollamatest.Model{Name: "qwen3:8b"})
	m := l.m
	l.until("the preload", func() bool { return strings.Contains(statusOf(m), "qwen3:8b is ready") })
	reqs := srv.ChatRequests()
	if len(reqs) != 1 || len(reqs[0].Messages) != 0 || reqs[0].Options["num_ctx"] != float64(32768) {
		t.Fatalf("requests %+v, want one preload with the session's window", reqs)
	}
	l.enter("hi")
	l.until("the answer", func() bool { return m.run == nil && strings.Contains(screen(m), "answer to hi") })
	if strings.Contains(screen(m), "loaded again") || strings.Contains(statusOf(m), "load ") {
		t.Errorf("the first prompt loaded the model:\n%s", screen(m))
	}
}

// TestSpillOffer: a model loaded partly on the CPU is told, and after the
// request a dialog offers the window that fits the GPU.
func TestSpillOffer(t *testing.T) {
	l, srv := machineModel(t, ollamatest.Model{Name: "qwen3:8b", LoadedSize: 10 << 30, LoadedVRAM: 8 << 30})
	m := l.m
	l.enter("hi")
	l.until("the offer", func() bool { return m.run == nil && m.dialog != nil })
	s := screen(m)
	if !strings.Contains(s, "runs partly on the CPU") || !strings.Contains(s, "? Use num_ctx 17,408 for this session") {
		t.Fatalf("screen:\n%s", s)
	}
	l.key("y")
	l.until("the switch", func() bool { return strings.Contains(screen(m), "num_ctx is 17,408 for this session.") })
	l.enter("again")
	l.until("the answer", func() bool { return m.run == nil && strings.Contains(screen(m), "answer to again") })
	reqs := srv.ChatRequests()
	if got := reqs[len(reqs)-1].Options["num_ctx"]; got != float64(17408) {
		t.Errorf("num_ctx sent after the switch: %v", got)
	}
}

// TestContextCommand: /context shows how the window is used.
func TestContextCommand(t *testing.T) {
	l, _ := machineModel(t, ollamatest.Model{Name: "qwen3:8b"})
	m := l.m
	l.enter("hi")
	l.until("the answer", func() bool { return m.run == nil && strings.Contains(screen(m), "answer to hi") })
	l.enter("/context")
	s := screen(m)
	for _, want := range []string{"Context window", "system prompt", "tool schemas", "prompts and replies", "in use", "free", "32,768 tokens"} {
		if !strings.Contains(s, want) {
			t.Errorf("/context lacks %q:\n%s", want, s)
		}
	}
}

// TestPreloadAfterModelSwitch: /model has the new model loaded in the
// background too, with the session's window, and says when it is ready.
func TestPreloadAfterModelSwitch(t *testing.T) {
	l, srv := machineModel(t, ollamatest.Model{Name: "qwen3:8b"}, ollamatest.Model{Name: "small:1b"})
	m := l.m
	l.until("the first preload", func() bool { return strings.Contains(statusOf(m), "qwen3:8b is ready") })
	l.enter("/model small:1b")
	l.until("the second preload", func() bool { return strings.Contains(statusOf(m), "small:1b is ready") })
	reqs := srv.ChatRequests()
	if len(reqs) != 2 || reqs[1].Model != "small:1b" || len(reqs[1].Messages) != 0 || reqs[1].Options["num_ctx"] == nil {
		t.Fatalf("requests %+v, want a preload of small:1b with a window after qwen3:8b's", reqs)
	}
}
