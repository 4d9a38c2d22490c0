package sandbox

import (
	"bufio"
	"bytes"
	"path/filepath"
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
}

// readGitConfigs reads the system config, the user's (GIT_CONFIG_GLOBAL,
// or ~/.gitconfig and $XDG_CONFIG_HOME/git/config) and the repository's
// (config, config.worktree), and what each includes (include.path, and
// includeIf.*.path whatever the condition), as git does: a relative
// path is taken from the including file's directory, ~/ is the home
// directory. A file that does not exist is listed all the same: made
// later, git would read it.
func readGitConfigs(g gitDirs, home string, getenv func(string) string) gitConfigs {
	var c gitConfigs
	seen := map[string]bool{}
	var read func(path string, depth int)
	read = func(path string, depth int) {
		path = filepath.Clean(path)
		if seen[path] || depth > maxIncludeDepth {
			return
		}
		seen[path] = true
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
			read(inc, depth+1)
		}
	}
	switch sys := getenv("GIT_CONFIG_SYSTEM"); {
	case getenv("GIT_CONFIG_NOSYSTEM") != "":
	case filepath.IsAbs(sys):
		read(sys, 0)
	default:
		read("/etc/gitconfig", 0)
	}
	switch global := getenv("GIT_CONFIG_GLOBAL"); {
	case filepath.IsAbs(global):
		read(global, 0)
	case home != "":
		xdg := getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(xdg) {
			xdg = filepath.Join(home, ".config")
		}
		read(filepath.Join(xdg, "git", "config"), 0)
		read(filepath.Join(home, ".gitconfig"), 0)
	}
	read(filepath.Join(g.common, "config"), 0)
	read(filepath.Join(g.dir, "config.worktree"), 0)
	return c
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
