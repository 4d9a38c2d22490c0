package gentree

import (
	"fmt"
	"strings"
)

// kind is what files a part of the monorepo holds.
type kind int

const (
	kindGo kind = iota
	kindTS
	kindMD
	kindMixed
)

// area is a top directory of the monorepo and its share of the files.
type area struct {
	dir   string
	share int // percent of the files kept
	kind  kind
	wide  bool // a few flat directories of thousands of files each
}

var areas = []area{
	{"services", 40, kindGo, false},
	{"libs", 20, kindMixed, false},
	{"apps", 15, kindTS, false},
	{"third_party", 10, kindMixed, false},
	{"docs", 5, kindMD, false},
	{"proto/gen", 5, kindGo, true},
	{"tools", 5, kindMixed, false},
}

// projectIgnores are the .gitignore files of the monorepo's projects, one
// drawn for each; each excludes something the project holds (see
// ignoredFiles).
var projectIgnores = []string{
	"*.gen.go\ntmp/\n",
	"coverage/\n*.map\n!keep.map\n",
	"/fixtures/*.json\n!fixtures/keep.json\ntmp/\n",
	"**/snapshots/\n*.gen.go\n",
}

// maxDepth bounds how deep grow goes below an area; a few chains of single
// directories (as Java's packages) go deeper.
const maxDepth = 14

// monorepo writes the Monorepo layout: files kept in the areas, a tenth
// of them more that .gitignore files exclude (dependencies under
// node_modules, build output under dist, what the projects' own
// .gitignore files name), and three huge files.
func (g *gen) monorepo(files int) {
	g.write(".gitignore", "# generated\nnode_modules/\ndist/\n*.log\n!keep.log\n/out/\n.cache/\n")
	ignored := files / 10
	kept := files - ignored
	for _, a := range areas {
		n := kept * a.share / 100
		if a.wide {
			for d := range 5 {
				for range n / 5 {
					g.file(fmt.Sprintf("%s/v%d", a.dir, d+1), a.kind)
				}
			}
			continue
		}
		g.projects(a, n)
	}
	for i := range ignored {
		app := fmt.Sprintf("apps/app%02d", i%8)
		if i%5 == 0 {
			g.write(fmt.Sprintf("%s/dist/chunk%d.js", app, i), g.ts(i))
			continue
		}
		g.write(fmt.Sprintf("%s/node_modules/pkg%04d/lib/index%d.js", app, (i/7)%2000, i), g.ts(i))
	}
	g.huge(files)
}

// projects splits an area's n files between projects of very different
// sizes, each with its .gitignore and the files it excludes.
func (g *gen) projects(a area, n int) {
	for p := 0; n > 0; p++ {
		size := min(n, 20+int(g.rng.ExpFloat64()*float64(max(n/40, 50))))
		dir := fmt.Sprintf("%s/%s%02d", a.dir, g.words[p%len(g.words)], p)
		if a.dir == "apps" {
			dir = fmt.Sprintf("apps/app%02d", p)
		}
		rules := projectIgnores[p%len(projectIgnores)]
		g.write(dir+"/.gitignore", rules)
		g.ignoredFiles(dir, rules)
		g.grow(dir, size, 0, a.kind)
		n -= size
	}
}

// ignoredFiles writes a few files the project's .gitignore excludes, and
// those it brings back.
func (g *gen) ignoredFiles(dir, rules string) {
	for _, line := range strings.Fields(rules) {
		var names []string
		switch line {
		case "*.gen.go":
			names = []string{"api.gen.go", "internal/model.gen.go"}
		case "tmp/":
			names = []string{"tmp/scratch.go", "tmp/deep/notes.md"}
		case "coverage/":
			names = []string{"coverage/lcov.info", "coverage/html/index.ts"}
		case "*.map", "!keep.map":
			names = []string{"out.map", "keep.map"}
		case "/fixtures/*.json", "!fixtures/keep.json":
			names = []string{"fixtures/a.json", "fixtures/keep.json", "sub/fixtures/b.json"}
		case "**/snapshots/":
			names = []string{"snapshots/a.ts", "src/snapshots/b.ts"}
		}
		for _, n := range names {
			g.write(dir+"/"+n, g.ts(g.rng.IntN(1000)))
		}
	}
}

