// Package gentree writes deterministic source trees for benchmarking the
// search tools, in one of two layouts: Small, Go, TypeScript and text
// files of realistic sizes in nested directories, a .gitignore that
// excludes a node_modules and a build directory, nested .gitignore files,
// a .git directory and a few binary files; and Monorepo, the same kinds of
// files in a tree as deep and wide as a large company's, with .gitignore
// files at every level and a few huge files.
package gentree

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Marker is written last into a generated tree; its content names the
// parameters, so a tree can be reused only by a run that wants the same.
const Marker = ".gentree-done"

// Layout is the shape of a generated tree.
type Layout string

const (
	// Small is the layout of the search benchmarks' 20,000 files: six
	// top directories, three or four levels deep.
	Small Layout = "small"
	// Monorepo is a repository's layout at scale: projects of every
	// size, directories up to sixteen levels deep and of thousands of
	// files, .gitignore files at several levels, ignored dependencies and
	// build output, and three text files of 20 to 40 MB.
	Monorepo Layout = "monorepo"
)

// Params say which tree to generate. The same Params always give the same
// tree.
type Params struct {
	Files  int    // about how many files, those .gitignore excludes included
	Layout Layout // Small if empty
	Seed   uint64 // varies the tree for the same size
}

func (p Params) String() string {
	layout := p.Layout
	if layout == "" {
		layout = Small
	}
	return fmt.Sprintf("gentree v3 files=%d layout=%s seed=%d", p.Files, layout, p.Seed)
}

// Ensure generates the tree p into dir unless dir already holds one made
// with the same parameters.
func Ensure(dir string, p Params) error {
	want := p.String() + "\n"
	got, err := os.ReadFile(filepath.Join(dir, Marker))
	switch {
	case err == nil && string(got) == want:
		return nil
	case err == nil: // an older or unfinished tree: replace it
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("clear %s: %w", dir, err)
		}
	default:
		// Never delete a directory gentree did not make.
		if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
			return fmt.Errorf("%s is not empty and holds no generated tree; give an empty or new directory", dir)
		}
	}
	// The marker goes first, so that an interrupted run leaves a tree the
	// next one knows it may replace, and is completed last.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, Marker), []byte("unfinished\n"), 0o644); err != nil {
		return err
	}
	if err := Generate(dir, p); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, Marker), []byte(want), 0o644)
}

// Generate writes the tree p into dir.
func Generate(dir string, p Params) error {
	g := &gen{
		dir:   dir,
		rng:   rand.New(rand.NewPCG(1+p.Seed, uint64(p.Files))),
		tops:  strings.Fields(topList),
		words: strings.Fields(wordList),
		dirs:  map[string]bool{},
	}
	g.write(".git/HEAD", "ref: refs/heads/main\n")
	g.write(".git/info/exclude", "*.local\n")
	g.write(".git/objects/ab/cdef0123", g.binary(4096))
	if p.Layout == Monorepo {
		g.monorepo(p.Files)
	} else {
		g.small(p.Files)
	}
	return g.err
}

// small writes the Small layout.
func (g *gen) small(files int) {
	g.write(".gitignore", "# generated\nnode_modules/\nbuild/\n*.log\n!keep.log\n")
	ignored := files / 8 // in node_modules and build
	for i := range ignored {
		g.write(fmt.Sprintf("node_modules/pkg%03d/lib/index%d.js", i%150, i), g.ts(i))
		if i%6 == 0 {
			g.write(fmt.Sprintf("build/out/%d/bundle.js", i%40), g.ts(i))
		}
	}
	for i := range files - ignored {
		g.write(g.path(i), g.content(i))
	}
	for m := range 12 {
		g.write(fmt.Sprintf("services/svc%02d/.gitignore", m), "*.gen.go\ntmp/\n")
	}
}

type gen struct {
	dir   string
	rng   *rand.Rand
	tops  []string
	words []string
	dirs  map[string]bool // made already
	seq   int             // files written by file
	err   error
}

func (g *gen) write(name, content string) {
	if g.err != nil {
		return
	}
	p := filepath.Join(g.dir, filepath.FromSlash(name))
	if d := filepath.Dir(p); !g.dirs[d] {
		if err := os.MkdirAll(d, 0o755); err != nil {
			g.err = err
			return
		}
		g.dirs[d] = true
	}
	g.err = os.WriteFile(p, []byte(content), 0o644)
}

const (
	topList  = "services pkg internal web/src docs tools"
	wordList = "user account order item cart payment session token config cache store " +
		"event queue worker client server request response handler router parser builder loader " +
		"index search query filter result status error metric trace span log record batch stream"
)

