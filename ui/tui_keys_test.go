package ui

import (
	"context"
	"encoding/json"
	"errors"
	"image/color"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools"
)

// isQuit reports whether cmd (possibly a batch) quits the program.
func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		return slices.ContainsFunc(msg, isQuit)
	}
	return false
}

// finishRun ends the current run as done.
func finishRun(m *model) {
	events(m, runDoneMsg{res: orchestrator.Result{StopReason: orchestrator.StopDone}})
}

// TestCtrlC: Ctrl+C clears a typed prompt, interrupts a running request
// as Esc does, and otherwise arms quitting: a second press soon after
// quits, a press later arms it again (R10). The first presses are not run
// as commands: quitting's timer would fire after its real time.
func TestCtrlC(t *testing.T) {
	m, clk := testModel(t)
	typeText(m, "half a thought")
	if m.key(keyPress("ctrl+c")); m.status.quitArmed || m.input.value() != "" {
		t.Fatalf("ctrl+c with text: armed=%v input=%q; want the input cleared", m.status.quitArmed, m.input.value())
	}
	ctx := m.beginRun("long task")
	m.key(keyPress("ctrl+c"))
	if ctx.Err() == nil || !m.run.stopping || !strings.Contains(statusOf(m), "ctrl+c again to quit") {
		t.Fatalf("the first ctrl+c while running: cancelled=%v, status %q", ctx.Err() != nil, statusOf(m))
	}
	events(m, runDoneMsg{res: orchestrator.Result{StopReason: orchestrator.StopInterrupted}})
	clk.t = clk.t.Add(time.Second)
	if cmd := m.key(keyPress("ctrl+c")); !isQuit(cmd) {
		t.Error("a second ctrl+c a second later, the run ended, did not quit")
	}

	idle, clk := testModel(t)
	idle.key(keyPress("ctrl+c"))
	if !idle.status.quitArmed || !strings.Contains(statusOf(idle), "ctrl+c again to quit") {
		t.Fatalf("ctrl+c on an empty input: armed=%v, status %q", idle.status.quitArmed, statusOf(idle))
	}
	clk.t = clk.t.Add(3 * time.Second)
	idle.Update(quitExpiredMsg{})
	if idle.status.quitArmed || strings.Contains(statusOf(idle), "again to quit") {
		t.Fatalf("still armed once the time is over: status %q", statusOf(idle))
	}
	idle.key(keyPress("ctrl+c"))
	if !idle.status.quitArmed {
		t.Fatal("ctrl+c after the time did not arm quitting again")
	}
	typeText(idle, "x")
	if idle.status.quitArmed {
		t.Error("another key left quitting armed")
	}
	idle.input.set("")
	idle.key(keyPress("ctrl+c"))
	if cmd := idle.key(keyPress("ctrl+c")); !isQuit(cmd) {
		t.Error("ctrl+c twice on an empty input did not quit")
	}

	offline, _ := testModel(t)
	offline.Update(preparedMsg{err: &provider.Error{Kind: provider.ErrUnreachable, Msg: "cannot reach Ollama"}})
	if cmd := offline.key(keyPress("ctrl+c")); !isQuit(cmd) {
		t.Error("ctrl+c on the offline screen, which says \"ctrl+c quit\", did not quit")
	}
}

// TestCtrlCWithADialogOpen: Ctrl+C while an approval waits interrupts the
// run and closes the dialog.
func TestCtrlCWithADialogOpen(t *testing.T) {
	m, _ := testModel(t)
	ctx := m.beginRun("test it")
	reply := make(chan orchestrator.Decision, 1)
	events(m, orchestrator.TurnStarted{Turn: 1}, orchestrator.ToolStarted{Turn: 1, Name: "shell", Subject: "go test ./..."},
		approvalAsk{req: orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: "go test ./..."}, reply: reply})
	m.key(keyPress("ctrl+c"))
	if ctx.Err() == nil || m.dialog != nil {
		t.Fatalf("ctrl+c with a dialog: cancelled=%v, dialog open=%v", ctx.Err() != nil, m.dialog != nil)
	}
	if d := <-reply; d.Allow {
		t.Error("the interrupted call was allowed")
	}
}

