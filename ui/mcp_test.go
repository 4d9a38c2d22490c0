package ui

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/rs/zerolog"

	"lathe/orchestrator"
	"lathe/tools"
	"lathe/tools/mcp"
	"lathe/tools/mcp/mcptest"
)

// mcpModel is a test model with an MCP server "t" (mcptest over HTTP),
// started and ready; project marks it as the project's, not trusted.
func mcpModel(t *testing.T, project bool) (*model, *mcp.Manager, *bool) {
	t.Helper()
	srv := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	t.Cleanup(srv.Close)
	cfg := mcp.Server{URL: srv.URL}
	if project {
		cfg.Project = true
	}
	mgr := mcp.New(t.Context(), mcp.Options{Servers: map[string]mcp.Server{"t": cfg}, Log: zerolog.Nop()})
	mgr.Start()
	t.Cleanup(mgr.Close)
	mgr.WaitStarted(t.Context())
	m, _ := testModel(t)
	kept := false
	m.opts.MCP = mgr
	m.opts.TrustProject = func() error { kept = true; return nil }
	m.offerTrust()
	m.layout()
	return m, mgr, &kept
}

func TestMCPCommand(t *testing.T) {
	m, _, _ := mcpModel(t, false)
	typeText(m, "/mcp")
	press(m, "enter")
	s := screen(m)
	if !strings.Contains(s, "MCP servers") || !strings.Contains(s, "t  ready · 8 tools · ~") ||
		!strings.Contains(s, "% of the window)") {
		t.Errorf("/mcp shows:\n%s", s)
	}
	typeText(m, "/mcp off t")
	_, cmd := m.Update(keyPress("enter"))
	finish(m, cmd)
	if st := m.opts.MCP.Servers()[0]; st.State != mcp.StateOff {
		t.Errorf("after /mcp off t: %s", st.State)
	}
	if !strings.Contains(screen(m), "The MCP server t is off for this session") {
		t.Errorf("no notice:\n%s", screen(m))
	}
	typeText(m, "/mcp bogus")
	press(m, "enter")
	if !strings.Contains(screen(m), "/mcp takes on NAME, off NAME, reload or trust") {
		t.Errorf("a bad /mcp:\n%s", screen(m))
	}
}

// The project's servers are asked about at start; y starts them and keeps
// the trust.
func TestMCPTrustDialog(t *testing.T) {
	m, mgr, kept := mcpModel(t, true)
	if _, ok := m.dialog.(*trustDialog); !ok {
		t.Fatalf("no trust dialog: %T", m.dialog)
	}
	s := screen(m)
	if !strings.Contains(s, "This project declares MCP servers. Start them?") || !strings.Contains(s, "t: http://127.0.0.1:") {
		t.Errorf("the dialog:\n%s", s)
	}
	_, cmd := m.Update(keyPress("y"))
	_, cmd = m.Update(cmd()) // the dialog closes
	finish(m, cmd)           // the servers start
	if !*kept || len(mgr.Untrusted()) != 0 {
		t.Errorf("trust kept %v, untrusted %v", *kept, mgr.Untrusted())
	}
	if !strings.Contains(screen(m), "Starting the MCP servers you trusted") {
		t.Errorf("no notice:\n%s", screen(m))
	}
}

