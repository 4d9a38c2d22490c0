package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"lathe/prompts"
	"lathe/prompts/human"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// maxGlobResults bounds how many paths glob returns.
const maxGlobResults = 500

func globSpec() spec {
	return spec{
		name: "glob",
		desc: "Find files by glob pattern (** matches any depth, {a,b} alternatives). Skips .gitignored files.",
		params: []param{
			{name: "pattern", typ: typeString, required: true, desc: "Glob relative to path, e.g. **/*.go"},
			{name: "path", typ: typeString, desc: "Directory to search in (default .)"},
		},
	}
}

type globArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

type globTool struct {
	base
	ws *Workspace
}

func (*globTool) Kind() Kind { return KindRead }

// Aliases implements Aliased: Claude Code's name for the tool.
func (*globTool) Aliases() []string { return []string{"Glob"} }

func (t *globTool) Prepare(raw json.RawMessage) (Call, error) {
	return prepare(&t.base, raw, func(a globArgs) (Call, error) {
		dir, err := optionalRel(t.ws, a.Path)
		if err != nil {
			return nil, err
		}
		full, err := globPattern(t.ws, dir, a.Pattern)
		if err != nil {
			return nil, err
		}
		return &globCall{t: t, pattern: a.Pattern, full: full}, nil
	})
}

// globPattern joins pattern to dir, both relative to the working directory,
// and checks that the result is a valid pattern that stays inside it. An
// absolute pattern inside the working directory is made relative.
func globPattern(ws *Workspace, dir, pattern string) (string, error) {
	switch {
	case pattern == "":
		return "", fmt.Errorf("pattern is empty; use e.g. %q", "**/*.go")
	case strings.ContainsRune(pattern, 0):
		return "", fmt.Errorf("pattern %q contains a NUL byte", pattern)
	case path.IsAbs(pattern):
		base, rest := doublestar.SplitPattern(pattern)
		rel, err := ws.Rel(base)
		if err != nil {
			return "", fmt.Errorf("pattern %q is outside the working directory %s; use a pattern relative to it", pattern, ws.Dir())
		}
		dir, pattern = rel, rest
	case strings.HasPrefix(pattern, "~"):
		return "", fmt.Errorf(`pattern %q starts with "~", which is not expanded; use a pattern relative to the working directory`, pattern)
	}
	full := path.Clean(path.Join(dir, pattern))
	if full == ".." || strings.HasPrefix(full, "../") {
		return "", fmt.Errorf("pattern %q leads outside the working directory %s; use a pattern inside it", pattern, ws.Dir())
	}
	if !doublestar.ValidatePattern(full) {
		return "", fmt.Errorf("pattern %q is not a valid glob (check brackets and braces)", pattern)
	}
	base, _ := doublestar.SplitPattern(full)
	if _, err := ws.follow(base); err != nil {
		return "", err
	}
	return full, nil
}

type globCall struct {
	t       *globTool
	pattern string // as the model sent it
	full    string // root-relative
}

func (c *globCall) Subject() string { return c.pattern }

func (c *globCall) Run(ctx context.Context, _ Caller) (Result, error) {
	ws := c.t.ws
	base, rest := doublestar.SplitPattern(c.full)
	s, err := newSearchDir(ws, base)
	if err != nil {
		return Errorf("refused", err.Error()), nil
	}
	if !s.isDir {
		return Errorf("not a directory", base+" is a file, not a directory; "+prompts.Hint(prompts.HintGlobADir)), nil
	}
	maxDepth := -1
	if !strings.Contains(rest, "**") {
		maxDepth = strings.Count(rest, "/") + 1
	}
	byName := nameMatcher(rest)
	found, err := walkEach(ctx, ws.root, s, globFound{}, func(found *globFound, e entry) bool {
		isDir := e.typ.IsDir()
		if byName != nil {
			if byName(e.name) {
				rel := s.display(e.rel())
				if isDir {
					rel += "/"
				}
				found.add(rel)
			}
			return isDir
		}
		rel := s.display(e.rel())
		if doublestar.MatchUnvalidated(c.full, rel) {
			if isDir {
				rel += "/"
			}
			found.add(rel)
		}
		return isDir && (maxDepth < 0 || depth(rel)-depth(base) < maxDepth)
	})
	if err != nil {
		return Result{}, err
	}
	var paths []string
	n := 0
	for _, f := range found {
		paths = append(paths, f.paths...)
		n += f.n
	}
	return c.result(paths, n), nil
}

// globFound is what one walk worker found: how many paths, and the first
// maxGlobResults of them in order (perhaps more), all a result shows, so
// that a pattern matching half a million files holds a few hundred.
type globFound struct {
	paths []string
	n     int
}

func (f *globFound) add(p string) {
	f.n++
	f.paths = append(f.paths, p)
	if len(f.paths) >= 4*maxGlobResults {
		slices.Sort(f.paths)
		clear(f.paths[maxGlobResults:])
		f.paths = f.paths[:maxGlobResults]
	}
}

// nameMatcher returns, for a pattern below the search directory of the
// form **/NAME, NAME without a slash or **, a function that tells from an
// entry's name alone whether its path matches: every entry the walk meets
// is below the directory, at any depth. That spares building and matching
// the path of each of them. It returns nil for other patterns.
func nameMatcher(rest string) func(name string) bool {
	seg, ok := strings.CutPrefix(rest, "**/")
	if !ok || seg == "" || strings.Contains(seg, "/") || strings.Contains(seg, "**") {
		return nil
	}
	if lit, ok := strings.CutPrefix(seg, "*"); ok && !strings.ContainsAny(lit, `*?[]{}\`) {
		return func(name string) bool { return strings.HasSuffix(name, lit) }
	}
	return func(name string) bool { return doublestar.MatchUnvalidated(seg, name) }
}

// depth counts the components of a clean relative path; "." has none.
func depth(p string) int {
	p = strings.TrimSuffix(p, "/")
	if p == "." || p == "" {
		return 0
	}
	return strings.Count(p, "/") + 1
}

// result shows the first maxGlobResults paths of the n found, in order.
func (c *globCall) result(paths []string, n int) Result {
	if n == 0 {
		return Result{Content: fmt.Sprintf("no files match %q (.gitignored files are skipped)", c.full), Summary: "no matches"}
	}
	slices.Sort(paths)
	var b strings.Builder
	for _, p := range paths[:min(len(paths), maxGlobResults)] {
		b.WriteString(ShowName(p))
		b.WriteByte('\n')
	}
	if n > maxGlobResults {
		fmt.Fprintf(&b, "(showing %d of %d matches; narrow the pattern or path)\n", maxGlobResults, n)
	}
	return Result{Content: b.String(), Summary: human.Plural(n, "match")}
}
