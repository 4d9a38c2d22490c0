package ui

import (
	"fmt"
	"lathe/ui/markdown"
	"lathe/ui/markdown/mdgen"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator"
	"lathe/tools"
)

// sessionOf200 fills a model with 200 finished messages: 50 exchanges of
// a prompt, an answer in markdown with a code block, a tool card and a
// closing answer.
func sessionOf200(b *testing.B) (*model, []string) {
	m, _ := testModel(b)
	var answers []string
	for i := range 50 {
		m.beginRun(fmt.Sprintf("change number %d: rename the handler and fix its test", i))
		first := fmt.Sprintf("## Step %d\n\nI'll rename `handle%d` and update the caller:\n\n```go\nfunc handle%d(w http.ResponseWriter, r *http.Request) {\n\tserve(w, r)\n}\n```\n", i, i, i)
		last := fmt.Sprintf("Done: **handle%d** is renamed and its test passes.\n\n- updated `server.go`\n- updated `server_test.go`\n", i)
		answers = append(answers, first, last)
		evs := []any{orchestrator.TurnStarted{Turn: 1}}
		evs = append(evs, texts(1, first)...)
		evs = append(evs,
			orchestrator.ToolStarted{Turn: 1, Index: 0, Name: "edit_file", Subject: "server.go", Preview: writePreview},
			orchestrator.ToolFinished{Turn: 1, Index: 0, Name: "edit_file", Subject: "server.go", Outcome: orchestrator.OutcomeOK,
				Result: tools.Result{Summary: "1 replacement"}, Duration: time.Millisecond},
			orchestrator.TurnFinished{Turn: 1}, orchestrator.TurnStarted{Turn: 2})
		evs = append(evs, texts(2, last)...)
		evs = append(evs, orchestrator.TurnFinished{Turn: 2}, runDoneMsg{res: orchestrator.Result{StopReason: orchestrator.StopDone}})
		events(m, evs...)
	}
	if n := len(m.transcript.items); n < 200 {
		b.Fatalf("%d items, want at least 200", n)
	}
	return m, answers
}

// BenchmarkView measures View with 200 finished messages in the
// transcript, against a naive View that renders every message's markdown
// again each time.
func BenchmarkView(b *testing.B) {
	m, answers := sessionOf200(b)
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			_ = m.View()
		}
	})
	b.Run("naive-full-rerender", func(b *testing.B) {
		r := markdown.NewRenderer("dark")
		for b.Loop() {
			var lines []string
			for _, a := range answers {
				d := markdown.NewDoc(r)
				d.Append(a)
				d.Finish()
				lines = append(lines, d.Lines(78)...)
			}
			_ = strings.Join(lines[max(0, len(lines)-m.transcript.height):], "\n")
		}
	})
}

// BenchmarkThinking measures a frame of streaming reasoning at 80 columns
// as the reasoning grows, in paragraphs or as one long paragraph: the cost
// stays flat.
func BenchmarkThinking(b *testing.B) {
	st := newTheme(true, true)
	for _, shape := range []struct{ name, sep string }{{"paragraphs", "\n\n"}, {"one-paragraph", " "}} {
		for _, size := range []int{1_000, 10_000, 30_000} {
			t := &thinkingItem{}
			t.add(mdgen.Thinking(size, shape.sep))
			b.Run(fmt.Sprintf("%s/%dk", shape.name, size/1000), func(b *testing.B) {
				for b.Loop() {
					t.invalidate()
					_ = t.lines(78, &st)
				}
			})
		}
	}
}

// BenchmarkFrameWithDialog measures a frame while three calls run and one
// of them waits for the approval of a 400-line change.
func BenchmarkFrameWithDialog(b *testing.B) {
	m, _ := testModel(b)
	m.beginRun("rewrite the parser")
	var preview strings.Builder
	preview.WriteString("--- parse.go\n+++ parse.go\n@@ -1,200 +1,200 @@\n")
	for i := range 200 {
		fmt.Fprintf(&preview, "-\told%d := parse(tokens[%d:])\n+\tnew%d := parseAll(tokens[%d:], opts)\n", i, i, i, i)
	}
	evs := []any{orchestrator.TurnStarted{Turn: 1}}
	for i, name := range []string{"read_file", "grep", "write_file"} {
		evs = append(evs, orchestrator.ToolStarted{Turn: 1, Index: i, Name: name, Subject: "parse.go", Preview: preview.String()})
	}
	evs = append(evs, approvalAsk{req: orchestrator.ApprovalRequest{Tool: "write_file", Kind: tools.KindWrite, Subject: "parse.go", Preview: preview.String()},
		reply: make(chan orchestrator.Decision, 1)})
	events(m, evs...)
	for b.Loop() {
		m.Update(frameMsg{})
	}
}
