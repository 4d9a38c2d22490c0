// Package human writes quantities for people, the same way wherever lathe
// shows them: counts of things, durations, ages, sizes, one-line excerpts.
package human

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Plural is "1 line", "2 lines", "3 entries", "4 matches".
func Plural(n int, word string) string {
	switch {
	case n == 1:
		return "1 " + word
	case strings.HasSuffix(word, "y") && !strings.HasSuffix(word, "ay"):
		return fmt.Sprintf("%d %sies", n, word[:len(word)-1])
	case strings.HasSuffix(word, "ch") || strings.HasSuffix(word, "s"):
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Line flattens s to one line of at most n runes, ending in "…" when cut,
// its control characters escaped (see Visible).
func Line(s string, n int) string {
	s = strings.Join(strings.Fields(Visible(s)), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Duration rounds d for people: to 100 ms above a second, to the
// millisecond above one, to the microsecond below.
func Duration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}

// Ago writes how long ago something was: "now", "5m", "3h", "2d".
func Ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// Thousands writes n with thousands separators: 32,768.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// Size writes the size of a file, n bytes, in the binary units lathe's
// limits on files are set and documented in ([undo] max_file = 10485760,
// "10 MiB"), so that a file over a limit is told in the limit's unit:
// "512 B", "21.7 MiB", "10 MiB".
func Size(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for x := n / unit; x >= unit; x /= unit {
		div *= unit
		exp++
	}
	v := fmt.Sprintf("%.1f", float64(n)/float64(div))
	return strings.TrimSuffix(v, ".0") + " " + string("KMGTPE"[exp]) + "iB"
}

// Bytes writes n bytes in decimal units, as model servers report sizes:
// "512 B", "4.9 GB".
func Bytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for x := n / unit; x >= unit; x /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}

// Visible shows the characters of s that a terminal would act on rather
// than print, escaped: "\r", "\x1b", "\u2028"; tabs and line breaks stay
// as they are. What a dialog shows is then what will run: a carriage
// return or an escape sequence cannot hide part of a command. A byte that
// is not UTF-8, which a terminal would drop or show as "�", is "\xe9".
func Visible(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !hidden(r):
			b.WriteRune(r)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// hidden reports a character a terminal acts on: C0 and C1 controls but
// the tab and the line feed, DEL, and the Unicode line and paragraph
// separators and bidirectional controls.
func hidden(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r >= 0x7f && r < 0xa0:
		return true
	case r == '\u2028' || r == '\u2029' || r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// Path is path for people: relative to dir when it lies there, with the
// home directory as "~" when it lies there.
func Path(path, dir, home string) string {
	for _, base := range []struct{ dir, prefix string }{{dir, ""}, {home, "~"}} {
		if base.dir == "" {
			continue
		}
		if rel, err := filepath.Rel(base.dir, path); err == nil && filepath.IsLocal(rel) {
			return filepath.Join(base.prefix, rel)
		}
	}
	return path
}
