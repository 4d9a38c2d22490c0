package ui

import (
	"fmt"
	"lathe/prompts/human"

	"lathe/orchestrator"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/plan"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/prompts"
	"lathe/tools"
)

// showHistory fills the transcript with a restored session: prompts,
// answers, folded thinking and tool cards, as they were shown when they
// happened, and a mark where older messages were summarized for the model.
// Only its last messages are shown at first, below a line that stands for
// the others: they are read a page at a time as the user scrolls up to
// them (see pageIn), so that a resume costs its last screen.
func (m *model) showHistory(h *orchestrator.History) {
	m.resuming = ""
	m.transcript.clear()
	m.older = nil
	msgs := h.Messages
	from := 0
	if len(msgs) > 0 {
		from = pageFrom(msgs, len(msgs)-shownAtResume)
		if at := m.transcript.revealAt; at >= 0 && at >= msgs[0].Seq {
			from = pageFrom(msgs, min(from, at-msgs[0].Seq))
		}
		if from > 0 || msgs[0].Seq > 0 && h.Older != nil {
			m.older = &olderPages{h: h, first: msgs[from].Seq, rest: msgs[:from], reveal: -1}
			m.transcript.add(&olderItem{})
		}
	}
	if from < len(msgs) {
		items, seqs := m.pageItems(h, msgs[from:], true)
		for seq, i := range seqs {
			seqs[seq] = i + len(m.transcript.items)
		}
		for _, it := range items {
			m.transcript.add(it)
		}
		m.transcript.seqs = seqs
	} else {
		m.transcript.seqs = map[int]int{}
		m.mode.shown, m.mode.item = modeBefore(h.Modes, h.Len()), -1
	}
	title := h.Title
	if title == "" {
		title = session.ShortID(h.ID)
	}
	m.notice(noticeInfo, "", fmt.Sprintf("Resumed %q: %s.", title, human.Plural(h.Len(), "message")))
	m.transcript.liveFrom = len(m.transcript.items) // none streams: all may shed their documents
	m.transcript.scrollToBottom()
	if at := m.transcript.revealAt; at >= 0 {
		m.transcript.revealAt = -1
		if p := m.older; p != nil && at < p.first {
			p.reveal = at // read with the pages above it (see pageIn)
			return
		}
		m.transcript.settle() // the heights above the message, measured
		if !m.transcript.revealSeq(at) {
			m.setStatusNote("the message found is no longer in the conversation")
		}
	}
}

// showMessages adds msgs, a page of the history h, to the transcript,
// with the mode records among them; the records after the last message
// too, up to seq end (all of them for -1, on the newest page).
func (m *model) showMessages(h *orchestrator.History, msgs []session.Message, end int) {
	compactedAt := -1
	if h.Compaction != nil {
		compactedAt = h.Compaction.Seq
	}
	modes := h.Modes
	for len(modes) > 0 && modes[0].Seq < msgs[0].Seq {
		modes = modes[1:] // shown with the page before
	}
	every := mode.Every(m.opts.Engine.Tools)
	for i := 0; i < len(msgs); i++ {
		seq := msgs[i].Seq
		m.transcript.seqs[seq] = len(m.transcript.items)
		if seq == compactedAt {
			m.notice(noticeInfo, "", "↑ Summarized for the model from here up; the messages are kept.")
		}
		for len(modes) > 0 && modes[0].Seq <= seq {
			m.showMode(modes[0])
			modes = modes[1:]
		}
		msg := msgs[i].Message
		switch msg.Role {
		case "user":
			if !prompts.IsNote(msg.Content) { // told by the mode's notice
				m.transcript.add(&userItem{text: msg.Content})
			}
		case "assistant":
			m.showReply(msg)
			if msgs[i].Cut {
				m.notice(noticeInfo, "", "⊘ Interrupted.")
			}
			i += m.showCalls(every, msg.ToolCalls, msgs[i+1:])
		}
	}
	for _, rec := range modes {
		if end >= 0 && rec.Seq >= end {
			break
		}
		m.showMode(rec) // a switch after the last message
	}
}

// showMode adds a mode record: where the session changed mode, and the
// plan build mode followed, with its checklist as it was left.
func (m *model) showMode(rec session.ModeRecord) {
	if rec.Mode == m.mode.shown && rec.Plan == nil {
		return // the start in build mode, or a switch back and forth
	}
	m.mode.shown, m.mode.item = rec.Mode, -1
	text := "▸ " + rec.Mode + " mode"
	if rec.Reason != "" && rec.Reason != "start" {
		text += " (" + rec.Reason + ")"
	}
	m.notice(noticeInfo, "", text+".")
	if rec.Plan != nil {
		m.transcript.add(&planItem{plan: plan.FromRecord(rec.Plan), state: planApproved})
		m.mode.item = len(m.transcript.items) - 1
	}
}

// showReply adds an assistant message's thinking, folded, and its text.
func (m *model) showReply(msg provider.Message) {
	if msg.Thinking != "" {
		t := &thinkingItem{done: true}
		t.add(msg.Thinking)
		m.transcript.add(t)
	}
	if msg.Content != "" {
		m.transcript.add(&answerItem{pending: tabsToSpaces(msg.Content), renderer: m.st.renderer()})
	}
}

// showCalls adds a finished card for each call, paired with its result
// among the messages that follow, and returns how many results it used.
func (m *model) showCalls(every *tools.Registry, calls []provider.ToolCall, rest []session.Message) int {
	used := 0
	for i, c := range calls {
		if i >= len(rest) || rest[i].Message.Role != "tool" {
			break
		}
		kind := tools.KindRead
		if t, ok := every.Lookup(c.Name); ok {
			kind = t.Kind()
		}
		meta := rest[i].Tool
		if meta == nil {
			meta = &session.ToolMeta{Outcome: string(orchestrator.OutcomeInterrupted), Summary: "interrupted"}
		}
		card := &toolCard{start: orchestrator.ToolStarted{Index: i, ID: c.ID, Name: c.Name, Kind: kind, Args: c.Args(), Subject: meta.Subject,
			Preview: meta.Diff}}
		end := orchestrator.ToolFinished{Index: i, Name: c.Name, Kind: kind, Subject: meta.Subject, Outcome: orchestrator.Outcome(meta.Outcome),
			Duration: meta.Duration}
		end.Result.Content, end.Result.Summary = rest[i].Message.Content, meta.Summary
		used++
		if kind == tools.KindUI && end.Outcome == orchestrator.OutcomeOK {
			continue // the plan's checklist shows it
		}
		card.finish(end)
		m.transcript.add(card)
	}
	return used
}
