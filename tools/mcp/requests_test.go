package mcp

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"lathe/orchestrator/provider"
	"lathe/tools"
	"lathe/tools/mcp/mcptest"
)

// scriptedAsker answers the servers' questions as told, and keeps them.
type scriptedAsker struct {
	mu        sync.Mutex
	elicit    func(context.Context, Elicitation) ElicitAnswer
	approve   SamplingDecision
	questions []Elicitation
	samplings []SamplingRequest
}

func (a *scriptedAsker) Elicit(ctx context.Context, q Elicitation) ElicitAnswer {
	a.mu.Lock()
	a.questions = append(a.questions, q)
	fn := a.elicit
	a.mu.Unlock()
	return fn(ctx, q)
}

func (a *scriptedAsker) ApproveSampling(_ context.Context, q SamplingRequest) SamplingDecision {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.samplings = append(a.samplings, q)
	return a.approve
}

// fakeSampler answers every sampling request with "hi".
type fakeSampler struct {
	mu   sync.Mutex
	reqs []SamplingRequest
}

func (f *fakeSampler) Sample(_ context.Context, q SamplingRequest) (SamplingReply, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, q)
	return SamplingReply{Model: "tiny:1b", Text: "hi", StopReason: "endTurn"}, nil
}

// requests starts a server with the tools that send requests, and returns
// its tools by name.
func requests(t *testing.T, srv Server, opts Options) (*Manager, *notices, map[string]tools.Tool) {
	t.Helper()
	if srv.Command == "" && srv.URL == "" {
		srv = stdio(t, map[string]string{"MCPTEST_REQUESTS": "1"})
	}
	opts.Servers = map[string]Server{"t": srv}
	m, n := start(t, opts)
	byName, _, _ := toolsOf(t, m, 32768, false, true)
	return m, n, byName
}

// The workspace is the client's root; a new one is told to the servers
// running, which read it again.
func TestRoots(t *testing.T) {
	changed := make(chan struct{}, 4)
	h := mcptest.Handler(mcptest.Options{Requests: true, RootsChanged: func() { changed <- struct{}{} }})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	m, _, byName := requests(t, Server{URL: srv.URL}, Options{})
	dir := m.opts.Dir
	if res := run(t, t.Context(), byName["t__roots"], `{}`); res.Content != filepath.Base(dir)+" file://"+dir {
		t.Errorf("roots = %q, want the workspace", res.Content)
	}
	other := t.TempDir()
	m.SetRoots(other)
	<-changed
	if res := run(t, t.Context(), byName["t__roots"], `{}`); res.Content != filepath.Base(other)+" file://"+other {
		t.Errorf("roots after the change = %q, want %s only", res.Content, other)
	}
}

// A form is put to the user with its fields, required first, and the
// user's values go back; a URL is put as it is.
func TestElicitAsked(t *testing.T) {
	asker := &scriptedAsker{elicit: func(_ context.Context, q Elicitation) ElicitAnswer {
		if q.URL != "" {
			return ElicitAnswer{Action: ActionAccept}
		}
		values, _ := q.Defaults()
		values["name"] = "Ada"
		return ElicitAnswer{Action: ActionAccept, Content: values}
	}}
	m, _, byName := requests(t, Server{}, Options{})
	m.SetAsker(asker)
	res := run(t, t.Context(), byName["t__ask"], `{}`)
	want := `accept {"age":30,"agree":true,"color":"green","name":"Ada","score":9.5,"tags":["b"]}`
	if res.Content != want {
		t.Errorf("ask = %q, want %q", res.Content, want)
	}
	q := asker.questions[0]
	var names []string
	for _, f := range q.Fields {
		names = append(names, f.Name)
	}
	if q.Server != "t" || q.Message != "Who are you?" || !slices.Equal(names, []string{"name", "age", "agree", "color", "score", "tags"}) {
		t.Errorf("question = %+v (fields %v)", q, names)
	}
	color, tags := q.Fields[3], q.Fields[5]
	if q.Fields[0].Label() != "Name" || !q.Fields[0].Required || color.Kind != KindChoice || color.Options[1] != (Option{"green", "Green"}) ||
		tags.Kind != KindChoices || len(tags.Options) != 2 || q.Fields[1].Hint() != "between 0 and 150" {
		t.Errorf("fields = %+v", q.Fields)
	}
	if res := run(t, t.Context(), byName["t__ask_url"], `{}`); res.Content != "accept" {
		t.Errorf("ask_url = %q", res.Content)
	}
	if q := asker.questions[1]; q.URL != "https://example.com/login" || q.ID != "e1" || len(q.Fields) != 0 {
		t.Errorf("URL question = %+v", q)
	}
}

