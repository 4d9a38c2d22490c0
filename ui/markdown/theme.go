package markdown

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// This file holds the three looks a message can be rendered in. The colour
// themes keep glamour's dark and light palettes (the look lathe had before
// it rendered markdown itself). The plain theme is for NO_COLOR and dumb
// terminals and writes no escape sequence at all.
//
// The two kinds share one rule for what the reader sees: block structure
// (headings, lists, quotes, code blocks, tables) is shown by layout, never
// by markdown syntax, so no "###" or "```" reaches the screen; inline spans
// are shown by attributes in colour and, in the plain theme, by the
// markdown markers that delimit them: **bold**, *italic*, ~~struck~~,
// `code` and [text](url). Every span keeps its markers there, so inline
// code is as recognisable as bold, and what is copied is what the model
// wrote.

// Style names accepted by NewRenderer.
const (
	StyleDark  = "dark"
	StyleLight = "light"
	StylePlain = "notty"
)

// style is a set of SGR attributes. The zero style writes nothing.
type style struct {
	fg, bg string // SGR colour parameters, as "38;5;252"; empty for the default
	attrs  attr
}

// attr is a set of SGR attributes that are on or off.
type attr uint8

const (
	attrBold attr = 1 << iota
	attrItalic
	attrUnderline
	attrStrike
)

// over returns s with o laid over it: o's colours where it has them, and
// the attributes of both.
func (s style) over(o style) style {
	if o.fg != "" {
		s.fg = o.fg
	}
	if o.bg != "" {
		s.bg = o.bg
	}
	s.attrs |= o.attrs
	return s
}

// sgr returns the escape sequence that sets s, "" for the zero style.
func (s style) sgr() string {
	if s == (style{}) {
		return ""
	}
	var b strings.Builder
	b.WriteString("\x1b[")
	sep := func() {
		if b.Len() > 2 {
			b.WriteByte(';')
		}
	}
	for _, a := range [...]struct {
		bit  attr
		code string
	}{{attrBold, "1"}, {attrItalic, "3"}, {attrUnderline, "4"}, {attrStrike, "9"}} {
		if s.attrs&a.bit != 0 {
			sep()
			b.WriteString(a.code)
		}
	}
	if s.fg != "" {
		sep()
		b.WriteString(s.fg)
	}
	if s.bg != "" {
		sep()
		b.WriteString(s.bg)
	}
	b.WriteByte('m')
	return b.String()
}

// fg256 and bg256 are styles in one colour of the 256-colour palette.
func fg256(c string) style  { return style{fg: "38;5;" + c} }
func bg256(c string) string { return "48;5;" + c }

// theme is one look: the styles of every element and the strings that
// draw structure.
type theme struct {
	name  string
	plain bool // no escape sequences; inline spans keep their markers

	text      style // every piece of prose starts from it
	emph      style // laid over the text (plain: marked "*")
	strong    style // (plain: "**")
	strike    style // (plain: "~~")
	code      style // inline code (plain: "`")
	h1        style // level 1 headings, padded with a space each side
	heading   style // levels 2 to 6
	linkText  style
	link      style // the URL after a link's text
	imageText style
	image     style
	rule      style // thematic breaks
	more      style // the "…" that ends a truncated code line
	border    style // table borders

	bullet, quote, hr  string
	ticked, unticked   string
	underline1, underN string // plain: the rule under headings of level 1, and of the others
	column, row, cross string // table borders: between columns, under the header, where they cross

	// chroma colours code blocks; nil leaves them plain.
	chroma chroma.StyleEntries
}

// themeFor returns the look of a style name, and false if there is none.
func themeFor(name string) (*theme, bool) {
	switch name {
	case StyleDark:
		return darkTheme(), true
	case StyleLight:
		return lightTheme(), true
	case StylePlain:
		return plainTheme(), true
	}
	return nil, false
}

