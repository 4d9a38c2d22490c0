package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/rs/zerolog"

	"lathe/orchestrator/mode"
	"lathe/orchestrator/plan"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/prompts"
	"lathe/tools"
	"lathe/tools/codeindex"
	"lathe/tools/memory"
)

func withMode(m mode.Mode) envOption { return func(o *Options) { o.Mode = m } }

func withReviewer(rv mode.Reviewer) envOption { return func(o *Options) { o.Reviewer = rv } }

// reviewer answers proposed plans with its reviews in order, and records
// the plans.
type reviewer struct {
	mu      sync.Mutex
	reviews []mode.Verdict
	plans   []plan.Plan
	goals   []string // the start_task goals asked about
}

// StartTask approves, unless a verdict is queued.
func (rv *reviewer) StartTask(_ context.Context, goal string) (mode.Verdict, error) {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	rv.goals = append(rv.goals, goal)
	if len(rv.reviews) == 0 {
		return mode.Verdict{Decision: mode.Approve}, nil
	}
	r := rv.reviews[0]
	rv.reviews = rv.reviews[1:]
	return r, nil
}

func (rv *reviewer) Review(_ context.Context, p plan.Plan) (mode.Verdict, error) {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	rv.plans = append(rv.plans, p)
	r := rv.reviews[0]
	rv.reviews = rv.reviews[1:]
	return r, nil
}

// toolNames are the names of the tools a request offers, sorted.
func toolNames(req api.ChatRequest) []string {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Function.Name)
	}
	slices.Sort(names)
	return names
}

var testEnv = prompts.Env{Dir: "/src/project", OS: "linux", Arch: "amd64"}

// mustPrompt renders mode m's system prompt for the test environment.
func mustPrompt(t *testing.T, m mode.Mode) string {
	t.Helper()
	p, err := m.Prompt(testEnv)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// statuses are a plan's step statuses, in order.
func statuses(p *plan.Plan) string {
	if p == nil {
		return "no plan"
	}
	var out []string
	for _, s := range p.Steps {
		out = append(out, string(s.Status))
	}
	return strings.Join(out, " ")
}

// extendsFrom reports whether the messages of next start with those of
// prev, from index from on (0: the whole request is append-only).
func extendsFrom(prev, next api.ChatRequest, from int) bool {
	if len(next.Messages) < len(prev.Messages) {
		return false
	}
	for i := from; i < len(prev.Messages); i++ {
		a, _ := json.Marshal(prev.Messages[i])
		b, _ := json.Marshal(next.Messages[i])
		if string(a) != string(b) {
			return false
		}
	}
	return true
}

func eventsOf[E Event](evs []Event) []E {
	var out []E
	for _, ev := range evs {
		if e, ok := ev.(E); ok {
			out = append(out, e)
		}
	}
	return out
}

func TestEachModeHasItsPromptAndTools(t *testing.T) {
	pl := &plan.Plan{Summary: "Fix the parser", Steps: []plan.Step{{Text: "edit lex.go", Status: plan.Pending}}}
	cases := []struct {
		mode  mode.Mode
		tools string
	}{
		{mode.Ask{}, "read start_task"},
		{mode.Plan{}, "propose_plan read"},
		{mode.Build{}, "read write"},
		{mode.Build{Plan: pl}, "read update_plan write"},
	}
	for _, c := range cases {
		t.Run(c.mode.Name(), func(t *testing.T) {
			e := newEnv(t, nil, withMode(c.mode))
			replies := []ollamatest.Reply{{Content: "An answer."}}
			if _, ok := c.mode.(mode.Plan); ok {
				// A reply of plan mode without propose_plan is asked for
				// as a plan, which here has no steps: an answer.
				replies = append(replies, ollamatest.Reply{Content: `{"summary":"","steps":[]}`})
			}
			e.srv.Script(replies...)
			res, err := e.run(t.Context(), "what does lex do?")
			if err != nil {
				t.Fatal(err)
			}
			req := e.srv.ChatRequests()[0]
			if got := strings.Join(toolNames(req), " "); got != c.tools {
				t.Errorf("tools %s, want %s", got, c.tools)
			}
			if req.Messages[0].Content != mustPrompt(t, c.mode) {
				t.Errorf("system prompt is not %s mode's:\n%s", c.mode.Name(), req.Messages[0].Content)
			}
			if res.StopReason != StopDone || res.Mode != c.mode.Name() {
				t.Errorf("stop %s in mode %s", res.StopReason, res.Mode)
			}
		})
	}
	if strings.Contains(mustPrompt(t, mode.Build{}), "edit lex.go") || !strings.Contains(mustPrompt(t, mode.Build{Plan: pl}), "edit lex.go") {
		t.Error("the build prompt carries the plan only when there is one")
	}
}

func TestToolOutsideTheModeIsRefused(t *testing.T) {
	cases := []struct {
		mode mode.Mode
		call string
		want string
	}{
		{mode.Ask{}, "write", "write is not available in ask mode"},
		{mode.Ask{}, "propose_plan", "propose_plan is not available in ask mode"},
		{mode.Plan{}, "write", "write is not available in plan mode"},
		{mode.Plan{}, "start_task", "start_task is not available in plan mode"},
		{mode.Build{}, "update_plan", "update_plan is not available in build mode"},
		{mode.Build{}, "start_task", "start_task is not available in build mode"},
	}
	for _, c := range cases {
		t.Run(c.mode.Name()+"/"+c.call, func(t *testing.T) {
			e := newEnv(t, nil, withMode(c.mode))
			e.srv.Script(
				ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call(c.call, `{"path":"a.go","goal":"g","summary":"s","steps":["x"],"step":1,"status":"done"}`)}},
				ollamatest.Reply{Content: "Understood."},
			)
			if _, ok := c.mode.(mode.Plan); ok {
				e.srv.Script(ollamatest.Reply{Content: `{"summary":"","steps":[]}`})
			}
			if _, err := e.run(t.Context(), "change a.go"); err != nil {
				t.Fatal(err)
			}
			if got := e.log.all(); len(got) != 0 {
				t.Errorf("tools ran: %v", got)
			}
			results := toolMessages(e.srv.ChatRequests()[1])
			if len(results) != 1 || !strings.HasPrefix(results[0].Content, "error: "+c.want) {
				t.Fatalf("results %+v, want the refusal %q", results, c.want)
			}
			fin := eventsOf[ToolFinished](e.events)
			if len(fin) != 1 || fin[0].Outcome != OutcomeDenied || fin[0].NotApproved ||
				fin[0].Result.Summary != "not in "+c.mode.Name()+" mode" {
				t.Errorf("finished %+v", fin)
			}
			if len(eventsOf[ModeChanged](e.events)) != 0 || e.session.mode.Name() != c.mode.Name() {
				t.Errorf("the mode changed to %s", e.session.mode.Name())
			}
		})
	}
}

