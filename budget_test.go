package main

import (
	"testing"

	"lathe/prompts"
	"lathe/provider"
	"lathe/tools"
)

// startOfEveryRequest renders what every request starts with: the
// build-mode system prompt (no AGENTS.md) and the size of the seven tool
// schemas as JSON.
func startOfEveryRequest(t testing.TB) (system string, schemas int) {
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
	return system, provider.SpecsSize(tools.Default(ws, tools.Options{}).Specs())
}

// BenchmarkPromptSize reports the size of the system prompt and the tool
// schemas sent with every request.
func BenchmarkPromptSize(b *testing.B) {
	var p string
	var s int
	for b.Loop() {
		p, s = startOfEveryRequest(b)
	}
	b.ReportMetric(float64(len(p)), "prompt-bytes")
	b.ReportMetric(float64(s), "schema-bytes")
	b.ReportMetric(float64(prompts.EstimateTokens(p)+(s+3)/4), "tokens")
}