// path names file i: top/dirN/subN[/deepN]/name.ext, the extension by kind.
func (g *gen) path(i int) string {
	top := g.tops[i%len(g.tops)]
	d := fmt.Sprintf("%s/%s%02d/%s", top, dirPrefix(top), (i/7)%10, g.words[(i/3)%6])
	if i%4 == 0 {
		d += "/" + g.words[6+(i/11)%3]
	}
	name := g.words[i%len(g.words)] + "_" + g.words[(i*7)%len(g.words)] + fmt.Sprint(i)
	switch k := i % 20; {
	case i%500 == 7:
		return d + "/" + name + ".png"
	case top == "docs" || k == 19:
		return d + "/" + name + ".md"
	case top == "web/src" || k >= 13:
		return d + "/" + name + ".ts"
	case i%97 == 5:
		return d + "/" + name + ".gen.go"
	}
	return d + "/" + name + ".go"
}

func dirPrefix(top string) string {
	if top == "services" {
		return "svc"
	}
	return "m"
}

func (g *gen) content(i int) string {
	switch p := g.path(i); {
	case strings.HasSuffix(p, ".png"):
		return g.binary(2048 + g.rng.IntN(30000))
	case strings.HasSuffix(p, ".md"):
		return g.markdown(i)
	case strings.HasSuffix(p, ".ts"):
		return g.ts(i)
	}
	return g.golang(i)
}

func (g *gen) word() string { return g.words[g.rng.IntN(len(g.words))] }

func (g *gen) ident() string {
	w := g.word()
	return strings.ToUpper(w[:1]) + w[1:] + strings.ToUpper(g.word()[:1]) + g.word()[1:]
}

// size draws a file size in lines, skewed like real code: most files are
// small, a few are large.
func (g *gen) size(mean int) int {
	return 5 + int(g.rng.ExpFloat64()*float64(mean))
}

func (g *gen) golang(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Package %s does things.\npackage %s\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n)\n\n", g.words[i%len(g.words)], g.words[i%len(g.words)])
	for f := range g.size(8) {
		name := g.ident()
		switch {
		case f%5 == 0:
			fmt.Fprintf(&b, "// %s handles a %s %s.\nfunc (s *Server) handle%s(ctx context.Context, req *%sRequest) (*%sResponse, error) {\n", name, g.word(), g.word(), name, name, name)
		default:
			fmt.Fprintf(&b, "// %s returns the %s of a %s.\nfunc %s(ctx context.Context, id string, n int) (string, error) {\n", name, g.word(), g.word(), name)
		}
		for range 2 + g.rng.IntN(12) {
			g.goStatement(&b)
		}
		b.WriteString("\treturn \"\", nil\n}\n\n")
	}
	return b.String()
}

func (g *gen) goStatement(b *strings.Builder) {
	switch r := g.rng.IntN(1000); {
	case r < 1:
		fmt.Fprintf(b, "\tif errors.Is(err, ErrNotFound) {\n\t\treturn \"\", fmt.Errorf(\"%s %%s: %%w\", id, err)\n\t}\n", g.word())
	case r < 3:
		fmt.Fprintf(b, "\t// TODO(%s): handle the %s case\n", g.word(), g.word())
	case r < 300:
		fmt.Fprintf(b, "\t%s, err := s.%s.%s(ctx, id)\n\tif err != nil {\n\t\treturn \"\", err\n\t}\n", g.word(), g.word(), g.ident())
	case r < 600:
		fmt.Fprintf(b, "\t%s := %s{%s: id, %s: n + %d}\n", g.word(), g.ident(), g.ident(), g.ident(), g.rng.IntN(1000))
	default:
		fmt.Fprintf(b, "\tlog.Printf(\"%s %s %%s\", %s)\n", g.word(), g.word(), g.word())
	}
}

func (g *gen) ts(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "import { %s } from './%s';\nimport { %s } from '../%s';\n\n", g.ident(), g.word(), g.ident(), g.word())
	for range g.size(6) {
		name := g.ident()
		fmt.Fprintf(&b, "export async function %s(%s: string, opts: %sOptions = {}): Promise<%s> {\n", strings.ToLower(name[:1])+name[1:], g.word(), name, name)
		for range 2 + g.rng.IntN(8) {
			switch r := g.rng.IntN(1000); {
			case r < 3:
				b.WriteString("  // TODO: remove this workaround\n")
			case r < 500:
				fmt.Fprintf(&b, "  const %s = await %s.%s(%s);\n", g.word(), g.word(), strings.ToLower(g.ident()), g.word())
			default:
				fmt.Fprintf(&b, "  if (!%s) { throw new Error('%s %s not found'); }\n", g.word(), g.word(), g.word())
			}
		}
		b.WriteString("  return result;\n}\n\n")
	}
	return b.String()
}

func (g *gen) markdown(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", g.ident())
	for range g.size(25) {
		for range 8 + g.rng.IntN(8) {
			b.WriteString(g.word() + " ")
		}
		b.WriteString("\n")
		if g.rng.IntN(10) == 0 {
			b.WriteString("\n## " + g.ident() + "\n\n")
		}
	}
	return b.String()
}

func (g *gen) binary(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.rng.UintN(256))
	}
	b[0], b[1] = 0x89, 0 // a NUL early, as in a PNG
	return string(b)
}
