package main

import (
	"encoding/json"
	"testing"

	"lathe/prompts"
	"lathe/tools"
)

// startOfEveryRequest renders what every request starts with: the
// build-mode system prompt (no AGENTS.md) and the seven tool schemas.
func startOfEveryRequest(t testing.TB) (system, schemas string) {
	t.Helper()
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	system, err = prompts.BuildPrompt(prompts.Env{Dir: "/home/dev/projects/service", OS: "linux", Arch: "amd64", Git: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := json.Marshal(tools.Default(ws, tools.Options{}).Definitions())
	if err != nil {
		t.Fatal(err)
	}
	return system, string(defs)
}

// BenchmarkPromptSize reports the size of the system prompt and the tool
// schemas sent with every request.
func BenchmarkPromptSize(b *testing.B) {
	var p, s string
	for b.Loop() {
		p, s = startOfEveryRequest(b)
	}
	b.ReportMetric(float64(len(p)), "prompt-bytes")
	b.ReportMetric(float64(len(s)), "schema-bytes")
	b.ReportMetric(float64(prompts.EstimateTokens(p+s)), "tokens")
}
