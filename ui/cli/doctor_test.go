package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lathe/orchestrator/provider/ollama/ollamatest"
)

// TestDoctorJSONIsData: lathe doctor --json gives each model as an object
// with its name, capabilities and context length as numbers, the model
// to use with its window, and marks what lathe cannot run without.
func TestDoctorJSONIsData(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithModels(ollamatest.DefaultModel(),
		ollamatest.Model{Name: "gemma3:1b", Capabilities: []string{ollamatest.CapCompletion, ollamatest.CapVision}, ContextLength: 32768}))
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "cfg"), "OLLAMA_HOST=" + srv.URL()}
	var out, errOut strings.Builder
	if code := Run(t.Context(), []string{"-C", t.TempDir(), "doctor", "--json"}, strings.NewReader(""), &out, &errOut, env); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	type facts struct {
		Name          string   `json:"name"`
		Capabilities  []string `json:"capabilities"`
		Tools         bool     `json:"tools"`
		ContextLength int      `json:"context_length"`
		NumCtx        int      `json:"num_ctx"`
	}
	var checks []struct {
		Check string `json:"check"`
		OK    bool   `json:"ok"`
		Fatal bool   `json:"fatal"`
		Model *facts `json:"model"`
	}
	if err := json.Unmarshal([]byte(out.String()), &checks); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	models := map[string]facts{}
	for _, c := range checks {
		if c.Model != nil {
			models[c.Check+" "+c.Model.Name] = *c.Model
		}
		if c.Fatal {
			t.Errorf("check %s marked fatal though lathe can run", c.Check)
		}
	}
	q, g, use := models["model qwen3:8b"], models["model gemma3:1b"], models["model to use qwen3:8b"]
	if q.ContextLength != 40960 || !q.Tools || !slices.Contains(q.Capabilities, "thinking") {
		t.Errorf("qwen3:8b: %+v", q)
	}
	if g.ContextLength != 32768 || g.Tools || !slices.Contains(g.Capabilities, "vision") {
		t.Errorf("gemma3:1b: %+v", g)
	}
	if use.NumCtx != 32768 || use.ContextLength != 40960 {
		t.Errorf("the model to use: %+v", use)
	}
}
