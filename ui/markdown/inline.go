package markdown

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"
)

// This file turns inline markdown (the content of a paragraph, heading or
// table cell) into styled pieces of text.

// inlines returns the pieces of the inline children of n, in style base.
func (l *layout) inlines(n ast.Node, base style) []piece {
	var ps []piece
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		ps = l.inline(ps, c, base, "")
	}
	return ps
}

// inline appends the pieces of one inline node, inside link (or none).
func (l *layout) inline(ps []piece, n ast.Node, st style, link string) []piece {
	th := l.th
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(l.src)
		if !n.IsRaw() {
			v = unescape(v)
		}
		ps = append(ps, piece{cleanText(v), st, link})
		switch {
		case n.HardLineBreak():
			ps = append(ps, piece{"\n", st, link})
		case n.SoftLineBreak():
			ps = append(ps, piece{" ", st, link})
		}
	case *ast.String:
		ps = append(ps, piece{cleanText(n.Value), st, link})
	case *ast.CodeSpan:
		code := l.codeSpan(n)
		if th.plain {
			return append(ps, piece{codeMarkers(code), st, link})
		}
		ps = append(ps, piece{code, st.over(th.code), link})
	case *ast.Emphasis:
		if n.Level >= 2 {
			return l.span(ps, n, st.over(th.strong), link, "**")
		}
		return l.span(ps, n, st.over(th.emph), link, "*")
	case *east.Strikethrough:
		return l.span(ps, n, st.over(th.strike), link, "~~")
	case *ast.Link:
		return l.link(ps, n, string(n.Destination), st, "")
	case *ast.AutoLink:
		u := string(n.URL(l.src))
		if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(u), "mailto:") {
			u = "mailto:" + u
		}
		label := cleanText(n.Label(l.src))
		if th.plain {
			return append(ps, piece{label, st, ""})
		}
		ps = append(ps, piece{label, st.over(th.link), u})
	case *ast.Image:
		return l.link(ps, n, string(n.Destination), st, "!")
	case *ast.RawHTML:
		// A terminal cannot render HTML, and stripping the tags would lose
		// text a model meant literally (Vec<T>): it is shown as written.
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			ps = append(ps, piece{cleanText(seg.Value(l.src)), st, link})
		}
	case *east.TaskCheckBox:
		box := th.unticked
		if n.IsChecked {
			box = th.ticked
		}
		ps = append(ps, piece{box + " ", st, link})
	default:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			ps = l.inline(ps, c, st, link)
		}
	}
	return ps
}

// span appends the pieces of an emphasis or strikethrough: its children in
// style st, or, in the plain theme, between its markdown markers.
func (l *layout) span(ps []piece, n ast.Node, st style, link, marker string) []piece {
	if l.th.plain {
		ps = append(ps, piece{marker, st, link})
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		ps = l.inline(ps, c, st, link)
	}
	if l.th.plain {
		ps = append(ps, piece{marker, st, link})
	}
	return ps
}

// link appends a link or, with bang "!", an image: its text, then its URL
// unless the text already shows it or it only names a place in the page.
// The colour themes make both a hyperlink; the plain theme writes the
// markdown.
func (l *layout) link(ps []piece, n ast.Node, dest string, st style, bang string) []piece {
	th := l.th
	textSt, urlSt := th.linkText, th.link
	if bang != "" {
		textSt, urlSt = th.imageText, th.image
	}
	if th.plain {
		ps = append(ps, piece{bang + "[", st, ""})
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			ps = l.inline(ps, c, st, "")
		}
		return append(ps, piece{"](" + cleanText([]byte(dest)) + ")", st, ""})
	}
	link := ""
	if linkable(dest) {
		link = dest
	}
	from := len(ps)
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		ps = l.inline(ps, c, st.over(textSt), link)
	}
	var shown strings.Builder
	for _, p := range ps[from:] {
		shown.WriteString(p.text)
	}
	if link != "" && shown.String() != dest {
		if len(ps) > from {
			ps = append(ps, piece{" ", st, ""})
		}
		ps = append(ps, piece{cleanText([]byte(dest)), st.over(urlSt), link})
	}
	return ps
}

// linkable reports whether a destination is worth showing and linking: it
// parses, and is not only a fragment ("#section") of the page.
func linkable(dest string) bool {
	u, err := url.Parse(dest)
	return err == nil && dest != "" && "#"+u.Fragment != dest
}

// hyperlink returns the OSC 8 sequence that opens a link to u. The id lets
// a terminal treat the parts of a wrapped link as one.
func hyperlink(u string) string {
	h := fnv.New32a()
	h.Write([]byte(u))
	return ansi.SetHyperlink(u, fmt.Sprintf("id=%d", h.Sum32()))
}

// codeSpan returns the text of inline code: line endings become spaces.
func (l *layout) codeSpan(n *ast.CodeSpan) string {
	var b []byte
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			v := t.Segment.Value(l.src)
			if bytes.HasSuffix(v, []byte("\n")) {
				b = append(append(b, v[:len(v)-1]...), ' ')
			} else {
				b = append(b, v...)
			}
		}
	}
	return cleanText(b)
}

// codeMarkers writes code between backticks as markdown would: as many
// as the shortest run of backticks the code does not hold, and a space
// inside if the code starts or ends with one.
func codeMarkers(code string) string {
	runs := map[int]bool{}
	for i := 0; i < len(code); {
		j := i
		for j < len(code) && code[j] == '`' {
			j++
		}
		if j > i {
			runs[j-i] = true
			i = j
		} else {
			i++
		}
	}
	n := 1
	for runs[n] {
		n++
	}
	fence := strings.Repeat("`", n)
	if len(runs) > 0 && (code[0] == '`' || code[len(code)-1] == '`') {
		return fence + " " + code + " " + fence
	}
	return fence + code + fence
}

// unescape resolves backslash escapes and character references, as the
// markdown source means them.
func unescape(v []byte) []byte {
	if bytes.IndexByte(v, '\\') >= 0 {
		v = util.UnescapePunctuations(v)
	}
	if bytes.IndexByte(v, '&') >= 0 {
		v = util.ResolveEntityNames(util.ResolveNumericReferences(v))
	}
	return v
}

// cleanText returns v as text that is safe to print and to measure: tabs
// become spaces, carriage returns are dropped, and any other control
// character (an escape sequence a model wrote, say) is replaced by U+FFFD.
func cleanText(v []byte) string {
	clean := true
	for _, c := range v {
		if c < 0x20 || c == 0x7f || c == 0xc2 { // 0xc2 starts the C1 controls (and more)
			clean = false
			break
		}
	}
	if clean && utf8.Valid(v) {
		return string(v)
	}
	var b strings.Builder
	for _, r := range string(v) {
		switch {
		case r == '\t':
			b.WriteByte(' ')
		case r == '\r':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