func darkTheme() *theme {
	text := fg256("252")
	return &theme{
		name:      StyleDark,
		text:      text,
		emph:      style{attrs: attrItalic},
		strong:    style{attrs: attrBold},
		strike:    style{attrs: attrStrike},
		code:      style{fg: "38;5;203", bg: bg256("236")},
		h1:        style{fg: "38;5;228", bg: bg256("63"), attrs: attrBold},
		heading:   style{fg: "38;5;39", attrs: attrBold},
		linkText:  style{fg: "38;5;35", attrs: attrBold},
		link:      style{fg: "38;5;30", attrs: attrUnderline},
		imageText: fg256("243"),
		image:     style{fg: "38;5;212", attrs: attrUnderline},
		rule:      fg256("240"),
		more:      fg256("240"),
		bullet:    "•", quote: "│", hr: "--------",
		ticked: "[✓]", unticked: "[ ]",
		border: fg256("240"), column: "│", row: "─", cross: "┼",
		chroma: chroma.StyleEntries{
			chroma.Text:                "#C4C4C4",
			chroma.Error:               "#F1F1F1 bg:#F05B5B",
			chroma.Comment:             "#676767",
			chroma.CommentPreproc:      "#FF875F",
			chroma.Keyword:             "#00AAFF",
			chroma.KeywordReserved:     "#FF5FD2",
			chroma.KeywordNamespace:    "#FF5F87",
			chroma.KeywordType:         "#6E6ED8",
			chroma.Operator:            "#EF8080",
			chroma.Punctuation:         "#E8E8A8",
			chroma.Name:                "#C4C4C4",
			chroma.NameBuiltin:         "#FF8EC7",
			chroma.NameTag:             "#B083EA",
			chroma.NameAttribute:       "#7A7AE6",
			chroma.NameClass:           "#F1F1F1 underline bold",
			chroma.NameDecorator:       "#FFFF87",
			chroma.NameFunction:        "#00D787",
			chroma.LiteralNumber:       "#6EEFC0",
			chroma.LiteralString:       "#C69669",
			chroma.LiteralStringEscape: "#AFFFD7",
			chroma.GenericDeleted:      "#FD5B5B",
			chroma.GenericEmph:         "italic",
			chroma.GenericInserted:     "#00D787",
			chroma.GenericStrong:       "bold",
			chroma.GenericSubheading:   "#777777",
		},
	}
}

func lightTheme() *theme {
	return &theme{
		name:      StyleLight,
		text:      fg256("234"),
		emph:      style{attrs: attrItalic},
		strong:    style{attrs: attrBold},
		strike:    style{attrs: attrStrike},
		code:      style{fg: "38;5;203", bg: bg256("254")},
		h1:        style{fg: "38;5;228", bg: bg256("63"), attrs: attrBold},
		heading:   style{fg: "38;5;27", attrs: attrBold},
		linkText:  style{fg: "38;5;29", attrs: attrBold},
		link:      style{fg: "38;5;36", attrs: attrUnderline},
		imageText: fg256("243"),
		image:     style{fg: "38;5;205", attrs: attrUnderline},
		rule:      fg256("249"),
		more:      fg256("249"),
		bullet:    "•", quote: "│", hr: "--------",
		ticked: "[✓]", unticked: "[ ]",
		border: fg256("249"), column: "│", row: "─", cross: "┼",
		chroma: chroma.StyleEntries{
			chroma.Text:                "#2A2A2A",
			chroma.Error:               "#F1F1F1 bg:#FF5555",
			chroma.Comment:             "#8D8D8D",
			chroma.CommentPreproc:      "#FF875F",
			chroma.Keyword:             "#279EFC",
			chroma.KeywordReserved:     "#FF5FD2",
			chroma.KeywordNamespace:    "#FB406F",
			chroma.KeywordType:         "#7049C2",
			chroma.Operator:            "#FF2626",
			chroma.Punctuation:         "#FA7878",
			chroma.NameBuiltin:         "#0A1BB1",
			chroma.NameTag:             "#581290",
			chroma.NameAttribute:       "#8362CB",
			chroma.NameClass:           "#212121 underline bold",
			chroma.NameConstant:        "#581290",
			chroma.NameDecorator:       "#A3A322",
			chroma.NameFunction:        "#019F57",
			chroma.LiteralNumber:       "#22CCAE",
			chroma.LiteralString:       "#7E5B38",
			chroma.LiteralStringEscape: "#00AEAE",
			chroma.GenericDeleted:      "#FD5B5B",
			chroma.GenericEmph:         "italic",
			chroma.GenericInserted:     "#00D787",
			chroma.GenericStrong:       "bold",
			chroma.GenericSubheading:   "#777777",
		},
	}
}

func plainTheme() *theme {
	return &theme{
		name:   StylePlain,
		plain:  true,
		bullet: "•", quote: "|", hr: "--------",
		ticked: "[x]", unticked: "[ ]",
		underline1: "=", underN: "-",
		column: "|", row: "-", cross: "|",
	}
}