// The language servers that wait for trust are asked about at start too,
// with the project's MCP servers or alone; y lets them start and keeps
// the trust, esc leaves them waiting.
func TestLSPTrustDialog(t *testing.T) {
	for _, withMCP := range []bool{true, false} {
		var m *model
		var kept *bool
		if withMCP {
			m, _, kept = mcpModel(t, true)
		} else {
			m, _ = testModel(t)
			kept = new(bool)
		}
		trusted := false
		m.dialog = nil
		m.opts.LSPUntrusted = func() []string { return []string{"rb: ./bin/rb-ls (the project declares it)"} }
		m.opts.TrustLSP = func() error { trusted = true; return nil }
		m.offerTrust()
		m.layout()
		s := screen(m)
		if !strings.Contains(s, "These language servers start only with your say") || !strings.Contains(s, "rb: ./bin/rb-ls (the project declares it)") ||
			strings.Contains(s, "declares MCP servers") != withMCP {
			t.Errorf("with MCP servers %v, the dialog:\n%s", withMCP, s)
		}
		_, cmd := m.Update(keyPress("y"))
		_, cmd = m.Update(cmd())
		finish(m, cmd)
		if !trusted || *kept != withMCP {
			t.Errorf("with MCP servers %v: language servers trusted %v, MCP servers' trust kept %v", withMCP, trusted, *kept)
		}
		if !strings.Contains(screen(m), "The language servers start when a file of their language is read or changed") {
			t.Errorf("no notice:\n%s", screen(m))
		}
	}
	m, _ := testModel(t)
	m.opts.LSPUntrusted = func() []string { return []string{"rb: ./bin/rb-ls (the project declares it)"} }
	m.opts.TrustLSP = func() error { t.Error("trusted after esc"); return nil }
	m.offerTrust()
	do(m, "esc")
	if !strings.Contains(screen(m), "The language servers that wait for your trust were not started") {
		t.Errorf("no notice:\n%s", screen(m))
	}
}

// A server of the user's own that runs a file of the project is asked
// about with what is not trusted, and why: not the server, the file.
func TestMCPTrustDialogOwnServer(t *testing.T) {
	srv := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	t.Cleanup(srv.Close)
	mgr := mcp.New(t.Context(), mcp.Options{Servers: map[string]mcp.Server{"mine": {URL: srv.URL}}, Log: zerolog.Nop(),
		Seal: func(string) mcp.Seal { return mcp.Seal{Digest: "sha256:1", Files: []string{"srv.sh"}} }})
	mgr.Start()
	t.Cleanup(mgr.Close)
	mgr.WaitStarted(t.Context())
	m, _ := testModel(t)
	m.opts.MCP = mgr
	m.offerTrust()
	m.layout()
	s := strings.Join(strings.Fields(screen(m)), " ")
	for _, want := range []string{"These MCP servers wait for your trust, each for the reason given.",
		"your own server, but it runs srv.sh from the project, which a command in the sandbox may have written"} {
		if !strings.Contains(s, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, screen(m))
		}
	}
	if strings.Contains(s, "This project declares") {
		t.Errorf("the dialog says the project declares the user's own server:\n%s", screen(m))
	}
	typeText(m, "")
	do(m, "esc")
	typeText(m, "/mcp")
	press(m, "enter")
	if s := strings.Join(strings.Fields(screen(m)), " "); !strings.Contains(s, "mine not started, waits for your trust: your own server, but it runs srv.sh") {
		t.Errorf("/mcp shows:\n%s", screen(m))
	}
}

func TestMCPTrustDeclined(t *testing.T) {
	m, mgr, kept := mcpModel(t, true)
	do(m, "esc")
	if *kept || len(mgr.Untrusted()) != 1 || m.dialog != nil {
		t.Errorf("declined: kept %v, untrusted %v, dialog %T", *kept, mgr.Untrusted(), m.dialog)
	}
	if !strings.Contains(screen(m), "/mcp trust starts them") {
		t.Errorf("no notice:\n%s", screen(m))
	}
}

// An MCP call's approval names the server and the tool and shows the
// arguments; its card shows the server's progress while it runs.
func TestMCPApprovalAndProgress(t *testing.T) {
	m, _ := testModel(t)
	m.beginRun("file it")
	events(m, orchestrator.TurnStarted{Turn: 1},
		orchestrator.ToolStarted{Turn: 1, Index: 0, Name: "gh__create_issue", Kind: tools.KindExternal, Subject: "Crash on start"},
		approvalAsk{req: orchestrator.ApprovalRequest{Tool: "gh__create_issue", Kind: tools.KindExternal, Server: "gh", ServerTool: "create_issue",
			Subject: "Crash on start", Args: `{"title":"Crash on start","labels":["bug"]}`}, reply: make(chan orchestrator.Decision, 1)})
	s := screen(m)
	for _, want := range []string{"Allow the MCP server gh to run create_issue with these arguments?", `"title": "Crash on start",`,
		`"bug"`, "allow gh__create_issue for this session"} {
		if !strings.Contains(s, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, s)
		}
	}
	do(m, "y") // allowed once
	events(m, orchestrator.ToolProgress{Turn: 1, Index: 0, Text: "uploading · 2/3"})
	if !strings.Contains(screen(m), "gh__create_issue Crash on start · uploading · 2/3") {
		t.Errorf("the card shows no progress:\n%s", screen(m))
	}
}