// TestPlanApprovedIsBuilt: plan mode reads, proposes a plan, the user
// approves it, and build mode carries it out, keeping its checklist.
func TestPlanApprovedIsBuilt(t *testing.T) {
	st := newMemStore()
	rv := &reviewer{reviews: []mode.Verdict{{Decision: mode.Approve}}}
	e := newEnv(t, nil, withMode(mode.Plan{}), withReviewer(rv), withStore(st))
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"lex.go"}`)}},
		ollamatest.Reply{Content: "Here is the plan.", ToolCalls: []ollamatest.ToolCall{
			call("propose_plan", `{"summary":"Fix the off-by-one in lex","steps":["edit lex.go"," run the tests "]}`)}},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{
			call("update_plan", `{"step":1,"status":"in_progress"}`),
			call("write", `{"path":"lex.go"}`),
			call("update_plan", `{"step":1,"status":"done"}`)}},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("update_plan", `{"step":2,"status":"completed"}`)}},
		ollamatest.Reply{Content: "Fixed."},
	)
	res, err := e.run(t.Context(), "fix the lexer")
	if err != nil {
		t.Fatal(err)
	}
	want := plan.Plan{Summary: "Fix the off-by-one in lex", Steps: []plan.Step{{Text: "edit lex.go", Status: plan.Pending}, {Text: "run the tests", Status: plan.Pending}}}
	if len(rv.plans) != 1 || rv.plans[0].Summary != want.Summary || !slices.Equal(rv.plans[0].Steps, want.Steps) {
		t.Fatalf("reviewed %+v, want %+v", rv.plans, want)
	}
	if got := e.log.all(); !slices.Equal(got, []string{"read:start:lex.go", "read:end:lex.go", "write:start:lex.go", "write:end:lex.go"}) {
		t.Errorf("tool log %v", got)
	}
	reqs := e.srv.ChatRequests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	if res := toolMessages(reqs[2]); len(res) != 2 || res[1].Content != prompts.PlanApprovedResult() {
		t.Errorf("propose_plan's result %+v", res)
	}
	build := reqs[2]
	if got := strings.Join(toolNames(build), " "); got != "read update_plan write" {
		t.Errorf("build mode's tools %s", got)
	}
	if build.Messages[0].Content != mustPrompt(t, mode.Build{Plan: &want}) {
		t.Errorf("build mode's prompt does not carry the plan:\n%s", build.Messages[0].Content)
	}
	if last := build.Messages[len(build.Messages)-1]; last.Role != "user" || last.Content != prompts.PlanApprovedNote() {
		t.Errorf("the request after the approval ends with %s %q", last.Role, last.Content)
	}
	// Append-only within a mode; the switch changes the system prompt and
	// keeps the rest.
	for i := 1; i < len(reqs); i++ {
		from := 0
		if i == 2 {
			from = 1
		}
		if !extendsFrom(reqs[i-1], reqs[i], from) {
			t.Errorf("request %d does not extend request %d", i+1, i)
		}
	}
	if reqs[1].Messages[0].Content == reqs[2].Messages[0].Content {
		t.Error("the system prompt did not change with the mode")
	}
	if res.StopReason != StopDone || res.Mode != "build" || statuses(res.Plan) != "done done" {
		t.Errorf("result: stop %s, mode %s, plan %s", res.StopReason, res.Mode, statuses(res.Plan))
	}
	var updates []string
	for _, u := range eventsOf[PlanUpdated](e.events) {
		updates = append(updates, statuses(u.Plan))
	}
	if want := []string{"in_progress pending", "done pending", "done done"}; !slices.Equal(updates, want) {
		t.Errorf("plan updates %q, want %q", updates, want)
	}
	changes := eventsOf[ModeChanged](e.events)
	if len(changes) != 1 || changes[0].From != "plan" || changes[0].To != "build" || statuses(changes[0].Plan) != "pending pending" {
		t.Errorf("mode changes %+v", changes)
	}
	if got := eventsOf[PlanProposed](e.events); len(got) != 1 || got[0].Turn != 2 || len(got[0].Plan.Steps) != 2 {
		t.Errorf("plans proposed %+v", got)
	}
	// The transitions are stored, the plan with its last checklist.
	st.mu.Lock()
	recs := st.modes[e.session.id]
	st.mu.Unlock()
	switchSeq := len(reqs[2].Messages) - 2 // the note, after the system prompt
	if len(recs) != 2 || recs[0].Mode != "plan" || recs[switchSeq].Mode != "build" ||
		statuses(plan.FromRecord(recs[switchSeq].Plan)) != "done done" || recs[switchSeq].Reason != "plan approved" {
		t.Errorf("mode records %+v (switch at %d)", recs, switchSeq)
	}
}

// TestPlanRejectedFeedbackReachesTheModel: a rejected plan keeps plan
// mode, and the user's feedback is the proposal's result.
func TestPlanRejectedFeedbackReachesTheModel(t *testing.T) {
	rv := &reviewer{reviews: []mode.Verdict{{Decision: mode.Reject, Feedback: "also update the docs"}, {Decision: mode.Approve}}}
	e := newEnv(t, nil, withMode(mode.Plan{}), withReviewer(rv))
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("propose_plan", `{"summary":"Fix lex","steps":["edit lex.go"]}`)}},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("propose_plan", `{"summary":"Fix lex and document it","steps":["edit lex.go","edit README.md"]}`)}},
		ollamatest.Reply{Content: "Done."},
	)
	res, err := e.run(t.Context(), "fix the lexer")
	if err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.ChatRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	results := toolMessages(reqs[1])
	if len(results) != 1 || !strings.Contains(results[0].Content, "rejected") || !strings.Contains(results[0].Content, "also update the docs") {
		t.Errorf("the rejection's result %+v, want the feedback", results)
	}
	if got := strings.Join(toolNames(reqs[1]), " "); got != "propose_plan read" || reqs[1].Messages[0].Content != mustPrompt(t, mode.Plan{}) {
		t.Errorf("after a rejection: tools %s, want plan mode's", got)
	}
	fin := eventsOf[ToolFinished](e.events)
	if len(fin) != 2 || fin[0].Outcome != OutcomeDenied || fin[1].Outcome != OutcomeOK {
		t.Errorf("outcomes %+v", fin)
	}
	if res.Mode != "build" || len(res.Plan.Steps) != 2 || res.Plan.Summary != "Fix lex and document it" {
		t.Errorf("ended in %s with plan %+v", res.Mode, res.Plan)
	}
}

// TestTransitionBreaksTheTurn: the calls before a transition run, those
// after it are answered without running, and the next turn has the new
// mode's prompt and tools.
func TestTransitionBreaksTheTurn(t *testing.T) {
	var log strings.Builder
	rv := &reviewer{}
	e := newEnv(t, nil, withMode(mode.Ask{}), withReviewer(rv), func(o *Options) { o.Log = zerolog.New(&log).Level(zerolog.DebugLevel) })
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{
			call("read", `{"path":"a.go"}`),
			call("start_task", `{"goal":"rename Foo to Bar in a.go"}`),
			call("read", `{"path":"b.go"}`),
			call("write", `{"path":"a.go"}`)}},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"a.go"}`)}},
		ollamatest.Reply{Content: "Renamed."},
	)
	res, err := e.run(t.Context(), "what is Foo? rename it to Bar")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rv.goals, []string{"rename Foo to Bar in a.go"}) {
		t.Errorf("the reviewer was asked about %q", rv.goals)
	}
	if got := e.log.all(); !slices.Equal(got, []string{"read:start:a.go", "read:end:a.go", "write:start:a.go", "write:end:a.go"}) {
		t.Errorf("tool log %v: want the read before the break, then the write of the next turn", got)
	}
	reqs := e.srv.ChatRequests()
	results := toolMessages(reqs[1])
	if len(results) != 4 {
		t.Fatalf("%d results, want 4", len(results))
	}
	if results[0].Content != "read a.go ok" || results[1].Content != prompts.StartTaskResult() {
		t.Errorf("results before the break: %q, %q", results[0].Content, results[1].Content)
	}
	for _, r := range results[2:] {
		if r.Content != "error: "+prompts.NotRunModeChanged() {
			t.Errorf("a call after the break got %q", r.Content)
		}
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if !strings.Contains(last.Content, "rename Foo to Bar in a.go") || last.Role != "user" {
		t.Errorf("the note after start_task: %s %q", last.Role, last.Content)
	}
	if got := strings.Join(toolNames(reqs[1]), " "); got != "read write" || reqs[1].Messages[0].Content != mustPrompt(t, mode.Build{}) {
		t.Errorf("after start_task: tools %s, want build mode's prompt and tools", got)
	}
	var outcomes []Outcome
	for _, f := range eventsOf[ToolFinished](e.events) {
		outcomes = append(outcomes, f.Outcome)
	}
	if want := []Outcome{OutcomeOK, OutcomeOK, OutcomeSkipped, OutcomeSkipped, OutcomeOK}; !slices.Equal(outcomes, want) {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
	if ch := eventsOf[ModeChanged](e.events); len(ch) != 1 || ch[0].From != "ask" || ch[0].To != "build" || !strings.Contains(ch[0].Reason, "rename Foo") {
		t.Errorf("mode changes %+v", ch)
	}
	if res.StopReason != StopDone || res.Mode != "build" || res.Plan != nil || res.Turns != 3 {
		t.Errorf("result %+v", res)
	}
	// The change of system prompt is a deliberate break of the prompt
	// cache, said as such at debug level.
	if n := strings.Count(log.String(), `"from":"ask","to":"build"`); n != 1 ||
		!strings.Contains(log.String(), `"message":"mode changed: the prompt cache starts over"`) {
		t.Errorf("debug log of the mode change (%d):\n%s", n, log.String())
	}
}

// TestPlanWithoutReviewerStops: with no one to review it (headless, no
// --yes), a proposed plan ends the run and is its result.
func TestPlanWithoutReviewerStops(t *testing.T) {
	e := newEnv(t, nil, withMode(mode.Plan{}))
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{
			call("propose_plan", `{"summary":"Fix lex","steps":"1. edit lex.go\n2. run go test"}`),
			call("read", `{"path":"x"}`)}},
	)
	res, err := e.run(t.Context(), "fix the lexer")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(e.srv.ChatRequests()); n != 1 {
		t.Errorf("%d requests after the plan, want 1", n)
	}
	if res.StopReason != StopPlanned || res.Mode != "plan" || res.Plan == nil ||
		res.Plan.Summary != "Fix lex" || len(res.Plan.Steps) != 2 || res.Plan.Steps[1].Text != "run go test" {
		t.Errorf("result: stop %s, mode %s, plan %+v", res.StopReason, res.Mode, res.Plan)
	}
	if len(e.log.all()) != 0 {
		t.Errorf("a call after the plan ran: %v", e.log.all())
	}
	// The history stays valid: every call has its result.
	msgs := e.session.messages
	if n := len(msgs); msgs[n-1].Content != "error: not run: propose_plan ended the turn before this call; make it again if it is still needed" ||
		!strings.HasPrefix(msgs[n-2].Content, prompts.PlanKept()) {
		t.Errorf("history ends with %+v", msgs[n-2:])
	}
}

