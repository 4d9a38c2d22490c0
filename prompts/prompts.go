// Package prompts holds every sentence the model reads: the system prompts,
// the notes and results lathe writes into a conversation, and the hints in
// tool results, rendered from embedded templates.
package prompts

import (
	"embed"
	"strings"
	"sync"
	"text/template"
	"unicode/utf8"
)

//go:embed *.tmpl
var files embed.FS

// InstructionsLimit is how much of a project's AGENTS.md goes into the
// system prompt, in bytes.
const InstructionsLimit = 8 << 10

// Env is what every mode's prompt says about where lathe works. Every
// field must stay the same for a whole session: the prompt is sent on every
// turn and has to be byte-identical for Ollama to reuse its prompt cache.
type Env struct {
	Dir  string // working directory, absolute
	OS   string // runtime.GOOS
	Arch string // runtime.GOARCH
	Git  bool   // Dir is inside a git repository
	// Instructions is the text of the project's AGENTS.md, if any.
	Instructions string
	// Facts are what the user approved remembering about the project,
	// oldest first; the newest that fit FactsLimit are shown.
	Facts []string
	// RepoMap is the project's map (directories, files, symbols), when
	// one is configured.
	RepoMap string
	// HookContext is what the user's SessionStart hooks printed for the
	// model, read when the session starts; the first HookContextLimit
	// bytes are shown.
	HookContext string
	// Skills is the list of the Agent Skills found, as much as fits its
	// budget; the zero value when there are none.
	Skills SkillsView
}

// PlanView is an approved plan as the build prompt shows it: its steps as
// approved, without the checklist's progress (which changes during the
// mode and is told in update_plan's results, so the prompt stays the same).
type PlanView struct {
	Summary string
	Steps   []string
}

// AskPrompt renders the ask-mode system prompt.
func AskPrompt(env Env) (string, error) { return renderMode("ask.md.tmpl", env, nil) }

// PlanPrompt renders the plan-mode system prompt.
func PlanPrompt(env Env) (string, error) { return renderMode("plan.md.tmpl", env, nil) }

// BuildPrompt renders the build-mode system prompt, with the approved plan
// when there is one. Instructions longer than InstructionsLimit are cut,
// with a note saying so.
func BuildPrompt(env Env, plan *PlanView) (string, error) {
	return renderMode("build.md.tmpl", env, plan)
}

// renderMode renders a mode's template with the environment block.
func renderMode(name string, env Env, plan *PlanView) (string, error) {
	text, cut := capText(strings.TrimSpace(env.Instructions), InstructionsLimit)
	facts, left := fitFacts(env.Facts, FactsLimit)
	data := struct {
		Env
		Plan              *PlanView
		InstructionsCut   bool
		InstructionsLimit int
		FactsLeftOut      int
		SkillsText        string
	}{env, plan, cut, InstructionsLimit, left, Skills(env.Skills)}
	data.Instructions, data.Facts = text, facts
	data.HookContext, _ = capText(strings.TrimSpace(env.HookContext), HookContextLimit)
	return render(name, data)
}

// FactsLimit is how much of the system prompt the remembered facts may
// take, in bytes.
const FactsLimit = 1536

// FactsLeftOut is how many of facts (oldest first) the system prompt
// leaves out for room: the oldest ones.
func FactsLeftOut(facts []string) int {
	_, left := fitFacts(facts, FactsLimit)
	return left
}

// fitFacts keeps the newest facts whose lines fit in limit bytes, in their
// order, and says how many older ones were left out.
func fitFacts(facts []string, limit int) (kept []string, left int) {
	size, first := 0, len(facts)
	for first > 0 && size+len(facts[first-1])+3 <= limit {
		first--
		size += len(facts[first]) + 3 // "- " and the line end
	}
	return facts[first:], first
}

// CompactPrompt is the instruction that asks the model to summarize the
// conversation before it, in at most words words.
func CompactPrompt(words int) (string, error) {
	return render("compact.md.tmpl", struct{ Words int }{words})
}

// TitlePrompt is the instruction that asks the model to title the
// conversation before it.
func TitlePrompt() string {
	s, err := render("title.md.tmpl", nil)
	if err != nil {
		panic("prompts: title: " + err.Error())
	}
	return s
}

// SummaryHeader introduces a summary that replaces older messages in a
// request; CurrentRequest introduces the user's request that follows it.
// SummarySoFar introduces the last summary in a transcript sent to be
// summarized again.
const (
	SummaryHeader  = "[Summary of the earlier part of this conversation, written by the assistant]"
	CurrentRequest = "[The current request]"
	SummarySoFar   = "Summary so far:"
)

// templates are the embedded templates, parsed on first use (not at
// start-up, which is paid before the first frame).
var templates = sync.OnceValues(func() (*template.Template, error) {
	funcs := template.FuncMap{"inc": func(i int) int { return i + 1 }, "join": strings.Join}
	return template.New("").Funcs(funcs).ParseFS(files, "*.tmpl")
})

// render renders the template name as a prompt: trimmed, with a final
// newline.
func render(name string, data any) (string, error) {
	s, err := renderRaw(name, data)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(s) + "\n", nil
}

// renderRaw renders the template name as it is.
func renderRaw(name string, data any) (string, error) {
	t, err := templates()
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	if err := t.ExecuteTemplate(&sb, name, data); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// capText cuts s to at most limit bytes, at a line end when one is near,
// never inside a UTF-8 sequence.
func capText(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	cut := s[:limit]
	for !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	if i := strings.LastIndexByte(cut, '\n'); i >= limit*3/4 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " \t\n"), true
}
