package orchestrator

import (
	"testing"

	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/prompts"
)

// TestSkillsInThePrompt: the skills' list is in the system prompt, the
// same bytes on every request, and counted apart by Context.
func TestSkillsInThePrompt(t *testing.T) {
	e := newEnv(t, nil, func(o *Options) {
		o.Env.Skills = prompts.SkillsView{List: []prompts.SkillEntry{{Name: "pdf", Description: "Read, fill and merge PDF files."},
			{Name: "release-notes", Description: "Write release notes from the git log."}}}
	})
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a"}`)}}, ollamatest.Reply{Content: "ok"},
		ollamatest.Reply{Content: "again"})
	for _, p := range []string{"x", "y"} {
		if _, err := e.run(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	reqs := e.srv.ChatRequests()
	first := reqs[0].Messages[0].Content
	for i, r := range reqs {
		if r.Messages[0].Content != first {
			t.Fatalf("request %d's system prompt differs", i)
		}
	}
	if !contains(first, "- pdf: Read, fill and merge PDF files.") {
		t.Errorf("system prompt:\n%s", first)
	}
	u := e.session.Context()
	if u.Skills == 0 || u.Skills >= u.System+u.Skills {
		t.Errorf("context %+v", u)
	}
	var named bool
	for _, p := range u.Parts() {
		named = named || p.Name == "skills" && p.Tokens == u.Skills
	}
	if !named {
		t.Errorf("parts %+v", u.Parts())
	}
}
