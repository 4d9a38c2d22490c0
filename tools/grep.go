package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"lathe/prompts/human"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

const (
	// maxGrepMatches bounds how many matching lines grep returns.
	maxGrepMatches = 200
	// maxGrepLine is how much of a matching line grep shows.
	maxGrepLine = 240
)

func grepSpec() spec {
	return spec{
		name: "grep",
		desc: "Search file contents with an RE2 regexp. Returns file:line: text, sorted. Skips binary and .gitignored files.",
		params: []param{
			{name: "pattern", typ: typeString, required: true, desc: "RE2 regular expression"},
			{name: "path", typ: typeString, desc: "File or directory to search (default .)"},
			{name: "include", typ: typeString, desc: "Only search files matching this glob, e.g. *.go or src/**/*.ts"},
			{name: "ignore_case", typ: typeBoolean, desc: "Match case-insensitively (default false)"},
		},
	}
}

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Include    string `json:"include"`
	IgnoreCase bool   `json:"ignore_case"`
}

type grepTool struct {
	base
	ws   *Workspace
	opts Options
}

func (*grepTool) Kind() Kind { return KindRead }

// Aliases implements Aliased: Claude Code's name for the tool.
func (*grepTool) Aliases() []string { return []string{"Grep"} }

func (t *grepTool) Prepare(raw json.RawMessage) (Call, error) {
	return prepare(&t.base, raw, func(a grepArgs) (Call, error) {
		rel, err := optionalRel(t.ws, a.Path)
		if err != nil {
			return nil, err
		}
		if a.Pattern == "" {
			return nil, fmt.Errorf("pattern is empty")
		}
		expr := a.Pattern
		if a.IgnoreCase {
			expr = "(?i)" + expr
		}
		m, err := newGrepMatcher(expr)
		if err != nil {
			return nil, fmt.Errorf("invalid regexp %q: %v", a.Pattern, err)
		}
		if a.Include != "" && !doublestar.ValidatePattern(a.Include) {
			return nil, fmt.Errorf("include %q is not a valid glob (check brackets and braces)", a.Include)
		}
		return &grepCall{t: t, args: a, rel: rel, m: m}, nil
	})
}

type grepCall struct {
	t    *grepTool
	args grepArgs
	rel  string
	m    *grepMatcher
}

func (c *grepCall) Subject() string { return c.args.Pattern }

func (c *grepCall) Run(ctx context.Context, _ Caller) (Result, error) {
	s, err := newSearchDir(c.t.ws, c.rel)
	if err != nil {
		return Errorf("refused", err.Error()), nil
	}
	if !s.isDir {
		return c.runFile(s), nil
	}
	workers, err := walkEach(ctx, c.t.ws.root, s, newGrepWorker(), func(w *grepWorker, e entry) bool {
		if e.typ.IsDir() {
			return true
		}
		if e.typ.IsRegular() && c.included(s, e) {
			w.searchFile(c.m, e, func() string { return s.display(e.rel()) })
		}
		return false
	})
	if err != nil {
		return Result{}, err
	}
	return c.result(workers), nil
}

// included reports whether e passes the include glob: on its name if the
// glob has no slash, else on its path from the search directory or from
// the working directory.
func (c *grepCall) included(s *searchDir, e entry) bool {
	inc := c.args.Include
	switch {
	case inc == "":
		return true
	case !strings.Contains(inc, "/"):
		return doublestar.MatchUnvalidated(inc, e.name)
	}
	rel := e.rel()
	if doublestar.MatchUnvalidated(inc, s.display(rel)) {
		return true
	}
	from, ok := rel, true
	if s.target != "." {
		from, ok = strings.CutPrefix(rel, s.target+"/")
	}
	return ok && doublestar.MatchUnvalidated(inc, from)
}

// runFile greps a single file, which is searched even if .gitignored.
func (c *grepCall) runFile(s *searchDir) Result {
	w := newGrepWorker()
	dir, name := path.Split(s.target)
	d, err := c.t.ws.root.OpenRoot(path.Clean("./" + dir))
	if err != nil {
		return Errorf("failed", c.t.ws.fsError(c.rel, err).Error())
	}
	defer d.Close()
	if !w.searchFile(c.m, entry{dir: d, dirFD: -1, name: name}, func() string { return s.rel }) {
		return Errorf("not searched", c.rel+" is not a text file grep can search (binary, special or over 64 MiB)")
	}
	return c.result([]grepWorker{w})
}