// TestPlanFromAReply: a plan-mode reply that describes a plan without
// calling propose_plan gets it asked for as structured output; a reply
// that does not validate is retried once with the error.
func TestPlanFromAReply(t *testing.T) {
	e := newEnv(t, nil, withMode(mode.Plan{}))
	e.srv.Script(
		ollamatest.Reply{Content: "Plan: 1. edit lex.go 2. run the tests"},
		ollamatest.Reply{Content: `{"summary":"Fix lex"}`},
		ollamatest.Reply{Content: `{"summary":"Fix lex","steps":["edit lex.go","run the tests"]}`},
	)
	res, err := e.run(t.Context(), "fix the lexer")
	if err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.ChatRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if reqs[0].Format != nil {
		t.Errorf("the turn's request has a format: %s", reqs[0].Format)
	}
	for _, req := range reqs[1:] {
		if string(req.Format) != string(mode.PlanSchema) {
			t.Errorf("the plan's request has the format %s", req.Format)
		}
	}
	if !extendsFrom(reqs[0], reqs[1], 0) || lastMessage(reqs[1]) != prompts.PlanRequest() {
		t.Errorf("the plan is not asked for after the conversation: %q", lastMessage(reqs[1]))
	}
	if got := lastMessage(reqs[2]); !strings.Contains(got, `"steps" is missing`) || !extendsFrom(reqs[1], reqs[2], 0) {
		t.Errorf("the retry says %q, want the validation error", got)
	}
	if res.StopReason != StopPlanned || statuses(res.Plan) != "pending pending" || res.Plan.Summary != "Fix lex" {
		t.Errorf("result: stop %s, plan %+v", res.StopReason, res.Plan)
	}
	if got := eventsOf[PlanProposed](e.events); len(got) != 1 {
		t.Errorf("%d plans proposed, want 1", len(got))
	}
	// The side requests are not part of the history.
	if n := len(e.session.messages); n != 3 {
		t.Errorf("history of %d messages, want system, prompt and reply", n)
	}
}