// An answer that does not fit the form is no answer: the server is told
// the user cancelled. A question the server stops waiting for ends.
func TestElicitBadAndAbandoned(t *testing.T) {
	asked := make(chan struct{}, 1)
	asker := &scriptedAsker{elicit: func(ctx context.Context, q Elicitation) ElicitAnswer {
		if q.URL == "" {
			return ElicitAnswer{Action: ActionAccept, Content: map[string]any{"name": "Ada", "age": float64(200)}}
		}
		asked <- struct{}{}
		<-ctx.Done()
		return ElicitAnswer{Action: ActionAccept}
	}}
	m, _, byName := requests(t, Server{}, Options{})
	m.SetAsker(asker)
	if res := run(t, t.Context(), byName["t__ask"], `{}`); res.Content != "cancel null" {
		t.Errorf("an age out of bounds: %q", res.Content)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan tools.Result)
	go func() { done <- run(t, ctx, byName["t__ask_url"], `{}`) }()
	<-asked
	cancel()
	if res := <-done; !res.IsError {
		t.Errorf("a call cancelled while its question waits: %+v", res)
	}
}

// Where nobody can be asked, and by the policies, a form is declined or
// accepted with its defaults, said each time; a declined server is not
// offered elicitation at all.
func TestElicitPolicies(t *testing.T) {
	m, n, byName := requests(t, Server{}, Options{})
	if res := run(t, t.Context(), byName["t__ask"], `{}`); res.Content != "decline null" {
		t.Errorf("nobody to ask: %q", res.Content)
	}
	if x := n.next(t); x.Failed || !strings.Contains(x.Text, "MCP server t asked for input (Who are you?): declined: nobody can answer") {
		t.Errorf("notice = %+v", x)
	}
	m.Close()

	srv := stdio(t, map[string]string{"MCPTEST_REQUESTS": "1"})
	srv.Elicitation = PolicyAccept
	_, n, byName = requests(t, srv, Options{})
	if res := run(t, t.Context(), byName["t__ask"], `{}`); res.Content != "decline null" {
		t.Errorf("accept, with a required field without default: %q", res.Content)
	}
	if x := n.next(t); !strings.Contains(x.Text, "declined: a field it requires has no default") {
		t.Errorf("notice = %q", x.Text)
	}
	if res := run(t, t.Context(), byName["t__ask_url"], `{}`); res.Content != "decline" {
		t.Errorf("accept, a URL: %q (nobody would open it)", res.Content)
	}

	srv.Elicitation = PolicyDecline
	_, _, byName = requests(t, srv, Options{})
	if res := run(t, t.Context(), byName["t__ask"], `{}`); !res.IsError || !strings.Contains(res.Content, "client does not support elicitation") {
		t.Errorf("declined: %q", res.Content)
	}
}

