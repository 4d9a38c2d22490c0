package ui

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/rs/zerolog"

	"lathe/orchestrator/provider"
	"lathe/tools"
	"lathe/tools/mcp"
	"lathe/tools/mcp/mcptest"
)

// formKey is the key press of a form's keys keyPress does not know.
func formKey(name string) tea.KeyPressMsg {
	switch name {
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "ctrl+d":
		return tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
	}
	return keyPress(name)
}

// testForm is the form mcptest's ask tool sends, as lathe reads it.
func testForm() mcp.Elicitation {
	lo, hi := 0.0, 150.0
	return mcp.Elicitation{Server: "t", Message: "Who are you?", Fields: []mcp.Field{
		{Name: "name", Title: "Name", Description: "Your name", Kind: mcp.KindText, Required: true},
		{Name: "age", Kind: mcp.KindInteger, Default: 30.0, Min: &lo, Max: &hi},
		{Name: "agree", Kind: mcp.KindBool, Default: true},
		{Name: "color", Kind: mcp.KindChoice, Default: "green", Options: []mcp.Option{{Value: "red", Title: "Red"}, {Value: "green", Title: "Green"}}},
		{Name: "tags", Kind: mcp.KindChoices, Default: []any{"b"}, Options: []mcp.Option{{Value: "a", Title: "A"}, {Value: "b", Title: "B"}}},
	}}
}

func newAsk(q any) mcpAsk {
	ask := mcpAsk{ctx: context.Background(), reply: make(chan any, 1), done: make(chan struct{})}
	switch q := q.(type) {
	case mcp.Elicitation:
		ask.elicit = &q
	case mcp.SamplingRequest:
		ask.sample = &q
	}
	return ask
}

// formDo presses keys in d, and reports whether the last one closed it.
func formDo(d dialog, keys ...string) bool {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = d.Update(formKey(k))
	}
	return closes(d, cmd)
}

// A form shows its fields with their defaults; it is not sent until the
// required field is filled, and sends what the user chose.
func TestElicitDialogForm(t *testing.T) {
	st, keys := newTheme(true, true), newKeyMap()
	d := newElicitDialog(newAsk(testForm()), &st, keys)
	view := dialogView(d, 80, 20)
	for _, want := range []string{"? MCP server t asks: Who are you?", "› Name *", "Your name", "age", "30",
		"agree", "[x]", "color", "Green", "tags", "[ ] A  [x] B", "enter send", "ctrl+d decline", "esc cancel"} {
		if !strings.Contains(view, want) {
			t.Errorf("the form lacks %q:\n%s", want, view)
		}
	}
	if formDo(d, "enter") || !strings.Contains(dialogView(d, 80, 20), "! Name: required") {
		t.Fatalf("sent without its required field:\n%s", dialogView(d, 80, 20))
	}
	typeInto(d, "Ada")
	// agree off, color to red, tags: a on too.
	formDo(d, "tab", "tab", "space", "tab", "right", "tab", "space")
	if !formDo(d, "enter") {
		t.Fatalf("not sent:\n%s", dialogView(d, 80, 20))
	}
	want := map[string]any{"name": "Ada", "age": int64(30), "agree": false, "color": "red", "tags": []any{"a", "b"}}
	if d.result.Action != mcp.ActionAccept || !reflect.DeepEqual(d.result.Content, want) {
		t.Errorf("answer = %+v, want accept %v", d.result, want)
	}

	d = newElicitDialog(newAsk(testForm()), &st, keys)
	typeInto(d, "Ada")
	formDo(d, "tab")
	for range 2 {
		formDo(d, "backspace")
	}
	typeInto(d, "400")
	if formDo(d, "enter") || !strings.Contains(dialogView(d, 80, 20), "! age: not between 0 and 150") {
		t.Errorf("an age out of bounds sent:\n%s", dialogView(d, 80, 20))
	}
	if !formDo(d, "ctrl+d") || d.result.Action != mcp.ActionDecline {
		t.Errorf("ctrl+d: %+v", d.result)
	}
	d = newElicitDialog(newAsk(testForm()), &st, keys)
	if !formDo(d, "esc") || d.result.Action != mcp.ActionCancel {
		t.Errorf("esc: %+v", d.result)
	}
}

