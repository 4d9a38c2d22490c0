package tools

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// ignoreTree exercises .gitignore rules: nested files with their own
// domain, negation, directory-only and anchored patterns, and
// .git/info/exclude. Every file holds "needle".
func ignoreTree() map[string]string {
	files := map[string]string{
		".git/HEAD":            "needle",
		".git/info/exclude":    "secret.txt\n",
		".gitignore":           "# comment\n*.log\n!keep.log\nbuild/\n/rootonly.txt\nnode_modules/\n",
		"a.go":                 "",
		"b.ts":                 "",
		"b.tmp":                "",
		"keep.log":             "",
		"debug.log":            "",
		"rootonly.txt":         "",
		"secret.txt":           "",
		"build/out.go":         "",
		"node_modules/p/i.js":  "",
		"src/build":            "", // a file: "build/" only ignores directories
		"src/rootonly.txt":     "", // "/rootonly.txt" is anchored to the top
		"src/x.go":             "",
		"src/deep/y.go":        "",
		"src/.gitignore":       "gen/\n*.tmp\n",
		"src/gen/g.go":         "",
		"src/a.tmp":            "",
		"src/deep/.gitignore":  "!*.tmp\n",
		"src/deep/c.tmp":       "", // re-included below src/deep
		"docs/readme.md":       "",
		"docs/sub/.git/config": "", // a nested repository's .git is skipped too
	}
	for name, content := range files {
		if content == "" {
			files[name] = "needle\n"
		}
	}
	return files
}

func TestGlob(t *testing.T) {
	ws := newWorkspace(t, ignoreTree())
	tests := []struct {
		name, args, want string
		isErr            bool
	}{
		{name: "go files", args: `{"pattern":"**/*.go"}`, want: "a.go\nsrc/deep/y.go\nsrc/x.go\n"},
		{name: "negation", args: `{"pattern":"**/*.log"}`, want: "keep.log\n"},
		{name: "nested domain", args: `{"pattern":"**/*.tmp"}`, want: "b.tmp\nsrc/deep/c.tmp\n"},
		{name: "anchored and dir-only", args: `{"pattern":"**/{build,rootonly.txt}"}`, want: "src/build\nsrc/rootonly.txt\n"},
		{name: "one level", args: `{"pattern":"src/*"}`, want: "src/.gitignore\nsrc/build\nsrc/deep/\nsrc/rootonly.txt\nsrc/x.go\n"},
		{name: "path", args: `{"pattern":"*.go","path":"src"}`, want: "src/x.go\n"},
		{name: "path deep", args: `{"pattern":"**/*.go","path":"src"}`, want: "src/deep/y.go\nsrc/x.go\n"},
		{name: "braces", args: `{"pattern":"{a,b}.*"}`, want: "a.go\nb.tmp\nb.ts\n"},
		{name: "literal", args: `{"pattern":"src/x.go"}`, want: "src/x.go\n"},
		{name: "explicit ignored dir", args: `{"pattern":"build/*"}`, want: "build/out.go\n"},
		{name: "no match", args: `{"pattern":"**/*.rs"}`, want: `no files match "**/*.rs" (.gitignored files are skipped)`},
		{name: "missing base", args: `{"pattern":"nope/*.go"}`, want: "error: nope does not exist", isErr: true},
		{name: "path is a file", args: `{"pattern":"*","path":"a.go"}`, want: "error: a.go is a file, not a directory", isErr: true},
		{name: "path is a file, any depth", args: `{"pattern":"**","path":"a.go"}`, want: "error: a.go is a file, not a directory", isErr: true},
		{name: "pattern through a file", args: `{"pattern":"src/x.go/*"}`, want: "error: src/x.go is a file, not a directory", isErr: true},
		{name: "escape", args: `{"pattern":"../*"}`, want: `pattern "../*" leads outside the working directory`, isErr: true},
		{name: "escape via path", args: `{"pattern":"*","path":".."}`, want: `path ".." is outside`, isErr: true},
		{name: "escape inside pattern", args: `{"pattern":"src/../../*"}`, want: "leads outside", isErr: true},
		{name: "absolute outside", args: `{"pattern":"/etc/*"}`, want: `pattern "/etc/*" is outside the working directory`, isErr: true},
		{name: "tilde", args: `{"pattern":"~/.ssh/*"}`, want: `starts with "~"`, isErr: true},
		{name: "invalid", args: `{"pattern":"src/[a"}`, want: "is not a valid glob", isErr: true},
		{name: "empty", args: `{"pattern":""}`, want: "pattern is empty", isErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, ws, Options{}, "glob", tt.args)
			if res.IsError != tt.isErr || !strings.Contains(res.Content, tt.want) || (!tt.isErr && !strings.HasPrefix(tt.want, "no files") && res.Content != tt.want) {
				t.Fatalf("got %+v\nwant IsError=%v, content\n%s", res, tt.isErr, tt.want)
			}
		})
	}
}