// Defaults fill a form as the spec has it; a required field without one
// keeps it from being accepted so.
func TestFormDefaults(t *testing.T) {
	fields, err := formFields(map[string]any{"type": "object", "properties": map[string]any{
		"n":    map[string]any{"type": "integer", "default": float64(3)},
		"bad":  map[string]any{"type": "string", "enum": []any{"x"}, "default": "y"},
		"none": map[string]any{"type": "string"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	values, ok := Elicitation{Fields: fields}.Defaults()
	if !ok || len(values) != 1 || values["n"] != int64(3) {
		t.Errorf("defaults = %v %v: want n alone (a default not among the choices is none)", values, ok)
	}
	f := fields[1]
	if v, err := f.Parse("12"); err != nil || v != int64(12) {
		t.Errorf("parse 12 = %v %v", v, err)
	}
	if _, err := f.Parse("1.5"); err == nil {
		t.Error("1.5 taken as an integer")
	}
}

// The model answers a server's messages once allowed: by the policy, or by
// the user, whose session grant covers the server's next requests; where
// nobody can approve, it is refused, and said.
func TestSampling(t *testing.T) {
	sampler := &fakeSampler{}
	asker := &scriptedAsker{approve: SamplingDecision{Allow: true, Session: true}}
	m, _, byName := requests(t, Server{}, Options{Sampler: sampler})
	m.SetAsker(asker)
	for range 2 {
		if res := run(t, t.Context(), byName["t__sample"], `{"text":"say hi"}`); res.Content != `tiny:1b said "hi" (endTurn)` {
			t.Errorf("sample = %q", res.Content)
		}
	}
	if len(asker.samplings) != 1 {
		t.Errorf("asked %d times: the session grant covers the second", len(asker.samplings))
	}
	q := sampler.reqs[0]
	if q.Server != "t" || q.System != "You are terse." || q.MaxTokens != 50 || !slices.Equal(q.Hints, []string{"tiny"}) ||
		!reflect.DeepEqual(q.Messages, []provider.Message{{Role: "user", Content: "say hi"}}) {
		t.Errorf("request = %+v", q)
	}
	m.ForgetGrants()
	asker.approve = SamplingDecision{}
	if res := run(t, t.Context(), byName["t__sample"], `{"text":"x"}`); !res.IsError || !strings.Contains(res.Content, "the user rejected the sampling request") {
		t.Errorf("rejected: %q", res.Content)
	}
	m.SetAsker(nil)
	res := run(t, t.Context(), byName["t__sample"], `{"text":"x"}`)
	if !res.IsError || !strings.Contains(res.Content, "nobody can approve") {
		t.Errorf("nobody to ask: %q", res.Content)
	}

	srv := stdio(t, map[string]string{"MCPTEST_REQUESTS": "1"})
	srv.Sampling = PolicyAllow
	_, _, byName = requests(t, srv, Options{Sampler: sampler})
	if res := run(t, t.Context(), byName["t__sample"], `{"text":"x"}`); res.IsError {
		t.Errorf("allowed: %q", res.Content)
	}
	srv.Sampling = PolicyDeny
	_, _, byName = requests(t, srv, Options{Sampler: sampler})
	if res := run(t, t.Context(), byName["t__sample"], `{"text":"x"}`); !res.IsError || !strings.Contains(res.Content, "CreateMessage") {
		t.Errorf("denied: %q", res.Content)
	}
}

// A conversation with tools goes to the model as lathe's messages: the
// model's calls as its tool calls, the server's results as tool messages;
// the model's calls go back as tool_use content.
func TestSamplingTools(t *testing.T) {
	q, err := samplingRequest("s", &sdk.CreateMessageWithToolsParams{MaxTokens: 10,
		Tools:      []*sdk.Tool{{Name: "weather", Description: "The weather.", InputSchema: map[string]any{"type": "object"}}},
		ToolChoice: &sdk.ToolChoice{Mode: "required"},
		Messages: []*sdk.SamplingMessageV2{
			{Role: "user", Content: []sdk.Content{&sdk.TextContent{Text: "Weather in Paris?"}}},
			{Role: "assistant", Content: []sdk.Content{&sdk.ToolUseContent{ID: "c1", Name: "weather", Input: map[string]any{"city": "Paris"}}}},
			{Role: "user", Content: []sdk.Content{&sdk.ToolResultContent{ToolUseID: "c1", Content: []sdk.Content{&sdk.TextContent{Text: "sunny"}}}}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := []provider.Message{
		{Role: "user", Content: "Weather in Paris?"},
		{Role: "assistant", ToolCalls: []provider.ToolCall{{ID: "c1", Name: "weather", Arguments: []byte(`{"city":"Paris"}`)}}},
		{Role: "tool", Content: "sunny", ToolCallID: "c1"},
	}
	if !reflect.DeepEqual(q.Messages, want) || len(q.Tools) != 1 || q.Tools[0].Name != "weather" || q.ToolChoice != "required" {
		t.Errorf("request = %+v", q)
	}
	r := samplingResult(SamplingReply{Model: "m", StopReason: "toolUse",
		ToolCalls: []provider.ToolCall{{ID: "c2", Name: "weather", Arguments: []byte(`{"city":"Oslo"}`)}}})
	use, ok := r.Content[0].(*sdk.ToolUseContent)
	if len(r.Content) != 1 || !ok || use.ID != "c2" || use.Input["city"] != "Oslo" || r.StopReason != "toolUse" {
		t.Errorf("result = %+v", r)
	}
}
