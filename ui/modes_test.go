package ui

import (
	"strings"
	"testing"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/plan"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/prompts"
	"lathe/tools"
)

// statusOf is the screen's last line, the status line.
func statusOf(m *model) string {
	s := screen(m)
	return s[strings.LastIndex(s, "\n")+1:]
}

func TestShiftTabCyclesModes(t *testing.T) {
	m, _ := testModel(t)
	if st := statusOf(m); !strings.Contains(st, "qwen3:8b · build ·") {
		t.Fatalf("status line %q, want build mode", st)
	}
	for _, want := range []string{"plan", "ask", "build", "plan"} {
		do(m, "shift+tab")
		if got := m.session.Snapshot().Mode; got != want {
			t.Fatalf("session in %s mode, want %s", got, want)
		}
		if st := statusOf(m); !strings.Contains(st, "qwen3:8b · "+want+" ·") || !strings.Contains(st, want+" mode") {
			t.Errorf("status line %q, want the %s mode", st, want)
		}
	}
	if strings.Contains(screen(m), "▸") {
		t.Errorf("cycling wrote to the transcript:\n%s", screen(m))
	}
	typeText(m, "how does lex work?")
	press(m, "enter")
	s := screen(m)
	if i, j := strings.Index(s, "▸ plan mode: read-only tools"), strings.Index(s, "› how does lex work?"); i < 0 || j < i {
		t.Errorf("the prompt is not preceded by its mode:\n%s", s)
	}
	do(m, "shift+tab")
	if m.session.Snapshot().Mode != "plan" || !strings.Contains(statusOf(m), "busy: a request is running") {
		t.Errorf("shift+tab during a run: mode %s, status %q", m.session.Snapshot().Mode, statusOf(m))
	}
	finishRun(m)
	typeText(m, "and parse?")
	press(m, "enter")
	if n := strings.Count(screen(m), "▸ plan mode"); n != 1 {
		t.Errorf("the mode is told %d times, want once:\n%s", n, screen(m))
	}
}

// TestStatusLineShowsModeAndYes: plan and ask mode have a colour of their
// own in the status line, and --yes shows there (R9).
func TestStatusLineShowsModeAndYes(t *testing.T) {
	m, _ := testModel(t)
	status := func() string {
		c := m.View().Content
		return c[strings.LastIndex(c, "\n")+1:]
	}
	if st := status(); !strings.Contains(st, m.st.status.Render("build")) || strings.Contains(ansi.Strip(st), "--yes") {
		t.Errorf("build mode: status %q", st)
	}
	for _, tc := range []struct {
		mode  string
		style lipgloss.Style
	}{{"plan", m.st.modePlan}, {"ask", m.st.modeAsk}} {
		do(m, "shift+tab")
		if st := status(); !strings.Contains(st, tc.style.Render(tc.mode)) {
			t.Errorf("%s mode: status %q lacks %q", tc.mode, st, tc.style.Render(tc.mode))
		}
	}
	if m.st.modePlan.Render("plan") == m.st.status.Render("plan") || m.st.modeAsk.Render("ask") == m.st.status.Render("ask") {
		t.Error("plan or ask mode looks like the rest of the status line")
	}
	m.opts.Engine.Config.Approval.All = true
	if st := status(); !strings.Contains(st, m.st.approveAll.Render("--yes")) {
		t.Errorf("with --yes: status %q", st)
	}
}

func TestModeCommand(t *testing.T) {
	m, _ := testModel(t)
	m.input.set("/mode")
	press(m, "enter")
	s := screen(m)
	if !strings.Contains(s, "› build  every tool") || !strings.Contains(s, "  ask    read-only tools; the model answers") {
		t.Errorf("/mode lists:\n%s", s)
	}
	// A description that wraps goes on under itself (R3).
	if !strings.Contains(s, "asking first as\n           configured") {
		t.Errorf("/mode wraps without a hanging indent:\n%s", s)
	}
	m.input.set("/mode ask")
	do(m, "enter")
	if m.session.Snapshot().Mode != "ask" || !strings.Contains(screen(m), "▸ ask mode: read-only tools") {
		t.Errorf("/mode ask: mode %s\n%s", m.session.Snapshot().Mode, screen(m))
	}
	m.input.set("/mode bogus")
	press(m, "enter")
	if m.session.Snapshot().Mode != "ask" || !strings.Contains(screen(m), `unknown mode "bogus": use build, plan, ask`) {
		t.Errorf("/mode bogus: mode %s\n%s", m.session.Snapshot().Mode, screen(m))
	}
}

