package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseGitConfig(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		inert bool
	}{
		{"git init", "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n", true},
		{"remote and branch", "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = /srv/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n", true},
		{"comments and case", "# c\n; c\n[Core]\n\tBare = false\n", true},
		{"hooks path", "[core]\n\thooksPath = .hooks\n", false},
		{"fsmonitor", "[core]\n\tfsmonitor = touch /tmp/x\n", false},
		{"alias", "[alias]\n\tst = !sh -c evil\n", false},
		{"filter", "[filter \"lfs\"]\n\tclean = evil %f\n", false},
		{"include", "[include]\n\tpath = ../x\n", false},
		{"continuation hides a key", "[user]\n\tname = a \\\n\tfsmonitor = x\n", false},
		{"old subsection syntax", "[core.x]\n\tbare = false\n", false},
		{"key before any section", "bare = false\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, err := os.OpenRoot(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			if err := root.WriteFile("config", []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := inertGitPath(root, "config"); got != tc.inert {
				t.Errorf("inert %v, want %v", got, tc.inert)
			}
		})
	}
}

func TestInertHooks(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_ = root.Mkdir("hooks", 0o755)
	_ = root.WriteFile("hooks/pre-commit.sample", nil, 0o755)
	if !inertGitPath(root, "hooks") {
		t.Error("samples only: want inert")
	}
	_ = root.WriteFile("hooks/pre-commit", nil, 0o755)
	if inertGitPath(root, "hooks") {
		t.Error("a real hook: want not inert")
	}
	if inertGitPath(root, "other") {
		t.Error("unknown path judged inert")
	}
}

