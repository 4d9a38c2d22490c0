package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"lathe/orchestrator/mode"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools"
	"lathe/tools/codeindex"
	"lathe/tools/memory"
	"lathe/tools/skill"
)

// TestToolNamesStayWithTheirTools: a tool's name appears in the code (as a
// string) only in the file that defines the tool, in prompts/, the text
// the model reads, and in the demo model, which calls tools by name as a
// model does. Approval, concurrency, dialogs and cards ask a tool its
// Kind: renaming a tool cannot break them, nor a rule written by name.
func TestToolNamesStayWithTheirTools(t *testing.T) {
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	db := sqlitetest.Open(t)
	all := append(tools.Default(ws, tools.Options{}).All(),
		memory.Tools(ws, memory.Options{Dir: ws.Dir(), Sessions: db, Facts: db, Code: codeindex.NewSearcher(db, nil)})...)
	skills, _ := skill.Load(skill.Dirs{})
	all = append(all, skill.Tool(skills, 1000))
	names := mode.Every(tools.NewRegistry(all...)).Names()
	if len(names) != 14 {
		t.Fatalf("%d tools: %v", len(names), names)
	}
	// A name with an underscore is a tool wherever it is a word; "glob",
	// "grep" and "shell" are words too, and are the tool only alone or
	// after a verb that names one ("use glob").
	word := map[string]*regexp.Regexp{}
	for _, n := range names {
		q := regexp.QuoteMeta(n)
		if strings.Contains(n, "_") {
			word[n] = regexp.MustCompile(`\b` + q + `\b`)
		} else {
			word[n] = regexp.MustCompile(`^` + q + `$|\b(use|give|call|or|with) ` + q + `\b`)
		}
	}
	found := map[string][]string{}    // name → files whose strings hold it
	root := filepath.Join("..", "..") // the module's root
	err = filepath.WalkDir(root, func(full string, d fs.DirEntry, err error) error {
		path, _ := filepath.Rel(root, full)
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".":
			return filepath.SkipDir
		case d.IsDir() && path != "." && isFile(filepath.Join(full, "go.mod")):
			return filepath.SkipDir // another module's code (a copy of chroma's lexers)
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		case strings.HasPrefix(path, "prompts/"), strings.HasPrefix(path, "orchestrator/provider/demo/"):
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), full, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for name, re := range word {
				if re.MatchString(s) && !slices.Contains(found[name], path) {
					found[name] = append(found[name], path)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if files := found[name]; len(files) != 1 {
			t.Errorf("the tool name %q is written in %d files (%s); want only the tool's own file, and prompts/",
				name, len(files), strings.Join(files, ", "))
		}
	}
}

// isFile reports whether path names a file.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