func TestPlanFromAReplyThatNeverValidates(t *testing.T) {
	e := newEnv(t, nil, withMode(mode.Plan{}))
	e.srv.Script(
		ollamatest.Reply{Content: "Plan: edit lex.go"},
		ollamatest.Reply{Content: `not json`},
		ollamatest.Reply{Content: `{"summary":"x","steps":["a"]} and more`},
	)
	res, err := e.run(t.Context(), "fix the lexer")
	if err != nil {
		t.Fatal(err)
	}
	warn := eventsOf[Warning](e.events)
	if len(warn) != 1 || !strings.Contains(warn[0].Text, "text after the JSON object") {
		t.Errorf("warnings %+v, want the second validation error", warn)
	}
	if res.StopReason != StopDone || res.Plan != nil || len(e.srv.ChatRequests()) != 3 {
		t.Errorf("result: stop %s, plan %+v, %d requests", res.StopReason, res.Plan, len(e.srv.ChatRequests()))
	}
}

func TestParsePlan(t *testing.T) {
	cases := []struct {
		text, err string
		steps     int
	}{
		{`{"summary":"s","steps":["a","b"]}`, "", 2},
		{`{"summary":"s","steps":[]}`, "", 0},
		{`{"steps":[]}`, "", 0},
		{`{"summary":"s"}`, `"steps" is missing`, 0},
		{`{"steps":["a"]}`, `"summary" is missing`, 0},
		{`{"summary":"s","steps":"a"}`, "not a JSON object of the schema", 0},
		{`{"summary":"s","steps":["a"]} {}`, "text after the JSON object", 0},
		{`{"summary":" ","steps":["a"]}`, `"summary" is empty`, 0},
		{`{"summary":"s","steps":[" "]}`, `has no steps`, 0},
	}
	for _, c := range cases {
		p, err := mode.ParsePlan(c.text)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parsePlan(%s) = %v, want the error %q", c.text, err, c.err)
			}
		case err != nil:
			t.Errorf("parsePlan(%s): %v", c.text, err)
		case c.steps == 0 && p != nil:
			t.Errorf("parsePlan(%s) = %+v, want no plan", c.text, p)
		case c.steps > 0 && (p == nil || len(p.Steps) != c.steps):
			t.Errorf("parsePlan(%s) = %+v, want %d steps", c.text, p, c.steps)
		}
	}
}

