package tools

import (
	"bytes"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignorer says which paths .gitignore rules exclude in one directory: the
// rules of .git/info/exclude and of every .gitignore from the working
// directory down to that directory, each with its own directory as domain.
// A nil *ignorer excludes nothing. Paths are given as components from the
// working directory. An ignorer is never changed once made, so the
// directories below share their parent's.
type ignorer struct {
	patterns []gitignore.Pattern
	m        gitignore.Matcher
}

func newIgnorer(patterns []gitignore.Pattern) *ignorer {
	if len(patterns) == 0 {
		return nil
	}
	return &ignorer{patterns: patterns, m: gitignore.NewMatcher(patterns)}
}

// ignored reports whether the path given by its components is excluded.
func (ig *ignorer) ignored(parts []string, isDir bool) bool {
	return ig != nil && ig.m.Match(parts, isDir)
}

// with returns the ignorer for a directory below ig's whose .gitignore holds
// data; dir is that directory's components.
func (ig *ignorer) with(dir []string, data []byte) *ignorer {
	added := parseIgnore(data, dir)
	if len(added) == 0 {
		return ig
	}
	var ps []gitignore.Pattern
	if ig != nil {
		ps = ig.patterns
	}
	return newIgnorer(append(slices.Clip(ps), added...))
}

// parseIgnore parses the lines of a .gitignore file whose directory has the
// components domain. Blank lines and comments are skipped.
func parseIgnore(data []byte, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for line := range bytes.Lines(data) {
		s := strings.TrimRight(string(line), "\r\n")
		if strings.TrimSpace(s) == "" || strings.HasPrefix(s, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(s, domain))
	}
	return ps
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
