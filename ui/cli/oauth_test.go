package cli

import (
	"fmt"
	"os"
	"slices"

	"github.com/rogpeppe/go-internal/testscript"

	"lathe/tools/mcp/oauth/oauthtest"
)

// cmdOAuthServer starts an MCP server that wants OAuth, with its
// authorization server, and writes a user config naming it docs:
//
//	oauthserver [-step-up] CONFIG
//
// Every request needs scope mcp:read; with -step-up a call needs mcp:write
// too.
func cmdOAuthServer(ts *testscript.TestScript, neg bool, args []string) {
	opts := oauthtest.Options{Scopes: []string{"mcp:read"}, Refresh: true}
	if i := slices.Index(args, "-step-up"); i >= 0 {
		opts.CallScopes = []string{"mcp:write"}
		args = slices.Delete(args, i, i+1)
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: oauthserver [-step-up] CONFIG")
	}
	srv := oauthtest.New(opts)
	ts.Defer(srv.Close)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), fmt.Appendf(nil, "[mcp.servers.docs]\nurl = %q\n", srv.MCP()), 0o644))
}

// fakeBrowser is $BROWSER for the scripts: the user says yes at once.
func fakeBrowser() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fakebrowser URL")
		os.Exit(2)
	}
	if err := oauthtest.Follow(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "fakebrowser:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
