package codeindex

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"slices"
	"strings"
)

// mapSymbols is how many symbols of one file a map names at most.
const mapSymbols = 12

// Map is a compact map of a repository for the system prompt: its
// directories, their files and, for Go files, their top-level symbols
// (exported ones first), in about budget tokens (four bytes a token).
// When that does not fit, the symbols go first, then the files (each
// directory then says how many it holds), then the directories past the
// budget. files are the paths to map, sorted (Workspace.Files); the map
// is the same for the same files, so that the prompt stays the same.
func Map(ctx context.Context, root *os.Root, files []string, budget int) string {
	limit := budget * 4
	dirs := groupByDir(files)
	if plain := renderMap(dirs, nil, false); len(plain) <= limit {
		syms := goSymbols(ctx, root, files, limit)
		if full := renderMap(dirs, syms, false); len(full) <= limit {
			return full
		}
		return plain
	}
	counted := renderMap(dirs, nil, true)
	if len(counted) <= limit {
		return counted
	}
	// The directories that fit, with room for the line that says how
	// many more there are.
	cut := counted[:max(0, min(limit-32+1, len(counted)))]
	if i := strings.LastIndexByte(cut, '\n'); i >= 0 {
		cut = cut[:i]
	} else {
		cut = ""
	}
	if cut == "" {
		return fmt.Sprintf("… %d directories", len(dirs))
	}
	shown := strings.Count(cut, "\n") + 1
	return cut + fmt.Sprintf("\n… and %d more directories", len(dirs)-shown)
}

// dirFiles are the files of one directory.
type dirFiles struct {
	dir   string // "." for the top
	files []string
}

func groupByDir(files []string) []dirFiles {
	byDir := map[string]*dirFiles{}
	var out []*dirFiles
	for _, f := range files {
		d := path.Dir(f)
		if byDir[d] == nil {
			byDir[d] = &dirFiles{dir: d}
			out = append(out, byDir[d])
		}
		byDir[d].files = append(byDir[d].files, path.Base(f))
	}
	slices.SortFunc(out, func(a, b *dirFiles) int {
		switch {
		case a.dir == b.dir:
			return 0
		case a.dir == ".":
			return -1
		case b.dir == ".":
			return 1
		}
		return strings.Compare(a.dir, b.dir)
	})
	list := make([]dirFiles, len(out))
	for i, d := range out {
		slices.Sort(d.files)
		list[i] = *d
	}
	return list
}

// renderMap writes the map: each directory, then its files indented, each
// with its symbols; with counted, each directory with its file count
// instead of its files.
func renderMap(dirs []dirFiles, syms map[string][]string, counted bool) string {
	var b strings.Builder
	for _, d := range dirs {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		name := d.dir + "/"
		if d.dir == "." {
			name = "./"
		}
		if counted {
			fmt.Fprintf(&b, "%s (%d files)", name, len(d.files))
			continue
		}
		b.WriteString(name)
		for _, f := range d.files {
			b.WriteString("\n  " + f)
			if s := syms[path.Join(d.dir, f)]; len(s) > 0 {
				b.WriteString(": " + strings.Join(s, ", "))
			}
		}
	}
	return b.String()
}

// goSymbols are the top-level symbols of the Go files, exported ones
// first, at most mapSymbols a file; it stops reading once they would not
// fit in limit bytes anyway.
func goSymbols(ctx context.Context, root *os.Root, files []string, limit int) map[string][]string {
	out := map[string][]string{}
	size := 0
	for _, f := range files {
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		if ctx.Err() != nil || size > limit {
			break
		}
		src, err := readFile(root, f, DefaultMaxFile)
		if err != nil {
			continue
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		var exported, rest []string
		for _, d := range file.Decls {
			name := declName(d)
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT || name == "" || name == "_" {
				continue
			}
			if ast.IsExported(strings.TrimLeft(name[strings.LastIndexByte(name, '.')+1:], "*")) {
				exported = append(exported, name)
			} else {
				rest = append(rest, name)
			}
		}
		syms := append(exported, rest...)
		if len(syms) > mapSymbols {
			syms = append(syms[:mapSymbols:mapSymbols], fmt.Sprintf("+%d", len(syms)-mapSymbols))
		}
		out[f] = syms
		size += len(strings.Join(syms, ", ")) + len(f)
	}
	return out
}