// TestDialogAnswersOnce: a dialog answered takes no more keys while its
// closing is on its way to the root: they go where they would once it is
// closed, the input's into the input (none is lost); and the engine gets
// one answer: the user's once the dialog closes, or the interruption's
// when it came first.
func TestDialogAnswersOnce(t *testing.T) {
	req := orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: "go test ./..."}
	ask := func(m *model) chan orchestrator.Decision {
		reply := make(chan orchestrator.Decision, 2) // room for a second answer, which must not come
		events(m, orchestrator.TurnStarted{Turn: 1}, orchestrator.ToolStarted{Turn: 1, Name: "shell", Subject: req.Subject},
			approvalAsk{req: req, reply: reply})
		return reply
	}

	m, _ := testModel(t)
	m.beginRun("test it")
	reply := ask(m)
	_, closing := m.Update(keyPress("y"))
	if len(reply) != 0 || m.dialog == nil {
		t.Fatalf("the answer went before the dialog closed: %d answers, dialog open %v", len(reply), m.dialog != nil)
	}
	typeText(m, "and then")
	if m.input.value() != "and then" {
		t.Errorf("the keys typed after the answer left %q in the input", m.input.value())
	}
	m.Update(closing())
	if len(reply) != 1 || m.dialog != nil {
		t.Fatalf("once closed: %d answers, dialog open %v", len(reply), m.dialog != nil)
	}
	if d := <-reply; !d.Allow {
		t.Errorf("decision %+v, want allowed", d)
	}

	m, _ = testModel(t)
	m.beginRun("test it")
	reply = ask(m)
	for _, k := range []string{"ctrl+c", "esc"} {
		m, _ = testModel(t)
		m.beginRun("test it")
		reply = ask(m)
		_, closing = m.Update(keyPress("y"))
		m.key(keyPress(k)) // interrupts before the dialog closed
		m.Update(closing())
		if len(reply) != 1 || !m.run.stopping {
			t.Fatalf("%s: %d answers, run interrupted %v; want the interruption's answer alone", k, len(reply), m.run.stopping)
		}
		if d := <-reply; d.Allow {
			t.Errorf("%s: decision %+v, want the interruption's", k, d)
		}
	}
}

func TestEscInterruptsTheRun(t *testing.T) {
	m, _ := testModel(t)
	ctx := m.beginRun("long task")
	events(m, append([]any{orchestrator.TurnStarted{Turn: 1}}, texts(1, "Working on it")...)...)
	press(m, "esc")
	if ctx.Err() == nil {
		t.Fatal("esc did not cancel the run")
	}
	if !strings.Contains(screen(m), "interrupting…") {
		t.Error("no sign that the run is being interrupted")
	}
	events(m, runDoneMsg{res: orchestrator.Result{StopReason: orchestrator.StopInterrupted}})
	s := screen(m)
	if !strings.Contains(s, "Working on it") || !strings.Contains(s, "⊘ Interrupted. What arrived is kept") || m.run != nil {
		t.Errorf("after the interrupt the screen is:\n%s", s)
	}
	typeText(m, "next")
	press(m, "enter")
	if m.run == nil {
		t.Error("a prompt after an interrupt did not start")
	}
}

// TestInterruptBeforeAnything: an interrupt before the model sent
// anything does not speak of what arrived (M10).
func TestInterruptBeforeAnything(t *testing.T) {
	m, _ := testModel(t)
	m.beginRun("long task")
	events(m, orchestrator.TurnStarted{Turn: 1})
	press(m, "esc")
	events(m, runDoneMsg{res: orchestrator.Result{StopReason: orchestrator.StopInterrupted}})
	if s := screen(m); !strings.Contains(s, "⊘ Interrupted.") || strings.Contains(s, "arrived") {
		t.Errorf("after an interrupt with nothing arrived:\n%s", s)
	}
}

