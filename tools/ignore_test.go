package tools

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestLoadIgnorerLeavesStartToWalk checks that each .gitignore is read
// once: loadIgnorer takes the files above the start directory, and the
// walk adds the start directory's own, so its rules are not matched twice.
func TestLoadIgnorerLeavesStartToWalk(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		".gitignore": "*.log\n", "sub/.gitignore": "*.tmp\n", "sub/deep/.gitignore": "*.bak\n",
		"sub/deep/a.log": "", "sub/deep/a.tmp": "", "sub/deep/a.bak": "", "sub/deep/a.go": "",
	})
	if ig := loadIgnorer(ws.root, "."); ig != nil {
		t.Fatalf("the start directory's rules were loaded: %d files", len(ig.files))
	}
	ig := loadIgnorer(ws.root, "sub/deep")
	if ig == nil || len(ig.files) != 2 || len(ig.files[0].rules)+len(ig.files[1].rules) != 2 {
		t.Fatalf("ignorer for sub/deep = %+v; want the 2 rules of . and sub", ig)
	}
	got := walked(t, ws, "sub/deep")
	if want := []string{"sub/deep/.gitignore", "sub/deep/a.go"}; !slices.Equal(got, want) {
		t.Fatalf("walk of sub/deep visited %q, want %q", got, want)
	}
}

