package ui

import (
	"context"
	"errors"
	"fmt"
	"lathe/prompts/human"
	"lathe/ui/markdown"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/tools"
)

// startRun sends a prompt to the model in the background; its events come
// back through the bridge, the run's end last.
func (m *model) startRun(p orchestrator.Prompt) tea.Cmd {
	shown := p.Text
	for i, img := range p.Images {
		shown += "\n" + chip(i, img)
	}
	ctx := m.beginRun(shown)
	m.run.prompt = p
	session, b := m.session, m.bridge
	m.runs.Add(1)
	run := func() tea.Msg {
		defer m.runs.Done()
		res, err := session.RunPrompt(ctx, p, b.emit)
		b.send(runDone{res, err})
		return nil
	}
	return tea.Batch(run, m.animate())
}

// beginRun shows the prompt and sets up the run's state; it returns the
// run's context.
func (m *model) beginRun(text string) context.Context {
	m.sayMode()
	m.transcript.add(&userItem{text: text})
	m.transcript.scrollToBottom()
	m.transcript.selected = -1
	ctx, cancel := context.WithCancel(m.ctx)
	m.run = &runState{cancel: cancel, answer: -1, thinking: -1, plan: -1, cards: map[int]int{}, dirty: map[int]bool{}}
	return ctx
}

// engine applies a batch of what the engine sent, then listens again.
func (m *model) engine(batch engineMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, v := range batch {
		switch e := v.(type) {
		case orchestrator.TurnStarted:
			m.turnStarted(e)
		case orchestrator.Spill:
			m.spilled(e)
		case orchestrator.ThinkingDelta:
			m.thinkingDelta(e)
		case orchestrator.TextDelta:
			m.textDelta(e)
		case orchestrator.ToolStarted:
			m.toolStarted(e)
		case orchestrator.ToolFinished:
			m.toolFinished(e)
		case orchestrator.TurnFinished:
			m.turnFinished(e)
		case orchestrator.ReplyRewritten:
			m.replyRewritten(e)
		case orchestrator.Compacted:
			m.notice(noticeInfo, "", fmt.Sprintf("Compacted the conversation: %s summarized for the model "+
				"(%s → %s tokens). The full history is kept.", olderMessages(e.Summarized), human.Thousands(e.Before), human.Thousands(e.After)))
		case compactDone:
			m.compacted(e)
			cmds = append(cmds, m.next())
		case orchestrator.Warning:
			m.notice(noticeWarn, "", e.Text)
		case orchestrator.ToolsChanged:
			for _, n := range e.Notes {
				m.notice(noticeInfo, "", sentence(n))
			}
		case orchestrator.ToolProgress:
			m.toolProgress(e)
		case approvalAsk:
			m.openDialog(newApprovalDialog(e, m.approver, m.opts.Dir))
		case planAsk:
			m.openDialog(newPlanDialog(e, m))
		case startAsk:
			m.openDialog(newStartDialog(e))
		case orchestrator.PlanProposed:
			m.planProposed(e)
		case orchestrator.PlanUpdated:
			m.planUpdated(e)
		case orchestrator.ModeChanged:
			m.modeChanged(e)
		case runDone:
			cmds = append(cmds, m.runFinished(e))
		case pullProgress:
			if m.pull != nil {
				m.pull.progress(e, m.now())
			}
		case pullDone:
			cmds = append(cmds, m.pulled(e))
		case indexProgress:
			m.index.done, m.index.total = e.done, e.total
		case indexDone:
			cmds = append(cmds, m.indexed(e))
		}
	}
	return tea.Batch(append(cmds, m.bridge.wait(), m.animate())...)
}

// compacted ends a /compact: a conversation too short to have an older
// part is no failure.
func (m *model) compacted(e compactDone) {
	m.op, m.note = "", ""
	switch {
	case errors.Is(e.err, orchestrator.ErrNothingToCompact):
		m.notice(noticeInfo, "", "Nothing to compact yet.")
	case e.err != nil:
		m.notice(noticeError, "Cannot compact", e.err.Error())
	}
}

func (m *model) turnStarted(e orchestrator.TurnStarted) {
	if r := m.run; r != nil {
		r.turn = e.Turn
		r.answer, r.thinking, r.cards = -1, -1, map[int]int{}
		r.asking, r.streamed, r.heard, r.waitFor = true, false, m.now(), e.Waiting()
	}
}

// heard notes a token of the reply: a sign of life.
func (m *model) heard() {
	if r := m.run; r != nil {
		r.streamed, r.heard = true, m.now()
	}
}

