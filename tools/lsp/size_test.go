package lsp

import (
	"encoding/json"
	"testing"

	"lathe/tools"
)

// TestDiagnosticsToolSize: the diagnostics tool's schema stays small;
// its size (4 bytes a token) is what the README's Measured table says it
// costs every request.
func TestDiagnosticsToolSize(t *testing.T) {
	dir, root := workspace(t, nil)
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	m := New(Options{Dir: dir, Root: root})
	b, err := json.Marshal(m.Tool(ws).Spec())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("diagnostics: %d bytes ≈ %d tokens", len(b), len(b)/4)
	if len(b) > 400 {
		t.Errorf("the diagnostics tool takes %d bytes: keep it under 400", len(b))
	}
}

// TestNavigationToolsSize: so do the navigation tools' schemas, each and
// together; their sizes are what the README says [navigation] costs every
// request.
func TestNavigationToolsSize(t *testing.T) {
	dir, root := workspace(t, nil)
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	m := New(Options{Dir: dir, Root: root})
	total := 0
	for _, tool := range m.NavigationTools(ws) {
		b, err := json.Marshal(tool.Spec())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes ≈ %d tokens", tool.Name(), len(b), len(b)/4)
		total += len(b)
	}
	t.Logf("together: %d bytes ≈ %d tokens", total, total/4)
	if total > 1500 {
		t.Errorf("the navigation tools take %d bytes: keep them under 1,500", total)
	}
}