func TestFindGit(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	sub := filepath.Join(repo, "sub")
	for _, d := range []string{repo + "/.git/worktrees/wt", sub, base + "/wt"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(repo+"/.git/config", []byte("[core]\n\thooksPath = .husky\n"), 0o644)
	_ = os.WriteFile(repo+"/.git/worktrees/wt/commondir", []byte("../..\n"), 0o644)
	_ = os.WriteFile(base+"/wt/.git", []byte("gitdir: "+repo+"/.git/worktrees/wt\n"), 0o644)

	g := findGit(sub)
	if g.top != repo || g.dir != repo+"/.git" || g.common != repo+"/.git" {
		t.Errorf("from a subdirectory: %+v", g)
	}
	prot := g.protected(readGitConfigs(g, "", func(string) string { return "" }))
	for _, want := range []string{repo + "/.git/hooks", repo + "/.git/config", repo + "/.husky", sub + "/.git/hooks"} {
		if !contains(prot, want) {
			t.Errorf("protected lacks %s: %v", want, prot)
		}
	}
	w := findGit(base + "/wt")
	if w.dir != repo+"/.git/worktrees/wt" || w.common != repo+"/.git" {
		t.Errorf("linked worktree: %+v", w)
	}
	none := findGit(t.TempDir())
	if none.dir != none.workspace+"/.git" {
		t.Errorf("no repository: %+v", none)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestGuarded: what a write from outside the sandbox may not change, by
// the same list the helper puts back: the hooks and config (and all that
// is in hooks and core.hooksPath), .git itself and commondir files, but
// not the rest of .git; case aside; nothing in mode Off.
func TestGuarded(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(ws+"/.git/hooks", 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(ws+"/.git/config", []byte("[core]\n\thooksPath = .githooks\n"), 0o644)
	p := DefaultPolicy(ws, "", func(string) string { return "" })
	for path, want := range map[string]string{
		".git/config":               ".git/config",
		".git/config.worktree":      ".git/config.worktree",
		".git/hooks":                ".git/hooks",
		".git/hooks/pre-commit":     ".git/hooks",
		".git/hooks/sub/x":          ".git/hooks",
		".git/commondir":            ".git/commondir",
		".git":                      ".git",
		".GIT/Config":               ".git/config",
		".githooks/pre-push":        ".githooks",
		".git/HEAD":                 "",
		".git/info/exclude":         "",
		".git/refs/heads/main":      "",
		".gitignore":                "",
		"src/.git/config":           "",
		".git/hooks-not/pre-commit": "",
	} {
		got := p.Guarded(filepath.Join(ws, path))
		if want != "" {
			want = filepath.Join(ws, want)
		}
		if got != want {
			t.Errorf("Guarded(%s) = %q, want %q", path, got, want)
		}
	}
	p.Mode = Off
	if got := p.Guarded(filepath.Join(ws, ".git/config")); got != "" {
		t.Errorf("mode off: Guarded(.git/config) = %q, want nothing", got)
	}
}

// TestGitConfigs: the config files git reads for a repository, and those
// they include, as git finds them: relative to the including file, ~/
// from the home directory, under any includeIf condition, continued
// lines and quotes read as git reads them; a loop ends.
func TestGitConfigs(t *testing.T) {
	base := t.TempDir()
	home, ws := filepath.Join(base, "home"), filepath.Join(base, "ws")
	for _, d := range []string{home + "/.config/git", ws + "/.git", ws + "/conf"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		ws + "/.git/config":          "[core]\n\tbare = false\n[include]\n\tpath = \"../conf/a.gitconfig\" ; shared\n[includeIf \"onbranch:main\"]\n\tpath = ../conf/\\\nb.gitconfig\n",
		ws + "/conf/a.gitconfig":     "[include]\n\tpath = a.gitconfig\n\tpath = ~/team.gitconfig\n",
		home + "/.gitconfig":         "[include]\n\tpath = " + ws + "/conf/mine.gitconfig\n",
		home + "/team.gitconfig":     "[core]\n\thooksPath = .githooks\n",
		home + "/.config/git/config": "[core.x]\n\ty = 1\n",
	}
	for path, content := range files {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := readGitConfigs(findGit(ws), home, func(k string) string { return map[string]string{"GIT_CONFIG_NOSYSTEM": "1"}[k] })
	for _, want := range []string{ws + "/.git/config", ws + "/conf/a.gitconfig", ws + "/conf/b.gitconfig",
		home + "/team.gitconfig", home + "/.gitconfig", ws + "/conf/mine.gitconfig", ws + "/.git/config.worktree"} {
		if !contains(c.files, want) {
			t.Errorf("files lack %s: %v", want, c.files)
		}
	}
	if got := c.last("core.hookspath"); got != ".githooks" {
		t.Errorf("core.hooksPath %q, want it from the included file", got)
	}
	if got := c.last("core.x.y"); got != "1" {
		t.Errorf("old subsection syntax: %q", got)
	}
	prot := findGit(ws).protected(c)
	if !contains(prot, ws+"/.githooks") || !contains(prot, ws+"/conf/b.gitconfig") {
		t.Errorf("protected %v", prot)
	}
}

// TestGitPrograms: the keys of a repository's own config (and what it
// includes) that make git run a program, and only those.
func TestGitPrograms(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(ws+"/.git", 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/config", "[core]\n\tbare = false\n\tfsmonitor = true\n[alias]\n\tst = status\n[remote \"origin\"]\n\turl = x\n")
	if got := GitPrograms(ws); len(got) != 0 {
		t.Errorf("inert config: %v", got)
	}
	write(".git/config", "[core]\n\tfsmonitor = \"touch x; false\"\n[alias]\n\tst = status\n\tx = !sh -c y\n[include]\n\tpath = ../shared.gitconfig\n")
	write("shared.gitconfig", "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n[pager]\n\tlog = less\n")
	got := GitPrograms(ws)
	for _, want := range []string{"core.fsmonitor", "alias.x", "filter.lfs.clean", "pager.log"} {
		if !contains(got, want) {
			t.Errorf("%s not found in %v", want, got)
		}
	}
	if contains(got, "alias.st") {
		t.Errorf("alias.st runs no program: %v", got)
	}
}
