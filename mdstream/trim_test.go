package mdstream

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestTrimPadding(t *testing.T) {
	const (
		reset = "\x1b[m"
		grey  = "\x1b[38;5;252m"
		bold  = "\x1b[1m"
	)
	pad := strings.Repeat(grey+" "+reset, 5) // glamour's padding
	tests := []struct {
		name, in, want string
		blank          bool
	}{
		{"plain text unchanged", "abc", "abc", false},
		{"plain spaces", "abc   ", "abc", false},
		{"needless reset dropped", "text\x1b[0m   ", "text", false},
		{"reset of a style kept", bold + "text\x1b[0m   ", bold + "text" + reset, false},
		{"reset after spaces kept", bold + "text   " + reset, bold + "text" + reset, false},
		{"blank styled spaces", "  " + bold + "  \x1b[0m", "", true},
		{"empty", "", "", true},
		{"glamour padding", "  " + grey + "Para" + reset + pad, "  " + grey + "Para" + reset, false},
		{"glamour blank line", "  " + grey + reset + pad, "", true},
		{"open style kept", "\x1b[31mred   ", "\x1b[31mred", false},
		{"style set after text kept", "\x1b[31mred\x1b[0m\x1b[32m  ", "\x1b[31mred" + reset + "\x1b[32m", false},
		{"blank line leaving bold on", bold + "   ", bold, true},
		{"wide runes", "日本語  ", "日本語", false},
		{"wide runes and padding", "日本" + pad, "日本", false},
		{"background space kept", "\x1b[48;5;63m Title \x1b[m   ", "\x1b[48;5;63m Title \x1b[m", false},
		{"true colour background kept", "\x1b[48;2;1;2;3m  \x1b[m ", "\x1b[48;2;1;2;3m  \x1b[m", false},
		{"256 colour 48 is not a background", "x\x1b[38;5;48m  \x1b[m", "x", false},
		{"underlined space kept", "a\x1b[4m \x1b[24m  ", "a\x1b[4m \x1b[24m", false},
		{"reverse space kept", "a\x1b[7m \x1b[m  ", "a\x1b[7m \x1b[m", false},
		{"double underlined space kept", "a\x1b[21m \x1b[m  ", "a\x1b[21m \x1b[m", false},
		{"inner spaces kept", "a   b  ", "a   b", false},
		{"leading indentation kept", "    code  ", "    code", false},
		{"no-op set before reset dropped", "  " + grey + reset + "\x1b[1m## H" + reset, "  \x1b[1m## H" + reset, false},
		{"reset with nothing set dropped", reset + "x", "x", false},
		{"hyperlink end kept", "\x1b]8;;http://x\x07link\x1b]8;;\x07   ", "\x1b]8;;http://x\x07link\x1b]8;;\x07", false},
		{"non-breaking space is visible", "a\u00a0", "a\u00a0", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, blank := trimPadding(tt.in)
			if got != tt.want || blank != tt.blank {
				t.Errorf("trimPadding(%q) = %q, %v; want %q, %v", tt.in, got, blank, tt.want, tt.blank)
			}
			in, out := ansi.Strip(tt.in), ansi.Strip(got)
			if !strings.HasPrefix(in, out) || strings.TrimRight(in, " ") != strings.TrimRight(out, " ") {
				t.Errorf("visible text changed: %q -> %q", in, out)
			}
		})
	}
}

func TestTrimPaddingKeepsTheState(t *testing.T) {
	// After the trimmed line, the attributes in force must be the same as
	// after the original: what is drawn next must look the same.
	lines := []string{
		"\x1b[1mbold\x1b[0m" + strings.Repeat("\x1b[38;5;252m \x1b[m", 3),
		"\x1b[31mred" + strings.Repeat(" ", 4),
		"x\x1b[0;1m  ",
		"x\x1b[1m\x1b[m\x1b[4m ",
	}
	for _, l := range lines {
		got, _ := trimPadding(l)
		if a, b := penAfter(l), penAfter(got); a != b {
			t.Errorf("trimPadding(%q) = %q: state after %+v, want %+v", l, got, b, a)
		}
	}
}

// penAfter returns the SGR attributes in force after printing s.
func penAfter(s string) ansiPen {
	var p ansiPen
	for i := 0; i < len(s); i++ {
		if s[i] == ansiESC {
			n := ansiSeqLen(s, i)
			if params, ok := ansiSGRParams(s[i : i+n]); ok {
				p.apply(params)
			}
			i += n - 1
		}
	}
	return p
}

func TestAnsiSeqLen(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"\x1b[38;5;252mx", 11},
		{"\x1b[mx", 3},
		{"\x1b]8;;http://a\x07x", 14},
		{"\x1b]8;;http://a\x1b\\x", 15},
		{"\x1b(Bx", 3},
		{"\x1b[38;5", 6}, // unterminated: to the end
		{"\x1b", 1},
	}
	for _, tt := range tests {
		if got := ansiSeqLen(tt.in, 0); got != tt.want {
			t.Errorf("ansiSeqLen(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
