package ui

import (
	"encoding/json"
	"fmt"

	"github.com/ollama/ollama/api"

	"lathe/agent"
)

// showHistory fills the transcript with a restored session: prompts,
// answers, folded thinking and tool cards, as they were shown when they
// happened, and a mark where older messages were summarized for the model.
func (m *model) showHistory(saved *agent.SavedSession) {
	m.transcript.clear()
	meta := map[int]*agent.ToolMeta{}
	for _, sm := range saved.Messages {
		if sm.Tool != nil {
			meta[sm.Seq] = sm.Tool
		}
	}
	msgs := m.session.Messages()[1:]
	compactedAt := -1
	if saved.Compaction != nil {
		compactedAt = saved.Compaction.Seq
	}
	modes := saved.Modes
	m.mode.shown, m.mode.item = "build", -1
	for i := 0; i < len(msgs); i++ {
		if i == compactedAt {
			m.notice(noticeInfo, "", "↑ Summarized for the model from here up; the messages are kept.")
		}
		for len(modes) > 0 && modes[0].Seq <= i {
			m.showMode(modes[0])
			modes = modes[1:]
		}
		msg := msgs[i]
		switch msg.Role {
		case "user":
			if !agent.IsNote(msg) { // told by the mode's notice
				m.transcript.add(&userItem{text: msg.Content})
			}
		case "assistant":
			m.showReply(msg)
			i += m.showCalls(msg.ToolCalls, msgs[i+1:], i+1, meta)
		}
	}
	for _, rec := range modes {
		m.showMode(rec) // a switch after the last message
	}
	title := saved.Title
	if title == "" {
		title = saved.ID[:min(8, len(saved.ID))]
	}
	m.notice(noticeInfo, "", fmt.Sprintf("Resumed %q: %d messages.", title, len(msgs)))
	m.transcript.scrollToBottom()
}

// showMode adds a mode record: where the session changed mode, and the
// plan build mode followed, with its checklist as it was left.
func (m *model) showMode(rec agent.ModeRecord) {
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
		m.transcript.add(&planItem{plan: rec.Plan, state: planApproved})
		m.mode.item = len(m.transcript.items) - 1
	}
}

// showReply adds an assistant message's thinking, folded, and its text.
func (m *model) showReply(msg api.Message) {
	if msg.Thinking != "" {
		t := &thinkingItem{done: true}
		t.add(msg.Thinking)
		m.transcript.add(t)
	}
	if msg.Content != "" {
		md := NewMarkdown(m.markdown())
		md.Append(tabsToSpaces(msg.Content))
		md.Finish()
		m.transcript.add(&answerItem{md: md})
	}
}

// subjectOf is a call's key argument, worked out by its tool; empty when
// the call does not validate.
func (m *model) subjectOf(c api.ToolCall) string {
	tool, ok := m.opts.Engine.Tools.Lookup(c.Function.Name)
	if !ok {
		return ""
	}
	call, err := tool.Prepare(json.RawMessage(c.Function.Arguments.String()))
	if err != nil {
		return ""
	}
	return call.Subject()
}

// showCalls adds a finished card for each call, paired with its result
// among the messages that follow (rest, starting at seq first), and
// returns how many results it used.
func (m *model) showCalls(calls []api.ToolCall, rest []api.Message, first int, meta map[int]*agent.ToolMeta) int {
	used := 0
	for i, c := range calls {
		if i >= len(rest) || rest[i].Role != "tool" {
			break
		}
		card := &toolCard{start: agent.ToolStarted{Index: i, ID: c.ID, Name: c.Function.Name, Args: c.Function.Arguments.String()}}
		end := agent.ToolFinished{Index: i, Name: c.Function.Name, Outcome: agent.OutcomeOK}
		end.Result.Content = rest[i].Content
		if md := meta[first+i]; md != nil {
			card.start.Subject, end.Subject = md.Subject, md.Subject
			end.Outcome, end.Result.Summary, end.Duration = md.Outcome, md.Summary, md.Duration
		} else {
			end.Outcome, end.Result.Summary = agent.OutcomeInterrupted, "interrupted"
			card.start.Subject = m.subjectOf(c)
			end.Subject = card.start.Subject
		}
		used++
		if c.Function.Name == "update_plan" && end.Outcome == agent.OutcomeOK {
			continue // the plan's checklist shows it
		}
		card.finish(end)
		m.transcript.add(card)
	}
	return used
}
