package ui

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// clock is a test clock that moves only when told.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// stubProvider knows every model (qwen3:8b and the ones it lists) and
// answers no chat: TUI tests feed the engine's events themselves.
type stubProvider struct{ models []provider.ModelSummary }

func (stubProvider) Chat(context.Context, *provider.Request, func(provider.Chunk) error) error {
	return errors.New("stubProvider: no chat in TUI tests")
}

func (stubProvider) Model(_ context.Context, name string) (provider.ModelInfo, error) {
	if name == "" {
		name = "qwen3:8b"
	}
	return provider.ModelInfo{Name: name, NumCtx: 32768, ContextLength: 40960}, nil
}

func (p stubProvider) Models(context.Context) ([]provider.ModelSummary, error) { return p.models, nil }

// prepare runs the session's Prepare as the TUI does, and hands the model
// its answer.
func prepare(m *model) {
	_, cmd := m.Update(m.prepare()())
	drain(m, cmd)
}

// drain runs cmd and what its messages ask for in turn, as Bubble Tea
// would, skipping commands that do not answer at once (a wait on the
// engine): the model's preload, and what follows it.
func drain(m *model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(200 * time.Millisecond):
		return
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			drain(m, c)
		}
		return
	}
	if msg != nil {
		_, next := m.Update(msg)
		drain(m, next)
	}
}

// testModel is a TUI model at 80×24 with a ready session on qwen3:8b, no
// colour, and a clock that starts at a fixed time.
func testModel(t testing.TB) (*model, *clock) {
	t.Helper()
	clk := &clock{t: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	cfg := config.Defaults()
	cfg.Model = "qwen3:8b"
	m := newModel(t.Context(), Options{
		Engine: orchestrator.Options{Provider: stubProvider{}, Tools: tools.Default(ws, tools.Options{}), Log: zerolog.Nop(),
			Config: cfg, Now: clk.now},
		Suggested: "qwen3:8b", Server: "http://127.0.0.1:11434",
		Dir: "/home/dev/proj", Home: "/home/dev", NoColor: true, Width: 80, Height: 24,
	})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	prepare(m)
	return m, clk
}

// screen is what the terminal shows, without colours.
func screen(m *model) string { return ansi.Strip(m.View().Content) }

// golden compares the screen with testdata/NAME.golden (-update rewrites
// it) and checks that no line is wider than the terminal.
func golden(t *testing.T, m *model, name string) {
	t.Helper()
	got := screen(m)
	for i, l := range strings.Split(got, "\n") {
		if w := ansi.StringWidth(l); w > m.width {
			t.Errorf("%s: line %d is %d columns wide, the terminal %d: %q", name, i+1, w, m.width, l)
		}
	}
	if n := strings.Count(got, "\n") + 1; n != m.height {
		t.Errorf("%s: the screen has %d lines, the terminal %d", name, n, m.height)
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n%s", name, path, sideBySide(got, string(want)))
	}
}

// sideBySide shows got and want, line by line, marking differences.
func sideBySide(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		mark := " "
		if gl != wl {
			mark = "≠"
		}
		b.WriteString(mark + " got:  " + gl + "\n" + mark + " want: " + wl + "\n")
	}
	return b.String()
}

// events feeds engine events to the model as one batch, then a frame.
func events(m *model, evs ...any) {
	m.Update(engineMsg(evs))
	m.Update(frameMsg{})
}

// texts splits s into streamed text deltas of about four bytes.
func texts(turn int, s string) []any {
	var out []any
	for len(s) > 0 {
		n := min(4, len(s))
		out = append(out, orchestrator.TextDelta{Turn: turn, Text: s[:n]})
		s = s[n:]
	}
	return out
}

func press(m *model, keys ...string) {
	for _, k := range keys {
		m.Update(keyPress(k))
	}
}

// do presses keys and runs what each one starts in the background (a mode
// change, a model switch), handing its answer back as Bubble Tea would.
// Batches (a request with its frames) are left alone.
func do(m *model, keys ...string) {
	for _, k := range keys {
		_, cmd := m.Update(keyPress(k))
		finish(m, cmd)
	}
}

// finish runs cmd, if any, and hands its message to the model.
func finish(m *model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	if msg := cmd(); msg != nil {
		if _, batch := msg.(tea.BatchMsg); !batch {
			m.Update(msg)
		}
	}
}

// answer presses keys in a dialog, the last of which answers it, and
// hands the model what that key sends it: the dialog's closing.
func answer(m *model, keys ...string) {
	press(m, keys[:len(keys)-1]...)
	do(m, keys[len(keys)-1])
}

// choose presses enter in the list open and hands the model the choice,
// as Bubble Tea would; it returns what the model does with it.
func choose(m *model) tea.Cmd {
	cmd := m.key(keyPress("enter"))
	if cmd == nil {
		return nil
	}
	_, next := m.Update(cmd())
	return next
}

