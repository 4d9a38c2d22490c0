package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session/sqlite"
	"lathe/prompts"
	"lathe/tools"
)

// countingProvider answers every request at once: a prompt with a call
// to read, a result with an answer, a summary request with a summary. It
// counts the prompt's tokens as a server would (4 bytes a token), so that
// the conversation fills the window and is compacted as it would be.
type countingProvider struct{}

func (countingProvider) Chat(_ context.Context, req *provider.Request, fn func(provider.Chunk) error) error {
	size := 0
	for _, m := range req.Messages {
		size += len(m.Content) + len(m.Thinking)
	}
	last := req.Messages[len(req.Messages)-1]
	reply := provider.Chunk{Content: "It holds the parser, which reads the whole line before it splits it."}
	switch {
	case req.Tools == nil || strings.HasPrefix(last.Content, "The conversation is about to outgrow"):
		reply.Content = strings.Repeat("The user asked about the parser; its files were read. ", 8)
	case last.Role == "user":
		reply = provider.Chunk{Content: "Reading the file.", ToolCalls: []provider.ToolCall{{ID: "call_1", Name: "read",
			Arguments: json.RawMessage(`{"path":"parse.go"}`)}}}
	}
	if err := fn(reply); err != nil {
		return err
	}
	return fn(provider.Chunk{Done: true, DoneReason: "stop",
		Metrics: provider.Metrics{PromptTokens: size / 4, CompletionTokens: len(reply.Content) / 4}})
}

func (countingProvider) Model(_ context.Context, name string) (provider.ModelInfo, error) {
	return provider.ModelInfo{Name: name, NumCtx: 32768, ContextLength: 40960}, nil
}

func (countingProvider) Models(context.Context) ([]provider.ModelSummary, error) { return nil, nil }

// fileTool reads a file of 3 KB, the same each time; it keeps nothing.
type fileTool struct{}

func (fileTool) Name() string     { return "read" }
func (fileTool) Kind() tools.Kind { return tools.KindRead }
func (fileTool) Spec() provider.ToolSpec {
	return provider.ToolSpec{Name: "read", Description: "read a file",
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
}
func (fileTool) Prepare(json.RawMessage) (tools.Call, error) { return fileCall{}, nil }

type fileCall struct{}

func (fileCall) Subject() string { return "parse.go" }
func (fileCall) Run(context.Context, tools.Caller) (tools.Result, error) {
	return tools.Result{Content: strings.Repeat("func parse(line string) error { return nil }\n", 64), Summary: "64 lines"}, nil
}

// BenchmarkLongSession runs one session through many runs (an op is
// one: a prompt, a call to read a file of 3 KB, an answer) against a
// model that answers at once, its window compacted as it fills, with the
// session kept in a database, and reports the live heap (after a
// collection) at the 1,000th run and at the last, and the messages the
// session holds then; unpaged keeps it in a store that does not read
// messages back, so that the session holds its whole history.
//
//	go test -run X -bench LongSession -benchtime 5000x ./orchestrator/
func BenchmarkLongSession(b *testing.B) {
	for _, paged := range []bool{true, false} {
		name := "paged"
		if !paged {
			name = "unpaged"
		}
		b.Run(name, func(b *testing.B) {
			db, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "sessions.db"), sqlite.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			cfg := config.Defaults()
			cfg.Model = "qwen3:8b"
			o := Options{Provider: countingProvider{}, Tools: tools.NewRegistry(fileTool{}), Approver: allow{},
				Log: zerolog.Nop(), Config: cfg, Env: prompts.Env{Dir: "/src/project", OS: "linux", Arch: "amd64"}, Recorder: db}
			if !paged {
				o.Recorder = unpaged{db}
			}
			s := New(o)
			base := heapNow()
			var at1k uint64
			runs := 0
			for b.Loop() {
				runs++
				if _, err := s.Run(b.Context(), fmt.Sprintf("run %d: why does the parser cut the line in two?", runs), func(Event) {}); err != nil {
					b.Fatal(err)
				}
				if runs == 1000 {
					b.StopTimer()
					at1k = heapNow()
					b.StartTimer()
				}
			}
			end := heapNow()
			if s.win.CompactedTo() == 0 {
				b.Fatal("never compacted")
			}
			if at1k > 0 {
				b.ReportMetric(float64(at1k-base)/(1<<20), "MiB-at-1k")
			}
			b.ReportMetric(float64(end-base)/(1<<20), "MiB-at-end")
			b.ReportMetric(float64(len(s.messages)-1), "messages-held")
			runtime.KeepAlive(s)
		})
	}
}

// heapNow is the live heap after a collection.
func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