func TestApprovalChoices(t *testing.T) {
	req := orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: "go test ./..."}
	tests := []struct {
		name  string
		keys  []string
		want  orchestrator.Decision
		grant bool
	}{
		{"allow once", []string{"y"}, orchestrator.Decision{Allow: true}, false},
		{"enter allows", []string{"enter"}, orchestrator.Decision{Allow: true}, false},
		{"allow for the session", []string{"a"}, orchestrator.Decision{Allow: true}, true},
		{"esc denies", []string{"esc"}, orchestrator.Decision{}, false},
		{"deny with a reason", append(append([]string{"n"}, strings.Split("use go vet", "")...), "enter"),
			orchestrator.Decision{Reason: "use go vet"}, false},
		{"esc while typing a reason goes back to the choices", []string{"n", "x", "esc", "y"}, orchestrator.Decision{Allow: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := testModel(t)
			m.beginRun("test it")
			reply := make(chan orchestrator.Decision, 1)
			events(m, orchestrator.TurnStarted{Turn: 1}, orchestrator.ToolStarted{Turn: 1, Name: "shell", Subject: req.Subject},
				approvalAsk{req: req, reply: reply})
			if m.dialog == nil {
				t.Fatal("no dialog")
			}
			answer(m, tt.keys...)
			if m.dialog != nil {
				t.Fatal("the dialog is still open")
			}
			if got := <-reply; got != tt.want {
				t.Errorf("decision = %+v, want %+v", got, tt.want)
			}
			// The same command later is allowed without asking only after
			// "allow for this session"; another command never is (F11).
			ctx, cancel := context.WithCancel(t.Context())
			cancel() // asking would block: a cancelled ctx makes it fail at once
			d, err := m.approver.Approve(ctx, req)
			if granted := err == nil && d.Allow; granted != tt.grant {
				t.Errorf("the same command later allowed without asking: %v, want %v", granted, tt.grant)
			}
			other := orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: "go test -exec sh ./..."}
			if d, err := m.approver.Approve(ctx, other); err == nil && d.Allow {
				t.Error("another command allowed by a grant of one")
			}
		})
	}
}

// TestDenialReasonOnTheCard: the reason typed with a denial shows on the
// call's card (R5).
func TestDenialReasonOnTheCard(t *testing.T) {
	m, _ := testModel(t)
	m.beginRun("lowercase the notes")
	req := orchestrator.ApprovalRequest{Tool: "edit_file", Kind: tools.KindWrite, Subject: "notes.txt", Preview: writePreview}
	reply := make(chan orchestrator.Decision, 1)
	events(m, orchestrator.TurnStarted{Turn: 1},
		orchestrator.ToolStarted{Turn: 1, Index: 0, Name: "edit_file", Kind: tools.KindWrite, Subject: "notes.txt", Preview: writePreview},
		approvalAsk{req: req, reply: reply})
	press(m, "n")
	typeText(m, "keep lowercase please")
	do(m, "enter")
	if d := <-reply; d.Allow || d.Reason != "keep lowercase please" {
		t.Fatalf("decision %+v", d)
	}
	events(m, orchestrator.ToolFinished{Turn: 1, Index: 0, Name: "edit_file", Kind: tools.KindWrite, Subject: "notes.txt",
		Outcome: orchestrator.OutcomeDenied, Result: tools.Result{Summary: "denied", IsError: true}})
	if s := screen(m); !strings.Contains(s, "⊘ edit_file notes.txt · denied: keep lowercase please") {
		t.Errorf("the card lacks the reason:\n%s", s)
	}
}

func TestSlashCommands(t *testing.T) {
	m, _ := testModel(t)
	typeText(m, "/frobnicate")
	press(m, "enter")
	if m.run != nil || !strings.Contains(screen(m), "unknown command /frobnicate: /help lists the commands") {
		t.Fatalf("unknown command: run=%v screen:\n%s", m.run != nil, screen(m))
	}
	if got := m.input.value(); got != "/frobnicate" {
		t.Errorf("the unknown command left %q in the input, not itself to mend", got)
	}
	m.input.set("")
	typeText(m, "/mo")
	if !strings.Contains(screen(m), "/model  choose the model") {
		t.Errorf("no completion shown for /mo:\n%s", screen(m))
	}
	press(m, "tab")
	if got := m.input.value(); got != "/model " {
		t.Errorf("tab completed to %q", got)
	}
	m.input.set("/tools")
	press(m, "enter")
	if s := screen(m); !strings.Contains(s, "write_file  asks first") || !strings.Contains(s, "read_file   runs without asking") {
		t.Errorf("/tools:\n%s", s)
	}
	m.input.set("/mode plan")
	do(m, "enter")
	m.input.set("/tools")
	press(m, "enter")
	if s := screen(m); !strings.Contains(s, "Tools in plan mode") || !strings.Contains(s, "Not in plan mode: write_file, edit_file, shell") ||
		!strings.Contains(s, "propose_plan  Propose the plan for the user to approve") {
		t.Errorf("/tools in plan mode:\n%s", s)
	}
	id := m.session.Snapshot().ID
	m.input.set("/clear")
	_, cmd := m.Update(keyPress("enter"))
	if m.session.Snapshot().ID != id || !strings.Contains(statusOf(m), "starting a new conversation…") {
		t.Errorf("/clear reset the session in Update, on the UI's goroutine, or did not say it was under way: %q", statusOf(m))
	}
	finish(m, cmd)
	if m.session.Snapshot().ID == id || len(m.transcript.items) != 1 {
		t.Errorf("/clear: session %s → %s, %d items left", id, m.session.Snapshot().ID, len(m.transcript.items))
	}
	m.input.set("/quit")
	if !isQuit(m.key(keyPress("enter"))) {
		t.Error("/quit did not quit")
	}
}

