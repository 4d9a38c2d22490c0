package tools

import (
	"slices"
	"strings"
)

// tabWidth is the width of a tab when indentations are measured. Only
// ratios of widths on one side (the model's or the file's) matter, so its
// value changes little.
const tabWidth = 4

// maxIndent caps the width of an indentation made by re-indenting, so that
// a model's absurd indentation cannot blow up the file.
const maxIndent = 1024

// indentOf returns the leading spaces and tabs of line.
func indentOf(line string) string { return line[:len(line)-len(strings.TrimLeft(line, " \t"))] }

// width measures an indentation in columns: a space is one, a tab
// tabWidth.
func width(indent string) int {
	return len(indent) + (tabWidth-1)*strings.Count(indent, "\t")
}

// units are the indentation steps of the file and of the model's text, in
// columns, and whether the file indents with tabs.
type units struct {
	file, model int
	tabs        bool
}

// unitsOf works out the steps: each is the most common difference between
// the indentations of consecutive non-blank lines that differ; the file's
// defaults to a tab or 4 spaces, the model's to the file's.
func unitsOf(file, old, new []string) units {
	u := units{tabs: tabbed(file)}
	u.file = commonStep(file)
	if u.file == 0 {
		u.file = 4
	}
	u.model = commonStep(old, new)
	if u.model == 0 {
		u.model = u.file
	}
	return u
}

// commonStep returns the most common positive difference between the
// widths of consecutive non-blank lines of each text (the smaller on a
// tie), or 0 if there is none.
func commonStep(texts ...[]string) int {
	count := map[int]int{}
	for _, lines := range texts {
		prev := -1
		for _, l := range lines {
			if lineKey(l) == "" {
				continue
			}
			w := width(indentOf(l))
			if prev >= 0 && w != prev {
				count[max(w-prev, prev-w)]++
			}
			prev = w
		}
	}
	best := 0
	for step, n := range count {
		if n > count[best] || n == count[best] && step < best {
			best = step
		}
	}
	return best
}

// tabbed reports whether more of the indented lines start with a tab than
// with a space.
func tabbed(lines []string) bool {
	n := 0
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "\t"):
			n++
		case strings.HasPrefix(l, " "):
			n--
		}
	}
	return n > 0
}

// indentMap maps indentations of the model's text onto the file's, as
// learned from the lines old_string matched. Each width old_string's lines
// have maps to the indentation of the file line it matched; those must be
// consistent: lines indented alike in old_string are indented alike in the
// file, and a line deeper in old_string is deeper in the file. A line of
// new_string with one of those widths gets that indentation exactly; a
// line with another width w gets the indentation of the nearest width k
// below it, plus w-k scaled from the model's columns to the file's (in
// tabs when the file indents with tabs); a line shallower than all of them
// is measured back from the shallowest. The scale is the ratio of the
// spans of the two sides' widths, or of their steps (see units) when
// old_string's lines are all indented alike.
type indentMap struct {
	identity bool           // old_string is indented just as the file is
	widths   []int          // widths of old_string's lines, ascending
	file     map[int]string // the file's indentation for each of widths
	num, den int            // file columns per num/den model column
	tabs     bool           // the file indents with tabs
}

// newIndentMap learns the map from old, the model's lines, and matched,
// the file's lines they matched. ok is false when they are inconsistent.
func newIndentMap(old, matched []string, u units) (m indentMap, ok bool) {
	m = indentMap{identity: true, file: map[int]string{}, num: u.file, den: u.model, tabs: u.tabs}
	for i, o := range old {
		if lineKey(o) == "" {
			continue
		}
		oi, fi := indentOf(o), indentOf(matched[i])
		m.identity = m.identity && oi == fi
		w := width(oi)
		if f, seen := m.file[w]; seen {
			if width(f) != width(fi) {
				return m, false
			}
			continue
		}
		m.file[w] = fi
		m.widths = append(m.widths, w)
	}
	slices.Sort(m.widths)
	for i := 1; i < len(m.widths); i++ {
		if width(m.file[m.widths[i]]) <= width(m.file[m.widths[i-1]]) {
			return m, false
		}
	}
	if n := len(m.widths); n > 1 {
		lo, hi := m.widths[0], m.widths[n-1]
		m.num, m.den = width(m.file[hi])-width(m.file[lo]), hi-lo
	}
	for _, l := range matched {
		if ind := indentOf(l); ind != "" && lineKey(l) != "" {
			m.tabs = ind[0] == '\t'
			break
		}
	}
	return m, true
}

// apply re-indents one line of new_string. A blank line becomes empty.
func (m indentMap) apply(line string) string {
	if m.identity {
		return line
	}
	body := strings.TrimLeft(line, " \t")
	if lineKey(body) == "" {
		return ""
	}
	w := width(line[:len(line)-len(body)])
	if f, ok := m.file[w]; ok {
		return f + body
	}
	i, _ := slices.BinarySearch(m.widths, w) // m.widths[i-1] < w < m.widths[i]
	if i == 0 {
		lo := m.widths[0]
		return m.render(width(m.file[lo])-m.scale(lo-w)) + body
	}
	k := m.widths[i-1]
	return m.file[k] + m.render(m.scale(w-k)) + body
}

// scale converts d model columns to file columns, rounding to nearest.
func (m indentMap) scale(d int) int {
	return min((d*m.num+m.den/2)/m.den, maxIndent)
}

// render returns an indentation of cols columns in the file's style.
func (m indentMap) render(cols int) string {
	cols = min(max(cols, 0), maxIndent)
	if m.tabs {
		return strings.Repeat("\t", cols/tabWidth) + strings.Repeat(" ", cols%tabWidth)
	}
	return strings.Repeat(" ", cols)
}
