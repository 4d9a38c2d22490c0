package tools

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		args    map[string]any
		want    string // content of the result
		isErr   bool
		check   string // file to read back
		content string // what it must hold
	}{
		{name: "create", args: map[string]any{"path": "new.txt", "content": "a\nb"},
			want: "created new.txt (2 lines, 3 bytes)", check: "new.txt", content: "a\nb"},
		{name: "parents", args: map[string]any{"path": "x/y/z.go", "content": "package z\n"},
			want: "created x/y/z.go (1 line, 10 bytes)", check: "x/y/z.go", content: "package z\n"},
		{name: "overwrite", files: map[string]string{"a.txt": "old old old"}, args: map[string]any{"path": "a.txt", "content": ""},
			want: "overwrote a.txt (0 lines, 0 bytes)", check: "a.txt", content: ""},
		{name: "absolute inside", args: map[string]any{"path": "ABS/in.txt", "content": "x"},
			want: "created in.txt", check: "in.txt", content: "x"},
		{name: "through link", files: map[string]string{"real.txt": "old", "link.txt": "->real.txt"}, args: map[string]any{"path": "link.txt", "content": "new"},
			want: "overwrote real.txt (1 line, 3 bytes) through the symlink link.txt", check: "real.txt", content: "new"},
		{name: "dangling link inside", files: map[string]string{"link.txt": "->sub/made.txt"}, args: map[string]any{"path": "link.txt", "content": "m"},
			want: "created sub/made.txt", check: "sub/made.txt", content: "m"},
		{name: "directory", files: map[string]string{"d/": ""}, args: map[string]any{"path": "d", "content": "x"},
			want: "error: d is a directory; give a file path", isErr: true},
		{name: "dot", args: map[string]any{"path": ".", "content": "x"}, want: `path "." names a directory`, isErr: true},
		{name: "trailing slash", args: map[string]any{"path": "new/", "content": "x"}, want: `path "new/" names a directory`, isErr: true},
		{name: "parent is a file", files: map[string]string{"f": "x"}, args: map[string]any{"path": "f/g.txt", "content": "x"}, want: "f/g.txt: a directory on its path is a file", isErr: true},
		{name: "missing content", args: map[string]any{"path": "a.txt"}, want: `missing required argument "content"`, isErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, tt.files)
			if p, ok := tt.args["path"].(string); ok {
				tt.args["path"] = strings.Replace(p, "ABS", ws.Dir(), 1)
			}
			res := run(t, ws, Options{}, "write_file", jsonArgs(t, tt.args))
			if res.IsError != tt.isErr || !strings.Contains(res.Content, tt.want) {
				t.Fatalf("result %+v; want IsError=%v and content containing %q", res, tt.isErr, tt.want)
			}
			if tt.check != "" {
				if got := readString(t, filepath.Join(ws.Dir(), tt.check)); got != tt.content {
					t.Fatalf("%s holds %q, want %q", tt.check, got, tt.content)
				}
			}
			assertNoTempFiles(t, ws.Dir())
		})
	}
}

func TestWriteFileKeepsLink(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"real.txt": "old", "link.txt": "->real.txt"})
	if res := run(t, ws, Options{}, "write_file", `{"path":"link.txt","content":"new"}`); res.IsError {
		t.Fatal(res.Content)
	}
	if got := readString(t, filepath.Join(ws.Dir(), "real.txt")); got != "new" {
		t.Fatalf("real.txt holds %q, want %q", got, "new")
	}
	fi, err := os.Lstat(filepath.Join(ws.Dir(), "link.txt"))
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link.txt is no longer a symlink: %v %v", fi.Mode(), err)
	}
}

func TestWriteFileModes(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"run.sh": "#!/bin/sh\n"})
	script := filepath.Join(ws.Dir(), "run.sh")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, ws, Options{}, "write_file", `{"path":"run.sh","content":"#!/bin/sh\necho hi\n"}`)
	run(t, ws, Options{}, "write_file", `{"path":"new.txt","content":"x"}`)
	for name, want := range map[string]os.FileMode{"run.sh": 0o755, "new.txt": 0o644} {
		fi, err := os.Stat(filepath.Join(ws.Dir(), name))
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %v", name, fi.Mode().Perm(), err, want)
		}
	}
}

// TestWriteFileTempNotCreated checks that a write whose temporary file
// cannot be created leaves the file as it was. The temporary file's name,
// longer than the file's, goes over NAME_MAX, which fails as root too.
func TestWriteFileTempNotCreated(t *testing.T) {
	name := strings.Repeat("n", 246) + ".txt"
	ws, p := keptFileWorkspace(t, name)
	res := run(t, ws, Options{}, "write_file", jsonArgs(t, map[string]any{"path": name, "content": "new"}))
	if !res.IsError || !strings.Contains(res.Content, "file name too long") {
		t.Fatalf("result %+v; want a file name too long error", res)
	}
	assertKept(t, ws, p)
}

