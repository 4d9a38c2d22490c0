package ui

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"lathe/config"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/hooks"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	custom "lathe/prompts/commands"
	"lathe/tools/mcp"
	"lathe/tools/skill"
)

// Options is what the interactive mode runs with.
type Options struct {
	// Engine configures each session; the TUI adds its own approver in
	// front of Engine.Approver's place.
	Engine orchestrator.Options
	// Puller downloads a missing model; nil when the server cannot.
	Puller provider.Puller
	// Suggested is the model to offer pulling when none is installed;
	// empty for a server lathe cannot pull into (OpenAI-compatible), for
	// which nothing is offered.
	Suggested string
	// Server names the model's server on screens ("http://127.0.0.1:11434").
	Server string
	// Catalog lists and loads saved sessions; nil when none are kept.
	Catalog session.Catalog
	// Resume is a saved session to continue; nil starts a new one.
	Resume *session.Saved
	// ResumeLoader, when set, reads Resume's messages, compaction and
	// modes: Resume is then only the session's header, and the rest is
	// read in the background, so that the first frame does not wait for a
	// long history.
	ResumeLoader orchestrator.ResumeLoader
	Dir          string // the working directory
	Home         string // shown as "~" in the status line
	// NoColor picks a markdown style without colour; the renderer drops
	// colours by itself.
	NoColor bool
	// clipboard replaces, in tests, the tools that read the clipboard.
	clipboard *clipboardSetup
	// Input and Output are the terminal's; nil means the process's own.
	// Once the program ends, a hint to resume the session goes to Output
	// (none when it is nil). The size is for tests.
	Input         io.Reader
	Output        io.Writer
	Width, Height int
	// Environ is the environment, from which the colour profile is read.
	Environ []string
	// FPS is how many frames a second are drawn at most (1 to 120); zero
	// means config.DefaultFPS.
	FPS int
	// Warnings are what lathe noticed at start that does not stop it (a
	// project's approval rules ignored, AGENTS.md cut): shown first.
	Warnings []string
	// Indexer, when set, brings the code index up to date in the
	// background while the model is idle.
	Indexer Indexer
	// Memory, when set, is what /search and /memory reach.
	Memory Memory
	// MCP runs the MCP servers, whose tools Engine.Extra offers; nil when
	// none is configured. MCPNotices are what they do in the background.
	MCP        *mcp.Manager
	MCPNotices <-chan mcp.Notice
	// TrustProject keeps the user's trust in the project's MCP servers,
	// for the next start.
	TrustProject func() error
	// LSPUntrusted says which language servers wait for the user's trust,
	// each "name: command (why)"; TrustLSP lets them start, as they are
	// now, and keeps the trust for the next start. Nil when there are
	// none to ask about.
	LSPUntrusted func() []string
	TrustLSP     func() error
	// Intro is said first, before the warnings: what the demo is.
	Intro string
	// Ephemeral says the session is not kept once lathe ends (--demo's):
	// no hint to resume it.
	Ephemeral bool
	// Hooks runs the configured hooks (Engine.Hooks is it); nil when none
	// is. TrustHooks keeps the user's trust in the project's, for the
	// next start.
	Hooks      *hooks.Runner
	TrustHooks func() error
	// Commands are the custom commands (their files), each /NAME;
	// CommandPrompt makes the prompt one stands for with its arguments.
	Commands      []custom.Command
	CommandPrompt func(c custom.Command, args string) orchestrator.Prompt
	// Skills are the Agent Skills found; nil when none are looked for.
	Skills *skill.Catalog
}

