package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"lathe/orchestrator/provider/ollama/ollamatest"
)

// BenchmarkEvalAttempt measures what lathe eval costs per attempt beyond
// the model's time: the built binary runs a task (one turn, a check that
// passes) 20 times against a fake server that answers at once. "ms/attempt"
// is the whole of it: the fresh directory, lathe's start and its run, the
// check, the records; "runner-ms/attempt" leaves out lathe's own run (the
// one-shot process, as long as the attempt's wall time).
func BenchmarkEvalAttempt(b *testing.B) {
	bin := buildLathe(b)
	srv := ollamatest.New(b)
	srv.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "Done."} })
	suite := filepath.Join(b.TempDir(), "suite", "task")
	os.MkdirAll(filepath.Join(suite, "files"), 0o755)
	os.WriteFile(filepath.Join(suite, "task.toml"), []byte("prompt = 'say done'\ncheck = 'true'\n"), 0o644)
	os.WriteFile(filepath.Join(suite, "files", "a.txt"), []byte("a\n"), 0o644)
	home := b.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"), "OLLAMA_HOST="+srv.URL())
	const repeat = 20
	var total, lathe time.Duration
	id := 0
	for b.Loop() {
		id++
		cmd := exec.Command(bin, "eval", filepath.Dir(suite), "-m", "qwen3:8b", "--repeat", strconv.Itoa(repeat))
		cmd.Env = env
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		total += time.Since(start)
		show := exec.Command(bin, "eval", "show", strconv.Itoa(id), "--json")
		show.Env = env
		out, err := show.Output()
		if err != nil {
			b.Fatal(err)
		}
		var e struct {
			Attempts []struct {
				WallMS  int64 `json:"wall_ms"`
				GoalMet bool  `json:"goal_met"`
			} `json:"attempts"`
		}
		if err := json.Unmarshal(out, &e); err != nil || len(e.Attempts) != repeat || !e.Attempts[0].GoalMet {
			b.Fatalf("%v: %s", err, out)
		}
		for _, a := range e.Attempts {
			lathe += time.Duration(a.WallMS) * time.Millisecond
		}
	}
	n := float64(id * repeat)
	b.ReportMetric(float64(total.Milliseconds())/n, "ms/attempt")
	b.ReportMetric(float64((total-lathe).Milliseconds())/n, "runner-ms/attempt")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkEvalBuiltin measures the built-in suite's wall time against a
// fake server whose model answers every task at once without doing it:
// what the runner, lathe and the twelve checks (Go builds and Python
// tests among them) cost, the model's time aside.
func BenchmarkEvalBuiltin(b *testing.B) {
	bin := buildLathe(b)
	srv := ollamatest.New(b)
	srv.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "I will not."} })
	home := b.TempDir()
	// A temporary directory of its own: the sandbox keeps lathe's files
	// (here under the system's) unreadable, which leaves the rest of that
	// directory writable but not the directory itself. The Go build cache
	// stays the user's, warm.
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		b.Fatal(err)
	}
	tmp := filepath.Join(home, "tmp")
	os.Mkdir(tmp, 0o700)
	env := append(os.Environ(), "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"), "OLLAMA_HOST="+srv.URL(), "TMPDIR="+tmp,
		"GOCACHE="+strings.TrimSpace(string(gocache)))
	for b.Loop() {
		cmd := exec.Command(bin, "eval", "--builtin", "-m", "qwen3:8b")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
	}
}