func TestUpdatePlanErrorsAndSynonyms(t *testing.T) {
	pl := &plan.Plan{Summary: "s", Steps: []plan.Step{{Text: "a", Status: plan.Pending}, {Text: "b", Status: plan.Pending}}}
	e := newEnv(t, nil, withMode(mode.Build{Plan: pl}))
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{
			call("update_plan", `{"step":3,"status":"done"}`),
			call("update_plan", `{"step":1,"status":"halfway"}`),
			call("update_plan", `{"step":"2","status":"In Progress"}`),
			call("update_plan", `{"step":1,"status":"not needed"}`)}},
		ollamatest.Reply{Content: "ok"},
	)
	res, err := e.run(t.Context(), "go")
	if err != nil {
		t.Fatal(err)
	}
	results := toolMessages(e.srv.ChatRequests()[1])
	if len(results) != 4 {
		t.Fatalf("%d results", len(results))
	}
	if !strings.Contains(results[0].Content, "step 3 does not exist: the plan has steps 1 to 2") {
		t.Errorf("out of range: %q", results[0].Content)
	}
	if !strings.Contains(results[1].Content, "halfway") || !strings.Contains(results[1].Content, "in_progress") {
		t.Errorf("unknown status: %q, want it named with the allowed ones", results[1].Content)
	}
	if want := "Plan updated.\n[-] 1. a\n[~] 2. b\n"; results[3].Content != want {
		t.Errorf("checklist %q, want %q", results[3].Content, want)
	}
	if statuses(res.Plan) != "skipped in_progress" {
		t.Errorf("plan %s", statuses(res.Plan))
	}
	if pl.Steps[0].Status != plan.Pending {
		t.Error("the session changed the caller's plan")
	}
}

