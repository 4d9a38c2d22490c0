package orchestrator

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/provider/openai"
	"lathe/orchestrator/provider/openai/openaitest"
)

// onLlamaCpp wires a session with probe tools to a fake llama-server
// serving model m.
func onLlamaCpp(t *testing.T, m openaitest.Model, opts ...envOption) (*env, *openaitest.Server) {
	t.Helper()
	srv := openaitest.New(t, openaitest.LlamaCpp, openaitest.WithModels(m))
	e := newEnv(t, nil, append([]envOption{func(o *Options) {
		o.Config.Model = m.Name
		o.Provider = openai.New(openai.Options{BaseURL: srv.URL(), Options: o.Config.Options})
	}}, opts...)...)
	return e, srv
}

// chatPrompts are the prompt counts of the fake's chat requests, refused
// ones included.
func chatPrompts(srv *openaitest.Server) []int {
	var out []int
	for _, r := range srv.Requests() {
		if r.Path == "/v1/chat/completions" {
			out = append(out, r.PromptTokens)
		}
	}
	return out
}

// TestSharedCacheFills: llama-server's default slots share one KV cache;
// when other requests fill it mid-reply, the stream ends with "Context size
// has been exceeded." That is an overflow like the others: the
// conversation is compacted and the turn tried once more, what streamed
// of the cut reply taken back; when it fails again, the advice is about
// the slots, not the window.
func TestSharedCacheFills(t *testing.T) {
	long := strings.Repeat("The quick brown fox jumps over the lazy dog again. ", 60)
	setup := func(t *testing.T) (*env, *openaitest.Server) {
		e, srv := onLlamaCpp(t, openaitest.Model{Name: "qwen3-8b", Window: 4096})
		srv.Script(ollamatest.Reply{Content: long})
		if _, err := e.run(t.Context(), "tell me a story"); err != nil {
			t.Fatal(err)
		}
		// Another client's request holds all but 150 cells more than the
		// next prompt takes (the reply's text as the fake renders it, 4
		// bytes a token, and the new prompt).
		next := turnsFinished(e.events)[0].PromptTokens + len(long)/4 + 30
		srv.Occupy(4096 - next - 150)
		return e, srv
	}
	t.Run("compacted and tried again", func(t *testing.T) {
		e, srv := setup(t)
		srv.Script(ollamatest.Reply{Content: strings.Repeat("word ", 300)},
			ollamatest.Reply{Content: "A story about a fox was told."},
			ollamatest.Reply{Content: "Another, shorter."})
		res, err := e.run(t.Context(), "another one")
		if err != nil || res.Text != "Another, shorter." {
			t.Fatalf("res %+v, err %v", res, err)
		}
		var compacted, rewritten bool
		for _, ev := range e.events {
			switch ev := ev.(type) {
			case Compacted:
				compacted = true
			case ReplyRewritten:
				rewritten = rewritten || ev.Content == ""
			}
		}
		if !compacted || !rewritten {
			t.Errorf("compacted %v, the cut reply taken back %v", compacted, rewritten)
		}
	})
	t.Run("again: the slots are named", func(t *testing.T) {
		e, srv := setup(t)
		srv.Occupy(4096 - 300) // not even a summary of it all fits beside them
		_, err := e.run(t.Context(), "another one")
		if !errors.Is(err, provider.ErrContextOverflow) || !strings.Contains(err.Error(), "--no-kv-unified") ||
			!strings.Contains(err.Error(), "-np 1") || strings.Contains(err.Error(), "num_ctx") {
			t.Errorf("err = %v", err)
		}
	})
}

// TestOwnPromptTooLarge: when lathe's own system prompt and tool schemas
// leave the window too little room, the message says so, and the advice
// is the server's: llama-server's -c, not options.num_ctx, which does not
// change its window; on Ollama, num_ctx.
func TestOwnPromptTooLarge(t *testing.T) {
	e, srv := onLlamaCpp(t, openaitest.Model{Name: "qwen3-8b", Window: 512, Trained: 4096})
	_, err := e.run(t.Context(), "hello")
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if !errors.Is(err, provider.ErrContextOverflow) || !strings.Contains(msg, "lathe's system prompt and tool schemas take about") ||
		!strings.Contains(msg, "(512 tokens)") || !strings.HasSuffix(msg, "restart llama-server with a larger -c") ||
		strings.Contains(msg, "num_ctx") || strings.Contains(msg, "the prompt alone") {
		t.Errorf("err = %v", err)
	}
	if n := len(chatPrompts(srv)); n != 0 {
		t.Errorf("%d chat requests sent", n)
	}

	small := newEnv(t, []ollamatest.Option{ollamatest.WithModels(ollamatest.Model{Name: "qwen3:8b", ContextLength: 40960})},
		func(o *Options) { o.Config.Options.NumCtx = 512 })
	_, err = small.run(t.Context(), "hello")
	if err == nil || !strings.Contains(err.Error(), "lathe's system prompt and tool schemas take about") ||
		!strings.HasSuffix(err.Error(), "raise options.num_ctx in the config (the model allows up to 40,960)") {
		t.Errorf("on Ollama: err = %v", err)
	}
}

// TestRetrySmallerThanRefused: a request the server refuses for its length
// is followed by a smaller one. The server's count sets lathe's density,
// and when keeping the last exchange word for word would leave the retry
// as large (a tool result denser than estimated), it is summarized too.
// When the retry fails as well, the message gives the server's count and
// its advice.
func TestRetrySmallerThanRefused(t *testing.T) {
	refusal := func(n int) ollamatest.Reply {
		return ollamatest.Reply{Status: 400, Error: "request (" + strconv.Itoa(n) + " tokens) exceeds the available context size (4096 tokens), try increasing it"}
	}
	script := func(srv *openaitest.Server, last ollamatest.Reply) {
		srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"list"}`)}},
			refusal(4487),
			ollamatest.Reply{Content: "The user asked for the files to be listed; read returned a long listing of numbered files, " +
				"which did not fit: it should be read in parts."},
			last)
	}
	t.Run("smaller, and answered", func(t *testing.T) {
		e, srv := onLlamaCpp(t, openaitest.Model{Name: "qwen3-8b", Window: 4096}, withTools(denseRead(3864)))
		script(srv, ollamatest.Reply{Content: "Done."})
		res, err := e.run(t.Context(), "list the files")
		if err != nil || res.Text != "Done." {
			t.Fatalf("res %+v, err %v", res, err)
		}
		bodies := srv.Bodies()
		refused, retry := len(bodies[1]), len(bodies[3])
		if retry >= refused {
			t.Errorf("the retry is %d bytes, the request refused %d", retry, refused)
		}
		if strings.Contains(string(bodies[3]), "00007919") {
			t.Error("the retry still holds the tool result that did not fit")
		}
	})
	t.Run("refused again", func(t *testing.T) {
		e, srv := onLlamaCpp(t, openaitest.Model{Name: "qwen3-8b", Window: 4096}, withTools(denseRead(3864)))
		script(srv, refusal(4100))
		_, err := e.run(t.Context(), "list the files")
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if !errors.Is(err, provider.ErrContextOverflow) || !strings.Contains(msg, "the server counted 4,100 tokens for the request") ||
			!strings.HasSuffix(msg, "restart llama-server with a larger -c") || strings.Contains(msg, "the prompt alone") {
			t.Errorf("err = %v", err)
		}
	})
}
