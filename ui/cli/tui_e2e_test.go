package cli

import (
	"cmp"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/hinshun/vt10x"
	"github.com/ollama/ollama/api"

	"lathe/orchestrator/provider/ollama/ollamatest"
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

// tuiRun is the real program running in a pseudo-terminal.
type tuiRun struct {
	srv    *ollamatest.Server
	pty    *os.File
	screen *screenWatcher
	dir    string
	home   string
	host   string // OLLAMA_HOST; the fake's URL when empty
	exit   chan int
	stderr *strings.Builder
	env    []string // more variables
}

// startTUI runs lathe with args in a 100x30 pseudo-terminal, against a fake
// Ollama serving replies, and waits for its first frame.
func startTUI(t *testing.T, args []string, replies ...ollamatest.Reply) *tuiRun {
	t.Helper()
	r := newTUIRun(t)
	r.srv.Script(replies...)
	r.start(t, args)
	return r
}

// newTUIRun sets up a fake Ollama, a working directory and a home for a
// run of lathe; the fake titles sessions "Greeting file".
func newTUIRun(t *testing.T) *tuiRun {
	r := &tuiRun{srv: ollamatest.New(t), dir: t.TempDir(), home: t.TempDir(), exit: make(chan int, 1), stderr: &strings.Builder{}}
	r.srv.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "Greeting file"} }) // the title
	return r
}

// environ is the environment lathe runs with.
func (r *tuiRun) environ() []string {
	return append([]string{"HOME=" + r.home, "XDG_CONFIG_HOME=" + filepath.Join(r.home, "cfg"),
		"XDG_STATE_HOME=" + filepath.Join(r.home, "state"), "XDG_DATA_HOME=" + filepath.Join(r.home, "data"),
		"OLLAMA_HOST=" + cmp.Or(r.host, r.srv.URL()), "TERM=xterm-256color"}, r.env...)
}

// start runs the TUI with args and waits for its first frame.
func (r *tuiRun) start(t *testing.T, args []string) {
	t.Helper()
	r.launch(t, args)
	r.screen.waitFor(t, "Ask for a change")
	r.screen.waitFor(t, "qwen3:8b")
}

// launch runs the TUI with args in a pseudo-terminal.
func (r *tuiRun) launch(t *testing.T, args []string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: 100, Rows: 30}); err != nil {
		t.Fatal(err)
	}
	r.pty = ptmx
	r.screen = &screenWatcher{term: vt10x.New(vt10x.WithSize(100, 30), vt10x.WithWriter(ptmx)), changed: make(chan struct{})}
	go io.Copy(r.screen, ptmx)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	go func() {
		r.exit <- Run(ctx, append([]string{"-C", r.dir}, args...), tty, tty, r.stderr, r.environ())
	}()
}

