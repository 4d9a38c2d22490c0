package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lathe/tools/sandbox"
)

// gitWorkspace is a workspace holding a repository whose core.hooksPath
// is .githooks, with the default sandbox policy in the mode given.
func gitWorkspace(t *testing.T, mode sandbox.Mode) (*Workspace, Options) {
	t.Helper()
	ws := newWorkspace(t, map[string]string{
		".git/config":      "[core]\n\tbare = false\n\thooksPath = .githooks\n",
		".git/HEAD":        "ref: refs/heads/main\n",
		".git/hooks/":      "",
		".git/info/":       "",
		".githooks/":       "",
		"main.go":          "package main\n",
		"gitlink":          "->.git",
		"sub/.git/config":  "[core]\n",
		"docs/hooks/x.txt": "x\n",
	})
	p := sandbox.DefaultPolicy(ws.Dir(), "", func(string) string { return "" })
	p.Mode = mode
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ws, Options{Confinement: &Confinement{Exe: exe, Policy: p}}
}

// TestFileToolsLeaveProtectedPathsAlone: while commands are sandboxed,
// write_file and edit_file refuse what the sandbox protects (a hook or a
// config entry planted there would run outside it, the next time the user
// runs git), however the path is written, and say why; the rest of .git
// and the workspace are theirs. The call is refused before anyone is
// asked to approve it, and the file is left as it was.
func TestFileToolsLeaveProtectedPathsAlone(t *testing.T) {
	ws, opts := gitWorkspace(t, sandbox.WorkspaceWrite)
	write := func(path string) string {
		return jsonArgs(t, map[string]any{"path": path, "content": "#!/bin/sh\ntouch /tmp/pwned\n"})
	}
	edit := func(path string) string {
		return jsonArgs(t, map[string]any{"path": path, "old_string": "bare = false", "new_string": "fsmonitor = touch /tmp/pwned"})
	}
	for _, tc := range []struct {
		name, tool, args string
		file             string // where the write would land
	}{
		{"config", "edit_file", edit(".git/config"), ".git/config"},
		{"config overwritten", "write_file", write(".git/config"), ".git/config"},
		{"absolute path", "write_file", write(filepath.Join(ws.Dir(), ".git/config")), ".git/config"},
		{"dotted path", "write_file", write("sub/../.git/./config"), ".git/config"},
		{"a new hook", "write_file", write(".git/hooks/pre-commit"), ".git/hooks/pre-commit"},
		{"deeper in hooks", "write_file", write(".git/hooks/lib/x.sh"), ".git/hooks/lib/x.sh"},
		{"core.hooksPath", "write_file", write(".githooks/pre-push"), ".githooks/pre-push"},
		{"worktree config", "write_file", write(".git/config.worktree"), ".git/config.worktree"},
		{"commondir", "write_file", write(".git/commondir"), ".git/commondir"},
		{"through a symlink", "write_file", write("gitlink/hooks/post-checkout"), ".git/hooks/post-checkout"},
		{"case", "write_file", write(".GIT/hooks/pre-commit"), ".GIT/hooks/pre-commit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			full := filepath.Join(ws.Dir(), tc.file)
			before, beforeErr := os.ReadFile(full)
			res := run(t, ws, opts, tc.tool, tc.args)
			if res.Summary != "prepare" || !strings.Contains(res.Content, "is protected while commands are sandboxed") ||
				!strings.Contains(res.Content, "tell the user") {
				t.Errorf("not refused as protected: %+v", res)
			}
			after, afterErr := os.ReadFile(full)
			if string(after) != string(before) || (beforeErr == nil) != (afterErr == nil) {
				t.Errorf("%s changed: %q (%v), was %q (%v)", tc.file, after, afterErr, before, beforeErr)
			}
		})
	}
	for _, path := range []string{".git/info/exclude", ".git/HEAD", "sub/.git/config", "docs/hooks/x.txt", "main.go"} {
		if res := run(t, ws, opts, "write_file", write(path)); res.IsError {
			t.Errorf("%s: %s", path, res.Content)
		}
	}
}

// TestProtectionFollowsLinksMadeAfterPrepare: a link that leads into .git
// by the time the call runs (a command earlier in the turn made it) is
// caught when it runs, not only when it was prepared.
func TestProtectionFollowsLinksMadeAfterPrepare(t *testing.T) {
	ws, opts := gitWorkspace(t, sandbox.WorkspaceWrite)
	reg := Default(ws, opts)
	var calls []Call
	for _, tc := range []struct{ tool, args string }{
		{"write_file", `{"path":"later/pre-commit","content":"evil"}`},
		{"edit_file", `{"path":"later/config","old_string":"bare = false","new_string":"fsmonitor = evil"}`},
	} {
		tool, _ := reg.Lookup(tc.tool)
		c, err := tool.Prepare([]byte(tc.args))
		if err != nil {
			t.Fatalf("%s: Prepare: %v", tc.tool, err)
		}
		calls = append(calls, c)
	}
	if err := os.Symlink(".git/hooks", filepath.Join(ws.Dir(), "later")); err != nil {
		t.Fatal(err)
	}
	res, err := calls[0].Run(t.Context(), Caller{})
	if err != nil || !res.IsError || !strings.Contains(res.Content, ".git/hooks/pre-commit (through the symlink later/pre-commit) is protected") {
		t.Errorf("write_file through a new link: %+v, %v", res, err)
	}
	if _, err := os.Lstat(filepath.Join(ws.Dir(), ".git/hooks/pre-commit")); err == nil {
		t.Error("the hook was written")
	}
	if err := os.Remove(filepath.Join(ws.Dir(), "later")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git", filepath.Join(ws.Dir(), "later")); err != nil {
		t.Fatal(err)
	}
	res, err = calls[1].Run(t.Context(), Caller{})
	if err != nil || !res.IsError || !strings.Contains(res.Content, ".git/config (through the symlink later/config) is protected") {
		t.Errorf("edit_file through a new link: %+v, %v", res, err)
	}
	if got := readString(t, filepath.Join(ws.Dir(), ".git/config")); strings.Contains(got, "fsmonitor") {
		t.Errorf(".git/config was edited: %q", got)
	}
}

// TestProtectionIsOffWithTheSandbox: with the sandbox off (or no
// confinement at all) the file tools write into .git as anywhere else:
// nothing else in .git is kept either, and the user approves each write.
func TestProtectionIsOffWithTheSandbox(t *testing.T) {
	ws, opts := gitWorkspace(t, sandbox.Off)
	for name, o := range map[string]Options{"off": opts, "no confinement": {}} {
		hook := ".git/hooks/pre-commit-" + strings.ReplaceAll(name, " ", "-")
		if res := run(t, ws, o, "write_file", jsonArgs(t, map[string]any{"path": hook, "content": "x"})); res.IsError {
			t.Errorf("%s: %s", name, res.Content)
		}
		if got := readString(t, filepath.Join(ws.Dir(), hook)); got != "x" {
			t.Errorf("%s: hook holds %q", name, got)
		}
	}
	res := run(t, ws, opts, "edit_file", `{"path":".git/config","old_string":"bare = false","new_string":"bare = true"}`)
	if res.IsError || !strings.Contains(readString(t, filepath.Join(ws.Dir(), ".git/config")), "bare = true") {
		t.Errorf("edit_file .git/config with the sandbox off: %+v", res)
	}
}
