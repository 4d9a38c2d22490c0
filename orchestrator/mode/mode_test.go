package mode

import (
	"context"
	"encoding/json"
	"lathe/prompts"
	"strings"
	"testing"

	"lathe/orchestrator/plan"
	"lathe/orchestrator/provider"
	"lathe/tools"
)

// fake is a tool of a given kind, for building registries.
type fake struct {
	name string
	kind tools.Kind
}

func (f fake) Name() string     { return f.name }
func (f fake) Kind() tools.Kind { return f.kind }
func (f fake) Spec() provider.ToolSpec {
	return provider.ToolSpec{Name: f.name, Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}
func (f fake) Prepare(json.RawMessage) (tools.Call, error) { return nil, nil }

func TestToolsOfEachMode(t *testing.T) {
	all := tools.NewRegistry(fake{"read", tools.KindRead}, fake{"write", tools.KindWrite},
		fake{"run", tools.KindExec}, fake{"look", tools.KindRead})
	p := &plan.Plan{Summary: "s", Steps: []plan.Step{{Text: "a", Status: plan.Pending}}}
	cases := []struct {
		mode Mode
		want string
	}{
		{Ask{}, "read look start_task"},
		{Plan{}, "read look propose_plan"},
		{Build{}, "read write run look"},
		{Build{Plan: p}, "read write run look update_plan"},
	}
	for _, c := range cases {
		if got := strings.Join(c.mode.Tools(all).Names(), " "); got != c.want {
			t.Errorf("%s: tools %q, want %q", c.mode.Name(), got, c.want)
		}
	}
	if got := strings.Join(Every(all).Names(), " "); got != "read write run look start_task propose_plan update_plan" {
		t.Errorf("Every = %q", got)
	}
	for _, tool := range Every(all).All()[4:] {
		if tool.Name() == "update_plan" && tool.Kind() != tools.KindUI || tool.Name() != "update_plan" && tool.Kind() != tools.KindTransition {
			t.Errorf("%s has kind %s", tool.Name(), tool.Kind())
		}
	}
}

func TestParseAndNext(t *testing.T) {
	for _, name := range []string{"ask", " PLAN ", "build"} {
		m, err := Parse(name)
		if err != nil || m.Name() != strings.ToLower(strings.TrimSpace(name)) {
			t.Errorf("Parse(%q) = %v, %v", name, m, err)
		}
	}
	if _, err := Parse("bogus"); err == nil || !strings.Contains(err.Error(), "use build, plan, ask") {
		t.Errorf("Parse(bogus) = %v", err)
	}
	m := Mode(Build{Plan: &plan.Plan{}})
	for _, want := range []string{"plan", "ask", "build", "plan"} {
		m = Next(m)
		if m.Name() != want || PlanOf(m) != nil {
			t.Fatalf("Next = %s (plan %v), want %s without a plan", m.Name(), PlanOf(m), want)
		}
	}
}

// TestOwnCopiesThePlan: update_plan changes the session's plan, never the
// caller's.
func TestOwnCopiesThePlan(t *testing.T) {
	p := &plan.Plan{Summary: "s", Steps: []plan.Step{{Text: "a", Status: plan.Pending}}}
	own := Own(Build{Plan: p}).(Build)
	call, err := own.Tools(tools.NewRegistry()).All()[0].Prepare(json.RawMessage(`{"step":1,"status":"completed"}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := call.Run(t.Context(), tools.Caller{})
	if err != nil || res.IsError || own.Plan.Steps[0].Status != plan.Done {
		t.Fatalf("update_plan: %+v %v, plan %+v", res, err, own.Plan)
	}
	if p.Steps[0].Status != plan.Pending {
		t.Error("the caller's plan changed")
	}
	if Own(nil).Name() != "build" {
		t.Error("Own(nil) is not build mode")
	}
}

// TestReviewDecides: each verdict, and a reviewer that fails, lead where
// they should.
func TestReviewDecides(t *testing.T) {
	p := &plan.Plan{Summary: "s", Steps: []plan.Step{{Text: "a", Status: plan.Pending}}}
	cases := []struct {
		name string
		rv   Reviewer
		want func(Change) bool
	}{
		{"approve", reviewerOf(Verdict{Decision: Approve}, nil), func(c Change) bool {
			b, ok := c.Next.(Build)
			return ok && b.Plan == p && strings.HasPrefix(c.Note, "[lathe] ")
		}},
		{"reject", reviewerOf(Verdict{Decision: Reject, Feedback: " docs too "}, nil), func(c Change) bool {
			return c.Denied && c.Next == nil && strings.Contains(c.Result.Content, "Their feedback: docs too Look")
		}},
		{"keep", reviewerOf(Verdict{Decision: Keep}, nil), func(c Change) bool { return c.Kept == p && c.Next == nil }},
		{"no reviewer", nil, func(c Change) bool { return c.Kept == p }},
		{"interrupted", reviewerOf(Verdict{}, context.Canceled), func(c Change) bool { return c.Interrupted && c.Result.IsError }},
	}
	for _, c := range cases {
		if ch := Review(context.Background(), p, c.rv); !c.want(ch) {
			t.Errorf("%s: change %+v", c.name, ch)
		}
	}
}

// TestReviewStartDecides: ask mode gives way to build mode only when the
// user approves; without anyone to ask it stays.
func TestReviewStartDecides(t *testing.T) {
	cases := []struct {
		name string
		rv   Reviewer
		want func(Change) bool
	}{
		{"approve", reviewerOf(Verdict{Decision: Approve}, nil), func(c Change) bool {
			_, ok := c.Next.(Build)
			return ok && strings.Contains(c.Note, "rename Foo") && c.Reason == "start_task: rename Foo"
		}},
		{"reject", reviewerOf(Verdict{Decision: Reject, Feedback: " just explain "}, nil), func(c Change) bool {
			return c.Denied && c.Next == nil && strings.Contains(c.Result.Content, "Their feedback: just explain Answer")
		}},
		{"esc", reviewerOf(Verdict{Decision: Reject}, nil), func(c Change) bool {
			return c.Denied && c.Next == nil && !strings.Contains(c.Result.Content, "feedback")
		}},
		{"no one to ask", nil, func(c Change) bool {
			return c.Denied && c.Next == nil && c.Result.Content == prompts.StartTaskUnattended()
		}},
		{"interrupted", reviewerOf(Verdict{}, context.Canceled), func(c Change) bool { return c.Interrupted && c.Next == nil }},
	}
	for _, c := range cases {
		if ch := ReviewStart(context.Background(), "rename Foo", c.rv); !c.want(ch) {
			t.Errorf("%s: change %+v", c.name, ch)
		}
	}
}

type reviewerFunc func() (Verdict, error)

func (f reviewerFunc) Review(context.Context, plan.Plan) (Verdict, error) { return f() }
func (f reviewerFunc) StartTask(context.Context, string) (Verdict, error) { return f() }

func reviewerOf(v Verdict, err error) Reviewer {
	return reviewerFunc(func() (Verdict, error) { return v, err })
}