// quit presses Ctrl+C twice on the empty input and checks the program
// ends well.
func (r *tuiRun) quit(t *testing.T) {
	t.Helper()
	r.pty.WriteString("\x03\x03")
	select {
	case code := <-r.exit:
		if code != 0 || r.stderr.Len() != 0 {
			t.Errorf("exit %d, stderr %q", code, r.stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ctrl+c did not quit")
	}
}

var writeHello = []ollamatest.Reply{
	{Content: "I'll create the file.", ToolCalls: []ollamatest.ToolCall{{Name: "write_file",
		Arguments: []byte(`{"path":"hello.txt","content":"Hello World\n"}`)}}},
	{Content: "Created **hello.txt** with a greeting."},
}

// TestTUIEndToEnd runs the real program in a pseudo-terminal against the
// fake Ollama: it types a prompt, approves the write in the dialog, and
// checks that the screen shows the answer and the file was written.
func TestTUIEndToEnd(t *testing.T) {
	r := startTUI(t, nil, writeHello...)
	r.pty.WriteString("create hello.txt with a greeting\r")
	r.screen.waitFor(t, "Allow write_file to create hello.txt?")
	if _, err := os.Stat(filepath.Join(r.dir, "hello.txt")); err == nil {
		t.Fatal("the file was written before it was approved")
	}
	r.pty.WriteString("y")
	screen := r.screen.waitFor(t, "with a greeting.")
	for _, want := range []string{"› create hello.txt with a greeting", "✓ write_file hello.txt", "+Hello World", "Created hello.txt"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	if got, err := os.ReadFile(filepath.Join(r.dir, "hello.txt")); err != nil || string(got) != "Hello World\n" {
		t.Errorf("hello.txt = %q, %v", got, err)
	}
	r.quit(t)
	// Once the program has left the alternate screen, the terminal is told
	// how to come back.
	r.screen.waitFor(t, "Resume this session with: lathe --resume ")
	if _, err := os.Stat(filepath.Join(r.home, "state", "lathe", "lathe.log")); err != nil {
		t.Errorf("no log file: %v", err)
	}
}

// TestTUIYesSkipsApproval: with --yes the TUI asks nothing, as one-shot runs.
func TestTUIYesSkipsApproval(t *testing.T) {
	r := startTUI(t, []string{"--yes"}, writeHello...)
	r.pty.WriteString("create hello.txt with a greeting\r")
	screen := r.screen.waitFor(t, "with a greeting.")
	if strings.Contains(screen, "Allow write_file") {
		t.Errorf("--yes still asked:\n%s", screen)
	}
	if got, err := os.ReadFile(filepath.Join(r.dir, "hello.txt")); err != nil || string(got) != "Hello World\n" {
		t.Errorf("hello.txt = %q, %v", got, err)
	}
	r.quit(t)
}

// TestTUIPrunesCheckpoints: the interactive UI keeps the checkpoints
// within [undo] max_bytes when it ends; with 0, none is left to undo.
func TestTUIPrunesCheckpoints(t *testing.T) {
	r := newTUIRun(t)
	cfg := filepath.Join(r.home, "cfg", "lathe", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[undo]\nmax_bytes = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.srv.Script(writeHello...)
	r.start(t, []string{"--yes"})
	r.pty.WriteString("create hello.txt with a greeting\r")
	r.screen.waitFor(t, "with a greeting.")
	r.quit(t)
	var out, errOut strings.Builder
	if code := Run(t.Context(), []string{"-C", r.dir, "undo", "--list"}, strings.NewReader(""), &out, &errOut, r.environ()); code != 0 {
		t.Fatalf("undo --list: exit %d, %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "has no runs to undo") {
		t.Errorf("the run's checkpoint was kept:\n%s", out.String())
	}
}

// TestTUIEscInterrupts: Esc while the reply streams cancels the request
// (the server sees the client go away), keeps what arrived, and the next
// prompt works.
func TestTUIEscInterrupts(t *testing.T) {
	r := startTUI(t, nil,
		ollamatest.Reply{Content: "Let me think about this slowly and carefully", Hang: true, AfterChunks: 4},
		ollamatest.Reply{Content: "Here is the short answer."})
	r.pty.WriteString("explain everything\r")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := r.srv.WaitHanging(ctx, 1); err != nil {
		t.Fatal(err)
	}
	r.screen.waitFor(t, "Let me think")
	r.pty.WriteString("\x1b")
	r.screen.waitFor(t, "Interrupted")
	if err := r.srv.WaitCancelled(ctx, 1); err != nil {
		t.Errorf("the request was not cancelled: %v", err)
	}
	r.pty.WriteString("and now briefly\r")
	screen := r.screen.waitFor(t, "Here is the short answer.")
	if !strings.Contains(screen, "Let me think") {
		t.Errorf("the interrupted text is gone:\n%s", screen)
	}
	msgs := conversation(r.srv)[1].Messages
	if n := len(msgs); n != 4 || msgs[2].Role != "assistant" || !strings.HasPrefix(msgs[2].Content, "Let me think") {
		t.Errorf("the conversation after the interrupt: %+v", msgs)
	}
	r.quit(t)
}

// TestTUIPlanMode: Shift+Tab switches to plan mode; the plan the model
// proposes is approved in its dialog, and build mode carries it out,
// checking off its step.
func TestTUIPlanMode(t *testing.T) {
	r := startTUI(t, nil,
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "propose_plan",
			Arguments: []byte(`{"summary":"Add a greeting file.","steps":["write hello.txt"]}`)}}},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{
			{Name: "write_file", Arguments: []byte(`{"path":"hello.txt","content":"Hello World\n"}`)},
			{Name: "update_plan", Arguments: []byte(`{"step":1,"status":"done"}`)}}},
		ollamatest.Reply{Content: "Created **hello.txt**."})
	r.pty.WriteString("\x1b[Z") // shift+tab
	r.screen.waitFor(t, "qwen3:8b · plan ·")
	r.pty.WriteString("create hello.txt with a greeting\r")
	r.screen.waitFor(t, "Carry out this plan of 1 step in build mode?")
	if tools := conversation(r.srv)[0].Tools; len(tools) != 6 || tools[5].Function.Name != "propose_plan" {
		t.Errorf("plan mode offered %d tools", len(tools)) // the four that read, recall, propose_plan
	}
	r.pty.WriteString("y")
	r.screen.waitFor(t, "Allow write_file to create hello.txt?")
	r.pty.WriteString("y")
	screen := r.screen.waitFor(t, "Created hello.txt.")
	for _, want := range []string{"▸ plan mode", "▸ build mode: the plan was approved", "[x] 1. write hello.txt", "build · plan 1/1"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	if got, err := os.ReadFile(filepath.Join(r.dir, "hello.txt")); err != nil || string(got) != "Hello World\n" {
		t.Errorf("hello.txt = %q, %v", got, err)
	}
	r.quit(t)
}

// TestTUIContinue: --continue opens the TUI on the latest session of the
// directory, a one-shot run's included, shown as it was, and the next
// prompt continues it.
func TestTUIContinue(t *testing.T) {
	r := newTUIRun(t)
	r.srv.Script(ollamatest.Reply{Content: "Hello from the first run."}, ollamatest.Reply{Content: "Still here."})
	var out, errOut strings.Builder
	if code := Run(t.Context(), []string{"-C", r.dir, "-p", "say hi"}, strings.NewReader(""), &out, &errOut, r.environ()); code != 0 {
		t.Fatalf("one-shot: exit %d, %s", code, errOut.String())
	}
	r.start(t, []string{"--continue"})
	screen := r.screen.waitFor(t, `Resumed "say hi"`)
	for _, want := range []string{"› say hi", "Hello from the first run."} {
		if !strings.Contains(screen, want) {
			t.Errorf("the resumed screen lacks %q:\n%s", want, screen)
		}
	}
	r.pty.WriteString("and again\r")
	r.screen.waitFor(t, "Still here.")
	reqs := conversation(r.srv)
	if msgs := reqs[len(reqs)-1].Messages; len(msgs) < 4 || msgs[1].Content != "say hi" || msgs[2].Content != "Hello from the first run." {
		t.Errorf("the continued conversation: %+v", msgs)
	}
	r.quit(t)
}

// TestTUIKeepsKeysTypedAtOnce: what is typed as lathe starts, while the
// server has not yet answered about the model, is kept: the prompt goes
// into the input, its Enter queues it, and it is sent once the model is
// ready.
func TestTUIKeepsKeysTypedAtOnce(t *testing.T) {
	r := newTUIRun(t)
	r.srv.Script(ollamatest.Reply{Content: "Hi back."})
	asked, answer := make(chan struct{}), make(chan struct{})
	var once sync.Once
	target, err := url.Parse(r.srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/api/show" {
			once.Do(func() { close(asked) })
			<-answer
		}
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(gate.Close)
	var released sync.Once
	release := func() { released.Do(func() { close(answer) }) }
	t.Cleanup(release) // before the gate closes: it waits for its handlers
	r.host = gate.URL
	r.launch(t, nil)
	select {
	case <-asked:
	case <-time.After(20 * time.Second):
		t.Fatal("the server was never asked about the model")
	}
	r.pty.WriteString("hello there\r")
	r.screen.waitFor(t, "queued: sent once the model is ready")
	release()
	r.screen.waitFor(t, "Hi back.")
	if msgs := conversation(r.srv)[0].Messages; msgs[len(msgs)-1].Content != "hello there" {
		t.Errorf("the prompt sent: %+v", msgs[len(msgs)-1])
	}
	r.quit(t)
}

// TestHoldKeys: from holdKeys to its release, the terminal hands each key
// over as typed, Enter as Enter ("\r", not the line feed the UI reads as
// Ctrl+J); released, it is as it was.
func TestHoldKeys(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	read := func(typed string) string {
		ptmx.WriteString(typed)
		b := make([]byte, 16)
		n, _ := tty.Read(b)
		return string(b[:n])
	}
	release := holdKeys(tty)
	if got := read("hi\r"); got != "hi\r" {
		t.Errorf("held, typing hi and Enter reads %q", got)
	}
	release()
	if got := read("hi\r"); got != "hi\n" {
		t.Errorf("released, typing hi and Enter reads %q, as the terminal did before", got)
	}
}

// TestTUIDemo: lathe --demo can be typed into, with no model server: a
// write asks first, and the next request, after the session's title was
// asked for, is answered in step; nothing hints at resuming a session
// that is not kept.
func TestTUIDemo(t *testing.T) {
	r := newTUIRun(t)
	r.launch(t, []string{"--demo"})
	r.screen.waitFor(t, "This is lathe's demo")
	r.pty.WriteString("create hello.txt\r")
	r.screen.waitFor(t, "Allow write_file to create hello.txt?")
	r.pty.WriteString("y")
	r.screen.waitFor(t, "/permissions shows what you allowed")
	r.pty.WriteString("run ls\r")
	r.screen.waitFor(t, "Run this command in")
	r.pty.WriteString("y")
	r.screen.waitFor(t, "That ran in the sandbox")
	r.quit(t)
	if s := r.screen.term.String(); strings.Contains(s, "Resume this session") {
		t.Errorf("the demo hints at resuming its session:\n%s", s)
	}
	if len(r.srv.ChatRequests()) != 0 {
		t.Errorf("the demo asked a server")
	}
}

// conversation is the chat requests of the conversation: the model's
// preload, a request without messages, left out.
func conversation(srv *ollamatest.Server) []api.ChatRequest {
	var out []api.ChatRequest
	for _, r := range srv.ChatRequests() {
		if len(r.Messages) > 0 {
			out = append(out, r)
		}
	}
	return out
}