// model is the root of the TUI: it routes messages to its handlers and
// its components, owns the layout, and holds the session.
type model struct {
	ctx      context.Context
	opts     Options
	keys     keyMap
	st       theme
	bridge   *bridge         // the engine's events, in order
	approver *dialogApprover // asks the user about calls and plans
	mcpAsk   *mcpAsker       // puts the MCP servers' questions to the user; nil without servers
	session  *orchestrator.Session
	// unread is the header of the session to resume whose history is
	// still to be read (Options.ResumeLoader), by the first prepare.
	unread *session.Saved
	// framed is closed once the first frame is made (viewed), and the
	// history of a session to resume is read after it: reading a long
	// one would slow the first frame down.
	framed chan struct{}
	viewed bool
	// resuming is what the empty transcript says while the history of the
	// session to resume is not shown yet; "" otherwise.
	resuming string
	hooks    hooksState
	slash    []slashCommand // every slash command: lathe's own, then the custom ones

	width, height int
	conn          connection // where the session stands with the model's server

	// The screen, top to bottom: the transcript; a dialog, a list or the
	// input; the status line.
	transcript *transcript
	dialog     dialog
	panel      panel // a list to choose from
	input      input
	bottomView string // what is below the transcript, rendered by layout
	status     statusBar

	run     *runState      // the prompt being answered
	runs    sync.WaitGroup // the work quitting waits for
	work    work           // what is under way besides a request, and the prompts queued
	machine machine        // the model loaded in the background, a window that fits, the speed
	mode    modeState
	older   *olderPages // what is left to show of a resumed session; nil for none
	index   indexState  // the background indexing, and the gate it waits on
	title   sessionTitle
	frames  frames
	facts   int // how many facts are remembered here, for the welcome
}

func newModel(ctx context.Context, opts Options) *model {
	st := newTheme(opts.NoColor, true)
	m := &model{
		ctx:    ctx,
		opts:   opts,
		keys:   newKeyMap(),
		st:     st,
		width:  max(opts.Width, 20),
		height: max(opts.Height, 10),
		framed: make(chan struct{}),
	}
	if m.opts.Engine.Now == nil {
		m.opts.Engine.Now = time.Now
	}
	m.frames.interval = time.Second / time.Duration(cmp.Or(opts.FPS, config.DefaultFPS))
	m.bridge = newBridge(m.frames.interval)
	// The renderer starts fast (tui.go): the first idle check slows it.
	m.frames.pace.frame, m.frames.pace.echo = m.frames.interval, echoInterval
	m.index.gate = newIdleGate()
	m.approver = &dialogApprover{b: m.bridge}
	if opts.MCP != nil {
		m.mcpAsk = newMCPAsker()
		opts.MCP.SetAsker(m.mcpAsk)
	}
	m.transcript = newTranscript(&m.st, m.keys)
	m.transcript.shifted = m.shiftIndices
	m.input = newInput(&m.st, m.keys)
	if opts.Intro != "" {
		m.notice(noticeInfo, "", opts.Intro)
	}
	m.slash = append(commands(), customCommands(opts.Commands)...)
	m.input.table = m.slash
	for _, w := range opts.Warnings {
		m.notice(noticeWarn, "", w)
	}
	m.session = m.newSession()
	m.syncMode()
	m.mode.item, m.mode.shown = -1, "build" // a mode chosen at start is told with the first prompt
	m.offerTrust()
	m.offerHooksTrust()
	if saved := opts.Resume; saved != nil {
		_ = m.session.ResumeFrom(*saved) // a new session is idle
		m.title.asked = true
		m.resuming = fmt.Sprintf("Resuming %q: its history shows once it is read and the model's server has answered.",
			cmp.Or(saved.Title, session.ShortID(saved.ID)))
		if opts.ResumeLoader != nil {
			m.unread = saved
		}
	}
	m.layout()
	return m
}

// now is the time: the engine's clock, which tests set.
func (m *model) now() time.Time { return m.opts.Engine.Now() }

// newSession builds a session that asks the user what the config does
// not allow.
func (m *model) newSession() *orchestrator.Session {
	o := m.opts.Engine
	o.Approver = m.approvals()
	o.Previews = true
	o.Reviewer = m.approver
	return orchestrator.New(o)
}

