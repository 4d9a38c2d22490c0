package ui

import (
	tea "charm.land/bubbletea/v2"

	"lathe/prompts/human"
)

// cmdSkills is /skills: the Agent Skills found, and where from.
func (m *model) cmdSkills(string) tea.Cmd {
	cat := m.opts.Skills
	if cat == nil || cat.Len() == 0 {
		m.notice(noticeInfo, "", "No skill is found: put a folder with a SKILL.md in .lathe/skills, .agents/skills, .claude/skills or ~/.config/lathe/skills.")
		return nil
	}
	item := &tableItem{title: "Skills", foot: "The model lists them in its prompt and loads one with the skill tool when the task calls for it."}
	for _, s := range cat.All() {
		item.rows = append(item.rows, [2]string{human.Visible(s.Name),
			human.Visible(s.Description) + " (" + human.Path(s.Dir, m.opts.Dir, m.opts.Home) + ")"})
	}
	m.transcript.add(item)
	return nil
}
