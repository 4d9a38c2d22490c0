package orchestrator

import (
	"slices"
	"strings"
	"unicode"
)

// commandAllowed reports whether a command rule (approval.commands) covers
// command. A rule is a program and its first arguments, "go test" or
// "git status": the command must start with the same words, and what
// follows must be plain arguments:
//
//   - nothing that chains, substitutes or redirects (";", "&", "|", "<",
//     ">", "$", "`", "(", ")", a backslash, a line break), no control
//     character, and no word that starts with "~" (a home directory);
//   - none of the options by which the program runs another program or
//     writes where it is told (dangerousFlags): "go test" does not cover
//     "go test -exec sh" nor "go test -o ~/bin/x".
//
// Quotes group words as the shell does; a rule never matches part of a
// word ("go test" does not cover "go testify").
func commandAllowed(command, rule string) bool {
	if strings.ContainsFunc(command, isControl) {
		return false
	}
	words, ok := shellWords(command)
	want, okRule := shellWords(rule)
	if !ok || !okRule || len(want) == 0 || len(words) < len(want) || !slices.Equal(words[:len(want)], want) {
		return false
	}
	flags := dangerousFlags[words[0]]
	for _, w := range words[1:] {
		if strings.HasPrefix(w, "~") || flags.has(w) {
			return false
		}
	}
	return flags.script == nil || flags.script(words[1:])
}

// commandExact reports whether command is rule, word for word, and a
// command rule may cover it (commandAllowed).
func commandExact(command, rule string) bool {
	words, ok := shellWords(command)
	want, okRule := shellWords(rule)
	return ok && okRule && len(words) == len(want) && commandAllowed(command, rule)
}

// flagSet is a program's dangerous options, and how it reads options.
type flagSet struct {
	names []string
	// getopt programs take single-letter options together ("-xzf") and
	// their values attached ("-i.bak"): a word of one dash holding a
	// dangerous letter anywhere is refused.
	getopt bool
	// alias is a prefix the program also reads its options with: the go
	// command passes "-test.cpuprofile" to the test binary as its
	// "-cpuprofile".
	alias string
	// script, for a program whose arguments hold a script of its own
	// (sed), reports whether that script keeps to reading and printing.
	script func(args []string) bool
}

// has reports whether word is one of the options, in any way the program
// would read it: as is, with "=value", with two dashes for one; and for a
// getopt program, among single letters.
func (f flagSet) has(word string) bool {
	if f.alias != "" {
		if rest, ok := strings.CutPrefix(strings.TrimLeft(word, "-"), f.alias); ok && strings.HasPrefix(word, "-") {
			word = "-" + rest
		}
	}
	for _, n := range f.names {
		switch {
		case word == n, strings.HasPrefix(word, n+"="):
			return true
		case !strings.HasPrefix(n, "--") && (word == "-"+n || strings.HasPrefix(word, "-"+n+"=")):
			return true
		case f.getopt && len(n) == 2 && strings.HasPrefix(word, "-") && !strings.HasPrefix(word, "--") &&
			strings.ContainsRune(word[1:], rune(n[1])):
			return true
		}
	}
	return false
}

// dangerousFlags are, per program, the options by which it runs another
// program or writes to a path it is given: a command rule never covers
// them (the README lists them). Each is also refused with two dashes and
// with "=value".
var dangerousFlags = map[string]flagSet{
	"go": {alias: "test.", names: []string{"-exec", "-toolexec", "-vettool", "-o", "-coverprofile", "-cpuprofile", "-memprofile",
		"-blockprofile", "-mutexprofile", "-trace", "-outputdir", "-overlay", "-modfile", "-pkgdir",
		"-testlogfile", "-gocoverdir", "-fuzzcachedir"}},
	"git": {getopt: true, names: []string{"-c", "--config-env", "-C", "--git-dir", "--work-tree", "--exec-path",
		"--upload-pack", "--receive-pack", "--exec", "-x", "--output", "-o", "--ext-diff", "--open-files-in-pager",
		"-O", "--textconv"}},
	"find": {names: []string{"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}},
	"make": {getopt: true, names: []string{"-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir",
		"--eval", "-E"}},
	"sed":  {getopt: true, names: []string{"-i", "--in-place", "-e", "--expression", "-f", "--file"}, script: sedReadsOnly},
	"sort": {getopt: true, names: []string{"-o", "--output", "--compress-program"}},
	"tar": {getopt: true, names: []string{"-x", "--extract", "-C", "--directory", "--to-command",
		"--use-compress-program", "-I", "-f", "--file"}},
	"cargo": {names: []string{"--config", "-Z", "--manifest-path", "--target-dir", "--artifact-dir"}},
	"npm":   {names: []string{"--prefix", "-C", "--script-shell", "--userconfig", "--globalconfig"}},
	"pnpm":  {names: []string{"--dir", "-C", "--prefix"}},
	"yarn":  {names: []string{"--cwd", "--use-yarnrc"}},
	"rg":    {names: []string{"--pre", "--search-zip", "-z"}},
}

// isControl reports a character that would hide or move text on a
// terminal: C0 and C1 controls but the tab, DEL, and the Unicode line
// and paragraph separators.
func isControl(r rune) bool {
	return r != '\t' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029')
}

// shellWords splits s into words as the shell would, for plain commands:
// blanks separate words, and single or double quotes group them. It
// reports false for an unclosed quote and for anything the shell would
// read as more than words: outside quotes a character that chains,
// substitutes, redirects or escapes (";&|<>$`()\" and line breaks), and
// inside double quotes "$", "`" and "\".
func shellWords(s string) ([]string, bool) {
	var words []string
	var w strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == '"' && strings.ContainsRune("$`\\", r):
			return nil, false
		case quote != 0:
			w.WriteRune(r)
		case strings.ContainsRune(";&|<>$`()\\\n\r", r):
			return nil, false
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if in {
		words = append(words, w.String())
	}
	return words, true
}