func typeInto(d dialog, s string) {
	for _, r := range s {
		d.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// A long form scrolls to keep the field being filled in view.
func TestElicitDialogScrolls(t *testing.T) {
	st, keys := newTheme(true, true), newKeyMap()
	q := mcp.Elicitation{Server: "t", Message: "Many."}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		q.Fields = append(q.Fields, mcp.Field{Name: "field_" + n, Kind: mcp.KindText})
	}
	d := newElicitDialog(newAsk(q), &st, keys)
	for i := range 9 {
		formDo(d, "down")
		view := dialogView(d, 60, 8)
		if n := strings.Count(view, "\n") + 1; n > 8 {
			t.Fatalf("%d lines in 8", n)
		}
		if want := "› field_" + string(rune('b'+i)); !strings.Contains(view, want) {
			t.Errorf("field %d out of view:\n%s", i+2, view)
		}
	}
}

// A URL is shown whole, with the host it leads to; y accepts it.
func TestElicitDialogURL(t *testing.T) {
	st, keys := newTheme(true, true), newKeyMap()
	d := newElicitDialog(newAsk(mcp.Elicitation{Server: "t", Message: "Sign in, please.", URL: "https://login.example.com/a?b=c"}), &st, keys)
	view := dialogView(d, 80, 12)
	for _, want := range []string{"MCP server t asks you to open a page: Sign in, please.", "https://login.example.com/a?b=c",
		"it leads to login.example.com", "y I will open it", "n decline"} {
		if !strings.Contains(view, want) {
			t.Errorf("lacks %q:\n%s", want, view)
		}
	}
	if !formDo(d, "y") || d.result.Action != mcp.ActionAccept {
		t.Errorf("y: %+v", d.result)
	}
}

// The sampling dialog shows what the model would be sent and the limit;
// a allows the server for the session.
func TestSamplingDialog(t *testing.T) {
	st, keys := newTheme(true, true), newKeyMap()
	q := mcp.SamplingRequest{Server: "ev", System: "You are terse.", MaxTokens: 100, Hints: []string{"claude"},
		Messages: []provider.Message{{Role: "user", Content: "Summarize\nthis"}},
		Tools:    []provider.ToolSpec{{Name: "weather"}}}
	d := newSamplingDialog(newAsk(q), &st, keys)
	view := dialogView(d, 80, 14)
	for _, want := range []string{"MCP server ev asks the model to answer this (at most 100 tokens). Allow it?",
		"it would like claude", "system: You are terse.", "user: Summarize", "      this", "tools it may call: weather",
		"y allow once", "a allow ev for this session", "n deny"} {
		if !strings.Contains(view, want) {
			t.Errorf("lacks %q:\n%s", want, view)
		}
	}
	if _, cmd := d.Update(keyPress("a")); !closes(d, cmd) || d.decision != (mcp.SamplingDecision{Allow: true, Session: true}) {
		t.Errorf("a: %+v", d.decision)
	}
}

// askModel is a test model with an MCP server "t" whose tools ask the
// user, through the model's asker.
func askModel(t *testing.T) (*model, map[string]tools.Tool) {
	t.Helper()
	srv := httptest.NewServer(mcptest.Handler(mcptest.Options{Requests: true}))
	t.Cleanup(srv.Close)
	mgr := mcp.New(t.Context(), mcp.Options{Servers: map[string]mcp.Server{"t": {URL: srv.URL}}, Log: zerolog.Nop(),
		Sampler: echoSampler{}})
	mgr.Start()
	t.Cleanup(mgr.Close)
	mgr.WaitStarted(t.Context())
	m, _ := testModel(t)
	m.opts.MCP = mgr
	m.mcpAsk = newMCPAsker()
	mgr.SetAsker(m.mcpAsk)
	list, _ := mgr.Tools(t.Context(), 32768, false, true)
	byName := map[string]tools.Tool{}
	for _, tl := range list {
		byName[tl.Name()] = tl
	}
	return m, byName
}

// echoSampler answers a sampling request with its last message.
type echoSampler struct{}

func (echoSampler) Sample(_ context.Context, q mcp.SamplingRequest) (mcp.SamplingReply, error) {
	return mcp.SamplingReply{Model: "m", Text: "you said " + q.Messages[len(q.Messages)-1].Content, StopReason: "endTurn"}, nil
}

// A server's request for the model is asked about once when the user
// allows it for the session; a new session asks again.
func TestMCPSamplingEndToEnd(t *testing.T) {
	m, byName := askModel(t)
	call := func(text string) <-chan tools.Result {
		c, err := byName["t__sample"].Prepare(json.RawMessage(`{"text":"` + text + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		out := make(chan tools.Result, 1)
		go func() {
			res, _ := c.Run(t.Context(), tools.Caller{})
			out <- res
		}()
		return out
	}
	done := call("hi")
	m.Update(m.listenAsks()())
	if _, ok := m.dialog.(*samplingDialog); !ok || !strings.Contains(screen(m), "user: hi") {
		t.Fatalf("no sampling dialog:\n%s", screen(m))
	}
	answer(m, "a")
	if res := <-done; res.Content != `m said "you said hi" (endTurn)` {
		t.Errorf("the server got %q", res.Content)
	}
	if res := <-call("again"); res.Content != `m said "you said again" (endTurn)` {
		t.Errorf("allowed for the session, then %q", res.Content)
	}
	m.forgetMCPGrants()
	done = call("new")
	m.Update(m.listenAsks()())
	answer(m, "n")
	if res := <-done; !res.IsError || !strings.Contains(res.Content, "rejected") {
		t.Errorf("denied: %q", res.Content)
	}
}

// callAsync runs a call of tool in the background.
func callAsync(t *testing.T, ctx context.Context, tl tools.Tool) <-chan tools.Result {
	t.Helper()
	call, err := tl.Prepare(json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan tools.Result, 1)
	go func() {
		res, _ := call.Run(ctx, tools.Caller{})
		out <- res
	}()
	return out
}

// A server's question reaches the screen as a dialog, between requests
// too; the answer goes back to the server. One withdrawn leaves.
func TestMCPAskEndToEnd(t *testing.T) {
	m, byName := askModel(t)
	done := callAsync(t, t.Context(), byName["t__ask"])
	_, cmd := m.Update(m.listenAsks()())
	if _, ok := m.dialog.(*elicitDialog); !ok || !strings.Contains(screen(m), "MCP server t asks: Who are you?") {
		t.Fatalf("no form:\n%s", screen(m))
	}
	_ = cmd
	typeText(m, "Ada")
	answer(m, "enter")
	if res := <-done; !strings.Contains(res.Content, `accept {"age":30,"agree":true,"color":"green","name":"Ada","score":9.5,"tags":["b"]}`) {
		t.Errorf("the server got %q", res.Content)
	}
	if m.dialog != nil {
		t.Errorf("a dialog stays: %T", m.dialog)
	}

	ctx, cancel := context.WithCancel(t.Context())
	done = callAsync(t, ctx, byName["t__ask_url"])
	_, cmd = m.Update(m.listenAsks()())
	if _, ok := m.dialog.(*elicitDialog); !ok {
		t.Fatalf("no URL dialog: %T", m.dialog)
	}
	cancel()
	<-done
	gone := waitGone(cmd)
	m.Update(gone)
	if m.dialog != nil {
		t.Errorf("a withdrawn question stays: %T", m.dialog)
	}
}

// waitGone runs the commands of cmd's batch until one says a question was
// withdrawn (the others wait for what never comes, until the test ends).
func waitGone(cmd tea.Cmd) tea.Msg {
	batch, _ := cmd().(tea.BatchMsg)
	ch := make(chan tea.Msg, len(batch))
	for _, c := range batch {
		if c != nil {
			go func() { ch <- c() }()
		}
	}
	for msg := range ch {
		if g, ok := msg.(mcpAskGoneMsg); ok {
			return g
		}
	}
	return nil
}
