package print

import (
	"io"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// forTerminal takes out of a model's text what a terminal would act on
// rather than print: escape sequences (which could set the clipboard,
// clear the screen or retitle the window) and other control characters
// but tabs and line feeds.
func forTerminal(s string) string {
	return strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029') {
			return -1
		}
		return r
	}, ansi.Strip(s))
}

// TerminalWriter returns a writer to w, a terminal, that takes out of
// what it is given what forTerminal takes out of an answer: for the
// commands whose output holds what a model or a repository wrote (titles,
// messages, file names and contents), printed as lathe -p prints the
// answer. A sequence cut between two writes loses its escape all the same.
func TerminalWriter(w io.Writer) io.Writer { return terminalWriter{w} }

type terminalWriter struct{ w io.Writer }

func (t terminalWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, forTerminal(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
