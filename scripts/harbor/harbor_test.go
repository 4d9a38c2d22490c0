// Package harbor holds lathe's Harbor agent (lathe_agent.py); this test
// runs its Python tests against a lathe built from this tree and a fake
// Ollama, Harbor being played by a stand-in (see test_lathe_agent.py).
package harbor

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"lathe/orchestrator/provider/ollama/ollamatest"
)

func TestAdapter(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	bin := filepath.Join(t.TempDir(), "lathe")
	build := exec.Command("go", "build", "-o", bin, "lathe")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build lathe: %v\n%s", err, out)
	}
	srv := ollamatest.New(t)
	replies, err := ollamatest.LoadScript(strings.NewReader(`[
		{"tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": "hi\n"}}]},
		{"content": "Created hello.txt."}]`))
	if err != nil {
		t.Fatal(err)
	}
	srv.Script(replies...)
	home := t.TempDir()
	cmd := exec.Command("python3", "-m", "unittest", "-v", "test_lathe_agent")
	cmd.Env = append(os.Environ(), "LATHE_BINARY="+bin, "LATHE_SERVER="+srv.URL(), "HOME="+home,
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("the adapter's tests failed: %v", err)
	}
	if strings.Contains(string(out), "skipped") {
		t.Error("the adapter's tests were skipped")
	}
}
