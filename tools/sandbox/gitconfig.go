package sandbox

import (
	"bufio"
	"bytes"
	"path/filepath"
	"slices"
	"strings"

	"lathe/config/safefile"
)

// maxIncludeDepth is how deep git follows includes.
const maxIncludeDepth = 10

// maxGitConfig bounds what is read of one config file.
const maxGitConfig = 1 << 20

// gitConfigs are the config files git reads for a repository, in the
// order it reads them (a later value wins), each with every file it
// includes just after it.
type gitConfigs struct {
	files   []string   // every file read, includes too
	entries []gitEntry // their entries, includes followed
	seen    map[string]bool
}

// readGitConfigs reads the system config, the user's (GIT_CONFIG_GLOBAL,
// or ~/.gitconfig and $XDG_CONFIG_HOME/git/config) and the repository's
// (config, config.worktree), and what each includes (include.path, and
// includeIf.*.path whatever the condition), as git does: a relative
// path is taken from the including file's directory, ~/ is the home
// directory. A file that does not exist is listed all the same: made
// later, git would read it.
func readGitConfigs(g gitDirs, home string, getenv func(string) string) gitConfigs {
	c := gitConfigs{seen: map[string]bool{}}
	switch sys := getenv("GIT_CONFIG_SYSTEM"); {
	case getenv("GIT_CONFIG_NOSYSTEM") != "":
	case filepath.IsAbs(sys):
		c.read(sys, home, 0)
	default:
		c.read("/etc/gitconfig", home, 0)
	}
	switch global := getenv("GIT_CONFIG_GLOBAL"); {
	case filepath.IsAbs(global):
		c.read(global, home, 0)
	case home != "":
		xdg := getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(xdg) {
			xdg = filepath.Join(home, ".config")
		}
		c.read(filepath.Join(xdg, "git", "config"), home, 0)
		c.read(filepath.Join(home, ".gitconfig"), home, 0)
	}
	c.readRepository(g, home)
	return c
}

// readRepository reads the repository's own config files and what they
// include.
func (c *gitConfigs) readRepository(g gitDirs, home string) {
	c.read(filepath.Join(g.common, "config"), home, 0)
	c.read(filepath.Join(g.dir, "config.worktree"), home, 0)
}

// read reads the config file at path, and those it includes.
func (c *gitConfigs) read(path, home string, depth int) {
	path = filepath.Clean(path)
	if c.seen[path] || depth > maxIncludeDepth {
		return
	}
	c.seen[path] = true
	c.files = append(c.files, path)
	b, err := safefile.ReadPath(path, maxGitConfig)
	if err != nil {
		return
	}
	for _, e := range looseGitConfig(b) {
		c.entries = append(c.entries, e)
		if e.name != "include.path" && e.pattern != "includeif.*.path" || e.value == "" {
			continue
		}
		inc := e.value
		switch {
		case strings.HasPrefix(inc, "~/") && home != "":
			inc = filepath.Join(home, inc[2:])
		case strings.HasPrefix(inc, "~"):
			continue // another user's home
		case !filepath.IsAbs(inc):
			inc = filepath.Join(filepath.Dir(path), inc)
		}
		c.read(inc, home, depth+1)
	}
}

// last returns the value the last entry named name set, "" when none.
func (c gitConfigs) last(name string) string {
	v := ""
	for _, e := range c.entries {
		if e.name == name {
			v = e.value
		}
	}
	return v
}