// result merges what the workers found into the text sent to the model.
func (c *grepCall) result(workers []grepWorker) Result {
	var files []*fileMatches
	total, nfiles := 0, 0
	for _, w := range workers {
		files = append(files, w.found.files...)
		total += w.matches
		nfiles += w.files
	}
	if total == 0 {
		where := ""
		if c.rel != "." {
			where = " in " + c.rel
		}
		return Result{Content: fmt.Sprintf("no matches for %q%s (binary and .gitignored files are skipped)", c.args.Pattern, where), Summary: "no matches"}
	}
	slices.SortFunc(files, func(a, b *fileMatches) int { return cmp.Compare(a.path, b.path) })
	var b strings.Builder
	shown := 0
	budget := c.t.opts.MaxOutputBytes - markerRoom*2
out:
	for _, f := range files {
		for _, l := range f.lines {
			line := fmt.Sprintf("%s:%d: %s\n", ShowName(f.path), l.n, l.text)
			if shown == maxGrepMatches || b.Len()+len(line) > budget {
				break out
			}
			b.WriteString(line)
			shown++
		}
	}
	summary := human.Plural(total, "match") + " in " + human.Plural(nfiles, "file")
	if shown < total {
		fmt.Fprintf(&b, "(showing %d of %s; narrow the pattern, path or include)\n", shown, summary)
	}
	return Result{Content: b.String(), Summary: summary}
}

// grepWorker is the state of one walk worker: its reader and scanner,
// what it found, and the file it is searching.
type grepWorker struct {
	rd      blockReader
	sc      *lineScanner
	found   fileHeap
	matches int
	files   int

	m     *grepMatcher
	add   func(n int, line []byte) // addLine, bound once
	fm    *fileMatches             // what the file holds so far; nil for nothing
	lines int                      // in the file's blocks before this one
}

func newGrepWorker() grepWorker { return grepWorker{found: fileHeap{limit: maxGrepMatches}} }

// searchFile greps the regular file e, naming it in results with what name
// returns, which is asked only if it matches. It reports whether the file
// was searched (it is a readable text file).
func (w *grepWorker) searchFile(m *grepMatcher, e entry, name func() string) bool {
	f, ok := openRegular(e)
	if !ok {
		return false
	}
	defer f.Close()
	if isBinary(w.rd.reset(f, f.size)) {
		return false
	}
	if w.sc == nil {
		// Made here, where w no longer moves, and once per worker.
		w.m, w.sc, w.add = m, m.newScanner(), w.addLine
	}
	w.fm, w.lines = nil, 0
	for block := w.rd.next(); block != nil; block = w.rd.next() {
		w.lines += m.search(w.sc, block, w.add)
	}
	fm := w.fm
	w.fm = nil
	if w.rd.err != nil {
		return false
	}
	if fm != nil {
		fm.path = name()
		w.matches += fm.count
		w.files++
		w.found.add(fm)
	}
	return true
}

// addLine records the matching line numbered n in the block being searched.
func (w *grepWorker) addLine(n int, line []byte) {
	if w.fm == nil {
		w.fm = &fileMatches{}
	}
	w.fm.count++
	if len(w.fm.lines) < maxGrepMatches {
		w.fm.lines = append(w.fm.lines, lineMatch{n: w.lines + n, text: w.m.show(line)})
	}
}

// show returns a matching line as grep shows it: cut to maxGrepLine bytes
// around the match if longer.
func (m *grepMatcher) show(line []byte) string {
	if len(line) <= maxGrepLine {
		return string(line)
	}
	start := 0
	if loc := m.re.FindIndex(line); loc != nil {
		start = loc[0]
	}
	s := string(line)
	from := runeStart(s, max(0, min(start-maxGrepLine/4, len(s)-maxGrepLine)))
	to := runeStart(s, from+maxGrepLine)
	out := s[from:to]
	if from > 0 {
		out = "…" + out
	}
	if to < len(s) {
		out += "…"
	}
	return out
}