func TestStreamFollowsUnlessScrolledUp(t *testing.T) {
	m, _ := testModel(t)
	m.beginRun("write a lot")
	var long strings.Builder
	for i := range 40 {
		long.WriteString("Paragraph number " + strings.Repeat("x", i%7) + " " + string(rune('A'+i%26)) + ".\n\n")
	}
	events(m, append([]any{orchestrator.TurnStarted{Turn: 1}}, texts(1, long.String())...)...)
	if !strings.Contains(screen(m), "Paragraph number xxxx N.") {
		t.Fatalf("following: the latest text is not on screen:\n%s", screen(m))
	}
	press(m, "pgup")
	before := screen(m)
	events(m, texts(1, "More text at the end.\n\n")...)
	if screen(m) != before {
		t.Errorf("scrolled up, the view moved as text streamed in")
	}
	press(m, "ctrl+end")
	if !strings.Contains(screen(m), "More text at the end.") {
		t.Errorf("ctrl+end did not go back to the stream")
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if screen(m) == before || m.transcript.follow {
		t.Error("the mouse wheel did not scroll up")
	}
}

// TestTokensRenderOnFrames checks that tokens are coalesced: text deltas
// only append, and the next frame renders them together.
func TestTokensRenderOnFrames(t *testing.T) {
	m, _ := testModel(t)
	m.beginRun("hi")
	m.Update(engineMsg{orchestrator.TurnStarted{Turn: 1}})
	for _, ev := range texts(1, answerMarkdown) {
		m.Update(engineMsg{ev})
		m.View()
	}
	if m.st.md == nil || m.st.md.Renders() != 0 || strings.Contains(screen(m), "Greet") {
		t.Fatalf("text deltas rendered before a frame:\n%s", screen(m))
	}
	m.Update(frameMsg{})
	rendered := m.st.md.Renders()
	if rendered == 0 || !strings.Contains(screen(m), "func Greet(name string) string {") {
		t.Fatalf("the frame did not render the answer (%d renders):\n%s", rendered, screen(m))
	}
	m.Update(frameMsg{})
	m.View()
	if m.st.md.Renders() != rendered {
		t.Errorf("a frame with no new text rendered %d times", m.st.md.Renders()-rendered)
	}
}

func TestResizeKeepsLinesInside(t *testing.T) {
	m, _ := testModel(t)
	m.beginRun("hi")
	events(m, append([]any{orchestrator.TurnStarted{Turn: 1}}, texts(1, answerMarkdown)...)...)
	for _, size := range [][2]int{{60, 20}, {120, 40}, {80, 24}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		lines := strings.Split(screen(m), "\n")
		if len(lines) != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Errorf("%dx%d: a line of %d columns: %q", size[0], size[1], w, l)
			}
		}
	}
}

// TestStartupWithoutPulls: with a server lathe cannot pull into, a model
// it does not serve blocks with the server's own message, and offers no
// pull; its offline screen does not name Ollama.
func TestStartupWithoutPulls(t *testing.T) {
	m, _ := testModel(t)
	m.opts.Suggested = ""
	m.Update(preparedMsg{err: &provider.Error{Kind: provider.ErrModelNotFound,
		Msg: `model "x" is not served at http://h/v1: load it on the server (lathe pulls models only from Ollama)`}})
	if m.conn.phase != phaseBlocked {
		t.Fatalf("phase %v, want blocked", m.conn.phase)
	}
	if s := screen(m); strings.Contains(s, "Pull it now?") {
		t.Errorf("a pull is offered:\n%s", s)
	}
	m.Update(preparedMsg{err: &provider.Error{Kind: provider.ErrUnreachable, Msg: "cannot reach the server at http://h/v1"}})
	if s := screen(m); !strings.Contains(s, "Cannot reach the server") || strings.Contains(s, "Ollama") {
		t.Errorf("offline screen:\n%s", s)
	}
}

