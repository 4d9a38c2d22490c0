package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lathe/tools/skill"
)

func TestSkillsCommand(t *testing.T) {
	m, _ := testModel(t)
	typeText(m, "/skills")
	press(m, "enter")
	if !strings.Contains(screen(m), "No skill is found") {
		t.Errorf("no skills:\n%s", screen(m))
	}
	ws := t.TempDir()
	path := filepath.Join(ws, ".claude/skills/pdf/SKILL.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("---\nname: pdf\ndescription: Read PDF files.\n---\nx"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.opts.Skills, _ = skill.Load(skill.Dirs{Workspace: ws})
	m.opts.Dir = ws
	typeText(m, "/skills")
	press(m, "enter")
	if s := screen(m); !strings.Contains(s, "pdf  Read PDF files. (.claude/skills/pdf)") {
		t.Errorf("/skills:\n%s", s)
	}
}
