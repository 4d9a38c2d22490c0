package markdown

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// This file lays styled text out in lines: prose is word-wrapped, code is
// cut short. Text is kept as pieces (a string and its style) until a line is
// complete, and only then written with escape sequences, so that every line
// opens the styles it uses and closes them at its end: a line can be drawn
// on its own, and a style never leaks into the next one.

// piece is a run of text in one style, inside one link (OSC 8 hyperlink)
// or none. Its text holds no escape sequence and no control character but
// '\n', which only prose uses, for a hard line break.
type piece struct {
	text string
	st   style
	link string
}

// lineOf writes pieces as one line of text with escape sequences: each
// change of style or link is written where it happens, and the line ends
// with every style and link closed.
func lineOf(ps []piece) string {
	var b strings.Builder
	var st style
	link := ""
	for _, p := range ps {
		if p.text == "" {
			continue
		}
		if p.st != st {
			if st != (style{}) {
				b.WriteString(ansiReset)
			}
			b.WriteString(p.st.sgr())
			st = p.st
		}
		if p.link != link {
			if link != "" {
				b.WriteString(ansi.ResetHyperlink())
			}
			if p.link != "" {
				b.WriteString(hyperlink(p.link))
			}
			link = p.link
		}
		b.WriteString(p.text)
	}
	if st != (style{}) {
		b.WriteString(ansiReset)
	}
	if link != "" {
		b.WriteString(ansi.ResetHyperlink())
	}
	return b.String()
}

// ansiReset is the one form of a full SGR reset the renderer writes.
const ansiReset = "\x1b[m"

// textWidth returns how many cells s takes (s has no escape sequences).
func textWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// cutWidth splits s after at most n cells, never inside a character. A
// character wider than n makes head empty.
func cutWidth(s string, n int) (head, tail string) {
	if n <= 0 {
		return "", s
	}
	ascii := true
	for i := 0; i < len(s) && i < n+1; i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		if len(s) <= n {
			return s, ""
		}
		return s[:n], s[n:]
	}
	head = ansi.Truncate(s, n, "")
	return head, s[len(head):]
}

// wrapper fills lines with words: a word is text between spaces, which may
// run over several pieces ("**bold**," is one word). Spaces between words
// are dropped where a line breaks. A word longer than a whole line is cut
// where the line ends.
type wrapper struct {
	width int
	lines [][]piece

	line  []piece // the line being filled
	lineW int
	gap   []piece // spaces after the line's last word, written only if a word follows on the line
	gapW  int
	word  []piece // the word being read
	wordW int

	overflow bool // a character wider than the line had to be put on one
}

// wrap lays pieces out in lines of at most width cells, breaking at spaces
// and at the '\n' of hard line breaks. It always returns at least one line.
func wrap(ps []piece, width int) (lines [][]piece, overflow bool) {
	w := wrapper{width: max(width, 1)}
	for _, p := range ps {
		w.add(p)
	}
	w.endWord()
	w.endLine()
	return w.lines, w.overflow
}

// add reads one piece.
func (w *wrapper) add(p piece) {
	s := p.text
	for s != "" {
		switch s[0] {
		case '\n':
			w.endWord()
			w.gap, w.gapW = w.gap[:0], 0
			w.endLine()
			s = s[1:]
		case ' ':
			w.endWord()
			n := len(s) - len(strings.TrimLeft(s, " "))
			w.gap = append(w.gap, piece{s[:n], p.st, p.link})
			w.gapW += n
			s = s[n:]
		default:
			n := strings.IndexAny(s, " \n")
			if n < 0 {
				n = len(s)
			}
			w.word = append(w.word, piece{s[:n], p.st, p.link})
			w.wordW += textWidth(s[:n])
			s = s[n:]
		}
	}
}

// endWord puts the word read so far on the line, or on the next one.
func (w *wrapper) endWord() {
	if len(w.word) == 0 {
		return
	}
	switch {
	case w.lineW == 0 && w.wordW <= w.width:
	case w.lineW+w.gapW+w.wordW <= w.width:
		w.line = append(w.line, w.gap...)
		w.lineW += w.gapW
	default:
		if w.lineW > 0 {
			w.endLine()
		}
	}
	if w.wordW <= w.width-w.lineW {
		w.line = append(w.line, w.word...)
		w.lineW += w.wordW
	} else {
		w.cutWord()
	}
	w.word, w.wordW = w.word[:0], 0
	w.gap, w.gapW = w.gap[:0], 0
}

// cutWord puts a word too long for a line on as many lines as it takes;
// the line is empty when it is called.
func (w *wrapper) cutWord() {
	for _, p := range w.word {
		s := p.text
		for s != "" {
			head, tail := cutWidth(s, w.width-w.lineW)
			if head == "" {
				if w.lineW > 0 {
					w.endLine()
					continue
				}
				_, size := utf8.DecodeRuneInString(s) // wider than the whole line
				head, tail = s[:size], s[size:]
				w.overflow = true
			}
			w.line = append(w.line, piece{head, p.st, p.link})
			w.lineW += textWidth(head)
			s = tail
			if s != "" {
				w.endLine()
			}
		}
	}
}

// endLine finishes the line being filled.
func (w *wrapper) endLine() {
	w.lines = append(w.lines, w.line)
	w.line, w.lineW = nil, 0
}

// truncate cuts a line of pieces to at most width cells, ending it with
// "…" in style more if anything was cut. It returns the pieces and
// whether they still overflow (a width below 1).
func truncate(ps []piece, width int, more style) ([]piece, bool) {
	total := 0
	for _, p := range ps {
		total += textWidth(p.text)
	}
	if total <= width {
		return ps, false
	}
	if width < 1 {
		return nil, true
	}
	room := width - 1 // for the "…"
	var out []piece
	for _, p := range ps {
		w := textWidth(p.text)
		if w <= room {
			out = append(out, p)
			room -= w
			continue
		}
		head, _ := cutWidth(p.text, room)
		if head != "" {
			out = append(out, piece{head, p.st, p.link})
		}
		break
	}
	return append(out, piece{"…", more, ""}), false
}