// walked returns every path a walk of dir visits, sorted.
func walked(t *testing.T, ws *Workspace, dir string) []string {
	t.Helper()
	var mu sync.Mutex
	var got []string
	err := walk(t.Context(), ws.root, walkOpts{start: dir, ignore: loadIgnorer(ws.root, dir)}, func(_ int, e entry) bool {
		mu.Lock()
		got = append(got, e.rel())
		mu.Unlock()
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

// gitignoreCases are trees whose .gitignore files use the tricky parts of
// the format. A name ending in "/" is an empty directory made to hold
// nothing but itself; every other file is empty unless given content.
var gitignoreCases = []struct {
	name    string
	exclude string // .git/info/exclude
	files   map[string]string
}{
	{name: "negated directory does not re-include its files", files: map[string]string{
		".gitignore": "*.log\n!important/\n",
		"a.log":      "", "important/x.log": "", "important/keep.txt": "", "sub/important/y.log": "",
	}},
	{name: "nothing inside an excluded directory comes back", files: map[string]string{
		".gitignore":     "build/\n!build/keep.txt\n!build/sub/\n",
		"build/keep.txt": "", "build/sub/a": "", "src/build/b": "",
	}},
	{name: "re-include a directory excluded by a wildcard", files: map[string]string{
		".gitignore": "/*\n!/src/\n!.gitignore\nsrc/*.o\n",
		"top.txt":    "", "src/a.c": "", "src/a.o": "", "other/b.c": "",
	}},
	{name: "anchored patterns", files: map[string]string{
		".gitignore": "/root.txt\nsub/x.txt\n/d/e/\n",
		"root.txt":   "", "sub/root.txt": "", "sub/x.txt": "", "a/sub/x.txt": "", "x.txt": "",
		"d/e/f": "", "a/d/e/f": "", "d/e.txt": "",
	}},
	{name: "double asterisks", files: map[string]string{
		".gitignore": "**/gen\na/**/b\ndocs/**\nx**y\nm/**/\np/q**\n!p/qr/\n**\\/lit\n",
		"gen/1":      "", "deep/er/gen/2": "", "a/b": "", "a/x/b": "", "a/x/y/b": "", "c/a/b": "",
		"docs/r.md": "", "docs/sub/s.md": "", "xay": "", "d/xzy": "", "m/f": "", "m/n/f": "", "m/n/o/g": "",
		"p/qs": "", "p/qr/in": "", "p/qr/t/u": "", "lit": "", "o/lit": "",
	}},
	{name: "directory-only rules", files: map[string]string{
		".gitignore": "logs/\n*.d/\nnot/a/file/\n",
		"logs/a":     "", "x/logs": "", "y.d/z": "", "w.d": "", "not/a/file": "", "n/not/a/file/k": "",
	}},
	{name: "info/exclude ranks below .gitignore", exclude: "*.tmp\nsecret\n!*.keep\n", files: map[string]string{
		".gitignore": "!keep.tmp\n*.keep\n",
		"a.tmp":      "", "keep.tmp": "", "secret": "", "sub/secret": "", "x.keep": "",
	}},
	{name: "nested files and their domains", files: map[string]string{
		".gitignore":          "*.txt\n/top\n",
		"sub/.gitignore":      "!*.txt\n/only-here\nb/\n",
		"sub/deep/.gitignore": "a.txt\n!/b/\n",
		"a.txt":               "", "sub/a.txt": "", "sub/deep/a.txt": "", "sub/deep/c.txt": "",
		"top": "", "sub/top": "", "sub/only-here": "", "sub/deep/only-here": "",
		"sub/b/1": "", "sub/deep/b/2": "", "sub/deep/e/b/3": "",
	}},
	{name: "character classes", files: map[string]string{
		".gitignore": "[abc].c\n[!a-c]x\n[[:digit:]]*.out\n[]]z\nfile[0-9].txt\n[^q]y\n[[:upper:][:punct:]]u\n[a-]m\n[x\n",
		"a.c":        "", "d.c": "", "ax": "", "dx": "", "1.out": "", "a1.out": "", "]z": "", "z": "",
		"file5.txt": "", "filex.txt": "", "qy": "", "ry": "", "Bu": "", "-u": "", "bu": "", "-m": "", "bm": "", "[x": "",
	}},
	{name: "escapes, comments and spaces", files: map[string]string{
		".gitignore": "\ufeff# a comment\n\\#hash\n\\!bang\n\\*star\ntrail   \nkeep\\ \n  lead\n\n   \nq\\?\nwin\r\n#notignored\n",
		"#hash":      "", "!bang": "", "*star": "", "xstar": "", "trail": "", "keep ": "", "keep": "",
		"  lead": "", "lead": "", "q?": "", "qx": "", "win": "", "#notignored": "",
	}},
	{name: "wildcards stop at slashes", files: map[string]string{
		".gitignore": "a?c\nd*/f\n*/g/h\n",
		"a/c":        "", "abc": "", "dx/f": "", "dx/y/f": "", "x/g/h": "", "x/y/g/h": "",
	}},
}

// TestIgnoreAgreesWithGit walks each tree and compares what the walk skips
// with what git check-ignore says, for every path in the tree, walking from
// the top and from each kept directory.
func TestIgnoreAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, tc := range gitignoreCases {
		t.Run(tc.name, func(t *testing.T) {
			ws := newWorkspace(t, tc.files)
			gitRun(t, ws.Dir(), nil, "init", "-q")
			if tc.exclude != "" {
				if err := os.WriteFile(filepath.Join(ws.Dir(), ".git/info/exclude"), []byte(tc.exclude), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			all := treePaths(t, ws.Dir())
			ignored := gitIgnored(t, ws.Dir(), all)
			var kept []string
			for _, p := range all {
				if !ignored[p] {
					kept = append(kept, p)
				}
			}
			if got := walked(t, ws, "."); !slices.Equal(got, kept) {
				t.Fatalf("walk kept %q\ngit keeps %q", got, kept)
			}
			for _, d := range kept {
				if fi, err := os.Stat(filepath.Join(ws.Dir(), d)); err != nil || !fi.IsDir() {
					continue
				}
				want := slices.DeleteFunc(slices.Clone(kept), func(p string) bool { return !strings.HasPrefix(p, d+"/") })
				if got := walked(t, ws, d); !slices.Equal(got, want) {
					t.Fatalf("walk of %s kept %q\ngit keeps %q", d, got, want)
				}
			}
		})
	}
}

// treePaths lists every file and directory under dir but .git, sorted.
func treePaths(t *testing.T, dir string) []string {
	t.Helper()
	var all []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			all = append(all, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(all)
	return all
}

// gitIgnored asks git check-ignore which of paths it ignores.
func gitIgnored(t *testing.T, dir string, paths []string) map[string]bool {
	t.Helper()
	in := strings.Join(paths, "\x00") + "\x00"
	out := gitRun(t, dir, []byte(in), "check-ignore", "--stdin", "-z")
	ignored := map[string]bool{}
	for p := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if p != "" {
			ignored[p] = true
		}
	}
	return ignored
}

// gitRun runs git in dir without the user's or the system's configuration
// and returns its output. check-ignore exits 1 when nothing is ignored.
func gitRun(t *testing.T, dir string, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", append([]string{"-c", "core.excludesFile=/dev/null"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 && args[0] == "check-ignore" {
		err = nil
	}
	if err != nil {
		t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

func TestWildmatch(t *testing.T) {
	tests := []struct {
		pattern, text string
		want          bool
	}{
		{"foo", "foo", true},
		{"foo", "foobar", false},
		{"*", "", true},
		{"*", "a/b", false},
		{"*.go", "a.go", true},
		{"*.go", "dir/a.go", false},
		{"?", "/", false},
		{"a?c", "abc", true},
		{"**", "a/b/c", true},
		{"**/c", "c", true},
		{"**/c", "a/b/c", true},
		{"a/**", "a", false},
		{"a/**", "a/b/c", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/xb", false},
		{"a**b", "axb", true},
		{"a**b", "a/b", false},
		{"[abc]", "b", true},
		{"[!abc]", "b", false},
		{"[^abc]", "d", true},
		{"[a-c]x", "bx", true},
		{"[]]", "]", true},
		{"[!]]", "]", false},
		{"[a-]", "-", true},
		{"[[:digit:]]", "7", true},
		{"[[:alpha:][:digit:]]", "_", false},
		{"[[:bogus:]]", "b", false},
		{"[:]", ":", true},
		{"[/]", "/", false},
		{"[ab", "a", false},
		{`\*`, "*", true},
		{`\*`, "x", false},
		{`a\`, "a", false},
		{`[\]]`, "]", true},
		{"*a*b", "xaxb", true},
		{"*a*b", "xa/b", false},
	}
	for _, tt := range tests {
		if got := wildmatch(tt.pattern, tt.text); got != tt.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", tt.pattern, tt.text, got, tt.want)
		}
	}
}
