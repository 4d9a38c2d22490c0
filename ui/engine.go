package ui

import (
	"context"
	"errors"
	"fmt"
	"lathe/prompts/human"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/provider"
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
	session, b, expand := m.session, m.bridge, m.mcpExpand()
	m.runs.Add(1)
	run := func() tea.Msg {
		defer m.runs.Done()
		p, err := expand(ctx, p)
		if err != nil {
			b.send(runDoneMsg{orchestrator.Result{StopReason: orchestrator.StopError}, err})
			return nil
		}
		res, err := session.RunPrompt(ctx, p, b.emit)
		b.send(runDoneMsg{res, err})
		return nil
	}
	return tea.Batch(run, m.animate())
}

// beginRun shows the prompt and sets up the run's state; it returns the
// run's context.
func (m *model) beginRun(text string) context.Context {
	m.transcript.starts = append(m.transcript.starts, runStart{len(m.transcript.items), m.session.Snapshot().Messages})
	m.sayMode()
	m.transcript.add(&userItem{text: text})
	m.transcript.scrollToBottom()
	m.transcript.selected = -1
	ctx, cancel := context.WithCancel(m.ctx)
	m.run = newRunState(m.transcript, &m.st, m.now, m.conn.info.Name, cancel)
	m.run.promptAt = len(m.transcript.items) - 1
	m.transcript.liveFrom = m.run.promptAt
	m.run.spin = spinnerStep(m.frames.count, m.frames.interval)
	return ctx
}

// engine applies a batch of what the engine sent, then listens again.
func (m *model) engine(batch engineMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, v := range batch {
		switch e := v.(type) {
		case orchestrator.TurnStarted, orchestrator.ThinkingDelta, orchestrator.TextDelta, orchestrator.ReplyRewritten,
			orchestrator.ToolStarted, orchestrator.ToolProgress, orchestrator.ToolFinished, orchestrator.PlanProposed:
			if m.run != nil {
				m.run, _ = m.run.Update(e)
			}
		case orchestrator.TurnFinished:
			m.turnFinished(e)
		case orchestrator.Spill:
			m.spilled(e)
		case orchestrator.Compacted:
			m.notice(noticeInfo, "", fmt.Sprintf("Compacted the conversation: %s summarized for the model "+
				"(%s → %s tokens). The full history is kept.", olderMessages(e.Summarized), human.Thousands(e.Before), human.Thousands(e.After)))
		case compactDoneMsg:
			m.compacted(e)
			cmds = append(cmds, m.next())
		case orchestrator.Warning:
			m.notice(noticeWarn, "", e.Text)
		case orchestrator.ToolsChanged:
			for _, n := range e.Notes {
				m.notice(noticeInfo, "", sentence(n))
			}
		case orchestrator.HookRan:
			m.hookRan(e)
		case approvalAsk:
			m.openDialog(newApprovalDialog(e, m.opts.Dir, &m.st, m.keys))
		case planAsk:
			m.openDialog(newPlanDialog(e, &m.st, m.keys))
		case startAsk:
			m.openDialog(newStartDialog(e, &m.st, m.keys))
		case orchestrator.PlanUpdated:
			m.planUpdated(e)
		case orchestrator.ModeChanged:
			m.modeChanged(e)
		case runDoneMsg:
			cmds = append(cmds, m.runFinished(e))
		case pullProgressMsg:
			if m.conn.pull != nil {
				m.conn.pull, _ = m.conn.pull.Update(e)
			}
		case pullDoneMsg:
			cmds = append(cmds, m.pulled(e))
		case indexProgressMsg:
			m.index, _ = m.index.Update(e)
		case indexDoneMsg:
			cmds = append(cmds, m.indexed(e))
		}
	}
	return tea.Batch(append(cmds, m.bridge.wait(), m.animate())...)
}

// compacted ends a /compact: a conversation too short to have an older
// part is no failure.
func (m *model) compacted(e compactDoneMsg) {
	m.work.op, m.status.note = "", ""
	switch {
	case errors.Is(e.err, orchestrator.ErrNothingToCompact):
		m.notice(noticeInfo, "", "Nothing to compact yet.")
	case e.err != nil:
		m.notice(noticeError, "Cannot compact", e.err.Error())
	}
}

// turnFinished ends the turn's stream and keeps what the server said of
// its speed.
func (m *model) turnFinished(e orchestrator.TurnFinished) {
	if m.run != nil {
		m.run, _ = m.run.Update(e)
	}
	m.machine.usage = usage{cached: -1, load: e.Timing.Load, tokPerSec: e.Timing.DecodeRate}
	if e.PromptTokens > 0 {
		m.machine.usage.cached = e.Timing.CachedTokens * 100 / e.PromptTokens
	}
}

// openDialog shows a question of the engine, marking the card of the
// call that waits for it.
func (m *model) openDialog(d dialog) {
	if m.run == nil || m.run.stopping {
		d.cancel()
		return
	}
	m.run.refresh() // no frames run while it waits: what came before shows now
	m.yieldAsk()
	m.dialog = d
	m.run.setWaiting(true)
}

// runFinished closes the run: what streamed stays, and how it ended is
// said unless it simply answered.
func (m *model) runFinished(d runDoneMsg) tea.Cmd {
	r := m.run
	r.end()
	if _, ok := m.dialog.(mcpDialog); !ok {
		m.dialog = nil // a server's question is not the run's: it stays
	}
	r.cancel()
	m.run, m.status.note = nil, ""
	m.syncMode()
	m.planLeftUnfinished(d.res.StopReason)
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
			// model that can see them, and the transcript says so.
			m.input.set(r.prompt.Text)
			m.input.attach(r.prompt.Images...)
			m.markUnsent(r.promptAt)
		}
	}
	m.shedTurns()
	return cmd
}

// frames paces what moves on the screen: the frames that render streamed
// text and turn the spinners while something runs, and the renderer's
// own rate (see pace.go).
type frames struct {
	count    int
	ticking  bool          // a frame is on its way
	interval time.Duration // between two frames: a second / Options.FPS
	pace     pacer
	program  *tea.Program // set before it runs, for the pacer
}

// animating reports whether frames are needed: while a pull or a request
// runs, but for a question to the user, which holds the request still.
func (m *model) animating() bool {
	return m.run != nil && m.dialog == nil || m.conn.phase == phasePulling
}

// animate schedules the next frame, once.
func (m *model) animate() tea.Cmd {
	if m.frames.ticking || !m.animating() {
		return nil
	}
	m.frames.ticking = true
	return tea.Tick(m.frames.interval, func(time.Time) tea.Msg { return frameMsg{} })
}

// onFrame renders what changed since the last frame and turns the
// spinners.
func (m *model) onFrame() tea.Cmd {
	m.frames.ticking = false
	m.frames.count++
	if r := m.run; r != nil {
		r.refresh()
		r.tick(spinnerStep(m.frames.count, m.frames.interval))
	}
	return m.animate()
}

// spinnerStep is the step a spinner shows at frame: one step each 100 ms
// or each frame, whichever is slower.
func spinnerStep(frame int, interval time.Duration) int {
	return frame / max(1, int(100*time.Millisecond/interval))
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
