package tools

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"lathe/tools/internal/gentree"

	"golang.org/x/sys/unix"
)

// benchFiles is the size of the benchmark tree.
const benchFiles = 20000

// benchTree returns a generated tree: in LATHE_BENCH_TREE if set (made once
// and reused by later runs, so scripts/bench.sh can time rg on the same
// files), else in a temporary directory.
func benchTree(b *testing.B) string {
	b.Helper()
	dir := os.Getenv("LATHE_BENCH_TREE")
	if dir == "" {
		dir = filepath.Join(b.TempDir(), "tree")
	}
	if err := gentree.Ensure(dir, benchFiles); err != nil {
		b.Fatal(err)
	}
	return dir
}

// grepBenchCases are the searches BenchmarkGrep times. scripts/bench.sh
// times rg on the same ones: keep the two lists in step.
var grepBenchCases = []struct{ name, args string }{
	{"literal", `{"pattern":"ErrNotFound"}`},
	{"regexp", `{"pattern":"func \\(s \\*Server\\) handle\\w+Token"}`},
	{"ignorecase", `{"pattern":"todo","ignore_case":true}`},
	{"charclass", `{"pattern":"[A-Z]{4}\\("}`},
	{"noliteral", `{"pattern":"[A-Z][a-z]{2,}[0-9]{3}"}`},
	{"include", `{"pattern":"TODO","include":"*.ts"}`},
}

// globBenchCases are the searches BenchmarkGlob times. scripts/bench.sh
// times fd and rg --files on the same ones: keep the lists in step.
var globBenchCases = []struct{ name, args string }{
	{"all-go", `{"pattern":"**/*.go"}`},
	{"under-dir", `{"pattern":"**/*.ts","path":"web/src"}`},
	{"all-md", `{"pattern":"**/*.md"}`},
}

func BenchmarkGrep(b *testing.B) { benchTool(b, "grep", grepBenchCases) }

func BenchmarkGlob(b *testing.B) { benchTool(b, "glob", globBenchCases) }

// benchTool times the tool on each case over the benchmark tree, the way
// a model's call runs it, and logs the last result's summary.
func benchTool(b *testing.B, name string, cases []struct{ name, args string }) {
	ws := openWorkspace(b, benchTree(b))
	tool, _ := Default(ws, Options{}).Lookup(name)
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			call, err := tool.Prepare(json.RawMessage(bc.args))
			if err != nil {
				b.Fatal(err)
			}
			var res Result
			for b.Loop() {
				if res, err = call.Run(b.Context(), Caller{}); err != nil {
					b.Fatal(err)
				}
			}
			b.Log(res.Summary)
		})
	}
}

// keptPaths walks with the .gitignore rules and returns every path kept.
func keptPaths(b *testing.B, ws *Workspace) map[string]bool {
	var mu sync.Mutex
	kept := map[string]bool{}
	err := walk(context.Background(), ws.root, walkOpts{start: ".", ignore: loadIgnorer(ws.root, ".")}, func(_ int, e entry) bool {
		mu.Lock()
		kept[e.rel()] = true
		mu.Unlock()
		return e.typ.IsDir()
	})
	if err != nil {
		b.Fatal(err)
	}
	return kept
}

// BenchmarkOpen compares ways to open and read every file grep would
// search, one goroutine, 64 KiB reads: through the workspace's os.Root by
// full relative path (os.Root resolves it one openat per component); through
// an os.Root opened per directory (one openat per file), with and without
// O_NONBLOCK (without it os.File sets and clears non-blocking mode around
// registering with the poller: four fcntl calls per file); raw openat(2) on
// each directory's descriptor, bypassing os.File; and os.Open on absolute
// paths, which is not confined at all. walk does root-per-dir-nonblock.
func BenchmarkOpen(b *testing.B) {
	dir := benchTree(b)
	ws := openWorkspace(b, dir)
	byDir := map[string][]string{}
	for p := range keptPaths(b, ws) {
		if fi, err := ws.root.Lstat(p); err == nil && fi.Mode().IsRegular() {
			byDir[path.Dir(p)] = append(byDir[path.Dir(p)], path.Base(p))
		}
	}
	buf := make([]byte, 64<<10)
	drain := func(f *os.File, err error) {
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := f.Read(buf); err != nil {
				break
			}
		}
		f.Close()
	}
	perDir := func(flag int) func(string, []string) {
		return func(d string, names []string) {
			sub, err := ws.root.OpenRoot(d)
			if err != nil {
				b.Fatal(err)
			}
			for _, n := range names {
				drain(sub.OpenFile(n, flag, 0))
			}
			sub.Close()
		}
	}
	strategies := []struct {
		name string
		open func(d string, names []string)
	}{
		{"root-fullpath", func(d string, names []string) {
			for _, n := range names {
				drain(ws.root.Open(path.Join(d, n)))
			}
		}},
		{"root-per-dir", perDir(os.O_RDONLY)},
		{"root-per-dir-nonblock", perDir(os.O_RDONLY | syscall.O_NONBLOCK)},
		{"openat-per-dir", func(d string, names []string) { rawOpenat(b, ws, d, names, buf) }},
		{"os-open", func(d string, names []string) {
			for _, n := range names {
				drain(os.Open(filepath.Join(dir, d, n)))
			}
		}},
	}
	for _, st := range strategies {
		b.Run(st.name, func(b *testing.B) {
			for b.Loop() {
				for d, names := range byDir {
					st.open(d, names)
				}
			}
		})
	}
}

// rawOpenat reads the files names of directory d with openat(2) on the
// descriptor of d, opened through the workspace's os.Root.
func rawOpenat(b *testing.B, ws *Workspace, d string, names []string, buf []byte) {
	dir, err := ws.root.Open(d)
	if err != nil {
		b.Fatal(err)
	}
	defer dir.Close()
	rc, err := dir.SyscallConn()
	if err != nil {
		b.Fatal(err)
	}
	rc.Control(func(dfd uintptr) {
		for _, n := range names {
			fd, err := unix.Openat(int(dfd), n, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
			if err != nil {
				b.Fatal(err)
			}
			for {
				if k, _ := syscall.Read(fd, buf); k <= 0 {
					break
				}
			}
			syscall.Close(fd)
		}
	})
}
