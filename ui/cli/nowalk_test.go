package cli

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lathe/orchestrator/provider/ollama/ollamatest"

	"golang.org/x/sys/unix"
)

// TestFirstRequestWalksNothing: a run whose model answers at once opens no
// directory below the workspace's top, so no walk of the tree comes before
// the first tool call, however large the tree: the repository map is off,
// and a language server is configured for files the tree holds only deep
// down, whose tool is offered. inotify reports every open of a directory
// watched.
func TestFirstRequestWalksNothing(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"go.mod", "README.md", "src/a/b/c/main.go", "src/a/b/c/d/e/f.go", "docs/x/y.md", "web/app/z.ts"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Skip("no inotify:", err)
	}
	defer unix.Close(in)
	var dirs []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != dir {
			dirs = append(dirs, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	watched := map[int]string{}
	for _, p := range dirs {
		wd, err := unix.InotifyAddWatch(in, p, unix.IN_OPEN|unix.IN_ACCESS)
		if err != nil {
			t.Fatal(err)
		}
		watched[wd] = p[len(dir)+1:]
	}

	srv := ollamatest.New(t)
	srv.Script(ollamatest.Reply{Content: "done"})
	home, xdg := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "lathe"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "[lsp.fake]\ncommand = \"true\"\nextensions = [\".go\"]\nroot_markers = [\"go.mod\"]\n"
	if err := os.WriteFile(filepath.Join(xdg, "lathe", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + xdg, "OLLAMA_HOST=" + srv.URL(), "PATH=" + os.Getenv("PATH")}
	var stdout, stderr strings.Builder
	if code := Run(t.Context(), []string{"-p", "hi", "-C", dir}, strings.NewReader(""), &stdout, &stderr, env); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d chat requests, want 1", len(reqs))
	}
	var offered []string
	for _, tool := range reqs[0].Tools {
		offered = append(offered, tool.Function.Name)
	}
	if !slices.Contains(offered, "diagnostics") {
		t.Fatalf("the diagnostics tool is not offered: %v", offered)
	}

	var opened []string
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(in, buf)
		if err == unix.EAGAIN || n <= 0 {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for b := buf[:n]; len(b) >= unix.SizeofInotifyEvent; {
			wd := int(int32(binary.NativeEndian.Uint32(b)))
			mask := binary.NativeEndian.Uint32(b[4:])
			size := int(binary.NativeEndian.Uint32(b[12:]))
			name := strings.TrimRight(string(b[unix.SizeofInotifyEvent:unix.SizeofInotifyEvent+size]), "\x00")
			if mask&unix.IN_IGNORED == 0 {
				opened = append(opened, fmt.Sprintf("%s/%s (%#x)", watched[wd], name, mask))
			}
			b = b[unix.SizeofInotifyEvent+size:]
		}
	}
	if len(opened) > 0 {
		t.Fatalf("opened before any tool call:\n%s", strings.Join(opened, "\n"))
	}
}