func TestStartupScreens(t *testing.T) {
	m, clk := testModel(t)
	m.Update(preparedMsg{err: &provider.Error{Kind: provider.ErrUnreachable,
		Msg: `cannot reach Ollama at http://127.0.0.1:11434: is "ollama serve" running?`}})
	if s := screen(m); !strings.Contains(s, "Cannot reach Ollama") || !strings.Contains(s, "http://127.0.0.1:11434") || !strings.Contains(s, "r retry") {
		t.Fatalf("offline screen:\n%s", s)
	}
	if s := screen(m); strings.Count(s, "ollama serve") != 1 || strings.Contains(s, "Start it with") {
		t.Errorf("the offline screen gives its advice more than once:\n%s", s)
	}
	// What a newcomer without Ollama needs: where to get it, doctor, the
	// demo; and q quits, as the keys say (F5).
	if s := strings.Join(strings.Fields(screen(m)), " "); !strings.Contains(s, "https://ollama.com installs it") ||
		!strings.Contains(s, "lathe doctor checks") || !strings.Contains(s, "lathe --demo tries") || !strings.Contains(s, "q quit") {
		t.Errorf("the offline screen:\n%s", screen(m))
	}
	if !isQuit(m.key(keyPress("q"))) {
		t.Error("q on the offline screen did not quit")
	}
	if cmd := m.key(keyPress("r")); cmd == nil || m.conn.phase != phaseConnecting {
		t.Error("r did not retry")
	}
	if s := screen(m); !strings.Contains(s, "Cannot reach Ollama") || !strings.Contains(s, "retrying…") {
		t.Errorf("no sign of the retry:\n%s", s)
	}
	m.Update(preparedMsg{err: &provider.Error{Kind: provider.ErrUnreachable,
		Msg: `cannot reach Ollama at http://127.0.0.1:11434: is "ollama serve" running?`}})
	if s := screen(m); !strings.Contains(s, "Still no answer after 1 retry.") || !strings.Contains(s, "r retry") {
		t.Errorf("after a retry that failed:\n%s", s)
	}
	m.key(keyPress("r"))
	m.Update(preparedMsg{err: &provider.Error{Kind: provider.ErrModelNotFound, Msg: "not installed"}})
	if s := screen(m); !strings.Contains(s, "qwen3:8b is not installed") || !strings.Contains(s, "Pull it now?") {
		t.Fatalf("offer screen:\n%s", s)
	}
	if cmd := m.key(keyPress("y")); cmd == nil || m.conn.phase != phasePulling {
		t.Fatal("y did not start the pull")
	}
	clk.t = clk.t.Add(time.Second)
	events(m, pullProgressMsg{Status: "pulling 7cd4618c1faf", Digest: "sha256:7cd4", Total: 4_000_000_000, Completed: 1_000_000_000})
	if s := screen(m); !strings.Contains(s, "1.0 GB of 4.0 GB · 25%") || !strings.Contains(s, "pulling 7cd4618c1faf") {
		t.Errorf("pull progress:\n%s", s)
	}
	m.Update(engineMsg{pullDoneMsg{err: errors.New("pull model manifest: file does not exist")}})
	if m.conn.phase != phaseBlocked || !strings.Contains(screen(m), "pull model manifest: file does not exist") {
		t.Errorf("a failed pull: phase %v, screen:\n%s", m.conn.phase, screen(m))
	}
}

func TestPromptRefusedWithoutAModel(t *testing.T) {
	m, _ := testModel(t)
	m.Update(preparedMsg{err: &provider.Error{Kind: provider.ErrNoToolSupport, Msg: `model "gemma3:1b" does not support tool calling`}})
	typeText(m, "hello")
	press(m, "enter")
	if m.run != nil || !strings.Contains(screen(m), "no model is ready yet: /model chooses one") {
		t.Errorf("a prompt without a model: run=%v screen:\n%s", m.run != nil, screen(m))
	}
	if got := m.input.value(); got != "hello" {
		t.Errorf("the refused prompt was not kept in the input: %q", got)
	}
}

func TestNoColor(t *testing.T) {
	if p := colorProfile([]string{"TERM=xterm-256color", "NO_COLOR=1"}); p > colorprofile.Ascii {
		t.Errorf("NO_COLOR: profile %v, want one without colours", p)
	}
	if p := colorProfile([]string{"TERM=xterm-256color"}); p != colorprofile.ANSI256 {
		t.Errorf("xterm-256color: profile %v", p)
	}
	if newTheme(true, true).markdown != "notty" {
		t.Error("NO_COLOR does not pick the colourless markdown style")
	}
}

