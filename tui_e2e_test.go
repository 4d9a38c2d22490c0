package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/hinshun/vt10x"

	"lathe/orchestrator/ollamatest"
)

// screenWatcher feeds a program's terminal output to a terminal emulator
// and wakes waiters after each write, so tests wait on what the screen
// shows, not on time.
type screenWatcher struct {
	term    vt10x.Terminal
	mu      sync.Mutex
	changed chan struct{}
}

func (w *screenWatcher) Write(p []byte) (int, error) {
	n, err := w.term.Write(p)
	w.mu.Lock()
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
	return n, err
}

// waitFor waits until the screen shows want, and returns the screen.
func (w *screenWatcher) waitFor(t *testing.T, want string) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		w.mu.Lock()
		changed := w.changed
		w.mu.Unlock()
		screen := w.term.String() // takes the emulator's lock itself
		if strings.Contains(screen, want) {
			return screen
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("the screen never showed %q; it shows:\n%s", want, screen)
		}
	}
}

// TestTUIEndToEnd runs the real program in a pseudo-terminal against the
// fake Ollama: it types a prompt, approves the write in the dialog, and
// checks that the screen shows the answer and the file was written.
func TestTUIEndToEnd(t *testing.T) {
	srv := ollamatest.New(t)
	srv.Script(
		ollamatest.Reply{Content: "I'll create the file.", ToolCalls: []ollamatest.ToolCall{{Name: "write_file",
			Arguments: []byte(`{"path":"hello.txt","content":"Hello World\n"}`)}}},
		ollamatest.Reply{Content: "Created **hello.txt** with a greeting."},
	)
	t.Setenv("OLLAMA_HOST", srv.URL())
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: 100, Rows: 30}); err != nil {
		t.Fatal(err)
	}
	w := &screenWatcher{term: vt10x.New(vt10x.WithSize(100, 30), vt10x.WithWriter(ptmx)), changed: make(chan struct{})}
	go io.Copy(w, ptmx)

	dir, home := t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg"), "XDG_STATE_HOME": filepath.Join(home, "state")}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	exit := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		exit <- run(ctx, []string{"-C", dir}, tty, tty, &stderr, func(k string) string { return env[k] })
	}()

	w.waitFor(t, "Ask for a change")
	w.waitFor(t, "qwen3:8b")
	ptmx.WriteString("create hello.txt with a greeting\r")
	w.waitFor(t, "Allow write_file to change hello.txt?")
	if _, err := os.Stat(filepath.Join(dir, "hello.txt")); err == nil {
		t.Fatal("the file was written before it was approved")
	}
	ptmx.WriteString("y")
	screen := w.waitFor(t, "with a greeting.")
	for _, want := range []string{"› create hello.txt with a greeting", "✓ write_file hello.txt", "+Hello World", "Created hello.txt"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	if got, err := os.ReadFile(filepath.Join(dir, "hello.txt")); err != nil || string(got) != "Hello World\n" {
		t.Errorf("hello.txt = %q, %v", got, err)
	}
	ptmx.WriteString("\x03") // ctrl+c on an empty input quits
	select {
	case code := <-exit:
		if code != 0 || stderr.Len() != 0 {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ctrl+c did not quit")
	}
	if _, err := os.Stat(filepath.Join(home, "state", "lathe", "lathe.log")); err != nil {
		t.Errorf("no log file: %v", err)
	}
}