// listed is how many items the list of T open shows: -1 while they load,
// -2 when no such list is open.
func listed[T any](m *model) int {
	l, ok := m.panel.(*list[T])
	switch {
	case !ok:
		return -2
	case l.loading:
		return -1
	}
	return len(l.items)
}

// keyPress builds the key press tea would send for a key name.
func keyPress(name string) tea.KeyPressMsg {
	special := map[string]tea.Key{
		"enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape}, "tab": {Code: tea.KeyTab},
		"up": {Code: tea.KeyUp}, "down": {Code: tea.KeyDown}, "pgup": {Code: tea.KeyPgUp}, "pgdown": {Code: tea.KeyPgDown},
		"ctrl+c": {Code: 'c', Mod: tea.ModCtrl}, "ctrl+o": {Code: 'o', Mod: tea.ModCtrl},
		"ctrl+up": {Code: tea.KeyUp, Mod: tea.ModCtrl}, "ctrl+down": {Code: tea.KeyDown, Mod: tea.ModCtrl},
		"ctrl+end": {Code: tea.KeyEnd, Mod: tea.ModCtrl}, "ctrl+home": {Code: tea.KeyHome, Mod: tea.ModCtrl}, "alt+enter": {Code: tea.KeyEnter, Mod: tea.ModAlt},
		"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
	}
	if k, ok := special[name]; ok {
		return tea.KeyPressMsg(k)
	}
	r := []rune(name)
	return tea.KeyPressMsg{Code: r[0], Text: name}
}

func typeText(m *model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

const answerMarkdown = "## Plan\n\nI'll add a `Greet` function and a test.\n\n" +
	"```go\nfunc Greet(name string) string {\n\treturn \"Hello, \" + name\n}\n```\n\n" +
	"- keeps the API small\n- covered by `greet_test.go`\n"

func TestGoldenEmptySession(t *testing.T) {
	m, _ := testModel(t)
	golden(t, m, "empty")
}

func TestGoldenStreamedAnswer(t *testing.T) {
	m, _ := testModel(t)
	m.beginRun("add a greeting function")
	half := len(answerMarkdown) / 2
	events(m, append([]any{orchestrator.TurnStarted{Turn: 1, Messages: 2}}, texts(1, answerMarkdown[:half])...)...)
	golden(t, m, "answer_streaming")
	evs := append(texts(1, answerMarkdown[half:]),
		orchestrator.TurnFinished{Turn: 1, PromptTokens: 1500, CompletionTokens: 60, EvalDuration: 2 * time.Second,
			Timing: orchestrator.Timing{DecodeRate: 30}},
		runDoneMsg{res: orchestrator.Result{StopReason: orchestrator.StopDone}})
	events(m, evs...)
	golden(t, m, "answer_done")
}

func TestGoldenThinking(t *testing.T) {
	m, clk := testModel(t)
	m.beginRun("why does the build fail?")
	thought := "The build fails in the linker. Let me think about which package is missing. " +
		"It could be the generated code, since the Makefile runs go generate first. " +
		"Then the missing symbol would come from the stringer output. I should read the Makefile."
	var evs []any
	for _, w := range strings.SplitAfter(thought, " ") {
		evs = append(evs, orchestrator.ThinkingDelta{Turn: 1, Text: w})
	}
	events(m, append([]any{orchestrator.TurnStarted{Turn: 1}}, evs...)...)
	golden(t, m, "thinking_streaming")
	clk.t = clk.t.Add(4200 * time.Millisecond)
	events(m, texts(1, "The Makefile runs `go generate` first.")...)
	golden(t, m, "thinking_folded")
	press(m, "ctrl+up", "ctrl+o")
	golden(t, m, "thinking_expanded")
}

const writePreview = "--- main.go\n+++ main.go\n@@ -1,3 +1,4 @@\n package main\n \n-func main() {}\n+func main() {\n+\tprintln(\"hi\")\n+}\n"

func TestGoldenToolCards(t *testing.T) {
	m, clk := testModel(t)
	m.beginRun("fix main.go")
	events(m, orchestrator.TurnStarted{Turn: 1},
		orchestrator.ToolStarted{Turn: 1, Index: 0, ID: "call_1", Name: "read_file", Subject: "main.go"},
		orchestrator.ToolStarted{Turn: 1, Index: 1, ID: "call_2", Name: "grep", Subject: "func main"})
	golden(t, m, "cards_running")

	events(m,
		orchestrator.ToolFinished{Turn: 1, Index: 0, Name: "read_file", Subject: "main.go", Outcome: orchestrator.OutcomeOK,
			Result: tools.Result{Content: "1\tpackage main", Summary: "3 lines"}, Duration: 2 * time.Millisecond},
		orchestrator.ToolFinished{Turn: 1, Index: 1, Name: "grep", Subject: "func main", Outcome: orchestrator.OutcomeOK,
			Result: tools.Result{Summary: "1 match"}, Duration: 5 * time.Millisecond},
		orchestrator.ToolStarted{Turn: 1, Index: 2, ID: "call_3", Name: "write_file", Subject: "main.go", Preview: writePreview},
		approvalAsk{req: orchestrator.ApprovalRequest{Tool: "write_file", Kind: tools.KindWrite, Subject: "main.go", Preview: writePreview},
			reply: make(chan orchestrator.Decision, 1)})
	golden(t, m, "dialog_write")

	do(m, "y")
	clk.t = clk.t.Add(time.Second)
	shellOut := "exit 1\n[stdout]\n--- FAIL: TestGreet (0.00s)\n    greet_test.go:9: got \"Hi\", want \"Hello\"\nFAIL\nFAIL\tgreet\t0.003s\n"
	events(m,
		orchestrator.ToolFinished{Turn: 1, Index: 2, Name: "write_file", Subject: "main.go", Outcome: orchestrator.OutcomeOK,
			Result: tools.Result{Summary: "overwrote, 5 lines"}, Duration: 3 * time.Millisecond},
		orchestrator.ToolStarted{Turn: 1, Index: 3, Name: "shell", Subject: "go test ./..."},
		orchestrator.ToolFinished{Turn: 1, Index: 3, Name: "shell", Subject: "go test ./...", Outcome: orchestrator.OutcomeFailed,
			Result: tools.Result{Content: shellOut, IsError: true, Summary: "exit 1"}, Duration: 1500 * time.Millisecond},
		orchestrator.ToolStarted{Turn: 1, Index: 4, Name: "shell", Subject: "rm -rf build"},
		orchestrator.ToolFinished{Turn: 1, Index: 4, Name: "shell", Subject: "rm -rf build", Outcome: orchestrator.OutcomeDenied,
			Result: tools.Result{Summary: "denied"}})
	golden(t, m, "cards_done")

	press(m, "ctrl+up", "ctrl+up", "ctrl+o")
	golden(t, m, "card_expanded")
}

func TestGoldenShellApproval(t *testing.T) {
	m, _ := testModel(t)
	m.beginRun("run the tests")
	events(m, orchestrator.TurnStarted{Turn: 1},
		orchestrator.ToolStarted{Turn: 1, Index: 0, Name: "shell", Subject: "go test ./... -run TestGreet"},
		approvalAsk{req: orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: "go test ./... -run TestGreet"},
			reply: make(chan orchestrator.Decision, 1)})
	golden(t, m, "dialog_shell")
}