func TestBackgroundPicksTheMarkdownStyle(t *testing.T) {
	white, black := color.White, color.Black
	tests := []struct {
		name    string
		noColor bool
		bg      color.Color
		want    string
	}{
		{"light", false, white, "light"},
		{"dark", false, black, "dark"},
		{"no colour on light", true, white, "notty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := testModel(t)
			m.opts.NoColor = tt.noColor
			m.Update(tea.BackgroundColorMsg{Color: tt.bg})
			m.beginRun("hi")
			events(m, orchestrator.TurnStarted{Turn: 1}, orchestrator.TextDelta{Turn: 1, Text: "Hello."})
			if got := m.transcript.items[m.run.answer].(*answerItem).md.Style(); got != tt.want {
				t.Errorf("the answer is rendered in style %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRewrittenReplyAndRecoveryStops(t *testing.T) {
	m, _ := testModel(t)
	m.beginRun("read main.go")
	call := "I'll read it.\n\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"main.go\"}}\n```"
	events(m, append([]any{orchestrator.TurnStarted{Turn: 1}}, texts(1, call)...)...)
	if !strings.Contains(screen(m), `"name": "read_file"`) {
		t.Fatalf("the streamed call text is not shown:\n%s", screen(m))
	}
	events(m, orchestrator.ReplyRewritten{Turn: 1, Content: "I'll read it."},
		orchestrator.ToolStarted{Turn: 1, Index: 0, Name: "read_file", Subject: "main.go"},
		orchestrator.ToolFinished{Turn: 1, Index: 0, Name: "read_file", Subject: "main.go", Outcome: orchestrator.OutcomeOK,
			Result: tools.Result{Summary: "12 lines"}},
		runDoneMsg{res: orchestrator.Result{StopReason: orchestrator.StopRepetition, Repeated: "read_file main.go"}})
	s := screen(m)
	if strings.Contains(s, `"name": "read_file"`) || !strings.Contains(s, "I'll read it.") || !strings.Contains(s, "✓ read_file main.go") {
		t.Errorf("after the rewrite:\n%s", s)
	}
	if !strings.Contains(s, "Stopped: the model made the same call (read_file main.go) 5 times") {
		t.Errorf("no repetition notice:\n%s", s)
	}
}

func TestResumedSessionIsShown(t *testing.T) {
	args := json.RawMessage(`{"command":"go test ./..."}`)
	planArgs := json.RawMessage(`{"step":1,"status":"done"}`)
	saved := &session.Saved{
		Record: session.Record{ID: "0123456789abcdef", Title: "fix the tests", Model: "qwen3:8b"},
		Messages: []session.Message{
			{Seq: 0, Message: provider.Message{Role: "user", Content: "fix the tests"}},
			{Seq: 1, Message: provider.Message{Role: "assistant", Content: "Running them first.", Thinking: "They fail in greet.",
				ToolCalls: []provider.ToolCall{{ID: "c1", Name: "shell", Arguments: args},
					{ID: "c2", Name: "shell", Arguments: args}}}},
			{Seq: 2, Message: provider.Message{Role: "tool", Content: "exit 1", ToolName: "shell", ToolCallID: "c1"},
				Tool: &session.ToolMeta{Subject: "go test ./...", Outcome: string(orchestrator.OutcomeFailed), Summary: "exit 1", Duration: 1500 * time.Millisecond}},
			// Seq 3 is c2's result, never written: resuming says it was interrupted.
			{Seq: 4, Message: provider.Message{Role: "assistant", ToolCalls: []provider.ToolCall{
				{ID: "c3", Name: "update_plan", Arguments: planArgs},
				{ID: "c4", Name: "update_plan", Arguments: planArgs}}}},
			{Seq: 5, Message: provider.Message{Role: "tool", Content: "step 1 is done", ToolName: "update_plan", ToolCallID: "c3"},
				Tool: &session.ToolMeta{Subject: "step 1", Outcome: string(orchestrator.OutcomeOK), Summary: "step 1 done"}},
			{Seq: 6, Message: provider.Message{Role: "tool", Content: "there is no step 7", ToolName: "update_plan", ToolCallID: "c4"},
				Tool: &session.ToolMeta{Subject: "step 7", Outcome: string(orchestrator.OutcomeFailed), Summary: "no step 7"}},
			{Seq: 7, Message: provider.Message{Role: "user", Content: "go on"}},
			{Seq: 8, Message: provider.Message{Role: "assistant", Content: "Half an ans"}, Cut: true},
			{Seq: 9, Message: provider.Message{Role: "user", Content: "and?"}},
			{Seq: 10, Message: provider.Message{Role: "assistant", Content: "Done."}},
		},
		Compaction: &session.Compaction{Seq: 1, Summary: "The user wants the tests fixed."},
	}
	m, _ := testModel(t)
	m.session = m.newSession()
	if err := m.session.ResumeFrom(*saved); err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 40})
	prepare(m)
	s := screen(m)
	for _, want := range []string{"› fix the tests", "↑ Summarized for the model from here up", "▸ Thought (4 words)",
		"Running them first.", "✗ shell go test ./... · exit 1 · 1.5s", "⊘ shell go test ./... · interrupted",
		"✗ update_plan step 7 · no step 7", "Half an ans\n\n  ⊘ Interrupted.", `Resumed "fix the tests": 11 messages.`} {
		if !strings.Contains(s, want) {
			t.Errorf("the resumed screen lacks %q:\n%s", want, s)
		}
	}
	if n := strings.Count(s, "Interrupted."); n != 1 {
		t.Errorf("%d replies marked interrupted, want the cut one:\n%s", n, s)
	}
	if strings.Contains(s, "step 1") { // the plan's checklist shows a successful update
		t.Errorf("the resumed screen shows the successful update_plan call:\n%s", s)
	}
}

func TestPasteGoesOnlyToAVisibleInput(t *testing.T) {
	tests := []struct {
		name  string
		open  func(t *testing.T, m *model) // shows a panel in the input's place
		input string
	}{
		{"no panel", func(*testing.T, *model) {}, "pasted text"},
		{"approval dialog", func(_ *testing.T, m *model) {
			m.beginRun("test it")
			events(m, orchestrator.TurnStarted{Turn: 1}, orchestrator.ToolStarted{Turn: 1, Name: "shell", Subject: "go test ./..."},
				approvalAsk{req: orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: "go test ./..."}, reply: make(chan orchestrator.Decision, 1)})
		}, ""},
		{"model picker", func(_ *testing.T, m *model) {
			m.input.set("/model")
			press(m, "enter")
		}, ""},
		{"sessions picker", func(t *testing.T, m *model) {
			db := sqlitetest.Open(t)
			m.opts.Catalog = db
			m.input.set("/sessions")
			press(m, "enter")
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := testModel(t)
			tt.open(t, m)
			if tt.input == "" && m.dialog == nil && m.panel == nil {
				t.Fatal("no panel is open")
			}
			m.Update(tea.PasteMsg{Content: "pasted text"})
			if got := m.input.value(); got != tt.input {
				t.Errorf("the input holds %q after the paste, want %q", got, tt.input)
			}
		})
	}
}

// TestPermissions: /permissions lists what the session allows without
// asking, revokes one, and /new starts with none (M3).
func TestPermissions(t *testing.T) {
	m, _ := testModel(t)
	m.approver.grants.Grant(orchestrator.ApprovalRequest{Tool: "edit_file", Kind: tools.KindWrite, Subject: "a.go"})
	m.approver.grants.Grant(orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: "go test ./..."})
	m.input.set("/permissions")
	press(m, "enter")
	if s := screen(m); !strings.Contains(s, "1. edit_file: every call (but writes into .git)") || !strings.Contains(s, "2. shell: go test ./...") {
		t.Fatalf("/permissions:\n%s", s)
	}
	m.input.set("/permissions revoke 2")
	press(m, "enter")
	if _, cmds := m.approver.grants.List(); len(cmds) != 0 || !strings.Contains(screen(m), "Permission 2 revoked") {
		t.Errorf("revoke: commands %q\n%s", cmds, screen(m))
	}
	m.input.set("/new")
	do(m, "enter")
	if toolNames, _ := m.approver.grants.List(); len(toolNames) != 0 {
		t.Errorf("a new session keeps the grants %q", toolNames)
	}
}

