package markdown

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	chromalexers "github.com/alecthomas/chroma/v2/lexers"

	"lathe/ui/markdown/internal/lexers"
)

// copied is the directory of the copy of chroma's package of lexers.
const copied = "internal/lexers"

// ours are the files of the copy that are not chroma's.
var ours = []string{"go.mod", "go.sum", "lexers.go"}

// left are chroma's files the copy does without: each only gives a
// lexer an analyser, for guessing a language from code, in an init that
// looks the lexer up, which would build the registry at start-up. The
// renderer never guesses, and the package does not offer Analyse.
var left = []string{"dns.go", "mysql.go", "zed.go"}

// chromaFiles returns the files copied from chroma's module: path in the
// copy → path in the module.
func chromaFiles(t *testing.T) map[string]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/alecthomas/chroma/v2").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	files := map[string]string{"COPYING": filepath.Join(mod, "COPYING")}
	src := filepath.Join(mod, "lexers")
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		embedded := strings.HasPrefix(rel, "embedded"+string(filepath.Separator))
		code := filepath.Dir(rel) == "." && strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")
		if (embedded || code) && !slices.Contains(ours, rel) && !slices.Contains(left, rel) {
			files[rel] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestLexersSameAsChroma: every file of the copy but ours is chroma's,
// byte for byte, at the version go.mod requires, and none is missing.
// With -update, the files are copied again.
func TestLexersSameAsChroma(t *testing.T) {
	want := chromaFiles(t)
	var have []string
	err := filepath.WalkDir(copied, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(copied, path)
		if !slices.Contains(ours, rel) {
			have = append(have, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		for _, path := range have {
			if err := os.Remove(filepath.Join(copied, path)); err != nil {
				t.Fatal(err)
			}
		}
		for path, src := range want {
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			path = filepath.Join(copied, path)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for _, path := range have {
		src, ok := want[path]
		if !ok {
			t.Errorf("%s is not chroma's", path)
			continue
		}
		delete(want, path)
		mine, err := os.ReadFile(filepath.Join(copied, path))
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mine, theirs) {
			t.Errorf("%s differs from chroma's %s", path, src)
		}
	}
	for path := range want {
		t.Errorf("chroma's %s is missing", path)
	}
	if t.Failed() {
		t.Log("run go test ./ui/markdown -run LexersSameAsChroma -update to copy chroma's files again")
	}
}

// TestSameLexersAsChroma: every name and alias chroma's registry knows
// gives the lexer it gives there, so that the order in which lexers
// replace one another is chroma's; and a name it does not know gives
// what it gives there (a lexer by file extension, or none).
func TestSameLexersAsChroma(t *testing.T) {
	names := append(chromalexers.Names(true), "py", "Dockerfile", "sh", "no-such-language")
	for _, name := range names {
		got, want := lexers.Get(name), chromalexers.Get(name)
		if (got == nil) != (want == nil) || got != nil && !sameLexer(got, want) {
			t.Errorf("Get(%q) = %v, chroma's gives %v", name, describe(got), describe(want))
		}
	}
	if lexers.MatchMimeType("application/json") == nil {
		t.Error("no lexer for application/json")
	}
}

// TestLexersTokenise: lexers found in the copy tokenise as chroma's do, the ones
// that delegate to others by name through the registry included.
func TestLexersTokenise(t *testing.T) {
	for _, c := range []struct{ lang, code string }{
		{"go", "package main\n\nfunc main() { fmt.Println(`{{.X}}`) }\n"},
		{"markdown", "# Title\n\n```python\nprint(1)\n```\n"},
		{"php", "<p><?php echo $x; ?></p>\n"},
		{"http", "POST / HTTP/1.1\nContent-Type: application/json\n\n{\"a\": 1}\n"},
		{"emacs-lisp", "(defun f (x) (car x))\n"},
	} {
		got, err := chroma.Tokenise(lexers.Get(c.lang), nil, c.code)
		if err != nil {
			t.Fatal(err)
		}
		want, err := chroma.Tokenise(chromalexers.Get(c.lang), nil, c.code)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: tokens\n%v\nchroma's:\n%v", c.lang, got, want)
		}
	}
}

// sameLexer reports whether two lexers are configured alike.
func sameLexer(a, b chroma.Lexer) bool {
	ca, cb := a.Config(), b.Config()
	return ca.Name == cb.Name && slices.Equal(ca.Aliases, cb.Aliases) && slices.Equal(ca.Filenames, cb.Filenames)
}

// describe names a lexer for a failure.
func describe(l chroma.Lexer) string {
	if l == nil {
		return "none"
	}
	return l.Config().Name
}
