package tools

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"lathe/tools/internal/gentree"

	"golang.org/x/sys/unix"
)

// benchFiles is the size of the benchmark tree unless LATHE_BENCH_FILES
// says otherwise.
const benchFiles = 20000

// benchTree returns a generated tree: in LATHE_BENCH_TREE if set (made once
// and reused by later runs, so scripts/bench.sh can time rg on the same
// files), else in a temporary directory. LATHE_BENCH_FILES and
// LATHE_BENCH_LAYOUT choose another tree than the 20,000 files of the
// small layout (gentree.Params).
func benchTree(b *testing.B) string {
	b.Helper()
	dir := os.Getenv("LATHE_BENCH_TREE")
	if dir == "" {
		dir = filepath.Join(b.TempDir(), "tree")
	}
	p := gentree.Params{Files: benchFiles, Layout: gentree.Layout(os.Getenv("LATHE_BENCH_LAYOUT"))}
	if s := os.Getenv("LATHE_BENCH_FILES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("LATHE_BENCH_FILES: %v", err)
		}
		p.Files = n
	}
	if err := gentree.Ensure(dir, p); err != nil {
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

// globBenchCases are the searches BenchmarkGlob times, $UNDER standing
// for a directory of TypeScript (benchUnder). scripts/bench.sh times fd
// and rg --files on the same ones: keep the lists in step.
var globBenchCases = []struct{ name, args string }{
	{"all-go", `{"pattern":"**/*.go"}`},
	{"under-dir", `{"pattern":"**/*.ts","path":"$UNDER"}`},
	{"all-md", `{"pattern":"**/*.md"}`},
}

// benchUnder is the directory of TypeScript of the benchmark tree's layout.
func benchUnder() string {
	if gentree.Layout(os.Getenv("LATHE_BENCH_LAYOUT")) == gentree.Monorepo {
		return "apps"
	}
	return "web/src"
}

func BenchmarkGrep(b *testing.B) { benchTool(b, "grep", grepBenchCases) }

func BenchmarkGlob(b *testing.B) { benchTool(b, "glob", globBenchCases) }

// benchTool times the tool on each case over the benchmark tree, the way
// a model's call runs it, and logs the last result's summary and the CPU
// time of a call, which scripts/bench.sh reads.
func benchTool(b *testing.B, name string, cases []struct{ name, args string }) {
	ws := openWorkspace(b, benchTree(b))
	tool, _ := Default(ws, Options{}).Lookup(name)
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			call, err := tool.Prepare(json.RawMessage(strings.ReplaceAll(bc.args, "$UNDER", benchUnder())))
			if err != nil {
				b.Fatal(err)
			}
			var res Result
			start := cpuTime(b)
			for b.Loop() {
				if res, err = call.Run(b.Context(), Caller{}); err != nil {
					b.Fatal(err)
				}
			}
			perCall := (cpuTime(b) - start) / time.Duration(b.N)
			b.ReportMetric(float64(perCall.Nanoseconds()), "cpu-ns/op")
			b.Logf("%s; call: %d us of CPU", res.Summary, perCall.Microseconds())
		})
	}
}

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
