package tools

import (
	"bytes"
	"os"
	"path"
	"strings"
)

// ignorer holds the .gitignore rules that apply in one directory:
// .git/info/exclude and every .gitignore from the working directory down to
// that directory, each file parsed once, with its own directory as domain.
// A nil *ignorer excludes nothing. An ignorer is never changed once made,
// so the directories below share their parent's files.
//
// The walk asks about the entries of one directory at a time, and never
// enters a directory the rules exclude, so nothing below it can be brought
// back, as in git. So rules are bound to a directory once (at), leaving for
// each entry a test on its name alone.
type ignorer struct {
	files []*ignoreFile // lowest precedence first: exclude, then top down
}

// ignoreFile is one parsed .gitignore (or .git/info/exclude).
type ignoreFile struct {
	domain []string // components of the directory it applies below
	rules  []ignoreRule
}

// ignored reports whether the path given by its components from the working
// directory is excluded, its parents being kept.
func (ig *ignorer) ignored(parts []string, isDir bool) bool {
	if ig == nil || len(parts) == 0 {
		return false
	}
	return ig.at(parts[:len(parts)-1]).ignored(parts[len(parts)-1], isDir)
}

// with returns the ignorer for a directory below ig's whose .gitignore holds
// data; dir is that directory's components.
func (ig *ignorer) with(dir []string, data []byte) *ignorer {
	rules := parseIgnore(data)
	if len(rules) == 0 {
		return ig
	}
	f := &ignoreFile{domain: dir, rules: rules}
	if ig == nil {
		return &ignorer{files: []*ignoreFile{f}}
	}
	files := make([]*ignoreFile, len(ig.files), len(ig.files)+1)
	copy(files, ig.files)
	return &ignorer{files: append(files, f)}
}

// at binds the rules to the directory whose components are dir, keeping
// only those that can match one of its entries.
func (ig *ignorer) at(dir []string) dirRules {
	if ig == nil {
		return dirRules{}
	}
	n := 0
	for _, f := range ig.files {
		n += len(f.rules)
	}
	// Most rules bind (those without a slash always do): room for all of
	// them at once, where growing the slice rule by rule made twice the
	// garbage, for every directory the walk enters.
	out := make([]boundRule, 0, n)
	for _, f := range ig.files {
		rel := dir[len(f.domain):]
		relPath := strings.Join(rel, "/")
		for i := range f.rules {
			if b, ok := f.rules[i].bind(rel, relPath); ok {
				out = append(out, b)
			}
		}
	}
	return dirRules{rules: out}
}

// dirRules are the rules that apply to the entries of one directory, in
// order of precedence, lowest first.
type dirRules struct {
	rules []boundRule
}

// ignored reports whether the entry name of the directory is excluded: the
// last rule that matches it decides.
func (d dirRules) ignored(name string, isDir bool) bool {
	for i := len(d.rules) - 1; i >= 0; i-- {
		r := &d.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		if r.match(name) {
			return !r.negate
		}
	}
	return false
}

// parseIgnore parses the lines of a .gitignore file as git does: a UTF-8
// byte order mark at the start is skipped, blank lines and comments too,
// and trailing spaces are dropped unless quoted with a backslash.
func parseIgnore(data []byte) []ignoreRule {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var rules []ignoreRule
	for line := range bytes.Lines(data) {
		s := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
		if strings.HasPrefix(s, "#") {
			continue
		}
		if r, ok := parseRule(trimTrailingSpaces(s)); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

// trimTrailingSpaces drops the spaces that end s, except one quoted by a
// backslash.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		end--
	}
	if end == len(s) {
		return s
	}
	// Count the backslashes before the first trailing space: an odd number
	// quotes it.
	n := 0
	for i := end - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	if n%2 == 1 {
		end++
	}
	return s[:end]
}

// loadIgnorer returns the ignorer a walk of dir, a root-relative
// directory, starts with: .git/info/exclude and the .gitignore files of the
// directories above dir, from the working directory down. dir's own
// .gitignore is left to the walk, which reads it as it reads dir. A search
// that starts in a directory those rules exclude was asked for explicitly:
// the rules from above do not apply inside it, only its own and its
// subdirectories'.
func loadIgnorer(root *os.Root, dir string) *ignorer {
	var ig *ignorer
	if data, err := root.ReadFile(".git/info/exclude"); err == nil {
		ig = ig.with(nil, data)
	}
	var parts []string
	if dir != "." {
		parts = strings.Split(dir, "/")
	}
	for i := 0; i <= len(parts); i++ {
		here := parts[:i:i]
		if i > 0 && ig.ignored(here, true) {
			ig = nil
		}
		if i == len(parts) {
			break
		}
		name := path.Join(strings.Join(here, "/"), ".gitignore")
		if data, err := root.ReadFile(name); err == nil {
			ig = ig.with(here, data)
		}
	}
	return ig
}
