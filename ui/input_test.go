package ui

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/prompts"
)

func TestHistoryRecall(t *testing.T) {
	m, _ := testModel(t)
	for _, p := range []string{"first prompt", "second prompt"} {
		typeText(m, p)
		press(m, "enter")
		if m.run == nil {
			t.Fatalf("%q did not start a run", p)
		}
		finishRun(m)
	}
	press(m, "up")
	if got := m.input.value(); got != "second prompt" {
		t.Fatalf("up: input %q", got)
	}
	press(m, "up")
	if got := m.input.value(); got != "first prompt" {
		t.Fatalf("up twice: input %q", got)
	}
	press(m, "down", "down")
	if got := m.input.value(); got != "" {
		t.Errorf("down past the newest: input %q, want the empty draft", got)
	}
	typeText(m, "draft")
	press(m, "up")
	if got := m.input.value(); got != "draft" {
		t.Errorf("up while editing moved through history: %q", got)
	}
}

// TestHistoryOfEarlierSessions: Up recalls the prompts sent here first,
// then those of earlier sessions in the directory, newest first, each
// once; lathe's notes are not among them (item 13).
func TestHistoryOfEarlierSessions(t *testing.T) {
	db := sqlitetest.OpenWith(t, sqlite.Options{NotePrefix: prompts.NotePrefix})
	m, _ := testModel(t)
	m.opts.Catalog = db
	if err := db.CreateSession(t.Context(), session.Record{ID: "0123456789abcdef", Dir: m.opts.Dir}); err != nil {
		t.Fatal(err)
	}
	for i, p := range []string{"older one", "typed here", "[lathe] The user approved the plan", "older two"} {
		msg := session.Message{Seq: i, Message: provider.Message{Role: "user", Content: p}, Created: time.Now().Add(time.Duration(i) * time.Second)}
		if err := db.SaveMessage(t.Context(), "0123456789abcdef", msg); err != nil {
			t.Fatal(err)
		}
	}
	load := m.loadPrompts()
	typeText(m, "typed here")
	press(m, "enter")
	finishRun(m)
	m.Update(load()) // the prompts arrive after one was sent here
	var got []string
	for range 4 {
		press(m, "up")
		got = append(got, m.input.value())
	}
	if want := []string{"typed here", "older two", "older one", "older one"}; !slices.Equal(got, want) {
		t.Errorf("up, four times: %q, want %q", got, want)
	}
	press(m, "down", "down", "down")
	if v := m.input.value(); v != "" {
		t.Errorf("down past the newest: %q", v)
	}
}

// TestHistoryRecallsCommands: Up and Down go through every prompt of the
// history, the slash commands among them, though a recalled command
// matches completions; Esc closes the popup and keeps the input (B1).
func TestHistoryRecallsCommands(t *testing.T) {
	m, _ := testModel(t)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 12})
	typeText(m, "hello there")
	press(m, "enter")
	finishRun(m)
	for _, c := range []string{"/tools", "/help"} {
		typeText(m, c)
		press(m, "enter")
	}
	var got []string
	for range 4 {
		press(m, "up")
		got = append(got, m.input.value())
	}
	if want := []string{"/help", "/tools", "hello there", "hello there"}; !slices.Equal(got, want) {
		t.Fatalf("up, four times: %q, want %q", got, want)
	}
	press(m, "down")
	if v := m.input.value(); v != "/tools" {
		t.Fatalf("down: %q, want /tools", v)
	}
	press(m, "down", "down")
	if v := m.input.value(); v != "" {
		t.Fatalf("down past the newest: %q", v)
	}
	typeText(m, "/mo")
	if !strings.Contains(screen(m), "/model  choose the model") {
		t.Fatalf("no popup for /mo:\n%s", screen(m))
	}
	press(m, "esc")
	if v, s := m.input.value(), screen(m); v != "/mo" || strings.Contains(s, "/model  choose the model") {
		t.Errorf("esc on the popup: input %q, screen:\n%s", v, s)
	}
	typeText(m, "d")
	if !strings.Contains(screen(m), "/model  choose the model") {
		t.Errorf("typing after esc did not open the popup again:\n%s", screen(m))
	}
}

// TestCompletionPopupFits: the popup's descriptions are aligned; on a
// small screen it leaves the status line, scrolls with the highlight and
// cuts descriptions with an ellipsis (R6).
func TestCompletionPopupFits(t *testing.T) {
	m, _ := testModel(t)
	typeText(m, "/")
	col, row := -1, regexp.MustCompile(`^ (› |  )/[a-z]+ +()[a-z]`)
	for _, l := range strings.Split(screen(m), "\n") {
		match := row.FindStringSubmatchIndex(l)
		if match == nil {
			continue
		}
		at := ansi.StringWidth(l[:match[4]])
		if col >= 0 && at != col {
			t.Errorf("descriptions start at column %d and %d:\n%s", col, at, screen(m))
		}
		col = at
	}
	if col < 0 {
		t.Fatalf("no popup:\n%s", screen(m))
	}
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 12})
	golden(t, m, "popup_small")
	s := screen(m)
	if !strings.Contains(statusOf(m), "qwen3:8b") || !strings.Contains(s, "…") {
		t.Errorf("at 40x12:\n%s", s)
	}
	for range len(commands()) - 1 {
		press(m, "down")
	}
	if s := screen(m); !strings.Contains(s, "› /quit") || !strings.Contains(statusOf(m), "qwen3:8b") {
		t.Errorf("the highlight on the last command is not in view:\n%s", s)
	}
}

func TestNewlineKeysDoNotSend(t *testing.T) {
	m, _ := testModel(t)
	typeText(m, "line one")
	press(m, "alt+enter")
	m.Update(tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl})
	typeText(m, "line three")
	if m.run != nil {
		t.Fatal("a newline key sent the prompt")
	}
	if got := m.input.value(); got != "line one\n\nline three" {
		t.Errorf("input = %q", got)
	}
}

// TestInputPromptOnFirstLineOnly: a draft of several lines, wrapped or
// not, has one "›", and its other lines line up under its text (R7).
func TestInputPromptOnFirstLineOnly(t *testing.T) {
	m, _ := testModel(t)
	typeText(m, "first line")
	press(m, "alt+enter")
	typeText(m, "second line, which is long enough to wrap at the edge of an eighty column terminal window")
	s := screen(m)
	lines := strings.Split(s, "\n")
	input := lines[len(lines)-4 : len(lines)-1]
	want := []string{"› first line", "  second line, which is long", "  terminal window"}
	for i, w := range want {
		if !strings.HasPrefix(input[i], w) {
			t.Errorf("input line %d is %q, want it to start with %q:\n%s", i+1, input[i], w, s)
		}
	}
	if n := strings.Count(s, "›"); n != 1 {
		t.Errorf("%d prompt marks:\n%s", n, s)
	}
}

// TestHistoryKeepsTheNewest: over a long day, Up recalls the newest
// maxRecall prompts sent, and the history holds no more.
func TestHistoryKeepsTheNewest(t *testing.T) {
	m, _ := testModel(t)
	in := &m.input
	for i := range maxRecall + 5 {
		in.set(fmt.Sprintf("prompt %d", i))
		in.take()
	}
	if len(in.history) != maxRecall || in.history[0] != "prompt 5" || in.pos != maxRecall {
		t.Fatalf("history of %d, oldest %q, at %d", len(in.history), in.history[0], in.pos)
	}
	press(m, "up")
	if got := m.input.value(); got != fmt.Sprintf("prompt %d", maxRecall+4) {
		t.Errorf("up: %q", got)
	}
}
