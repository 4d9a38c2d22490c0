package tools

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// secret marks every file outside the workspace; no result may show it.
const secret = "TOPSECRET"

// leaked reports whether content shows a line of a file outside (a result
// may quote the pattern secret itself).
func leaked(content string) bool { return strings.Contains(content, secret+" ") }

// attackSetup makes base/outside, full of secrets, and base/root, the
// workspace, with symlinks leading out of it and a chain that stays in.
func attackSetup(t *testing.T) (ws *Workspace, base string) {
	base = t.TempDir()
	out := filepath.Join(base, "outside")
	tree(t, base, map[string]string{
		"outside/secret.txt":    secret + " outside\n",
		"outside/dir/inner.txt": secret + " inner\n",
		"root/ok.txt":           "fine\n",
		"root/sub/real.txt":     "inside\n",
		"root/c1":               "->c2",
		"root/c2":               "->sub/real.txt",
		"root/linkdir":          "->../outside",
		"root/absdir":           "->" + out,
		"root/linkfile":         "->../outside/secret.txt",
		"root/absfile":          "->" + filepath.Join(out, "secret.txt"),
		"root/sub/deep":         "->../../outside/dir",
		"root/sublink":          "->sub",
	})
	return openWorkspace(t, filepath.Join(base, "root")), base
}

// snapshot records every path under dir with its type, mode, size, mtime
// and content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		content := ""
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			content = string(b)
		}
		snap[p] = fmt.Sprintf("%v %d %v %q", fi.Mode(), fi.Size(), fi.ModTime().UnixNano(), content)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func TestAttackPaths(t *testing.T) {
	ws, base := attackSetup(t)
	out := filepath.Join(base, "outside")
	attacks := []string{
		"..", "../x", "a/../../x", "../outside/secret.txt", "/etc/passwd", "/proc/self/root/etc/passwd",
		"/proc/self/cwd/x", "/proc/self/root" + filepath.Join(out, "secret.txt"), "~/.ssh/id_rsa", "~",
		"a\x00b", filepath.Join(out, "secret.txt"), out,
		"linkfile", "absfile", "linkdir", "absdir", "linkdir/secret.txt", "absdir/secret.txt",
		"linkdir/dir/inner.txt", "linkdir/new.txt", "linkdir/newdir/new.txt", "sub/deep", "sub/deep/inner.txt",
	}
	calls := map[string]func(p string) map[string]any{
		"read_file":  func(p string) map[string]any { return map[string]any{"path": p} },
		"write_file": func(p string) map[string]any { return map[string]any{"path": p, "content": "PWNED"} },
		"edit_file": func(p string) map[string]any {
			return map[string]any{"path": p, "old_string": secret, "new_string": "PWNED"}
		},
		"list_dir":     func(p string) map[string]any { return map[string]any{"path": p} },
		"glob":         func(p string) map[string]any { return map[string]any{"pattern": "*", "path": p} },
		"glob pattern": func(p string) map[string]any { return map[string]any{"pattern": p + "/*"} },
		"grep":         func(p string) map[string]any { return map[string]any{"pattern": secret, "path": p} },
	}
	before := snapshot(t, out)
	for _, name := range slicesSorted(calls) {
		for _, p := range attacks {
			t.Run(name+"/"+p, func(t *testing.T) {
				tool := strings.Fields(name)[0]
				res := run(t, ws, Options{}, tool, jsonArgs(t, calls[name](p)))
				if !res.IsError {
					t.Fatalf("not refused: %+v", res)
				}
				if leaked(res.Content) {
					t.Fatalf("secret leaked: %s", res.Content)
				}
			})
		}
	}
	if after := snapshot(t, out); !maps.Equal(before, after) {
		t.Fatalf("outside changed:\nbefore %v\nafter  %v", before, after)
	}
	if _, err := os.Lstat(filepath.Join(base, "x")); err == nil {
		t.Fatal("a file was created beside the workspace")
	}
}

// TestAttackWalks checks that whole-tree glob and grep do not go through
// the symlinks that lead out.
func TestAttackWalks(t *testing.T) {
	ws, _ := attackSetup(t)
	for _, args := range []string{`{"pattern":"**"}`, `{"pattern":"**/*.txt"}`, `{"pattern":"*/*"}`} {
		res := run(t, ws, Options{}, "glob", args)
		if strings.Contains(res.Content, "secret.txt") || strings.Contains(res.Content, "inner.txt") {
			t.Errorf("glob %s went outside:\n%s", args, res.Content)
		}
	}
	res := run(t, ws, Options{}, "grep", `{"pattern":"`+secret+`"}`)
	if leaked(res.Content) || res.Summary != "no matches" {
		t.Errorf("grep went outside: %+v", res)
	}
}

