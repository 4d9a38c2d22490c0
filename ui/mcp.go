package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
	"lathe/prompts/human"
	"lathe/tools/mcp"
)

// opMCP is an MCP server being started, stopped or its tools read again.
const opMCP = "updating the MCP servers"

// mcpNoticeMsg is what an MCP server did in the background: failed,
// stopped, came back.
type mcpNoticeMsg struct{ n mcp.Notice }

// listenMCP waits for the next notice of the MCP servers.
// mcpStartAfter is how long after the program starts the MCP servers are
// started: once the first frame is out (8 ms at most), so that starting
// their processes does not compete with it for the CPU.
const mcpStartAfter = 50 * time.Millisecond

// startMCP starts the MCP servers, in the background, after the first
// frame.
func (m *model) startMCP() tea.Cmd {
	mgr := m.opts.MCP
	if mgr == nil {
		return nil
	}
	return tea.Tick(mcpStartAfter, func(time.Time) tea.Msg {
		mgr.Start()
		return nil
	})
}

func (m *model) listenMCP() tea.Cmd {
	ch := m.opts.MCPNotices
	if ch == nil {
		return nil
	}
	done := m.ctx.Done()
	return func() tea.Msg {
		select {
		case n := <-ch:
			return mcpNoticeMsg{n}
		case <-done:
			return nil
		}
	}
}

// mcpNotice tells a server's notice, once, and listens for the next.
func (m *model) mcpNotice(msg mcpNoticeMsg) tea.Cmd {
	kind := noticeInfo
	if msg.n.Failed {
		kind = noticeWarn
	}
	m.notice(kind, "", sentence(msg.n.Text))
	return m.listenMCP()
}

// offerTrust asks, at start, whether to start the MCP servers and the
// language servers that wait for the user's trust.
func (m *model) offerTrust() {
	if m.dialog != nil {
		return
	}
	var servers []string
	fresh := true
	if m.opts.MCP != nil {
		servers, fresh = m.mcpTargets()
	}
	var lsp []string
	if m.opts.LSPUntrusted != nil {
		lsp = m.opts.LSPUntrusted()
	}
	if len(servers) > 0 || len(lsp) > 0 {
		m.dialog = newTrustDialog(servers, lsp, &m.st, m.keys)
		m.dialog.(*trustDialog).fresh = fresh
	}
}

// mcpTargets are the MCP servers that wait for trust, each with what it
// runs or where it is; fresh when they are all the project's, never
// trusted. Otherwise each says why it waits (mcp.Status.TrustReason): a
// server of the user's own is trusted as the user's config is, and waits
// only for the files of the project it runs.
func (m *model) mcpTargets() (out []string, fresh bool) {
	var waiting []mcp.Status
	fresh = true
	for _, s := range m.opts.MCP.Servers() {
		if s.State == mcp.StateUntrusted {
			waiting = append(waiting, s)
			fresh = fresh && s.Project && !s.Changed
		}
	}
	for _, s := range waiting {
		line := s.Name + ": " + s.Target
		if !fresh {
			line += " (" + s.TrustReason() + ")"
		}
		out = append(out, line)
	}
	return out, fresh
}

// trustDialog asks whether to start the servers that wait for the user's
// trust: the project's MCP servers, programs a cloned repository names,
// which must not start unasked; and the language servers that need it.
type trustDialog struct {
	dialogBase
	servers []string // "name: command args" or "name: URL", and why when not fresh
	fresh   bool     // the MCP servers are all the project's, never trusted
	lsp     []string // "name: command args (why)"
	trusted bool     // the user said to start them
}

var _ dialog = (*trustDialog)(nil)

func newTrustDialog(servers, lsp []string, st *theme, keys keyMap) *trustDialog {
	return &trustDialog{dialogBase: newDialogBase(st, keys), servers: servers, lsp: lsp, fresh: true}
}

// Update handles a key: a choice answers, and closes the dialog.
func (d *trustDialog) Update(msg tea.Msg) (dialog, tea.Cmd) {
	k, ok := d.keyOf(msg)
	switch {
	case !ok:
	case key.Matches(k, d.keys.Allow):
		d.trusted = true
		return d, d.close(d)
	case key.Matches(k, d.keys.Deny), key.Matches(k, d.keys.Interrupt):
		return d, d.close(d)
	}
	return d, nil
}

func (d *trustDialog) hint() string {
	switch {
	case len(d.servers) == 0:
		return "start the language servers?"
	case !d.fresh:
		return "start these MCP servers?"
	}
	return "start the project's MCP servers?"
}
func (d *trustDialog) cancel() {}

