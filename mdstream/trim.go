package mdstream

import (
	"strings"
	"unicode/utf8"
)

// This file post-processes every line glamour renders. Glamour pads each
// line to the wrap width with styled spaces; keeping them makes every later
// step (joining, measuring, drawing) several times dearer. It also writes
// escape sequences that depend on a block's position in the document but
// change nothing on screen; normalising them lets a block rendered alone
// give the same lines as in a whole document.

const (
	// ansiESC starts every ANSI escape sequence glamour writes.
	ansiESC = 0x1b
	// ansiReset is the one form of a full SGR reset that trimPadding writes.
	ansiReset = "\x1b[m"
)

// trimPadding drops the trailing cells of one rendered line that show
// nothing: spaces printed with no background, reverse video, underline,
// strike-through or overline. It also rewrites every run of SGR sequences
// that has no text between them as the fewest sequences that leave the
// terminal in the same state: sequences before a full reset are dropped, and
// so is a reset when every attribute is already at its default. So a closing
// reset is never lost (styles cannot bleed into what is drawn next), and
// glamour's no-op sequences, which differ with a block's position in the
// document, disappear. The line is assumed to start with default
// attributes. blank reports that the line shows nothing.
func trimPadding(s string) (line string, blank bool) {
	end := visibleEnd(s)
	var n ansiNormalizer
	n.run = n.buf[:0]
	n.b.Grow(end + 8)
	for i := 0; i < len(s); {
		switch {
		case s[i] == ansiESC:
			k := ansiSeqLen(s, i)
			n.escape(s[i : i+k])
			i += k
		case i >= end:
			i++
		default:
			j := i + 1
			for j < end && s[j] != ansiESC {
				j++
			}
			n.text(s[i:j])
			i = j
		}
	}
	n.flush()
	if out := n.b.String(); out != s {
		return out, end == 0
	}
	return s, end == 0
}

// visibleEnd returns the offset just past the last visible character of s.
func visibleEnd(s string) int {
	var pen ansiPen
	end := 0
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ansiESC:
			k := ansiSeqLen(s, i)
			if params, ok := ansiSGRParams(s[i : i+k]); ok {
				pen.apply(params)
			}
			i += k
		case c == ' ' && !pen.showsSpace():
			i++
		case c < utf8.RuneSelf:
			i++
			end = i
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			end = i
		}
	}
	return end
}

// ansiNormalizer writes a line, holding back each run of escape sequences
// until text follows (or the line ends) to write it in a canonical form.
type ansiNormalizer struct {
	b     strings.Builder
	pen   ansiPen   // attributes in force after what was written
	run   []string  // SGR sequences read since the last text
	buf   [8]string // backing array of run
	other []string  // other sequences (hyperlinks) read since the last text
}

// escape reads one escape sequence.
func (n *ansiNormalizer) escape(seq string) {
	params, ok := ansiSGRParams(seq)
	if !ok {
		n.other = append(n.other, seq)
		return
	}
	if ansiSGRResets(params) {
		n.run = n.run[:0]
	}
	n.run = append(n.run, seq)
}

// text writes visible text after the SGR run before it.
func (n *ansiNormalizer) text(t string) {
	n.flush()
	n.b.WriteString(t)
}

// flush writes the held sequences: first those that are not SGR, in order
// (they do not interact with SGR attributes, and glamour writes them on
// either side of a reset depending on a block's position), then the SGR run,
// which already starts at its last reset. That reset is written as
// ansiReset, or dropped if nothing is set.
func (n *ansiNormalizer) flush() {
	for _, seq := range n.other {
		n.b.WriteString(seq)
	}
	n.other = n.other[:0]
	run := n.run
	if len(run) > 0 {
		if params, _ := ansiSGRParams(run[0]); params == "" || params == "0" {
			if n.pen.dirty {
				n.b.WriteString(ansiReset)
				n.pen = ansiPen{}
			}
			run = run[1:]
		}
	}
	for _, seq := range run {
		n.b.WriteString(seq)
		params, _ := ansiSGRParams(seq)
		n.pen.apply(params)
	}
	n.run = n.run[:0]
}