// looseGitConfig reads a git config file as git does, as far as names and
// values go: sections old and new ([a "b"], [a.b]), comments, quotes,
// escapes, lines continued with a backslash, keys without a value. Lines
// it cannot read are skipped. (parseGitConfig, strict, is for judging a
// file inert: it refuses what it does not understand.)
func looseGitConfig(b []byte) []gitEntry {
	var out []gitEntry
	section, sub := "", ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxGitConfig)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		for strings.HasSuffix(line, `\`) && !strings.HasSuffix(line, `\\`) && sc.Scan() {
			line = line[:len(line)-1] + sc.Text()
		}
		if strings.HasPrefix(line, "[") {
			section, sub, line = looseSection(line)
		}
		if line == "" || line[0] == '#' || line[0] == ';' || section == "" {
			continue
		}
		key, value, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if key == "" || strings.ContainsAny(key, " \t\"") {
			continue
		}
		e := gitEntry{name: section + "." + key, pattern: section + "." + key, value: gitValue(value)}
		if sub != "" {
			e.name = section + "." + sub + "." + key
			e.pattern = section + ".*." + key
		}
		out = append(out, e)
	}
	return out
}

// looseSection reads a section header, returning what follows it on the
// line (a key may). A header it cannot read ends the section.
func looseSection(line string) (section, sub, rest string) {
	end := strings.IndexByte(line, ']')
	if q := strings.IndexByte(line, '"'); q >= 0 && q < end {
		if cq := strings.IndexByte(line[q+1:], '"'); cq >= 0 {
			end = q + 1 + cq + strings.IndexByte(line[q+1+cq:], ']')
		}
	}
	if end < 0 {
		return "", "", ""
	}
	inner, rest := strings.TrimSpace(line[1:end]), strings.TrimSpace(line[end+1:])
	if name, quoted, ok := strings.Cut(inner, " "); ok {
		quoted = strings.TrimSpace(quoted)
		if len(quoted) >= 2 && quoted[0] == '"' && quoted[len(quoted)-1] == '"' {
			sub = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(quoted[1 : len(quoted)-1])
		}
		return strings.ToLower(name), sub, rest
	}
	name, sub, _ := strings.Cut(inner, ".")
	return strings.ToLower(name), strings.ToLower(sub), rest
}

// gitValue is a value as git reads it: quotes removed, escapes read,
// comments outside quotes dropped, blanks at either end trimmed.
func gitValue(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				b.WriteByte(v[i])
			}
		case !quoted && (c == '#' || c == ';'):
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// programKeys are the config keys whose value git runs as a program (or
// that make it run one: an alias starting with "!"), as name patterns, a
// subsection written "*".
var programKeys = map[string]bool{
	"core.fsmonitor": true, "core.hookspath": true, "core.pager": true, "core.editor": true,
	"core.sshcommand": true, "core.askpass": true, "core.gitproxy": true, "core.alternaterefscommand": true,
	"sequence.editor": true, "diff.external": true, "diff.*.command": true, "diff.*.textconv": true,
	"difftool.*.cmd": true, "difftool.*.path": true, "merge.*.driver": true, "mergetool.*.cmd": true,
	"mergetool.*.path": true, "filter.*.clean": true, "filter.*.smudge": true, "filter.*.process": true,
	"credential.helper": true, "credential.*.helper": true, "gpg.program": true, "gpg.*.program": true,
	"pager.*": true, "interactive.difffilter": true, "uploadpack.packobjectshook": true,
	"remote.*.uploadpack": true, "remote.*.receivepack": true, "remote.*.vcs": true,
	"web.browser": true, "browser.*.cmd": true, "browser.*.path": true, "man.*.cmd": true, "man.*.path": true,
	"tar.*.command": true, "trailer.*.command": true, "trailer.*.cmd": true, "protocol.*.allow": true,
}

// runsProgram reports whether an entry makes git run a program.
func (e gitEntry) runsProgram() bool {
	switch {
	case e.name == "core.fsmonitor":
		switch strings.ToLower(e.value) {
		case "", "false", "no", "off", "0", "true", "yes", "on", "1":
			return false // git's own daemon, or none
		}
		return true
	case e.pattern == "alias.*" || strings.HasPrefix(e.name, "alias."):
		return strings.HasPrefix(e.value, "!")
	case e.pattern == "submodule.*.update":
		return strings.HasPrefix(e.value, "!")
	case strings.HasPrefix(e.name, "pager."):
		return true
	}
	return programKeys[e.pattern]
}

// GitPrograms returns the config keys by which the repository the
// workspace is in makes git run programs (core.fsmonitor, core.pager,
// filters, "!" aliases...): those set in its own config files
// (config, config.worktree) and in what they include; nil when none. A
// cloned or unpacked repository may bring them: whatever runs git there
// runs them. The user's own config is not looked at.
func GitPrograms(workspace string) []string {
	g := findGit(filepath.Clean(workspace))
	c := gitConfigs{seen: map[string]bool{}}
	c.readRepository(g, "")
	var out []string
	for _, e := range c.entries {
		if e.runsProgram() && !slices.Contains(out, e.name) {
			out = append(out, e.name)
		}
	}
	return out
}