// replied notes the end of the reply's stream: its calls run next.
func (m *model) replied() {
	if r := m.run; r != nil {
		r.asking = false
	}
}

func (m *model) thinkingDelta(e orchestrator.ThinkingDelta) {
	r := m.run
	if r == nil {
		return
	}
	r.arrived = true
	m.heard()
	if r.thinking < 0 {
		m.transcript.addStreamed(&thinkingItem{started: m.now()})
		r.thinking = len(m.transcript.items) - 1
	}
	m.transcript.items[r.thinking].(*thinkingItem).add(e.Text)
	r.dirty[r.thinking] = true
}

func (m *model) textDelta(e orchestrator.TextDelta) {
	r := m.run
	if r == nil {
		return
	}
	m.endThinking()
	r.arrived = true
	m.heard()
	if r.answer < 0 {
		m.transcript.addStreamed(&answerItem{md: markdown.NewDoc(m.markdown())})
		r.answer = len(m.transcript.items) - 1
	}
	// Tabs have no width on the terminal's cell grid: code indented with
	// them would lose its indentation.
	m.transcript.items[r.answer].(*answerItem).md.Append(tabsToSpaces(e.Text))
	r.dirty[r.answer] = true
}

// markdown returns the renderer for the current style, created on first
// use: no markdown is parsed before an answer needs it.
func (m *model) markdown() *markdown.Renderer {
	if m.md == nil || m.md.Style() != m.st.markdown {
		m.md = markdown.NewRenderer(m.st.markdown)
	}
	return m.md
}

// endThinking folds the turn's thinking once something else comes.
func (m *model) endThinking() {
	r := m.run
	if r == nil || r.thinking < 0 {
		return
	}
	if t := m.transcript.items[r.thinking].(*thinkingItem); !t.done {
		t.finish(m.now())
		r.dirty[r.thinking] = true
	}
}

// endAnswer completes the turn's answer: text after this starts a new one,
// below whatever comes in between.
func (m *model) endAnswer() {
	r := m.run
	if r == nil || r.answer < 0 {
		return
	}
	m.transcript.items[r.answer].(*answerItem).md.Finish()
	r.dirty[r.answer] = true
	r.answer = -1
}

// replyRewritten replaces the turn's streamed text by what remains of it
// once the tool calls written in it were taken out.
func (m *model) replyRewritten(e orchestrator.ReplyRewritten) {
	r := m.run
	if r == nil || r.answer < 0 {
		return
	}
	md := markdown.NewDoc(m.markdown())
	md.Append(tabsToSpaces(e.Content))
	m.transcript.items[r.answer].(*answerItem).md = md
	r.dirty[r.answer] = true
}

func (m *model) toolStarted(e orchestrator.ToolStarted) {
	if m.run == nil || e.Kind == tools.KindUI {
		return // the plan's checklist shows it; a failure gets a card
	}
	m.addCard(e)
}

// addCard shows a call that started.
func (m *model) addCard(e orchestrator.ToolStarted) {
	r := m.run
	r.arrived = true
	m.replied()
	m.endThinking()
	m.endAnswer()
	m.transcript.add(&toolCard{start: e})
	r.cards[e.Index] = len(m.transcript.items) - 1
}

// toolProgress shows on its card how far a running call got.
func (m *model) toolProgress(e orchestrator.ToolProgress) {
	r := m.run
	if r == nil || r.turn != e.Turn {
		return
	}
	if i, ok := r.cards[e.Index]; ok {
		if c := m.transcript.items[i].(*toolCard); c.running() {
			c.setProgress(e.Text)
			r.dirty[i] = true
		}
	}
}

func (m *model) toolFinished(e orchestrator.ToolFinished) {
	r := m.run
	if r == nil {
		return
	}
	if e.Kind == tools.KindUI && e.Outcome != orchestrator.OutcomeOK {
		m.addCard(orchestrator.ToolStarted{Turn: e.Turn, Index: e.Index, ID: e.ID, Name: e.Name, Kind: e.Kind, Subject: e.Subject})
	}
	if i, ok := r.cards[e.Index]; ok {
		m.transcript.items[i].(*toolCard).finish(e)
		r.dirty[i] = true
	}
}

func (m *model) turnFinished(e orchestrator.TurnFinished) {
	m.replied()
	m.endThinking()
	m.endAnswer()
	m.usage = usage{cached: -1, load: e.Timing.Load, tokPerSec: e.Timing.DecodeRate}
	if e.PromptTokens > 0 {
		m.usage.cached = e.Timing.CachedTokens * 100 / e.PromptTokens
	}
}

