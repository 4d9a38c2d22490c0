package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWorkspaceRel(t *testing.T) {
	parent := t.TempDir()
	real := filepath.Join(parent, "real")
	tree(t, parent, map[string]string{"real/": "", "alias": "->real"})
	// The workspace is opened through a symlink, so absolute paths may name
	// it either way.
	ws := openWorkspace(t, filepath.Join(parent, "alias"))
	tests := []struct {
		name, in, want, wantErr string
	}{
		{name: "relative", in: "a/b.go", want: "a/b.go"},
		{name: "cleaned", in: "./a//b/../c.go", want: "a/c.go"},
		{name: "dot", in: ".", want: "."},
		{name: "trailing slash", in: "a/", want: "a"},
		{name: "absolute as given", in: filepath.Join(parent, "alias", "x.go"), want: "x.go"},
		{name: "absolute resolved", in: filepath.Join(real, "d", "x.go"), want: "d/x.go"},
		{name: "absolute root", in: real, want: "."},
		{name: "empty", in: "", wantErr: "path is empty"},
		{name: "dotdot", in: "..", wantErr: `path ".." is outside the working directory ` + ws.Dir() + "; use a path inside it"},
		{name: "dotdot file", in: "../x", wantErr: `path "../x" is outside`},
		{name: "hidden dotdot", in: "a/../../x", wantErr: "is outside"},
		{name: "absolute outside", in: "/etc/passwd", wantErr: "is outside"},
		{name: "sibling prefix", in: real + "2/x", wantErr: "is outside"},
		{name: "proc root", in: "/proc/self/root/etc/passwd", wantErr: "is outside"},
		{name: "proc cwd", in: "/proc/self/cwd/x", wantErr: "is outside"},
		{name: "tilde", in: "~/.ssh/id_rsa", wantErr: `starts with "~"`},
		{name: "nul", in: "a\x00b", wantErr: "NUL byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ws.Rel(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Rel(%q) = %q, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Rel(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestWorkspaceFollow(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "root")
	tree(t, parent, map[string]string{
		"outside.txt":        "secret",
		"root/real.txt":      "x",
		"root/d/real.txt":    "y",
		"root/chain1":        "->chain2",
		"root/chain2":        "->d/real.txt",
		"root/dirlink":       "->d",
		"root/abs":           "->" + filepath.Join(parent, "root", "real.txt"),
		"root/out":           "->../outside.txt",
		"root/absout":        "->" + filepath.Join(parent, "outside.txt"),
		"root/loop1":         "->loop2",
		"root/loop2":         "->loop1",
		"root/d/up":          "->../real.txt",
		"root/dangling":      "->new/file.txt",
		"root/d/escape/":     "",
		"root/d/escape/deep": "->../../../outside.txt",
	})
	ws := openWorkspace(t, root)
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "real.txt", want: "real.txt"},
		{in: "chain1", want: "d/real.txt"},
		{in: "dirlink/real.txt", want: "d/real.txt"},
		{in: "abs", want: "real.txt"},
		{in: "d/up", want: "real.txt"},
		{in: "missing/x.txt", want: "missing/x.txt"},
		{in: "dangling", want: "new/file.txt"},
		{in: "out", wantErr: "leads outside the working directory"},
		{in: "absout", wantErr: "leads outside the working directory"},
		{in: "d/escape/deep", wantErr: "leads outside the working directory"},
		{in: "loop1", wantErr: "too many symlinks"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ws.follow(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("follow(%q) = %q, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("follow(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestOpenWorkspaceMissing(t *testing.T) {
	if _, err := OpenWorkspace(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Fatal("OpenWorkspace of a missing directory succeeded")
	}
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenWorkspace(f); err == nil {
		t.Fatal("OpenWorkspace of a file succeeded")
	}
}

// TestFSErrorKeepsCause checks that an os.Root error told to the model
// still answers errors.Is for its cause.
func TestFSErrorKeepsCause(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"f": "x"})
	tests := []struct {
		path  string
		cause error
		want  string
	}{
		{"missing.go", fs.ErrNotExist, "missing.go does not exist; use glob or list_dir to find files"},
		{"f/g", syscall.ENOTDIR, "f/g: a directory on its path is a file"},
	}
	for _, tt := range tests {
		_, err := ws.root.Open(tt.path)
		err = ws.fsError(tt.path, err)
		if !errors.Is(err, tt.cause) || err.Error() != tt.want {
			t.Errorf("fsError = %q (cause kept: %v); want %q wrapping %v", err, errors.Is(err, tt.cause), tt.want, tt.cause)
		}
	}
}