// ansiSeqLen returns the length of the escape sequence starting at s[i]
// (which is ESC): a CSI sequence, a string sequence (OSC, DCS, APC, PM, SOS)
// ended by BEL or ST, or a short ESC sequence. An unterminated sequence runs
// to the end of s.
func ansiSeqLen(s string, i int) int {
	j := i + 1
	if j >= len(s) {
		return 1
	}
	switch s[j] {
	case '[':
		j++
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
			j++
		}
		if j < len(s) {
			j++
		}
		return j - i
	case ']', 'P', '_', '^', 'X':
		for j++; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1 - i
			}
			if s[j] == ansiESC && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2 - i
			}
		}
		return len(s) - i
	}
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) {
		j++
	}
	return j - i
}

// ansiSGRParams returns the parameters of seq if it is an SGR sequence (CSI ... m
// with only digits, ';' and ':' as parameters).
func ansiSGRParams(seq string) (string, bool) {
	if len(seq) < 3 || seq[1] != '[' || seq[len(seq)-1] != 'm' {
		return "", false
	}
	params := seq[2 : len(seq)-1]
	for i := 0; i < len(params); i++ {
		if c := params[i]; (c < '0' || c > '9') && c != ';' && c != ':' {
			return "", false
		}
	}
	return params, true
}

// ansiSGRResets reports whether SGR parameters begin with a full reset.
func ansiSGRResets(params string) bool {
	first, _, _ := strings.Cut(params, ";")
	return first == "" || first == "0"
}

// ansiPen follows the SGR attributes that decide whether a space is visible.
type ansiPen struct {
	bg, reverse, underline, strike, overline bool
	// dirty is false only while every attribute is known to be at its default.
	dirty bool
}

// showsSpace reports whether a space printed now would be visible.
func (p *ansiPen) showsSpace() bool {
	return p.bg || p.reverse || p.underline || p.strike || p.overline
}

// apply updates the pen with the parameters of one SGR sequence.
func (p *ansiPen) apply(params string) {
	if params == "" {
		*p = ansiPen{}
		return
	}
	for params != "" {
		var param string
		param, params, _ = strings.Cut(params, ";")
		code, sub, _ := strings.Cut(param, ":")
		switch code {
		case "", "0":
			*p = ansiPen{}
			continue
		case "38", "48", "58":
			if sub == "" {
				params = ansiSkipColor(params)
			}
		}
		p.dirty = true
		p.set(code, sub)
	}
}

// set applies one SGR code (with its ':' sub-parameter, if any).
func (p *ansiPen) set(code, sub string) {
	switch code {
	case "4":
		p.underline = sub != "0"
	case "21": // double underline
		p.underline = true
	case "24":
		p.underline = false
	case "7":
		p.reverse = true
	case "27":
		p.reverse = false
	case "9":
		p.strike = true
	case "29":
		p.strike = false
	case "53":
		p.overline = true
	case "55":
		p.overline = false
	case "48":
		p.bg = true
	case "49":
		p.bg = false
	default:
		if len(code) == 2 && code[0] == '4' && code[1] >= '0' && code[1] <= '7' ||
			len(code) == 3 && code[:2] == "10" && code[2] >= '0' && code[2] <= '7' {
			p.bg = true
		}
	}
}

// ansiSkipColor skips the ';'-separated arguments of an extended colour
// (38/48/58): "5;n" or "2;r;g;b".
func ansiSkipColor(params string) string {
	kind, rest, _ := strings.Cut(params, ";")
	n := 0
	switch kind {
	case "5":
		n = 1
	case "2":
		n = 3
	}
	for ; n > 0 && rest != ""; n-- {
		_, rest, _ = strings.Cut(rest, ";")
	}
	return rest
}
