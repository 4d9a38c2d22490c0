package mcp

import (
	"bytes"
	"strings"
	"testing"

	"lathe/tools/mcp/oauth/oauthtest"
)

// TestOAuth: an HTTP server that wants OAuth does not start before a
// login, and says how to log in; after lathe mcp login it starts with the
// kept token; a call it refuses for want of scope says to log in again,
// to the model and to the user; after that login the call goes through.
func TestOAuth(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{Scopes: []string{"mcp:read"}, CallScopes: []string{"mcp:write"}})
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	opts := func() Options { return Options{Servers: map[string]Server{"docs": {URL: srv.MCP()}}, TokenDir: dir} }

	m, n := start(t, opts())
	if x := n.next(t); x.Text != "MCP server docs did not start: it needs authorization: run lathe mcp login docs; left out of this run" {
		t.Errorf("notice = %q", x.Text)
	}
	var out bytes.Buffer
	rec, path, err := m.Login(t.Context(), "docs", srv.Browser, &out)
	if err != nil || rec.AccessToken == "" || path != dir+"/docs.json" {
		t.Fatalf("login: %+v, %q, %v", rec, path, err)
	}
	if !strings.Contains(out.String(), srv.Issuer()+"/authorize?") {
		t.Errorf("the login did not print the URL: %q", out.String())
	}

	m, n = start(t, opts())
	byName, _, _ := toolsOf(t, m, 32768, false, true)
	echo, ok := byName["docs__echo"]
	if !ok {
		t.Fatalf("no docs__echo after the login: %+v", m.Servers())
	}
	res := run(t, t.Context(), echo, `{"text":"hi"}`)
	if !res.IsError || !strings.Contains(res.Content, "run lathe mcp login docs") || strings.Contains(res.Content, rec.AccessToken) {
		t.Errorf("a call short of scope: %+v", res)
	}
	if x := n.next(t); !strings.HasPrefix(x.Text, "MCP server docs refused a call: it asks for more access (scope ") {
		t.Errorf("notice = %q", x.Text)
	}
	if _, _, err := m.Login(t.Context(), "docs", srv.Browser, &out); err != nil {
		t.Fatal(err)
	}
	m, _ = start(t, opts())
	byName, _, _ = toolsOf(t, m, 32768, false, true)
	if res := run(t, t.Context(), byName["docs__echo"], `{"text":"hi"}`); res.IsError || res.Content != "hi" {
		t.Errorf("call after the second login: %+v", res)
	}
}

// Login refuses what it cannot log in to.
func TestLoginRefused(t *testing.T) {
	servers := map[string]Server{
		"prog":    stdio(t, nil),
		"static":  {URL: "http://127.0.0.1:1/mcp", BearerTokenEnv: "T"},
		"header":  {URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"authorization": "Bearer x"}},
		"project": {URL: "http://127.0.0.1:1/mcp", Project: true},
	}
	m := New(t.Context(), Options{Servers: servers, TokenDir: t.TempDir()})
	for name, want := range map[string]string{
		"prog":    "prog is a program lathe starts: OAuth is for HTTP servers",
		"static":  "static is sent a token of its own",
		"header":  "header is sent a token of its own",
		"project": "project is the project's: trust the project's MCP servers first",
		"nope":    `no MCP server is named "nope"`,
	} {
		if _, _, err := m.Login(t.Context(), name, nil, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", name, err, want)
		}
	}
}