// grow writes n files into dir and the directories it makes below; depth
// is dir's below its project.
func (g *gen) grow(dir string, n, depth int, k kind) {
	here := min(n, 1+g.rng.IntN(20))
	if depth >= maxDepth || n-here < 4 {
		here = n
	}
	for range here {
		g.file(dir, k)
	}
	n -= here
	if n == 0 {
		return
	}
	subs := min(n, 2+g.rng.IntN(4))
	if g.rng.IntN(5) == 0 {
		subs = 1 // a chain of packages
	}
	if depth == 2 && g.rng.IntN(6) == 0 {
		g.write(dir+"/.gitignore", "*.local.ts\n/generated/\n")
		g.write(dir+"/generated/schema.ts", g.ts(depth))
		g.write(dir+"/x.local.ts", g.ts(depth))
	}
	// Skewed shares: a few subdirectories hold most of the files.
	weights := make([]float64, subs)
	total := 0.0
	for j := range weights {
		weights[j] = g.rng.ExpFloat64()
		total += weights[j]
	}
	used := map[string]bool{}
	for j, w := range weights {
		share := int(float64(n) * w / total)
		if j == subs-1 {
			share = n
		}
		n -= share
		if share < 6 { // too few for a directory of their own
			for range share {
				g.file(dir, k)
			}
			continue
		}
		name := g.words[g.rng.IntN(len(g.words))]
		if used[name] {
			name = fmt.Sprintf("%s%d", name, j)
		}
		used[name] = true
		g.grow(dir+"/"+name, share, depth+1, k)
	}
}

// file writes one file of kind k into dir.
func (g *gen) file(dir string, k kind) {
	g.seq++
	i := g.seq
	name := g.words[i%len(g.words)] + "_" + g.words[(i*7)%len(g.words)] + fmt.Sprint(i)
	if k == kindMixed {
		k = []kind{kindGo, kindGo, kindTS, kindMD}[g.rng.IntN(4)]
	}
	switch {
	case i%500 == 7:
		g.write(dir+"/"+name+".png", g.binary(2048+g.rng.IntN(30000)))
	case k == kindGo:
		g.write(dir+"/"+name+".go", g.golang(i))
	case k == kindTS:
		g.write(dir+"/"+name+".ts", g.ts(i))
	default:
		g.write(dir+"/"+name+".md", g.markdown(i))
	}
}

// huge writes three text files of 20 to 40 MB (less in trees of fewer than
// 160,000 files, for tests): a database dump of short lines, a minified
// bundle of lines of up to a megabyte, and a log that the root .gitignore
// excludes by its extension and brings back by its name.
func (g *gen) huge(files int) {
	size := func(mb int) int { return min(mb<<20, files<<8) }
	var b strings.Builder
	for i := 0; b.Len() < size(40); i++ {
		fmt.Fprintf(&b, "INSERT INTO %s VALUES (%d, '%s', '%s');\n", g.word(), i, g.ident(), g.word())
		if i%5000 == 0 {
			b.WriteString("-- TODO: drop the ErrNotFound rows\n")
		}
	}
	g.write("data/fixtures/dump.sql", b.String())
	b.Reset()
	for b.Len() < size(20) {
		for range 1000 + g.rng.IntN(9000) {
			fmt.Fprintf(&b, "function %s(a,b){return a.%s(b)||%d};", g.ident(), g.word(), g.rng.IntN(100))
		}
		b.WriteString("\n")
	}
	g.write("apps/app00/public/vendor.min.js", b.String())
	b.Reset()
	for i := 0; b.Len() < size(30); i++ {
		fmt.Fprintf(&b, "2026-01-02T03:04:%02d level=info msg=%q %s=%d\n", i%60, g.word()+" "+g.word(), g.word(), i)
	}
	g.write("logs/keep.log", b.String())
}