// TestWriteFileWriteFails checks that a write that fails once the
// temporary file exists leaves the file as it was and removes the
// temporary file. A file size limit makes the write fail (Go ignores
// SIGXFSZ, so write returns EFBIG), as root too. The limit is the
// process's and would also stop go test's own log, so the write runs in a
// child process: this test binary run again with LATHE_TEST_FSIZE_DIR set.
func TestWriteFileWriteFails(t *testing.T) {
	if dir := os.Getenv("LATHE_TEST_FSIZE_DIR"); dir != "" {
		limitFileSize(t, 4<<10)
		res := run(t, openWorkspace(t, dir), Options{}, "write_file", jsonArgs(t, map[string]any{"path": "f.txt", "content": strings.Repeat("x", 8<<10)}))
		if !res.IsError || !strings.Contains(res.Content, "file too large") {
			t.Fatalf("result %+v; want a file too large error", res)
		}
		return
	}
	ws, p := keptFileWorkspace(t, "f.txt")
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestWriteFileWriteFails$", "-test.v")
	cmd.Env = append(os.Environ(), "LATHE_TEST_FSIZE_DIR="+ws.Dir())
	if out, err := cmd.CombinedOutput(); err != nil || !bytes.Contains(out, []byte("--- PASS: TestWriteFileWriteFails")) {
		t.Fatalf("child: %v\n%s", err, out)
	}
	assertKept(t, ws, p)
}

// keptFileWorkspace returns a workspace holding the file name, with
// content "old\n" and mode 0640, and its path, for assertKept.
func keptFileWorkspace(t *testing.T, name string) (*Workspace, string) {
	t.Helper()
	ws := newWorkspace(t, map[string]string{name: "old\n"})
	p := filepath.Join(ws.Dir(), name)
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	return ws, p
}

// assertKept checks that a failed write left the file of keptFileWorkspace
// as it was, and no temporary file.
func assertKept(t *testing.T, ws *Workspace, p string) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := readString(t, p); got != "old\n" || fi.Mode().Perm() != 0o640 {
		t.Fatalf("the failed write changed the file: %q, mode %v", got, fi.Mode().Perm())
	}
	assertNoTempFiles(t, ws.Dir())
}

// limitFileSize limits the size of the files the process may write to n
// bytes until the test ends.
func limitFileSize(t *testing.T, n uint64) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip("no RLIMIT_FSIZE:", err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: old.Max}); err != nil {
		t.Skip("cannot set RLIMIT_FSIZE:", err)
	}
	t.Cleanup(func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Fatal(err)
		}
	})
}

// assertNoTempFiles checks that no temporary file of an atomic write is left.
func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".lathe-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

// TestWriteSweepsStaleTemporaryFiles: the temporary files a lathe killed
// mid-write left are removed by the next write in their directory, while a
// fresh one, perhaps another lathe's write under way, and files that only
// look alike are kept.
func TestWriteSweepsStaleTemporaryFiles(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		"d/.a.go.lathe-AAAAAAAA.tmp": "stale",
		"d/.b.go.lathe-BBBBBBBB.tmp": "fresh",
		"d/a.lathe-CCCCCCCC.tmp":     "not hidden: the user's",
		"e/.c.go.lathe-DDDDDDDD.tmp": "stale, elsewhere",
	})
	old := time.Now().Add(-2 * time.Hour)
	for _, p := range []string{"d/.a.go.lathe-AAAAAAAA.tmp", "d/a.lathe-CCCCCCCC.tmp", "e/.c.go.lathe-DDDDDDDD.tmp"} {
		if err := os.Chtimes(filepath.Join(ws.Dir(), p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	res := run(t, ws, Options{}, "write_file", jsonArgs(t, map[string]any{"path": "d/new.txt", "content": "x"}))
	if res.IsError {
		t.Fatal(res.Content)
	}
	for p, want := range map[string]bool{
		"d/.a.go.lathe-AAAAAAAA.tmp": false,
		"d/.b.go.lathe-BBBBBBBB.tmp": true,
		"d/a.lathe-CCCCCCCC.tmp":     true,
		"e/.c.go.lathe-DDDDDDDD.tmp": true, // no write there
	} {
		_, err := os.Lstat(filepath.Join(ws.Dir(), p))
		if got := err == nil; got != want {
			t.Errorf("%s exists = %v, want %v", p, got, want)
		}
	}
}
