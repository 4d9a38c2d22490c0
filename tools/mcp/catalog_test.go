package mcp

import (
	"bytes"
	"strings"
	"testing"

	"lathe/tools/mcp/mcptest"
)

// A server's prompts and resources are listed; /server:prompt takes its
// arguments in order or by name, and becomes the prompt's text; an
// @server:uri mention has the resource appended, an image attached.
func TestPromptsAndResources(t *testing.T) {
	m, _ := start(t, Options{Servers: map[string]Server{"t": stdio(t, nil)}})
	m.WaitStarted(t.Context())
	ps := m.Prompts()
	if len(ps) != 1 || ps[0].Name != "greet" || len(ps[0].Args) != 2 || !ps[0].Args[0].Required {
		t.Fatalf("prompts = %+v", ps)
	}
	rs := m.Resources()
	if len(rs) != 2 || rs[0].URI != "note://logo" && rs[1].URI != "note://logo" {
		t.Fatalf("resources = %+v", rs)
	}
	for _, tc := range []struct{ in, want string }{
		{"/t:greet Ada", "Say hello to Ada, in plain style."},
		{"/t:greet 'Ada Lovelace' pirate", "Say hello to Ada Lovelace, in pirate style."},
		{"/t:greet style=terse Ada", "Say hello to Ada, in terse style."},
		{"just words", "just words"},
		{"/nope:greet Ada", "/nope:greet Ada"},
		{"what does @t:note://readme. say? @x:y", "what does @t:note://readme. say? @x:y\n\n<resource server=\"t\" uri=\"note://readme\">\nread me first\n</resource>"},
	} {
		got, err := m.Expand(t.Context(), tc.in)
		if err != nil || got.Text != tc.want {
			t.Errorf("%q: %q %v, want %q", tc.in, got.Text, err, tc.want)
		}
	}
	got, err := m.Expand(t.Context(), "see @t:note://logo")
	if err != nil || len(got.Images) != 1 || !bytes.Equal(got.Images[0].Data, mcptest.PNG) || !strings.Contains(got.Text, "[image: image/png") {
		t.Errorf("an image resource: %q, %d images, %v", got.Text, len(got.Images), err)
	}
	for in, want := range map[string]string{
		"/t:greet":            "/t:greet: argument name missing: it takes name [style]",
		"/t:greet a b c":      "/t:greet: c: more arguments than it takes (name [style])",
		"/t:greet 'a":         "a quote is not closed",
		"/t:wave":             `the MCP server t has no prompt "wave": it offers /t:greet`,
		"read @t:note://nope": "the MCP server t did not give note://nope",
	} {
		if _, err := m.Expand(t.Context(), in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", in, err, want)
		}
	}
	if server, name, args, ok := m.PromptCommand("/t:greet Ada  "); !ok || server != "t" || name != "greet" || args != "Ada" {
		t.Errorf("PromptCommand = %s %s %q %v", server, name, args, ok)
	}
}