// approvals decides on calls: the config's rules (--yes included), then
// the user, through the dialog. A command the sandbox blocked something
// of the last time it ran goes to the user whatever the rules say.
func (m *model) approvals() orchestrator.Approver {
	a := m.opts.Engine.Config.Approval
	return orchestrator.Rules{All: a.All, Tools: a.Tools, Commands: a.Commands, Next: m.approver}
}

// Init asks Ollama about the model, listens to the engine, asks the
// terminal for its background colour, and reads the prompts of earlier
// sessions.
func (m *model) Init() tea.Cmd {
	return tea.Batch(m.prepare(), m.bridge.wait(), tea.RequestBackgroundColor, m.loadPrompts(), m.countFacts(),
		m.listenMCP(), m.startMCP(), m.listenAsks())
}

// promptHistory is how many prompts of earlier sessions Up can recall.
const promptHistory = 500

// promptsMsg carries the prompts of earlier sessions in the directory,
// newest first.
type promptsMsg struct{ prompts []string }

// loadPrompts reads the prompts of earlier sessions in the directory, for
// Up to recall; nil when no sessions are kept.
func (m *model) loadPrompts() tea.Cmd {
	catalog := m.opts.Catalog
	if catalog == nil {
		return nil
	}
	ctx, dir, log := m.ctx, m.opts.Dir, m.opts.Engine.Log
	return func() tea.Msg {
		list, err := catalog.Prompts(ctx, dir, promptHistory)
		if err != nil {
			log.Warn().Err(err).Msg("prompt history")
			return nil
		}
		return promptsMsg{list}
	}
}

// View joins what Update prepared: the transcript window, the bottom
// panel (input, dialog or picker), and the status line.
func (m *model) View() tea.View {
	if !m.viewed {
		m.viewed = true
		close(m.framed)
	}
	var content string
	if screen, ok := m.screen(); ok {
		content = screen
	} else {
		content = m.transcriptView() + "\n" + m.bottomView + "\n" + m.statusLine()
	}
	v := tea.NewView(content)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "lathe · " + filepath.Base(m.opts.Dir)
	if m.title.text != "" {
		v.WindowTitle = "lathe · " + m.title.text
	}
	return v
}

// bottom is the panel under the transcript.
func (m *model) bottom() string {
	room := m.height / 2
	switch {
	case m.dialog != nil:
		// What is asked about takes the screen but for a few lines of
		// the transcript above, the card waiting among them.
		room = max(room, m.height-8)
		m.dialog.SetSize(m.width, room)
		return m.dialog.View()
	case m.panel != nil:
		m.panel.SetSize(m.width, room)
		return m.panel.View()
	}
	var lines []string
	if m.run != nil {
		if w := m.run.View(); w != "" {
			lines = append(lines, w)
		}
	}
	lines = append(append(lines, m.input.ruleView()), m.queueView()...)
	in := m.input.View()
	// The popup leaves a line of transcript and the status line, and takes
	// at most half the screen.
	rows := min(m.height/2-2, m.height-2-len(lines)-lipgloss.Height(in))
	lines = append(lines, m.input.popupView(rows)...)
	return strings.Join(append(lines, in), "\n")
}

// layout sizes the parts after anything that may change them, and renders
// the bottom panel for View.
func (m *model) layout() {
	m.input.SetSize(m.width, 0)
	m.bottomView = m.bottom()
	m.transcript.SetSize(m.width-2, m.height-strings.Count(m.bottomView, "\n")-2)
	m.transcript.settle()
}

// notice adds a notice to the transcript, unless the transcript ends
// with the same one: a warning repeated, a command run twice.
func (m *model) notice(kind noticeKind, title, text string) {
	if n := len(m.transcript.items); n > 0 {
		if last, ok := m.transcript.items[n-1].(*noticeItem); ok && last.kind == kind && last.title == title && last.text == text {
			return
		}
	}
	m.transcript.add(&noticeItem{kind: kind, title: title, text: text})
}

// quit ends the program; a running request is cancelled first.
func (m *model) quit() tea.Cmd {
	if m.run != nil {
		m.run.cancel()
	}
	return tea.Quit
}
