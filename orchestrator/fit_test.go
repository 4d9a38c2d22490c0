package orchestrator

import (
	"slices"
	"strings"
	"testing"

	"lathe/orchestrator/provider/ollama/ollamatest"
)

// TestSpill: a model loaded partly on the CPU is told once, with the
// window that would fit it on the GPU, which the session can switch to.
func TestSpill(t *testing.T) {
	spilled := ollamatest.Model{Name: "qwen3:8b", LoadedSize: 10 << 30, LoadedVRAM: 8 << 30}
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(spilled)})
	e.srv.Script(ollamatest.Reply{Content: "one"}, ollamatest.Reply{Content: "two"}, ollamatest.Reply{Content: "three"})
	for _, p := range []string{"a", "b"} {
		if _, err := e.run(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	var spills []Spill
	for _, ev := range e.events {
		if s, ok := ev.(Spill); ok {
			spills = append(spills, s)
		}
	}
	// 2 GiB on the CPU at 144 KiB a token: 14,564 tokens fewer, rounded
	// down to a multiple of 1,024.
	if len(spills) != 1 || spills[0].FitNumCtx != 17408 || spills[0].NumCtx != 32768 {
		t.Fatalf("spills %+v", spills)
	}
	if got, want := spills[0].Text(), "qwen3:8b runs partly on the CPU: 8.6 GB of its 10.7 GB are in GPU memory, "+
		"with num_ctx 32,768; num_ctx 17,408 would fit it all on the GPU"; got != want {
		t.Errorf("text %q\nwant %q", got, want)
	}
	if err := e.session.SetNumCtx(spills[0].FitNumCtx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(t.Context(), "c"); err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.ChatRequests()
	if got := reqs[len(reqs)-1].Options["num_ctx"]; got != float64(17408) {
		t.Errorf("num_ctx after the switch: %v", got)
	}
	if err := e.session.SetNumCtx(1000); err == nil {
		t.Error("a window below the minimum was taken")
	}
}

func TestNoSpillWhenItFits(t *testing.T) {
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(ollamatest.Model{Name: "qwen3:8b", LoadedSize: 6 << 30})})
	e.srv.Script(ollamatest.Reply{Content: "one"})
	if _, err := e.run(t.Context(), "a"); err != nil {
		t.Fatal(err)
	}
	for _, ev := range e.events {
		if s, ok := ev.(Spill); ok {
			t.Errorf("spill told for a model all on the GPU: %+v", s)
		}
	}
}

// TestNameWithoutTagLoaded: a model named without its tag ("qwen3" for
// the "qwen3:latest" the server lists as loaded) is found among the
// loaded models: its spill is told, and a loaded model is not said to be
// loading.
func TestNameWithoutTagLoaded(t *testing.T) {
	spilled := ollamatest.Model{Name: "qwen3:latest", LoadedSize: 10 << 30, LoadedVRAM: 8 << 30}
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(spilled)}, func(o *Options) { o.Config.Model = "qwen3" })
	e.srv.Script(ollamatest.Reply{Content: "one"}, ollamatest.Reply{Content: "two"})
	if _, err := e.run(t.Context(), "a"); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(e.events, func(ev Event) bool { _, ok := ev.(Spill); return ok }) {
		t.Error("the spill of qwen3 (listed as qwen3:latest) was not told")
	}
	// A new session finds the model loaded: no "loading" line.
	again := newEnv(t, nil, func(o *Options) { o.Config.Model = "qwen3"; o.Provider = e.session.opts.Provider })
	if _, err := again.run(t.Context(), "b"); err != nil {
		t.Fatal(err)
	}
	if ts := turnsStarted(again.events); len(ts) != 1 || ts[0].Loading {
		t.Errorf("turns started %+v: the loaded model is said to be loading", ts)
	}
}

// TestRunsOnTheCPU: a server with no GPU holds none of the model in GPU
// memory (size_vram 0): not a spill a smaller window would mend, said
// once in a session, without advice about num_ctx.
func TestRunsOnTheCPU(t *testing.T) {
	cpu := ollamatest.Model{Name: "qwen3:8b", LoadedSize: 72 << 20, LoadedVRAM: -1}
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(cpu)})
	e.srv.Script(ollamatest.Reply{Content: "one"}, ollamatest.Reply{Content: "two"})
	for _, p := range []string{"a", "b"} {
		if _, err := e.run(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	var said []string
	for _, ev := range e.events {
		switch ev := ev.(type) {
		case Spill:
			t.Errorf("a CPU-only server told as a spill: %s", ev.Text())
		case Warning:
			if strings.Contains(ev.Text, "CPU") {
				said = append(said, ev.Text)
			}
		}
	}
	if len(said) != 1 || !strings.HasPrefix(said[0], "qwen3:8b runs on the CPU") || strings.Contains(said[0], "num_ctx") {
		t.Errorf("said %q", said)
	}
}