func (d *trustDialog) View() string {
	st, width := d.st, d.width
	lines := []string{d.rule()}
	title := "? This project declares MCP servers. Start them? They run as you, outside the sandbox."
	if !d.fresh {
		title = "? These MCP servers wait for your trust, each for the reason given. Start them? They run as you, outside the sandbox."
	}
	if len(d.servers) > 0 {
		lines = append(lines, wrap(title, width, " ", "   ", st.dialogTitle)...)
		for _, s := range d.servers {
			if d.fresh {
				lines = append(lines, indent+st.subject.Render(human.Line(human.Visible(s), max(width-4, 10))))
			} else { // its reason whole
				lines = append(lines, wrap(human.Visible(s), width, indent, indent+"  ", st.subject)...)
			}
		}
	}
	if len(d.lsp) > 0 {
		lines = append(lines, wrap("? These language servers start only with your say. Start them?", width, " ", "   ", st.dialogTitle)...)
		for _, s := range d.lsp {
			lines = append(lines, wrap(human.Visible(s), width, indent, indent+"  ", st.subject)...)
		}
	}
	return strings.Join(append(lines, joinWrapped([]string{choice(st, d.keys.Allow, "start them, and remember these servers"),
		choice(st, d.keys.Interrupt, "not now")}, st.meta.Render("  ·  "), width)...), "\n")
}

// trustAnswered starts the servers, if the user said so.
func (m *model) trustAnswered(d *trustDialog) tea.Cmd {
	if !d.trusted {
		switch {
		case len(d.servers) > 0 && d.fresh:
			m.notice(noticeInfo, "", "The project's MCP servers were not started; /mcp trust starts them.")
		case len(d.servers) > 0:
			m.notice(noticeInfo, "", "These MCP servers were not started; /mcp trust starts them.")
		}
		if len(d.lsp) > 0 {
			m.notice(noticeInfo, "", "The language servers that wait for your trust were not started; lathe asks again at the next start.")
		}
		return nil
	}
	if len(d.lsp) == 0 {
		return m.trustMCP()
	}
	var mcpCmd tea.Cmd
	if len(d.servers) > 0 {
		mcpCmd = m.trustMCP()
	}
	lspCmd := m.trustLSP()
	return func() tea.Msg {
		msg := lspCmd().(lspTrustedMsg)
		if mcpCmd != nil {
			mcp := mcpCmd().(mcpTrustedMsg)
			msg.mcp = &mcp
		}
		return msg
	}
}

// lspTrustedMsg ends the start-up question for the language servers: the
// trust was kept (or could not be); mcp, when the MCP servers were
// trusted with them.
type lspTrustedMsg struct {
	err error
	mcp *mcpTrustedMsg
}

// trustLSP lets the language servers that wait for trust start, and keeps
// the trust given in the trust file.
func (m *model) trustLSP() tea.Cmd {
	keep := m.opts.TrustLSP
	return func() tea.Msg {
		var err error
		if keep != nil {
			err = keep()
		}
		return lspTrustedMsg{err: err}
	}
}

func (m *model) lspTrusted(msg lspTrustedMsg) {
	if msg.mcp != nil {
		m.mcpTrusted(*msg.mcp)
	}
	if msg.err != nil {
		m.notice(noticeWarn, "", "The language servers start when needed, but lathe will ask again next time: "+msg.err.Error())
		return
	}
	m.notice(noticeInfo, "", "The language servers start when a file of their language is read or changed.")
}

// mcpTrustedMsg ends /mcp trust, or the start-up question: the trust was kept
// (or could not be).
type mcpTrustedMsg struct{ err error }

// trustMCP starts the project's servers and keeps the trust given, for
// these very servers, in the trust file.
func (m *model) trustMCP() tea.Cmd {
	mgr, keep := m.opts.MCP, m.opts.TrustProject
	return func() tea.Msg {
		mgr.Trust()
		var err error
		if keep != nil {
			err = keep()
		}
		return mcpTrustedMsg{err}
	}
}

func (m *model) mcpTrusted(msg mcpTrustedMsg) {
	if msg.err != nil {
		m.notice(noticeWarn, "", "The project's MCP servers start now, but lathe will ask again next time: "+msg.err.Error())
		return
	}
	m.notice(noticeInfo, "", "Starting the MCP servers you trusted; their tools join the next request once they are ready.")
}

// cmdMCP is /mcp: the servers, their state, tools and share of the
// window; /mcp on NAME, /mcp off NAME, /mcp reload, /mcp trust.
func (m *model) cmdMCP(arg string) tea.Cmd {
	mgr := m.opts.MCP
	if mgr == nil {
		m.notice(noticeInfo, "", "No MCP server is configured: add one under [mcp.servers.NAME] in your config.")
		return nil
	}
	verb, name, _ := strings.Cut(arg, " ")
	name = strings.TrimSpace(name)
	switch verb {
	case "":
		m.transcript.add(m.mcpTable())
		return nil
	case "trust":
		if len(mgr.Untrusted()) == 0 {
			m.notice(noticeInfo, "", "No project MCP server waits for trust.")
			return nil
		}
		return m.trustMCP()
	case "on", "off":
		if m.refuseBusy() {
			return nil
		}
		m.work.op = opMCP
		on := verb == "on"
		return func() tea.Msg { return mcpToggledMsg{name: name, on: on, err: mgr.SetEnabled(name, on)} }
	case "reload":
		if m.refuseBusy() {
			return nil
		}
		m.work.op = opMCP
		ctx, session := m.ctx, m.session
		return func() tea.Msg {
			mgr.Reload(ctx)
			notes, err := session.ReloadTools(ctx)
			return mcpReloadedMsg{notes: notes, err: err}
		}
	}
	m.notice(noticeWarn, "", "/mcp takes on NAME, off NAME, reload or trust")
	return nil
}