// A server's failure, told in the background, is a notice.
func TestMCPNotice(t *testing.T) {
	m, _ := testModel(t)
	ch := make(chan mcp.Notice, 1)
	m.opts.MCPNotices = ch
	ch <- mcp.Notice{Server: "db", Text: "MCP server db failed: it stopped: exit status 1; starting it again", Failed: true}
	done := make(chan tea.Msg, 1)
	go func() { done <- m.listenMCP()() }()
	select {
	case msg := <-done:
		m.Update(msg)
	case <-time.After(10 * time.Second):
		t.Fatal("no notice")
	}
	if !strings.Contains(screen(m), "MCP server db failed: it stopped: exit status 1; starting it again.") {
		t.Errorf("the notice:\n%s", screen(m))
	}
}

// TestMCPStartsAfterTheFirstFrame: the UI leaves its MCP servers unstarted
// until a while after it starts, so that their processes do not compete
// with its first frame; an untrusted project's server is known at once,
// for the trust prompt.
func TestMCPStartsAfterTheFirstFrame(t *testing.T) {
	srv := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	t.Cleanup(srv.Close)
	mgr := mcp.New(t.Context(), mcp.Options{Servers: map[string]mcp.Server{
		"mine":    {URL: srv.URL},
		"project": {URL: srv.URL, Project: true},
	}, Log: zerolog.Nop()})
	t.Cleanup(mgr.Close)
	m, _ := testModel(t)
	m.opts.MCP = mgr
	states := func() map[string]mcp.State {
		out := map[string]mcp.State{}
		for _, s := range mgr.Servers() {
			out[s.Name] = s.State
		}
		return out
	}
	if got := states(); got["mine"] != mcp.StateOff || got["project"] != mcp.StateUntrusted {
		t.Fatalf("before the UI starts them: %v", got)
	}
	start := m.startMCP()
	if got := states(); got["mine"] != mcp.StateOff {
		t.Fatalf("started before its command ran: %v", got)
	}
	began := time.Now()
	start() // the tick, then the start
	if waited := time.Since(began); waited < mcpStartAfter {
		t.Errorf("started after %v, want at least %v", waited, mcpStartAfter)
	}
	mgr.WaitStarted(t.Context())
	if got := states(); got["mine"] != mcp.StateReady || got["project"] != mcp.StateUntrusted {
		t.Errorf("after the start: %v", got)
	}
}

// A server's prompts are slash commands sent as prompts, which become the
// prompt's text; /mcp lists them and the resources.
func TestMCPPromptsInUI(t *testing.T) {
	m, _, _ := mcpModel(t, false)
	if !m.isMCPPrompt("/t:greet Ada") || m.isMCPPrompt("/mcp") || m.isMCPPrompt("/x:greet") {
		t.Error("isMCPPrompt tells them apart wrongly")
	}
	p, err := m.mcpExpand()(t.Context(), orchestrator.Prompt{Text: "/t:greet Ada"})
	if err != nil || p.Text != "Say hello to Ada, in plain style." {
		t.Errorf("expanded: %q %v", p.Text, err)
	}
	typeText(m, "/mcp")
	press(m, "enter")
	s := screen(m)
	if !strings.Contains(s, "prompts: /t:greet name [style]") || !strings.Contains(s, "@t:note://readme") {
		t.Errorf("/mcp shows:\n%s", s)
	}
}
