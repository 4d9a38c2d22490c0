package agent

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"lathe/internal/ollamatest"
)

func TestResetStartsANewConversation(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Script(ollamatest.Reply{Content: "one"}, ollamatest.Reply{Content: "two"})
	if _, err := e.run(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	id := e.session.ID()
	e.session.Reset()
	if e.session.ID() == id {
		t.Error("Reset kept the session id")
	}
	if _, err := e.run(t.Context(), "second"); err != nil {
		t.Fatal(err)
	}
	msgs := e.srv.ChatRequests()[1].Messages
	if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Content != "second" {
		t.Errorf("after Reset the request holds %+v, want the system prompt and the new prompt", msgs)
	}
}

func TestSetModelKeepsTheConversation(t *testing.T) {
	models := []ollamatest.Model{{Name: "qwen3:8b"}, {Name: "small:1b", ContextLength: 8192}, {Name: "gemma3:1b", Capabilities: []string{"completion"}}}
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(models...)})
	e.srv.Script(ollamatest.Reply{Content: "one"}, ollamatest.Reply{Content: "two"})
	if _, err := e.run(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.session.SetModel(t.Context(), "gemma3:1b"); !errors.Is(err, ErrNoToolSupport) {
		t.Fatalf("switching to a model without tools: err = %v", err)
	}
	info, err := e.session.SetModel(t.Context(), "small:1b")
	if err != nil || info.NumCtx != 8192 {
		t.Fatalf("SetModel = %+v, %v", info, err)
	}
	if _, err := e.run(t.Context(), "second"); err != nil {
		t.Fatal(err)
	}
	req := e.srv.ChatRequests()[1]
	if req.Model != "small:1b" || len(req.Messages) != 4 || req.Options["num_ctx"] != float64(8192) {
		t.Errorf("request after SetModel: model %q, %d messages, options %v", req.Model, len(req.Messages), req.Options)
	}
}

func TestListModels(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithModels(
		ollamatest.Model{Name: "qwen3:8b"},
		ollamatest.Model{Name: "gemma3:1b", Capabilities: []string{"completion", "vision"}},
		ollamatest.Model{Name: "old:7b", LegacyShow: true},
	))
	base, _ := url.Parse(srv.URL())
	got, err := ListModels(t.Context(), api.NewClient(base, &http.Client{}), srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, m := range got {
		summary = append(summary, m.Name+":"+map[bool]string{true: "tools", false: "no-tools"}[m.Tools])
	}
	want := []string{"qwen3:8b:tools", "gemma3:1b:no-tools", "old:7b:tools"}
	if !slices.Equal(summary, want) {
		t.Errorf("models = %v, want %v", summary, want)
	}
	if got[0].ParameterSize == "" || got[0].Size == 0 {
		t.Errorf("details missing: %+v", got[0])
	}
}

func TestPullModel(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithModels(), ollamatest.WithPullable(ollamatest.Model{Name: "qwen3:8b"}))
	base, _ := url.Parse(srv.URL())
	client := api.NewClient(base, &http.Client{})
	var statuses []string
	var sawBytes bool
	err := PullModel(t.Context(), client, "qwen3:8b", srv.URL(), func(p PullProgress) {
		if len(statuses) == 0 || statuses[len(statuses)-1] != p.Status {
			statuses = append(statuses, p.Status)
		}
		sawBytes = sawBytes || (p.Total > 0 && p.Completed > 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	if statuses[0] != "pulling manifest" || statuses[len(statuses)-1] != "success" || !sawBytes {
		t.Errorf("progress = %v (bytes seen: %v)", statuses, sawBytes)
	}
	if _, err := resolveModel(t.Context(), client, "qwen3:8b", 0, srv.URL()); err != nil {
		t.Errorf("the pulled model is not usable: %v", err)
	}
	err = PullModel(t.Context(), client, "no-such-model:1b", srv.URL(), func(PullProgress) {})
	if !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), `pulling "no-such-model:1b" failed: pull model manifest: file does not exist`) {
		t.Errorf("unknown model: err = %v", err)
	}
}