// TestUserSwitchesMode: SetMode changes the prompt and tools of the next
// request, and is stored.
func TestUserSwitchesMode(t *testing.T) {
	st := newMemStore()
	e := newEnv(t, nil, withStore(st))
	e.srv.Script(ollamatest.Reply{Content: "one"}, ollamatest.Reply{Content: "two"})
	if _, err := e.run(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	if err := e.session.SetMode(t.Context(), mode.Ask{}, "/mode ask"); err != nil {
		t.Fatal(err)
	}
	res, err := e.run(t.Context(), "second")
	if err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.ChatRequests()
	if got := strings.Join(toolNames(reqs[1]), " "); got != "read start_task" || reqs[1].Messages[0].Content != mustPrompt(t, mode.Ask{}) {
		t.Errorf("after /mode ask: tools %s", got)
	}
	if !extendsFrom(reqs[0], reqs[1], 1) || res.Mode != "ask" {
		t.Errorf("the history changed with the mode, or the mode is %s", res.Mode)
	}
	st.mu.Lock()
	recs := st.modes[e.session.id]
	st.mu.Unlock()
	if len(recs) != 2 || recs[0].Mode != "build" || recs[2].Mode != "ask" || recs[2].Reason != "/mode ask" {
		t.Errorf("mode records %+v", recs)
	}
}

// TestResumeKeepsTheMode: a resumed session is in the mode it was left
// in, with its plan's checklist, unless a mode was chosen at start.
func TestResumeKeepsTheMode(t *testing.T) {
	st := newMemStore()
	pl := &plan.Plan{Summary: "s", Steps: []plan.Step{{Text: "a", Status: plan.Pending}, {Text: "b", Status: plan.Pending}}}
	e := newEnv(t, nil, withStore(st), withMode(mode.Build{Plan: pl}))
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("update_plan", `{"step":1,"status":"done"}`)}},
		ollamatest.Reply{Content: "one"})
	if _, err := e.run(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	id := e.session.id

	for _, c := range []struct {
		start     mode.Mode
		mode      string
		tools     string
		checklist string
	}{
		{nil, "build", "read update_plan write", "done pending"},
		{mode.Ask{}, "ask", "read start_task", "no plan"},
	} {
		saved, err := st.Load(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		r := newEnv(t, nil, withStore(st), withMode(c.start))
		if err := r.session.ResumeFrom(saved); err != nil {
			t.Fatal(err)
		}
		if _, err := r.session.Prepare(t.Context()); err != nil {
			t.Fatal(err)
		}
		r.srv.Script(ollamatest.Reply{Content: "two"})
		res, err := r.run(t.Context(), "second")
		if err != nil {
			t.Fatal(err)
		}
		req := r.srv.ChatRequests()[0]
		if got := strings.Join(toolNames(req), " "); got != c.tools || res.Mode != c.mode || statuses(res.Plan) != c.checklist {
			t.Errorf("resumed with %v: mode %s, tools %s, plan %s", c.start, res.Mode, got, statuses(res.Plan))
		}
		if want := mustPrompt(t, r.session.mode); req.Messages[0].Content != want {
			t.Errorf("resumed with %v: the system prompt is not the mode's", c.start)
		}
	}
	st.mu.Lock()
	recs := st.modes[id]
	st.mu.Unlock()
	var last session.ModeRecord
	for _, rec := range recs {
		if rec.Seq >= last.Seq {
			last = rec
		}
	}
	if last.Mode != "ask" || last.Reason != "chosen at start" {
		t.Errorf("the mode chosen at start was stored as %+v", last)
	}
}

func lastMessage(req api.ChatRequest) string { return req.Messages[len(req.Messages)-1].Content }

// TestEveryModeFitsThePromptBudget: each mode's system prompt and tool
// schemas, as sent, stay under the design's 1,500 tokens (at four bytes a
// token), with every tool lathe may offer, and build mode with a plan of
// ten steps included.
func TestEveryModeFitsThePromptBudget(t *testing.T) {
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	pl := &plan.Plan{Summary: "Make the lexer report positions as line:column, and cover it with tests"}
	for i := range 10 {
		pl.Steps = append(pl.Steps, plan.Step{Text: fmt.Sprintf("edit internal/lex/lex%d.go: carry the column through scanToken", i)})
	}
	db := sqlitetest.Open(t)
	// Every tool, the three memory tools included (search_code as with an
	// embedding model installed).
	all := append(tools.Default(ws, tools.Options{}).All(),
		memory.Tools(ws, memory.Options{Dir: ws.Dir(), Sessions: db, Facts: db, Code: codeindex.NewSearcher(db, nil)})...)
	for _, m := range []mode.Mode{mode.Ask{}, mode.Plan{}, mode.Build{}, mode.Build{Plan: pl}} {
		e := newEnv(t, nil, withMode(m), func(o *Options) { o.Tools = tools.NewRegistry(all...) })
		e.srv.Script(ollamatest.Reply{Content: "ok"})
		if _, ok := m.(mode.Plan); ok {
			e.srv.Script(ollamatest.Reply{Content: `{"summary":"","steps":[]}`})
		}
		if _, err := e.run(t.Context(), "hi"); err != nil {
			t.Fatal(err)
		}
		req := e.srv.ChatRequests()[0]
		schemas, err := json.Marshal(req.Tools)
		if err != nil {
			t.Fatal(err)
		}
		system := req.Messages[0].Content
		tokens := (len(system) + len(schemas) + 3) / 4 // about four bytes a token
		t.Logf("%s mode (plan: %v): prompt %d bytes, %d tools in %d bytes, about %d tokens",
			m.Name(), m == mode.Mode(mode.Build{Plan: pl}), len(system), len(req.Tools), len(schemas), tokens)
		if tokens >= 1500 {
			t.Errorf("%s mode: system prompt + tool schemas ≈ %d tokens, over the 1,500-token budget", m.Name(), tokens)
		}
	}
}

// TestNewSessionDropsThePlan: /new keeps the mode but not the plan,
// which belonged to the conversation.
func TestNewSessionDropsThePlan(t *testing.T) {
	pl := &plan.Plan{Summary: "s", Steps: []plan.Step{{Text: "edit lex.go", Status: plan.Pending}}}
	for _, c := range []struct {
		mode  mode.Mode
		tools string
		want  mode.Mode
	}{
		{mode.Build{Plan: pl}, "read update_plan write", mode.Build{}},
		{mode.Plan{}, "propose_plan read", mode.Plan{}},
	} {
		e := newEnv(t, nil, withMode(c.mode))
		e.srv.Script(ollamatest.Reply{Content: "one"})
		if _, ok := c.mode.(mode.Plan); ok {
			e.srv.Script(ollamatest.Reply{Content: `{"summary":"","steps":[]}`})
		}
		if _, err := e.run(t.Context(), "first"); err != nil {
			t.Fatal(err)
		}
		e.session.Reset(t.Context())
		e.srv.Script(ollamatest.Reply{Content: "two"})
		if _, ok := c.mode.(mode.Plan); ok {
			e.srv.Script(ollamatest.Reply{Content: `{"summary":"","steps":[]}`})
		}
		res, err := e.run(t.Context(), "second")
		if err != nil {
			t.Fatal(err)
		}
		reqs := e.srv.ChatRequests()
		before, after := reqs[0], reqs[len(reqs)-1]
		if strings.Join(toolNames(before), " ") != c.tools {
			t.Errorf("%s: tools before /new %v", c.mode.Name(), toolNames(before))
		}
		if after.Messages[0].Content != mustPrompt(t, c.want) || res.Plan != nil || res.Mode != c.want.Name() {
			t.Errorf("%s: after /new the mode is %s with plan %v", c.mode.Name(), res.Mode, res.Plan)
		}
	}
}

// TestPlanFromAReplyIsReviewed: a plan read from a reply is reviewed as a
// proposed one: a rejection keeps plan mode with the feedback in a note,
// an approval starts build mode on it.
func TestPlanFromAReplyIsReviewed(t *testing.T) {
	rv := &reviewer{reviews: []mode.Verdict{{Decision: mode.Reject, Feedback: "test it too"}, {Decision: mode.Approve}}}
	e := newEnv(t, nil, withMode(mode.Plan{}), withReviewer(rv))
	e.srv.Script(
		ollamatest.Reply{Content: "Plan: edit lex.go."},
		ollamatest.Reply{Content: `{"summary":"Fix lex","steps":["edit lex.go"]}`},
		ollamatest.Reply{Content: "Plan: edit lex.go, then test it."},
		ollamatest.Reply{Content: `{"summary":"Fix lex","steps":["edit lex.go","go test ./lex"]}`},
		ollamatest.Reply{Content: "Done."},
	)
	res, err := e.run(t.Context(), "fix the lexer")
	if err != nil {
		t.Fatal(err)
	}
	reqs := e.srv.ChatRequests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	note := lastMessage(reqs[2])
	if !strings.HasPrefix(note, prompts.NotePrefix+"The user rejected the plan.") || !strings.Contains(note, "test it too") ||
		reqs[2].Messages[0].Content != mustPrompt(t, mode.Plan{}) {
		t.Errorf("after the rejection the model gets %q", note)
	}
	if lastMessage(reqs[4]) != prompts.PlanApprovedNote() || strings.Join(toolNames(reqs[4]), " ") != "read update_plan write" {
		t.Errorf("after the approval: %q, tools %v", lastMessage(reqs[4]), toolNames(reqs[4]))
	}
	if res.StopReason != StopDone || res.Mode != "build" || len(res.Plan.Steps) != 2 {
		t.Errorf("result: stop %s, mode %s, plan %+v", res.StopReason, res.Mode, res.Plan)
	}
}

// failingReviewer cannot give an answer (the TUI went away).
type failingReviewer struct{}

func (failingReviewer) StartTask(context.Context, string) (mode.Verdict, error) {
	return mode.Verdict{}, errors.New("the TUI went away")
}

func (failingReviewer) Review(context.Context, plan.Plan) (mode.Verdict, error) {
	return mode.Verdict{}, context.Canceled
}

// TestInterruptedReviewEndsTheRun: a review that gets no answer ends the
// run as interrupted, whether the plan came from propose_plan or a reply.
func TestInterruptedReviewEndsTheRun(t *testing.T) {
	for _, replies := range [][]ollamatest.Reply{
		{{ToolCalls: []ollamatest.ToolCall{call("propose_plan", `{"summary":"Fix lex","steps":["edit lex.go"]}`)}}},
		{{Content: "Plan: edit lex.go."}, {Content: `{"summary":"Fix lex","steps":["edit lex.go"]}`}},
	} {
		e := newEnv(t, nil, withMode(mode.Plan{}), withReviewer(failingReviewer{}))
		e.srv.Script(replies...)
		res, err := e.run(t.Context(), "fix the lexer")
		if err != nil || res.StopReason != StopInterrupted || res.Mode != "plan" {
			t.Errorf("stop %s in mode %s, %v; want interrupted in plan mode", res.StopReason, res.Mode, err)
		}
		if n := len(e.srv.ChatRequests()); n != len(replies) {
			t.Errorf("%d requests, want %d: the run went on", n, len(replies))
		}
	}
}
