package tui

import (
	"testing"

	"lathe/agent"
)

func TestToolCardTickReportsChanges(t *testing.T) {
	c := &toolCard{start: agent.ToolStarted{Name: "shell", Subject: "go test ./..."}}
	steps := []struct {
		name  string
		do    func()
		frame int
		want  bool
	}{
		{"same spinner frame", func() {}, 0, false},
		{"next spinner frame", func() {}, 1, true},
		{"again the same", func() {}, 1, false},
		{"waiting for approval", func() { c.setWaiting(true) }, 2, false},
		{"approved", func() { c.setWaiting(false) }, 2, true},
		{"finished", func() { c.finish(agent.ToolFinished{Outcome: agent.OutcomeOK}) }, 3, false},
	}
	for _, s := range steps {
		s.do()
		if got := c.tick(s.frame); got != s.want {
			t.Errorf("%s: tick(%d) = %v, want %v", s.name, s.frame, got, s.want)
		}
	}
}