// proposePlan runs up to a proposed plan and its review dialog; the
// returned channel gets the user's verdict.
func proposePlan(m *model) chan mode.Verdict {
	pl := plan.Plan{Summary: "Fix the off-by-one in lex.", Steps: []plan.Step{
		{Text: "edit lex.go: stop at len(src)", Status: plan.Pending},
		{Text: "run go test ./lex", Status: plan.Pending}}}
	m.beginRun("fix the lexer")
	reply := make(chan mode.Verdict, 1)
	events(m, orchestrator.TurnStarted{Turn: 1},
		orchestrator.ToolStarted{Turn: 1, Index: 0, Name: "propose_plan", Kind: tools.KindTransition, Subject: pl.Summary},
		orchestrator.PlanProposed{Turn: 1, Plan: pl.Clone()},
		planAsk{plan: pl, reply: reply})
	return reply
}

func TestPlanApprovedIsTrackedAsAChecklist(t *testing.T) {
	m, _ := testModel(t)
	do(m, "shift+tab")
	reply := proposePlan(m)
	golden(t, m, "dialog_plan")
	do(m, "y")
	if rv := <-reply; rv.Decision != mode.Approve || m.dialog != nil {
		t.Fatalf("review %+v, dialog open %v", rv, m.dialog != nil)
	}
	pl := &plan.Plan{Summary: "Fix the off-by-one in lex.", Steps: []plan.Step{
		{Text: "edit lex.go: stop at len(src)", Status: plan.Pending},
		{Text: "run go test ./lex", Status: plan.Pending}}}
	events(m, orchestrator.ToolFinished{Turn: 1, Index: 0, Name: "propose_plan", Outcome: orchestrator.OutcomeOK},
		orchestrator.ModeChanged{From: "plan", To: "build", Reason: "plan approved", Plan: pl.Clone()})
	if st := statusOf(m); !strings.Contains(st, "build · plan 0/2") {
		t.Errorf("status line %q, want the plan's progress", st)
	}
	pl.Steps[0].Status = plan.Done
	pl.Steps[1].Status = plan.InProgress
	events(m, orchestrator.TurnStarted{Turn: 2},
		orchestrator.ToolStarted{Turn: 2, Index: 0, Name: "update_plan", Kind: tools.KindUI, Subject: "step 1 done"},
		orchestrator.ToolFinished{Turn: 2, Index: 0, Name: "update_plan", Kind: tools.KindUI, Subject: "step 1 done", Outcome: orchestrator.OutcomeOK,
			Result: tools.Result{Summary: "1/2 done"}},
		orchestrator.PlanUpdated{Plan: pl.Clone()},
		orchestrator.ToolStarted{Turn: 2, Index: 1, Name: "update_plan", Kind: tools.KindUI, Subject: "step 7 done"},
		orchestrator.ToolFinished{Turn: 2, Index: 1, Name: "update_plan", Kind: tools.KindUI, Subject: "step 7 done", Outcome: orchestrator.OutcomeFailed,
			Result: tools.Result{Summary: "no such step", IsError: true}})
	s := screen(m)
	if strings.Contains(s, "step 1 done") || !strings.Contains(s, "✗ update_plan step 7 done · no such step") {
		t.Errorf("want a card for the failed update_plan only:\n%s", s)
	}
	if !strings.Contains(s, "[x] 1. edit lex.go") || !strings.Contains(s, "[~] 2. run go test") || !strings.Contains(statusOf(m), "plan 1/2") {
		t.Errorf("after an update:\n%s", s)
	}
	if strings.Count(s, "▣") != 1 || !strings.Contains(s, "▸ build mode: the plan was approved") {
		t.Errorf("want one plan, updated in place, and the switch told:\n%s", s)
	}
	finishRun(m)
	if m.session.Snapshot().Mode != "plan" || m.mode.name != "plan" {
		// The session in this test never ran: the status follows it
		// once the run is over.
		t.Errorf("after the run the status shows %s, the session is in %s", m.mode.name, m.session.Snapshot().Mode)
	}
}