// TestKeysTypedWhileConnectingAreKept: while the server is first asked
// about the model (long, for a long session resumed), what is typed goes
// to the input, a dialog open at start takes its answer, and a prompt
// sent is queued until the model is ready, then sent.
func TestKeysTypedWhileConnectingAreKept(t *testing.T) {
	m := connectingModel(t)
	m.dialog = newTrustDialog([]string{"calc: ./calc"}, nil, &m.st, m.keys)
	_, closing := m.Update(keyPress("y"))
	if !m.dialog.over() {
		t.Fatal("y while connecting did not answer the trust question")
	}
	typeText(m, "hello there")
	if got := m.input.value(); got != "hello there" {
		t.Fatalf("typed while connecting, the input holds %q", got)
	}
	m.Update(closing())
	press(m, "enter")
	if len(m.work.queued) != 1 || m.work.queued[0].Text != "hello there" || m.run != nil {
		t.Fatalf("the prompt sent while connecting: queued %+v, running %v", m.work.queued, m.run != nil)
	}
	if s := screen(m); !strings.Contains(s, "queued: sent once the model is ready") {
		t.Errorf("the status line does not say when the prompt goes:\n%s", s)
	}
	m.Update(m.prepare()()) // its commands (the request's) are left alone
	if m.run == nil || len(m.work.queued) != 0 {
		t.Errorf("once ready, the queued prompt was not sent: queued %+v", m.work.queued)
	}
}