// TestInsidePathsAllowed is the other side of the attack list: absolute
// paths inside and symlink chains that stay inside work.
func TestInsidePathsAllowed(t *testing.T) {
	ws, base := attackSetup(t)
	abs := filepath.Join(base, "root", "ok.txt")
	for _, tc := range []struct{ tool, args, want string }{
		{"read_file", jsonArgs(t, map[string]any{"path": abs}), "fine"},
		{"read_file", `{"path":"c1"}`, "inside"},
		{"list_dir", jsonArgs(t, map[string]any{"path": filepath.Join(base, "root", "sub")}), "file  real.txt"},
		{"grep", `{"pattern":"inside"}`, "sub/real.txt:1: inside"},
		{"grep", `{"pattern":"inside","path":"c1"}`, "c1:1: inside"},
		{"glob", `{"pattern":"**/*.txt"}`, "ok.txt\nsub/real.txt\n"},
		{"glob", `{"pattern":"*.txt","path":"sublink"}`, "sublink/real.txt\n"},
		{"glob", `{"pattern":"sublink/*.txt"}`, "sublink/real.txt\n"},
		{"grep", `{"pattern":"inside","path":"sublink"}`, "sublink/real.txt:1: inside"},
		{"list_dir", `{"path":"sublink"}`, "file  real.txt"},
		{"edit_file", `{"path":"c1","old_string":"inside","new_string":"changed"}`, "edited sub/real.txt"},
		{"write_file", jsonArgs(t, map[string]any{"path": abs, "content": "new"}), "overwrote ok.txt"},
	} {
		res := run(t, ws, Options{}, tc.tool, tc.args)
		if res.IsError || !strings.Contains(res.Content, tc.want) {
			t.Errorf("%s %s: %+v; want %q", tc.tool, tc.args, res, tc.want)
		}
	}
	if got := readString(t, filepath.Join(base, "root", "sub", "real.txt")); got != "changed\n" {
		t.Errorf("edit through the chain left %q", got)
	}
}

func slicesSorted[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// pngHeader is the start of a w×h PNG of the bit depth and colour type
// given, as far as its header: what decides whether it is decoded.
func pngHeader(w, h int, depth, colorType byte) string {
	ihdr := binary.BigEndian.AppendUint32([]byte("IHDR"), uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, depth, colorType, 0, 0, 0)
	out := binary.BigEndian.AppendUint32([]byte("\x89PNG\r\n\x1a\n"), uint32(len(ihdr)-4))
	return string(binary.BigEndian.AppendUint32(append(out, ihdr...), crc32.ChecksumIEEE(ihdr)))
}

// TestAttackImages: images a repository may hold to make read_file (for
// a vision model) take gigabytes or hang are refused from their header,
// or unopened; a turn's calls read at once share the memory images take.
func TestAttackImages(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		"tall.png":   pngHeader(1, 60_000_000, 8, 0), // took 5.7 GB to decode and scale
		"wide.png":   pngHeader(65*900, 900, 8, 2),
		"bomb16.png": pngHeader(8944, 6708, 16, 6), // 60 MP of 16-bit RGBA
		"shot.png":   pngOf(t, 2000, 1500),
	})
	if err := syscall.Mkfifo(filepath.Join(ws.Dir(), "fifo.png"), 0o600); err != nil {
		t.Fatal(err)
	}
	attacks := map[string]string{
		"tall.png":   "tall.png: 1×60000000 pixels, one side more than 64 times the other: too thin to scale down",
		"wide.png":   "wide.png: 58500×900 pixels, one side more than 64 times the other",
		"bomb16.png": "bomb16.png: 8944×6708 pixels, which would take 6",
		"fifo.png":   "fifo.png is not a regular file",
	}
	reg := Default(ws, Options{})
	tool, _ := reg.Lookup("read_file")
	var wg sync.WaitGroup
	results := make(map[string]Result)
	var mu sync.Mutex
	for _, name := range []string{"tall.png", "wide.png", "bomb16.png", "fifo.png", "shot.png", "shot.png", "shot.png"} {
		call, err := tool.Prepare(json.RawMessage(`{"path":"` + name + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			res, err := call.Run(t.Context(), Caller{})
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if prev, ok := results[name]; ok && prev.Content != res.Content {
				t.Errorf("%s read twice at once: %q, then %q", name, prev.Content, res.Content)
			}
			results[name] = res
		})
	}
	wg.Wait()
	for name, want := range attacks {
		if res := results[name]; !res.IsError || res.Image != nil || !strings.Contains(res.Content, want) {
			t.Errorf("%s: %q, want %q", name, res.Content, want)
		}
	}
	if res := results["shot.png"]; res.IsError || res.Image == nil || res.Image.Width != 1568 {
		t.Errorf("shot.png: %q", res.Content)
	}
}