// openDialog shows a question of the engine, marking the card of the
// call that waits for it.
func (m *model) openDialog(d dialog) {
	if m.run == nil || m.run.stopping {
		d.cancel()
		return
	}
	m.refreshDirty() // no frames run while it waits: what came before shows now
	m.dialog = d
	m.setWaiting(true)
}

// setWaiting marks the card of the call being approved.
func (m *model) setWaiting(w bool) {
	r := m.run
	if r == nil {
		return
	}
	for _, i := range r.cards {
		if c := m.transcript.items[i].(*toolCard); c.running() {
			c.setWaiting(w)
			m.transcript.changed(i)
		}
	}
}

// denied keeps the reason the user gave for denying req on its card.
func (m *model) denied(req orchestrator.ApprovalRequest, reason string) {
	r := m.run
	if r == nil {
		return
	}
	for _, i := range r.cards {
		if c := m.transcript.items[i].(*toolCard); c.waiting && c.start.Name == req.Tool && c.start.Subject == req.Subject {
			c.denial = reason
			r.dirty[i] = true
		}
	}
}

// runFinished closes the run: what streamed stays, and how it ended is
// said unless it simply answered.
func (m *model) runFinished(d runDone) tea.Cmd {
	m.endThinking()
	m.endAnswer()
	m.refreshDirty()
	m.dialog = nil
	r := m.run
	r.cancel()
	m.run, m.note = nil, ""
	m.syncMode()
	m.offerFit()
	cmd := tea.Batch(m.askTitle(d.res.StopReason), m.next(), m.startIndex())
	why := sentence(d.res.Explain(m.opts.Engine.Config.Limits))
	switch d.res.StopReason {
	case orchestrator.StopDone, orchestrator.StopPlanned:
	case orchestrator.StopInterrupted:
		if r.arrived {
			m.notice(noticeInfo, "", "⊘ Interrupted. What arrived is kept; the next prompt continues the conversation.")
		} else {
			m.notice(noticeInfo, "", "⊘ Interrupted.")
		}
	case orchestrator.StopEmpty:
		m.notice(noticeError, "", why)
	case orchestrator.StopMaxTurns:
		m.notice(noticeWarn, "", why+" Send a prompt to continue.")
	default:
		if d.res.StopReason.Limit() {
			m.notice(noticeWarn, "", why)
			break
		}
		msg := "the request failed"
		if d.err != nil {
			msg = d.err.Error()
		}
		m.notice(noticeError, "", msg)
		if errors.Is(d.err, provider.ErrNoVision) && m.input.value() == "" {
			// Nothing was sent: the prompt and its images wait for a
			// model that can see them.
			m.input.set(r.prompt.Text)
			m.input.attach(r.prompt.Images...)
		}
	}
	return cmd
}

// animating reports whether frames are needed: while a pull or a request
// runs, but for a question to the user, which holds the request still.
func (m *model) animating() bool {
	return m.run != nil && m.dialog == nil || m.phase == phasePulling
}

// animate schedules the next frame, once.
func (m *model) animate() tea.Cmd {
	if m.ticking || !m.animating() {
		return nil
	}
	m.ticking = true
	return tea.Tick(m.interval, func(time.Time) tea.Msg { return frameMsg{} })
}

// onFrame renders what changed since the last frame and turns the
// spinners.
func (m *model) onFrame() tea.Cmd {
	m.ticking = false
	m.frame++
	m.refreshDirty()
	if r := m.run; r != nil {
		for _, i := range r.cards {
			if m.transcript.items[i].(*toolCard).tick(spinnerStep(m.frame, m.interval)) {
				m.transcript.changed(i)
			}
		}
	}
	return m.animate()
}

// spinnerStep is the step a spinner shows at frame: one step each 100 ms
// or each frame, whichever is slower.
func spinnerStep(frame int, interval time.Duration) int {
	return frame / max(1, int(100*time.Millisecond/interval))
}

// refreshDirty re-renders the items that changed since the last frame.
func (m *model) refreshDirty() {
	r := m.run
	if r == nil {
		return
	}
	for i := range r.dirty {
		m.transcript.changed(i)
		delete(r.dirty, i)
	}
}

// sentence makes s a sentence: a capital first, a full stop last.
func sentence(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	s = strings.ToUpper(string(r[0])) + string(r[1:])
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// olderMessages is how many older messages a compaction summarized, with
// its verb: "1 older message is", "3 older messages are".
func olderMessages(n int) string {
	if n == 1 {
		return "1 older message is"
	}
	return human.Plural(n, "older message") + " are"
}
