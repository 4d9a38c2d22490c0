package cli

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/ollama/ollama/api"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/engine"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/session/sqlite"
)

// BenchmarkFirstChunk is the time from a prompt to its answer's first
// text, against the fake Ollama: "oneshot" is the session the one-shot
// run drives, to its first TextDelta; "acp" is lathe acp, from the
// client's session/prompt to the first agent_message_chunk it receives
// (JSON-RPC both ways over pipes). The difference is what the protocol
// adds. Each runs b.N prompts in one session, as an editor's panel does,
// saved in the session database ("-unsaved": without one, where a run's
// writes to it, the larger part of the time, are left out).
func BenchmarkFirstChunk(b *testing.B) {
	for _, saved := range []bool{true, false} {
		suffix := ""
		if !saved {
			suffix = "-unsaved"
		}
		b.Run("oneshot"+suffix, func(b *testing.B) { firstChunkOneShot(b, saved) })
		b.Run("acp"+suffix, func(b *testing.B) { firstChunkACP(b, saved) })
	}
}

func firstChunkOneShot(b *testing.B, saved bool) {
	srv := ollamatest.New(b)
	srv.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "hi there"} })
	home := b.TempDir()
	getenv := func(k string) string {
		return map[string]string{"HOME": home, "OLLAMA_HOST": srv.URL()}[k]
	}
	loaded, err := config.Load(config.Sources{Getenv: getenv, ProjectDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	env := engine.Env{Dir: b.TempDir(), Getenv: getenv, Headless: true}
	if saved {
		// Saved as lathe -p saves it: the same database.
		db, err := sqlite.Open(b.Context(), filepath.Join(home, "lathe.db"), storeOptions())
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		env.Store = db
	}
	e, err := engine.New(b.Context(), loaded, env)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	s := orchestrator.New(e.Options)
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		first := time.Duration(0)
		_, err := s.RunPrompt(context.Background(), orchestrator.Prompt{Text: "hello"}, func(ev orchestrator.Event) {
			if _, ok := ev.(orchestrator.TextDelta); ok && first == 0 {
				first = time.Since(start)
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		total += first
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/first-chunk")
}

func firstChunkACP(b *testing.B, saved bool) {
	srv := ollamatest.New(b)
	srv.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "hi there"} })
	client := &acpClient{}
	chunk := make(chan time.Time, 1)
	client.onChunk = func() {
		select {
		case chunk <- time.Now():
		default:
		}
	}
	env := acpEnv(b, srv)
	if !saved {
		// No data directory: sessions are not saved.
		env = append(env, "XDG_DATA_HOME=/dev/null/none")
	}
	r := startACP(b, srv, env, client)
	r.initialize(sdk.ClientCapabilities{})
	s := r.newSession()
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		select {
		case <-chunk:
		default:
		}
		start := time.Now()
		if _, err := r.prompt(s.SessionId, sdk.TextBlock("hello")); err != nil {
			b.Fatal(err)
		}
		total += (<-chunk).Sub(start)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/first-chunk")
}