// mcpTable lists the servers: state, tools, and what their schemas take
// of the window.
func (m *model) mcpTable() *tableItem {
	item := &tableItem{title: "MCP servers"}
	numCtx := m.conn.info.NumCtx
	for _, s := range m.opts.MCP.Servers() {
		state := string(s.State)
		if s.Why != "" && s.State != mcp.StateReady {
			state += ": " + s.Why
		}
		if s.State == mcp.StateUntrusted {
			state = "not started, waits for your trust: " + s.TrustReason()
		}
		if s.State == mcp.StateReady {
			state += " · " + human.Plural(len(s.Tools), "tool") + " · ~" + human.Thousands(s.Tokens) + " tokens"
			if numCtx > 0 {
				state += fmt.Sprintf(" (%.1f%% of the window)", float64(s.Tokens)*100/float64(numCtx))
			}
		}
		item.rows = append(item.rows, [2]string{s.Name, state})
		if len(s.Prompts) > 0 {
			var cmds []string
			for _, p := range s.Prompts {
				cmds = append(cmds, p.Command())
			}
			item.rows = append(item.rows, [2]string{"", "prompts: " + strings.Join(cmds, ", ")})
		}
		if len(s.Resources) > 0 {
			var refs []string
			for _, r := range s.Resources {
				refs = append(refs, r.Mention())
			}
			item.rows = append(item.rows, [2]string{"", "resources: " + strings.Join(refs, ", ")})
		}
		if len(s.LeftOut) > 0 {
			item.rows = append(item.rows, [2]string{"", "left out (they need MCP tasks): " + strings.Join(s.LeftOut, ", ")})
		}
	}
	item.foot = "/mcp off NAME and /mcp on NAME turn a server off or on for this session; /mcp reload starts the failed ones again and reads every list anew (the next request reads the whole prompt once). " +
		"A prompt runs as its command, /server:prompt with its arguments; @server:uri in a prompt sends the resource with it."
	if len(m.opts.MCP.Untrusted()) > 0 {
		item.foot += " /mcp trust starts the servers that wait for your trust."
	}
	return item
}

// mcpToggledMsg ends /mcp on or off.
type mcpToggledMsg struct {
	name string
	on   bool
	err  error
}

func (m *model) mcpToggled(msg mcpToggledMsg) tea.Cmd {
	m.work.op = ""
	switch {
	case msg.err != nil:
		m.notice(noticeWarn, "", sentence(msg.err.Error()))
	case msg.on:
		m.notice(noticeInfo, "", fmt.Sprintf("Starting the MCP server %s; its tools join the next request once it is ready.", msg.name))
	default:
		m.notice(noticeInfo, "", fmt.Sprintf("The MCP server %s is off for this session; its tools leave the next request.", msg.name))
	}
	return m.next()
}

// mcpReloadedMsg ends /mcp reload.
type mcpReloadedMsg struct {
	notes []string
	err   error
}

func (m *model) mcpReloaded(msg mcpReloadedMsg) tea.Cmd {
	m.work.op = ""
	switch {
	case msg.err != nil:
		m.notice(noticeError, "Cannot reload the MCP tools", msg.err.Error())
	case len(msg.notes) == 0:
		m.notice(noticeInfo, "", "The MCP tools are as they were.")
	default:
		for _, n := range msg.notes {
			m.notice(noticeInfo, "", sentence(n))
		}
	}
	return m.next()
}

// isMCPPrompt reports whether text is an MCP server's prompt as a slash
// command (/server:prompt ARGS): it is sent as a prompt, which the prompt
// becomes (see mcpExpand).
func (m *model) isMCPPrompt(text string) bool {
	if m.opts.MCP == nil {
		return false
	}
	_, _, _, ok := m.opts.MCP.PromptCommand(text)
	return ok
}

// mcpExpand returns what resolves a prompt's MCP references before it is
// sent, in the run's background: a /server:prompt command becomes the
// prompt's text, and @server:uri mentions bring their resources along.
func (m *model) mcpExpand() func(context.Context, orchestrator.Prompt) (orchestrator.Prompt, error) {
	mgr := m.opts.MCP
	return func(ctx context.Context, p orchestrator.Prompt) (orchestrator.Prompt, error) {
		if mgr == nil {
			return p, nil
		}
		x, err := mgr.Expand(ctx, p.Text)
		if err != nil {
			return p, err
		}
		p.Text, p.Images = x.Text, append(slices.Clone(p.Images), x.Images...)
		return p, nil
	}
}