// TestKeysAfterAListClosedReachTheInput: the keys typed after Esc closed a
// list, before the root heard of it, go to the input.
func TestKeysAfterAListClosedReachTheInput(t *testing.T) {
	m, _ := testModel(t)
	m.runCommand("/model")
	if m.panel == nil {
		t.Fatal("/model opened no list")
	}
	_, closing := m.Update(keyPress("esc"))
	typeText(m, "fix it")
	m.Update(closing())
	if m.panel != nil || m.input.value() != "fix it" {
		t.Errorf("list open %v, input %q; want it closed and the keys in the input", m.panel != nil, m.input.value())
	}
}

// connectingModel is testModel before the server answered about the
// model.
func connectingModel(t *testing.T) *model {
	t.Helper()
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	cfg := config.Defaults()
	cfg.Model = "qwen3:8b"
	clk := &clock{t: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	m := newModel(t.Context(), Options{
		Engine: orchestrator.Options{Provider: stubProvider{}, Tools: tools.Default(ws, tools.Options{}), Log: zerolog.Nop(),
			Config: cfg, Now: clk.now},
		Dir: "/home/dev/proj", Home: "/home/dev", NoColor: true, Width: 80, Height: 24,
	})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return m
}

// TestDebugLogNamesTheSession: the UI's debug log says which session it
// runs, as -p's does, and says nothing of an index brought up to date
// when there is no embedding model to make one (F7).
func TestDebugLogNamesTheSession(t *testing.T) {
	var log strings.Builder
	m := connectingModel(t)
	m.opts.Engine.Log = zerolog.New(&log).Level(zerolog.DebugLevel)
	m.session = m.newSession()
	prepare(m)
	id := m.session.Snapshot().ID
	if id == "" || !strings.Contains(log.String(), `"session":"`+id+`"`) {
		t.Errorf("the log does not name session %q:\n%s", id, log.String())
	}
	m.index.running = true
	m.Update(indexDoneMsg{summary: "no embedding model"})
	if strings.Contains(log.String(), "up to date") {
		t.Errorf("with no embedding model, the log says the index is up to date:\n%s", log.String())
	}
}

// TestStatusLineDropsWholeFields: too narrow for every field, the status
// line leaves out whole fields, the directory first, then the cache, the
// speed, the turn, the context; it never cuts one in its middle (F14).
func TestStatusLineDropsWholeFields(t *testing.T) {
	fields := func(width int) []string {
		m, _ := testModel(t)
		m.width = width
		m.beginRun("go")
		m.run.turn = 2
		m.machine.usage = usage{tokPerSec: 50, cached: 0}
		events(m, approvalAsk{req: orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: "ls"},
			reply: make(chan orchestrator.Decision, 1)})
		line := ansi.Strip(m.statusLine())
		if ansi.StringWidth(line) != width || strings.Contains(line, "…") || !strings.HasSuffix(line, "approval needed ") {
			t.Errorf("at %d columns: %q", width, line)
		}
		return strings.Split(strings.TrimSpace(strings.TrimSuffix(line, "approval needed ")), " · ")
	}
	full := fields(200)
	if len(full) != 7 || full[4] != "50 tok/s" || full[5] != "cache 0%" || full[6] != "~/proj" {
		t.Fatalf("the fields: %q", full)
	}
	for width, kept := range map[int]int{120: 7, 80: 5, 60: 3, 50: 2} {
		if got := fields(width); !slices.Equal(got, full[:kept]) {
			t.Errorf("at %d columns, fields %q; want %q", width, got, full[:kept])
		}
	}
}