// TestGoldenLongCommand: at 80 columns, the approval of a command too long
// for a line shows all of it, folded, and its card, expanded, too (F12).
func TestGoldenLongCommand(t *testing.T) {
	m, _ := testModel(t)
	command := "go test ./... -run 'TestTheParserHandlesAVeryLongInputWithoutPanickingAtAll' && rm -rf ./important-data"
	m.beginRun("run the parser's test")
	events(m, orchestrator.TurnStarted{Turn: 1},
		orchestrator.ToolStarted{Turn: 1, Index: 0, Name: "shell", Subject: command},
		approvalAsk{req: orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: command},
			reply: make(chan orchestrator.Decision, 1)})
	golden(t, m, "dialog_shell_long")
	do(m, "y")
	events(m, orchestrator.ToolFinished{Turn: 1, Index: 0, Name: "shell", Subject: command, Outcome: orchestrator.OutcomeFailed,
		Result: tools.Result{Content: "exit 1\n[stdout]\nok", IsError: true, Summary: "exit 1"}})
	press(m, "ctrl+o")
	golden(t, m, "card_long_expanded")
}

func TestGoldenError(t *testing.T) {
	m, _ := testModel(t)
	m.beginRun("hello")
	events(m, orchestrator.TurnStarted{Turn: 1}, texts(1, "Partial ans")[0],
		runDoneMsg{res: orchestrator.Result{StopReason: orchestrator.StopError},
			err: &provider.Error{Kind: provider.ErrStreamBroken, Msg: "Ollama stopped the reply with an error: an error was encountered while running the model"}})
	golden(t, m, "error")
}

// TestStartupWarningsShown: what lathe noticed at start (a project's
// approval rules ignored, a sandbox that cannot confine) is on the first
// screen, each as a warning.
func TestStartupWarningsShown(t *testing.T) {
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	cfg := config.Defaults()
	cfg.Model = "qwen3:8b"
	warnings := []string{"the sandbox cannot confine commands here (no Landlock): they run unconfined",
		"approval rules in .lathe/config.toml are ignored"}
	m := newModel(t.Context(), Options{
		Engine: orchestrator.Options{Provider: stubProvider{}, Tools: tools.Default(ws, tools.Options{}), Log: zerolog.Nop(), Config: cfg},
		Dir:    "/home/dev/proj", Home: "/home/dev", NoColor: true, Width: 100, Height: 30, Warnings: warnings,
	})
	s := screen(m)
	for _, w := range warnings {
		if !strings.Contains(strings.Join(strings.Fields(s), " "), w) {
			t.Errorf("warning %q not on the first screen:\n%s", w, s)
		}
	}
}
