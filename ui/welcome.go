package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"lathe/prompts/human"
)

// An empty transcript is not a blank screen: until the first item, it
// says what to do and what the model is given besides the request (the
// project's AGENTS.md, the facts remembered).

// factCountMsg carries how many facts are remembered about the directory.
type factCountMsg struct{ n int }

// countFacts reads, in the background, how many facts are remembered
// here; nil when there is no memory.
func (m *model) countFacts() tea.Cmd {
	mem, ctx, dir := m.opts.Memory, m.ctx, m.opts.Dir
	if mem == nil {
		return nil
	}
	return func() tea.Msg {
		facts, err := mem.Facts(ctx, dir)
		if err != nil {
			return nil
		}
		return factCountMsg{len(facts)}
	}
}

// welcomeLines are what the empty transcript says, wrapped to width.
func (m *model) welcomeLines(width int) []string {
	st := &m.st
	texts := []string{
		"Ask for a change and press Enter: the model reads the code here, and asks before it changes a file or runs a command.",
		"/ lists the commands; /help shows the keys too.",
	}
	if m.resuming != "" {
		texts[0] = m.resuming
	}
	if inst := strings.TrimSpace(m.opts.Engine.Env.Instructions); inst != "" {
		texts = append(texts, fmt.Sprintf("AGENTS.md is read: its %s of instructions go to the model.", human.Size(int64(len(inst)))))
	}
	if n := m.facts; n > 0 {
		texts = append(texts, human.Plural(n, "fact")+" remembered about this directory go to the model too (/memory).")
	}
	lines := []string{""}
	for _, t := range texts {
		lines = append(lines, wrap(t, width, indent, indent, st.meta)...)
	}
	return lines
}

// transcriptView is the transcript's window, or the welcome while it is
// empty: exactly its height in lines.
func (m *model) transcriptView() string {
	if len(m.transcript.items) > 0 {
		return m.transcript.View()
	}
	lines := m.welcomeLines(m.transcript.width)
	h := m.transcript.height
	lines = lines[:min(len(lines), h)]
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}
