package cli

import (
	"testing"

	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools/codeindex"

	"lathe/orchestrator/provider"
	"lathe/prompts"
	"lathe/tools"
	"lathe/tools/memory"
)

// startOfEveryRequest renders what every request starts with: the
// build-mode system prompt (no AGENTS.md, no facts) and the size of the
// tool schemas as JSON: the seven tools, and with memory the three memory
// tools too (search_code as with an embedding model installed).
func startOfEveryRequest(t testing.TB, withMemory bool) (system string, schemas int) {
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
	all := tools.Default(ws, tools.Options{}).All()
	if withMemory {
		db := sqlitetest.Open(t)
		all = append(all, memory.Tools(ws, memory.Options{Dir: ws.Dir(), Sessions: db, Facts: db,
			Code: codeindex.NewSearcher(db, nil)})...)
	}
	return system, provider.SpecsSize(tools.NewRegistry(all...).Specs())
}

// BenchmarkPromptSize reports the size of the system prompt and the tool
// schemas sent with every request, without and with the memory tools.
func BenchmarkPromptSize(b *testing.B) {
	for _, withMemory := range []bool{false, true} {
		b.Run(map[bool]string{false: "seven-tools", true: "with-memory"}[withMemory], func(b *testing.B) {
			var p string
			var s int
			for b.Loop() {
				p, s = startOfEveryRequest(b, withMemory)
			}
			b.ReportMetric(float64(len(p)), "prompt-bytes")
			b.ReportMetric(float64(s), "schema-bytes")
			b.ReportMetric(float64((len(p)+3)/4+(s+3)/4), "tokens") // about four bytes a token
		})
	}
}
