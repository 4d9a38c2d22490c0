package lsp

import (
	"cmp"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// Bounds of the navigation tools' results.
const (
	navLines  = 50      // locations listed
	maxHover  = 2000    // bytes of a hover shown
	navBudget = 8 << 20 // bytes of files read to show the lines of the locations listed
)

// place is a location a server answered, as lathe lists it.
type place struct {
	// path is relative to the workspace, with slashes; outside it, the
	// absolute path, or the URI when it names no file.
	path   string
	inside bool
	line   int // 0-based
	char   int // 0-based, in UTF-16 units
}

// placeOf is where loc is, as far as the workspace dir goes.
func placeOf(dir string, loc location) place {
	p := place{line: int(loc.Range.Start.Line), char: int(loc.Range.Start.Character)}
	if rel, ok := pathOf(dir, loc.URI); ok {
		p.path, p.inside = rel, true
	} else if u, err := url.Parse(loc.URI); err == nil && u.Scheme == "file" && u.Path != "" {
		p.path = filepath.Clean(u.Path)
	} else {
		p.path = clip(oneLine(loc.URI), 200)
	}
	return p
}

// places are locs where they are: those in the workspace first, then by
// path and position, each once.
func places(dir string, locs []location) []place {
	out := make([]place, 0, len(locs))
	for _, l := range locs {
		out = append(out, placeOf(dir, l))
	}
	slices.SortFunc(out, func(a, b place) int {
		if a.inside != b.inside {
			if a.inside {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.path, b.path), cmp.Compare(a.line, b.line), cmp.Compare(a.char, b.char))
	})
	return slices.Compact(out)
}

// texts reads the files of the workspace that locations are in, once
// each and at most navBudget bytes in all, for the lines to show.
type texts struct {
	m     *Manager
	files map[string]string
	read  int
}

func (m *Manager) texts() *texts { return &texts{m: m, files: map[string]string{}} }

// of is the text of the file at path; "" when it cannot be read.
func (t *texts) of(path string) string {
	if text, ok := t.files[path]; ok {
		return text
	}
	text := ""
	if t.read < navBudget {
		text, _ = t.m.readFile(path)
		t.read += len(text)
	}
	t.files[path] = text
	return text
}

// line is p for the model: path:line:column (1-based, the column in
// characters) and the line's text; a place outside the workspace is said
// to be, and its file not read.
func (t *texts) line(p place) string {
	if !p.inside {
		return fmt.Sprintf("%s:%d:%d (outside the workspace)", p.path, p.line+1, p.char+1)
	}
	text := t.of(p.path)
	s := fmt.Sprintf("%s:%d:%d", p.path, p.line+1, charColumn(text, p.line, p.char)+1)
	if l := lineText(text, p.line); l != "" {
		s += ": " + l
	}
	return s
}

// list is the lines of the first navLines of ps, and how many more
// there are.
func (t *texts) list(ps []place) string {
	var b strings.Builder
	for i, p := range ps[:min(len(ps), navLines)] {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(t.line(p))
	}
	if len(ps) > navLines {
		fmt.Fprintf(&b, "\n(%d more not shown)", len(ps)-navLines)
	}
	return b.String()
}
