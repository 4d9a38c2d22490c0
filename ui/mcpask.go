package ui

import (
	"context"
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"lathe/prompts/human"
	"lathe/tools/mcp"
)

// mcpAsk is what an MCP server asks of the user, waiting for the answer:
// a form to fill or a URL to open (elicit), or whether the model may
// answer its messages (sample).
type mcpAsk struct {
	// ctx ends when the server no longer waits: the question is then
	// withdrawn.
	ctx    context.Context
	elicit *mcp.Elicitation
	sample *mcp.SamplingRequest
	reply  chan any      // buffered: mcp.ElicitAnswer or mcp.SamplingDecision
	done   chan struct{} // closed once answered
}

// mcpAsker is the UI's mcp.Asker: a question goes to the UI as a message,
// and its answer comes back through the question.
type mcpAsker struct {
	asks  chan mcpAsk
	queue []mcpDialog // the questions waiting for the dialog's place, oldest first
}

var _ mcp.Asker = (*mcpAsker)(nil)

// mcpDialog is a dialog that answers an MCP server.
type mcpDialog interface {
	dialog
	question() mcpAsk
	// answer sends the server the user's answer, once the dialog closed.
	answer()
}

func newMCPAsker() *mcpAsker { return &mcpAsker{asks: make(chan mcpAsk)} }

// Elicit implements mcp.Asker.
func (a *mcpAsker) Elicit(ctx context.Context, q mcp.Elicitation) mcp.ElicitAnswer {
	if r, ok := a.put(ctx, mcpAsk{elicit: &q}).(mcp.ElicitAnswer); ok {
		return r
	}
	return mcp.ElicitAnswer{Action: mcp.ActionCancel}
}

// ApproveSampling implements mcp.Asker.
func (a *mcpAsker) ApproveSampling(ctx context.Context, q mcp.SamplingRequest) mcp.SamplingDecision {
	r, _ := a.put(ctx, mcpAsk{sample: &q}).(mcp.SamplingDecision)
	return r
}

// put hands the UI the question and waits, within ctx, for its answer;
// nil when ctx ended first.
func (a *mcpAsker) put(ctx context.Context, ask mcpAsk) any {
	ask.ctx, ask.reply, ask.done = ctx, make(chan any, 1), make(chan struct{})
	select {
	case a.asks <- ask:
	case <-ctx.Done():
		return nil
	}
	select {
	case r := <-ask.reply:
		return r
	case <-ctx.Done():
		return nil
	}
}

type (
	// mcpAskMsg carries a question of an MCP server.
	mcpAskMsg struct{ ask mcpAsk }
	// mcpAskGoneMsg: the server stopped waiting for the answer to ask.
	mcpAskGoneMsg struct{ ask mcpAsk }
)

// listenAsks waits for the next question of the MCP servers.
func (m *model) listenAsks() tea.Cmd {
	if m.mcpAsk == nil {
		return nil
	}
	asks, done := m.mcpAsk.asks, m.ctx.Done()
	return func() tea.Msg {
		select {
		case a := <-asks:
			return mcpAskMsg{a}
		case <-done:
			return nil
		}
	}
}

// mcpAsked queues a server's question for the dialog's place, and watches
// for it to be withdrawn.
func (m *model) mcpAsked(msg mcpAskMsg) tea.Cmd {
	ask := msg.ask
	var d mcpDialog
	if ask.elicit != nil {
		d = newElicitDialog(ask, &m.st, m.keys)
	} else {
		d = newSamplingDialog(ask, &m.st, m.keys)
	}
	m.mcpAsk.queue = append(m.mcpAsk.queue, d)
	m.nextAsk()
	gone := func() tea.Msg {
		select {
		case <-ask.ctx.Done():
			return mcpAskGoneMsg{ask}
		case <-ask.done:
			return nil
		}
	}
	return tea.Batch(m.listenAsks(), gone)
}

// nextAsk shows the oldest question waiting, when the dialog's place is
// free.
func (m *model) nextAsk() {
	if m.mcpAsk == nil || m.dialog != nil || len(m.mcpAsk.queue) == 0 {
		return
	}
	m.dialog = m.mcpAsk.queue[0]
	m.mcpAsk.queue = m.mcpAsk.queue[1:]
}

// mcpAskGone withdraws a question the server no longer waits for.
func (m *model) mcpAskGone(msg mcpAskGoneMsg) {
	if d, ok := m.dialog.(mcpDialog); ok && d.question().done == msg.ask.done {
		m.dialog = nil
		m.nextAsk()
		return
	}
	m.mcpAsk.queue = slices.DeleteFunc(m.mcpAsk.queue, func(d mcpDialog) bool { return d.question().done == msg.ask.done })
}

// yieldAsk takes a server's question out of the dialog's place, back to
// the head of the queue, for a question of the engine's (a call to
// approve), which the run waits on.
func (m *model) yieldAsk() {
	if d, ok := m.dialog.(mcpDialog); ok {
		m.mcpAsk.queue = append([]mcpDialog{d}, m.mcpAsk.queue...)
		m.dialog = nil
	}
}

// answerAsk sends the server the answer of a dialog closed.
func answerAsk(ask mcpAsk, answer any) {
	ask.reply <- answer
	close(ask.done)
}

// mcpAnswered sends the server the answer of a dialog closed, and tells
// the user what follows from it: a page to open.
func (m *model) mcpAnswered(d mcpDialog) tea.Cmd {
	d.answer()
	if e, ok := d.(*elicitDialog); ok && e.q.URL != "" && e.result.Action == mcp.ActionAccept {
		m.notice(noticeInfo, "", fmt.Sprintf("Open %s to do what the MCP server %s asks; it goes on once done there.",
			human.Visible(e.q.URL), human.Visible(e.q.Server)))
	}
	return nil
}

// forgetMCPGrants forgets what the servers were allowed for the session
// left.
func (m *model) forgetMCPGrants() {
	if m.opts.MCP != nil {
		m.opts.MCP.ForgetGrants()
	}
}
