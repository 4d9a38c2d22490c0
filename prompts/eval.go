package prompts

import "strings"

// PolyglotTask is the request of an Aider Polyglot exercise: its
// instructions, then which files to change, as the benchmark asks it.
func PolyglotTask(instructions string, files []string) string {
	return strings.TrimSpace(note("polyglot_task", struct {
		Instructions string
		Files        []string
	}{strings.TrimSpace(instructions), files}))
}

// PolyglotRetry is the second try's request: the failing tests' output,
// and to fix the files without touching the tests.
func PolyglotRetry(output string, files []string) string {
	return strings.TrimSpace(note("polyglot_retry", struct {
		Output string
		Files  []string
	}{strings.TrimSpace(output), files}))
}
