package ui

import (
	"strings"
	"testing"
	"time"

	"lathe/orchestrator"
	"lathe/tools"
)

// TestWaitingShowsSignsOfLife: from the request to its first token, and
// when the reply falls silent for a second or more, a spinner and the time
// waited show; frames tick only while something moves (item 11).
func TestWaitingShowsSignsOfLife(t *testing.T) {
	m, clk := testModel(t)
	waiting := func() string {
		for _, l := range strings.Split(screen(m), "\n") {
			if strings.Contains(l, "waiting for") || strings.Contains(l, "reading ") || strings.Contains(l, "writing · silent") {
				return strings.TrimSpace(l)
			}
		}
		return ""
	}
	frame := func(d time.Duration) {
		clk.t = clk.t.Add(d)
		m.Update(frameMsg{})
	}
	if _, cmd := m.Update(frameMsg{}); cmd != nil {
		t.Error("an idle TUI schedules frames")
	}
	m.beginRun("hello")
	events(m, orchestrator.TurnStarted{Turn: 1, Model: "qwen3:8b", Reading: 12400})
	if w := waiting(); !strings.HasSuffix(w, "reading 12,400 tokens · 0s") {
		t.Fatalf("after the request: %q\n%s", w, screen(m))
	}
	first := waiting()
	frame(3200 * time.Millisecond)
	if w := waiting(); !strings.HasSuffix(w, "reading 12,400 tokens · 3s") || w == first {
		t.Errorf("3.2s later: %q (before %q)", w, first)
	}
	events(m, orchestrator.TextDelta{Turn: 1, Text: "Hel"})
	if w := waiting(); w != "" {
		t.Errorf("a token came, still %q", w)
	}
	frame(900 * time.Millisecond)
	if w := waiting(); w != "" {
		t.Errorf("silent for 0.9s: %q", w)
	}
	frame(1200 * time.Millisecond)
	if w := waiting(); !strings.HasSuffix(w, "writing · silent · 2s") {
		t.Errorf("silent for 2.1s: %q", w)
	}
	events(m, orchestrator.ToolStarted{Turn: 1, Index: 0, Name: "shell", Kind: tools.KindExec, Subject: "ls"})
	frame(5 * time.Second)
	if w := waiting(); w != "" {
		t.Errorf("while a call runs: %q", w)
	}
	events(m, approvalAsk{req: orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: "ls"}, reply: make(chan orchestrator.Decision, 1)})
	if _, cmd := m.Update(frameMsg{}); cmd != nil {
		t.Error("frames tick while a question holds the request")
	}
	do(m, "y")
	events(m, orchestrator.ToolFinished{Turn: 1, Index: 0, Name: "shell", Kind: tools.KindExec, Outcome: orchestrator.OutcomeOK},
		orchestrator.TurnFinished{Turn: 1}, orchestrator.TurnStarted{Turn: 2, Model: "qwen3:8b"})
	if w := waiting(); !strings.HasSuffix(w, "waiting for qwen3:8b · 0s") {
		t.Errorf("the next request: %q", w)
	}
	finishRun(m)
	if w := waiting(); w != "" {
		t.Errorf("after the run: %q", w)
	}
}

// TestQuestionShowsWhatCameBefore: the text streamed just before a
// question shows with it, though no frame runs while the question waits.
func TestQuestionShowsWhatCameBefore(t *testing.T) {
	m, _ := testModel(t)
	m.beginRun("create hello.txt")
	m.Update(engineMsg(append(append([]any{orchestrator.TurnStarted{Turn: 1}}, texts(1, "I'll create the file.")...),
		orchestrator.ToolStarted{Turn: 1, Index: 0, Name: "write_file", Kind: tools.KindWrite, Subject: "hello.txt", Preview: writePreview},
		approvalAsk{req: orchestrator.ApprovalRequest{Tool: "write_file", Kind: tools.KindWrite, Subject: "hello.txt", Preview: writePreview},
			reply: make(chan orchestrator.Decision, 1)})))
	if s := screen(m); !strings.Contains(s, "I'll create the file.") || !strings.Contains(s, "Allow write_file") {
		t.Errorf("the question hides what came before it:\n%s", s)
	}
}
