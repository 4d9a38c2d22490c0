package sandbox

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// gitDirs are the directories of the git repository a workspace is in.
// Git runs programs named in a repository's hooks and config (core.hooksPath,
// core.fsmonitor, core.pager, filters, aliases...) the next time anyone uses
// the repository, outside the sandbox: those are what Policy.Protected keeps.
type gitDirs struct {
	workspace string
	top       string // the worktree's top directory
	dir       string // the worktree's git directory
	common    string // the repository's: hooks, config, objects, refs
}

// findGit looks for the repository from workspace up. With none, it
// answers workspace/.git, so that one made by "git init" is checked.
func findGit(workspace string) gitDirs {
	for d := workspace; ; d = filepath.Dir(d) {
		if dir := gitDirAt(d); dir != "" {
			return gitDirs{workspace: workspace, top: d, dir: dir, common: commonDir(dir)}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	dot := filepath.Join(workspace, ".git")
	return gitDirs{workspace: workspace, top: workspace, dir: dot, common: dot}
}

// gitDirAt returns the git directory of a worktree whose top is d: d/.git
// itself, or where a d/.git file ("gitdir: path") points.
func gitDirAt(d string) string {
	dot := filepath.Join(d, ".git")
	fi, err := os.Stat(dot)
	switch {
	case err != nil:
		return ""
	case fi.IsDir():
		return dot
	}
	b, err := os.ReadFile(dot)
	if err != nil {
		return ""
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(d, dir)
	}
	return filepath.Clean(dir)
}

// commonDir follows a linked worktree's commondir file to the main
// repository's git directory.
func commonDir(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "commondir"))
	if err != nil {
		return dir
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(dir, c)
	}
	return filepath.Clean(c)
}

// protected lists the paths to keep: the hooks and config of the
// repository and of the workspace's own .git (where "git init" would put
// them), the directory core.hooksPath names, what could lead git to
// other hooks and config: .git itself (a .git file names another git
// directory) and commondir files (which name another common directory),
// and the config files git reads for the repository and those they
// include (a project's shared .gitconfig, included from .git/config).
func (g gitDirs) protected(cfg gitConfigs) []string {
	var out []string
	dot := filepath.Join(g.workspace, ".git")
	for _, dir := range []string{g.common, g.dir, dot} {
		out = append(out, dotGit(dir)...)
	}
	// A path starting with ~ is left out: the home directory is
	// read-only to commands.
	if hp := cfg.last("core.hookspath"); hp != "" && !strings.HasPrefix(hp, "~") {
		if !filepath.IsAbs(hp) {
			hp = filepath.Join(g.top, hp)
		}
		out = append(out, filepath.Clean(hp))
	}
	return tidy(append(out, cfg.files...))
}

// dotGit is a git directory and what in it makes git run programs or
// read other config: hooks, config, config.worktree, commondir.
func dotGit(dir string) []string {
	out := []string{dir}
	for _, name := range []string{"hooks", "config", "config.worktree", "commondir"} {
		out = append(out, filepath.Join(dir, name))
	}
	return out
}

// inertGitKeys are the config keys "git init", "git clone", "git remote
// add" and "git branch --track" write that make git run nothing. A
// subsection is written as "*".
var inertGitKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true,
	"core.logallrefupdates": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.symlinks": true, "core.autocrlf": true, "core.eol": true,
	"extensions.objectformat": true, "extensions.refstorage": true, "extensions.worktreeconfig": true,
	"init.defaultbranch": true, "user.name": true, "user.email": true,
	"remote.*.url": true, "remote.*.pushurl": true, "remote.*.fetch": true,
	"remote.*.tagopt": true, "remote.*.prune": true,
	"branch.*.remote": true, "branch.*.merge": true, "branch.*.rebase": true,
}

// inertGitPath says whether a protected path that did not exist before the
// command may stay: a .git directory, a hooks directory holding only git's
// *.sample files (which git never runs), or a config file with only inert
// keys.
func inertGitPath(root *os.Root, rel string) bool {
	switch filepath.Base(rel) {
	case ".git":
		fi, err := root.Lstat(rel)
		return err == nil && fi.IsDir() // "git init"; a .git file leads elsewhere
	case "hooks":
		entries, err := fs.ReadDir(root.FS(), rel)
		if err != nil {
			return false
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".sample") {
				return false
			}
		}
		return true
	case "config", "config.worktree":
		f, err := root.Open(rel)
		if err != nil {
			return false
		}
		defer f.Close()
		var b bytes.Buffer
		if _, err := b.ReadFrom(f); err != nil || b.Len() > 64<<10 {
			return false
		}
		entries, ok := parseGitConfig(b.Bytes())
		if !ok {
			return false
		}
		for _, e := range entries {
			if !inertGitKeys[e.pattern] {
				return false
			}
		}
		return true
	}
	return false
}

type gitEntry struct {
	name    string // section[.subsection].key, lower-case but the subsection
	pattern string // the same with the subsection as "*"
	value   string
}

// parseGitConfig reads the subset of git's config syntax that git itself
// writes. Anything else (includes, continuation lines, odd quoting) makes
// ok false, so that a file is never judged inert by a parser that did not
// understand it.
func parseGitConfig(b []byte) (entries []gitEntry, ok bool) {
	section, sub := "", ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
			continue
		case strings.HasSuffix(line, `\`):
			return entries, false
		case line[0] == '[':
			var good bool
			if section, sub, good = parseSection(line); !good {
				return entries, false
			}
			continue
		}
		if section == "" {
			return entries, false
		}
		key, value, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if key == "" || strings.ContainsAny(key, " \t\"[]") {
			return entries, false
		}
		value = strings.Trim(strings.TrimSpace(value), `"`)
		e := gitEntry{name: section + "." + key, pattern: section + "." + key, value: value}
		if sub != "" {
			e.name = section + "." + sub + "." + key
			e.pattern = section + ".*." + key
		}
		entries = append(entries, e)
	}
	return entries, sc.Err() == nil
}

// parseSection parses `[section]` and `[section "subsection"]`.
func parseSection(line string) (section, sub string, ok bool) {
	inner, ok := strings.CutSuffix(line[1:], "]")
	if !ok || strings.ContainsAny(inner, "[]") {
		return "", "", false
	}
	name, rest, hasSub := strings.Cut(inner, " ")
	section = strings.ToLower(name)
	if section == "" || strings.ContainsAny(section, "\".") {
		return "", "", false
	}
	if !hasSub {
		return section, "", true
	}
	rest = strings.TrimSpace(rest)
	if len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
		return "", "", false
	}
	return section, rest[1 : len(rest)-1], true
}
