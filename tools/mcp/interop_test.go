package mcp

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lathe/tools/mcp/mcptest"
)

// TestInteropEverythingAsked runs server-everything (npm's reference
// server) with the user's answers scripted: its form gets the name typed
// and its defaults, its URL is accepted; the tool that requires a task is
// left out.
func TestInteropEverythingAsked(t *testing.T) {
	dir := mcptest.NodePackage(t, "server-everything")
	asker := &scriptedAsker{elicit: func(_ context.Context, q Elicitation) ElicitAnswer {
		if q.URL != "" {
			return ElicitAnswer{Action: ActionAccept}
		}
		values, _ := q.Defaults()
		values["name"] = "Ada"
		return ElicitAnswer{Action: ActionAccept, Content: values}
	}}
	m, _, byName := requests(t, Server{Command: "node", Args: []string{filepath.Join(dir, "dist", "index.js"), "stdio"}}, Options{})
	m.SetAsker(asker)
	res := run(t, t.Context(), byName["t__trigger-elicitation-request"], `{}`)
	for _, want := range []string{"User provided the requested information", "- Name: Ada", "- Favorite Integer: 42", "- Favorite Number: 3.14"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("the form's result lacks %q: %s", want, res.Content)
		}
	}
	q := asker.questions[0]
	if len(q.Fields) != 13 || q.Fields[0].Name != "name" || !q.Fields[0].Required {
		t.Errorf("fields: %+v", q.Fields)
	}
	res = run(t, t.Context(), byName["t__trigger-url-elicitation"], `{"url":"https://example.com/consent"}`)
	if !strings.Contains(res.Content, "accept") || asker.questions[1].URL != "https://example.com/consent" {
		t.Errorf("the URL's result: %s", res.Content)
	}
	// Sent as an error (-32042): the user is asked, and the model told to
	// call again; the call again asks for the page it wanted.
	res = run(t, t.Context(), byName["t__trigger-url-elicitation"], `{"url":"https://example.com/again","errorPath":true}`)
	if !res.IsError || !strings.Contains(res.Content, "needs the user to open a page first:\nhttps://modelcontextprotocol.io: the user was shown it") ||
		asker.questions[2].URL != "https://modelcontextprotocol.io" {
		t.Errorf("a URL sent as an error: %s", res.Content)
	}
	res = run(t, t.Context(), byName["t__trigger-url-elicitation"], `{"url":"https://example.com/again","errorPath":true}`)
	if res.IsError || asker.questions[3].URL != "https://example.com/again" {
		t.Errorf("called again: %s", res.Content)
	}
	if _, ok := byName["t__simulate-research-query"]; ok {
		t.Error("the tool that requires a task is offered")
	}
	if st := m.Servers()[0]; !slices.Equal(st.LeftOut, []string{"simulate-research-query"}) || len(st.Prompts) == 0 || len(st.Resources) == 0 {
		t.Errorf("status: left out %v, %d prompts, %d resources", st.LeftOut, len(st.Prompts), len(st.Resources))
	}
}