func TestGlobNeverListsGit(t *testing.T) {
	ws := newWorkspace(t, ignoreTree())
	res := run(t, ws, Options{}, "glob", `{"pattern":"**"}`)
	for _, bad := range []string{".git/", "HEAD", "config", "secret.txt", "debug.log", "node_modules", "gen/"} {
		if strings.Contains(res.Content, bad) {
			t.Errorf("%q listed:\n%s", bad, res.Content)
		}
	}
	if !strings.Contains(res.Content, "docs/sub/\n") {
		t.Errorf("docs/sub/ missing:\n%s", res.Content)
	}
}

func TestGlobAbsoluteInside(t *testing.T) {
	ws := newWorkspace(t, ignoreTree())
	res := run(t, ws, Options{}, "glob", jsonArgs(t, map[string]any{"pattern": filepath.Join(ws.Dir(), "src", "*.go")}))
	if res.Content != "src/x.go\n" {
		t.Fatalf("got %+v", res)
	}
}

// TestGlobCap: a glob shows the first maxGlobResults paths in order and
// says how many it left out, also when it found so many that the walk kept
// only the first of them.
func TestGlobCap(t *testing.T) {
	for _, n := range []int{maxGlobResults + 3, 9*maxGlobResults + 3} {
		files := map[string]string{}
		for i := range n {
			files[fmt.Sprintf("d%d/f%04d.txt", i%7, i)] = ""
		}
		var want []string
		for name := range files {
			want = append(want, name)
		}
		slices.Sort(want)
		ws := newWorkspace(t, files)
		res := run(t, ws, Options{MaxOutputBytes: 1 << 20}, "glob", `{"pattern":"**/*.txt"}`)
		lines := strings.Split(strings.TrimSpace(res.Content), "\n")
		note := fmt.Sprintf("(showing 500 of %d matches; narrow the pattern or path)", n)
		if len(lines) != maxGlobResults+1 || !slices.Equal(lines[:maxGlobResults], want[:maxGlobResults]) || lines[maxGlobResults] != note {
			t.Fatalf("%d files: %d lines, first %q, last two %q", n, len(lines), lines[0], lines[len(lines)-2:])
		}
		if res.Summary != fmt.Sprintf("%d matches", n) {
			t.Fatalf("summary %q", res.Summary)
		}
	}
}

// TestNameMatcherAgrees checks that the shortcut of matching a **/NAME
// pattern on names alone agrees with matching whole paths, and is not
// taken where it could not.
func TestNameMatcherAgrees(t *testing.T) {
	paths := []string{"a.go", "x/a.go", "x/y/.a.go", "a.go.txt", "x/go", "x/b.ts", "x/y/b.tsx", "x/[a].go", "x/*.go", "build", "x/build"}
	for _, rest := range []string{"**/*.go", "**/*.ts", "**/*.{ts,tsx}", "**/build", "**/b.*", "**/\\[a\\].go", "**/\\*.go", "**/?.go"} {
		m := nameMatcher(rest)
		if m == nil {
			t.Fatalf("%q: no shortcut", rest)
		}
		for _, p := range paths {
			if got, want := m(path.Base(p)), doublestar.MatchUnvalidated(rest, p); got != want {
				t.Errorf("%q on %q: %v, matching the path %v", rest, p, got, want)
			}
		}
	}
	for _, rest := range []string{"*.go", "**/x/*.go", "**/**/*.go", "x/**/*.go", "**/"} {
		if nameMatcher(rest) != nil {
			t.Errorf("%q: shortcut taken", rest)
		}
	}
}