func TestPlanRejectedWithFeedback(t *testing.T) {
	m, _ := testModel(t)
	reply := proposePlan(m)
	press(m, "n")
	typeText(m, "also update the docs")
	do(m, "enter")
	rv := <-reply
	if rv.Decision != mode.Reject || rv.Feedback != "also update the docs" {
		t.Fatalf("review %+v", rv)
	}
	events(m)
	if s := screen(m); !strings.Contains(s, "▣ Plan rejected") || !strings.Contains(s, "feedback: also update the docs") {
		t.Errorf("the rejection is not shown:\n%s", s)
	}
}

func TestPlanKeptWithEsc(t *testing.T) {
	m, _ := testModel(t)
	reply := proposePlan(m)
	press(m, "n", "esc") // esc leaves the feedback, not the dialog
	if m.dialog == nil {
		t.Fatal("esc while typing feedback closed the dialog")
	}
	do(m, "esc")
	if rv := <-reply; rv.Decision != mode.Keep {
		t.Fatalf("review %+v, want stop", rv)
	}
	events(m, runDoneMsg{res: orchestrator.Result{StopReason: orchestrator.StopPlanned}})
	if s := screen(m); !strings.Contains(s, "▣ Plan kept") || strings.Contains(s, "failed") {
		t.Errorf("a kept plan:\n%s", s)
	}
}

