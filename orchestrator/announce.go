package orchestrator

import (
	"regexp"
	"strings"
	"sync"
)

// A small model often ends a turn by saying what it is about to do ("Let
// me create the file:") without the call that would do it; the run would
// end there, the work undone. Such a reply gets one nudge.

// announcement matches the start of a sentence that announces an action
// of the model's own, in the present: "let me run", "I'll now edit", "next,
// I will create", "I'm going to check".
var announcement = sync.OnceValue(func() *regexp.Regexp {
	verbs := `(?:create|write|run|execute|edit|update|add|fix|check|look|read|open|implement|modify|change|` +
		`search|grep|find|list|install|test|make|remove|delete|rename|build|start|inspect|examine|apply|call|use|` +
		`rewrite|refactor|move|copy|set up|verify|compile|try)`
	return regexp.MustCompile(`^(?:(?:now|next|first|then|ok|okay|alright|great|sure)[,!.]?\s+)*` +
		`(?:let me|let's|i'll|i will|i'm going to|i am going to|i need to|i should)\s+(?:now\s+|first\s+|next\s+|go ahead and\s+)?` +
		verbs + `\b`)
})

// announces reports whether text ends by announcing an action: its last
// sentence starts as one and is not a question.
func announces(text string) bool {
	last := lastSentence(text)
	if last == "" || strings.HasSuffix(last, "?") {
		return false
	}
	return announcement().MatchString(strings.ToLower(strings.TrimLeft(last, "*_`#>- ")))
}

// lastSentence is the last sentence of text's last paragraph, code blocks
// left out.
func lastSentence(text string) string {
	text = strings.TrimSpace(text)
	if i := strings.LastIndex(text, "```"); i >= 0 && strings.Count(text, "```")%2 == 0 {
		if tail := strings.TrimSpace(text[i+3:]); tail != "" {
			text = tail
		} else {
			return "" // it ends with code: not an announcement
		}
	}
	if i := strings.LastIndex(text, "\n"); i >= 0 {
		text = text[i+1:]
	}
	text = strings.TrimSpace(text)
	// The sentence starts after the last full stop that is followed by a
	// space and does not end the text.
	trimmed := strings.TrimRight(text, ".:!…")
	if i := strings.LastIndexAny(trimmed, ".!?"); i >= 0 && i+1 < len(trimmed) && trimmed[i+1] == ' ' {
		text = text[i+2:]
	}
	return strings.TrimSpace(text)
}