func TestReviewerAsksThroughTheBridge(t *testing.T) {
	m, _ := testModel(t)
	m.beginRun("plan it")
	got := make(chan mode.Verdict, 1)
	go func() {
		rv, _ := m.approver.Review(t.Context(), plan.Plan{Summary: "s", Steps: []plan.Step{{Text: "a"}}})
		got <- rv
	}()
	m.Update(m.bridge.wait()())
	if _, ok := m.dialog.(*planDialog); !ok {
		t.Fatalf("dialog %T, want the plan's", m.dialog)
	}
	do(m, "enter")
	select {
	case rv := <-got:
		if rv.Decision != mode.Approve {
			t.Errorf("review %+v", rv)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reviewer got no answer")
	}
}

// TestStartTaskAsksTheUser: ask mode's start_task waits for the user, who
// approves it, or keeps ask mode with a reason or with esc.
func TestStartTaskAsksTheUser(t *testing.T) {
	for _, tt := range []struct {
		name string
		keys []string
		want mode.Verdict
	}{
		{"approve", []string{"y"}, mode.Verdict{Decision: mode.Approve}},
		{"stay with a reason", []string{"n", "j", "u", "s", "t", " ", "a", "s", "k", "enter"}, mode.Verdict{Decision: mode.Reject, Feedback: "just ask"}},
		{"esc stays", []string{"esc"}, mode.Verdict{Decision: mode.Reject}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := testModel(t)
			m.beginRun("what is Foo? rename it")
			got := make(chan mode.Verdict, 1)
			go func() {
				rv, _ := m.approver.StartTask(t.Context(), "rename Foo to Bar")
				got <- rv
			}()
			m.Update(m.bridge.wait()())
			if _, ok := m.dialog.(*startDialog); !ok {
				t.Fatalf("dialog %T, want start_task's", m.dialog)
			}
			if s := screen(m); !strings.Contains(s, "? Leave ask mode for build mode, to work on this?") ||
				!strings.Contains(s, "rename Foo to Bar") || !strings.Contains(s, "y switch to build mode") {
				t.Errorf("screen:\n%s", s)
			}
			answer(m, tt.keys...)
			select {
			case rv := <-got:
				if rv != tt.want {
					t.Errorf("verdict %+v, want %+v", rv, tt.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the reviewer got no answer")
			}
		})
	}
}

func TestResumedModesAreShown(t *testing.T) {
	pl := &plan.Plan{Summary: "Fix lex.", Steps: []plan.Step{
		{Text: "edit lex.go", Status: plan.Done}, {Text: "run the tests", Status: plan.Pending}}}
	saved := &session.Saved{
		Record: session.Record{ID: "0123456789abcdef", Title: "lexer", Model: "qwen3:8b"},
		Messages: []session.Message{
			{Seq: 0, Message: provider.Message{Role: "user", Content: "fix the lexer"}},
			{Seq: 1, Message: provider.Message{Role: "assistant", Content: "Proposed."}},
			{Seq: 2, Message: provider.Message{Role: "user", Content: "[lathe] The user approved the plan"}},
			{Seq: 3, Message: provider.Message{Role: "assistant", Content: "Step one is done."}},
		},
		Modes: []session.ModeRecord{
			{Seq: 0, Mode: "plan", Reason: "start"},
			{Seq: 2, Mode: "build", Reason: "plan approved", Plan: pl.Record()},
		},
	}
	m, _ := testModel(t)
	m.session = m.newSession()
	if err := m.session.ResumeFrom(*saved); err != nil {
		t.Fatal(err)
	}
	prepare(m)
	s := screen(m)
	order := []string{"▸ plan mode.", "› fix the lexer", "Proposed.", "▸ build mode (plan approved).", "[x] 1. edit lex.go", "[ ] 2. run the tests", "Step one is done."}
	at := 0
	for _, want := range order {
		i := strings.Index(s[at:], want)
		if i < 0 {
			t.Fatalf("the resumed screen lacks %q after offset %d:\n%s", want, at, s)
		}
		at += i
	}
	if st := statusOf(m); !strings.Contains(st, "build · plan 1/2") {
		t.Errorf("status %q", st)
	}
	if strings.Contains(s, "The user approved the plan") {
		t.Errorf("lathe's note to the model is shown as a prompt:\n%s", s)
	}
	// The checklist shown is the one update_plan moves on.
	plan2 := pl.Clone()
	plan2.Steps[1].Status = plan.Done
	m.beginRun("go on")
	events(m, orchestrator.PlanUpdated{Plan: plan2})
	if s := screen(m); !strings.Contains(s, "[x] 2. run the tests") || strings.Count(s, "▣") != 1 {
		t.Errorf("the resumed plan is not updated in place:\n%s", s)
	}
}

// TestPlanLeftUnfinishedIsTaken: a plan the model stopped short of is
// said to be unfinished, and /plan go has it go on; a plan kept with Esc
// is approved with /plan go, build mode carrying it out (F15).
func TestPlanLeftUnfinishedIsTaken(t *testing.T) {
	m, _ := testModel(t)
	p := &plan.Plan{Summary: "Add two files.", Steps: []plan.Step{{Text: "a"}, {Text: "b"}, {Text: "c"}}}
	finish(m, m.setMode(mode.Build{Plan: p}, "test", false))
	m.beginRun("build it")
	events(m, runDoneMsg{res: orchestrator.Result{StopReason: orchestrator.StopDone}})
	if s := strings.Join(strings.Fields(screen(m)), " "); !strings.Contains(s, "The model stopped with the plan unfinished: 0 of 3 steps done. /plan go has it go on") {
		t.Fatalf("no word of the unfinished plan:\n%s", screen(m))
	}
	m.input.set("/plan go")
	press(m, "enter")
	if m.run == nil || m.run.prompt.Text != prompts.PlanGoOnNote() {
		t.Fatalf("/plan go on an unfinished plan: run %v", m.run != nil)
	}

	m, _ = testModel(t)
	do(m, "shift+tab") // plan mode
	reply := proposePlan(m)
	do(m, "esc")
	<-reply
	events(m, runDoneMsg{res: orchestrator.Result{StopReason: orchestrator.StopPlanned}})
	if m.keptPlan() == nil || !strings.Contains(screen(m), "/plan go to approve it") {
		t.Fatalf("no plan kept:\n%s", screen(m))
	}
	m.input.set("/plan go")
	_, cmd := m.Update(keyPress("enter"))
	finish(m, cmd) // the mode set; the request it starts is not run
	if m.mode.name != "build" || m.mode.plan == nil || m.run == nil || m.run.prompt.Text != prompts.PlanApprovedNote() {
		t.Errorf("/plan go on a kept plan: mode %s, plan %v, run %v", m.mode.name, m.mode.plan != nil, m.run != nil)
	}
}
