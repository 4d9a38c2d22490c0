package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"lathe/config/safefile"
	"lathe/tools/runfiles"
)

// The project's hooks run outside the sandbox, so they must never be
// something a sandboxed command could have written without the user's
// say. The user trusts them as they are: their definitions, and what
// their commands run: the files of the project each command line of a
// hook would run or load as code, found as for an MCP server (package
// runfiles: the script, the program, python -m's module, npx's
// package...), and every file a word of the command names outside the
// project (a script in the temp directory, say). The digest covers both,
// so that a changed hook or script asks again at the next start; and a
// file that changes while lathe runs (the model can write in the
// workspace) stops its hook from running.
//
// A hook of the user's own config is trusted as that config is, but one
// that runs files of the project (./fmt.sh, python -m a module of the
// project) would run whatever a sandboxed command left there: it needs the
// same trust, given to it and to those files (not to what it names
// outside the project, which is the user's own).
//
// This mirrors how MCP servers are trusted (tools/mcp, trust.go): the
// same files counted, the same shape of file, per project, the same
// prompt.

// TrustFileName is the file, in lathe's data directory, that keeps the
// projects whose hooks the user trusted. It is JSON:
//
//	{"version": 1,
//	 "projects": {
//	   "/home/me/api": {"hooks": "sha256:…", "commands": ["./fmt.sh"], "trusted": "2026-11-23T10:00:00Z"}}}
const TrustFileName = "hooks-trust.json"

// Digest is what the user's trust in the project's hooks (of hooks, those
// that need it: see NeedsTrust) is given to: each hook's event, matcher,
// command, time limit and file, and the content of every file it runs
// that the trust covers (see trustFiles), taken in the workspace dir with
// the environment getenv reads.
func Digest(hooks []Hook, dir string, getenv func(string) string) string {
	type entry struct {
		Event, Matcher, Command string
		Timeout                 time.Duration
		Source                  string
		Files                   map[string]string
	}
	var list []entry
	for _, h := range hooks {
		run := trustFiles(h, dir, getenv)
		if !h.Project && len(run) == 0 {
			continue
		}
		src := h.Source
		if rel, err := filepath.Rel(dir, src); err == nil && filepath.IsLocal(rel) {
			src = rel // the project may move; its files are the same
		}
		files := map[string]string{}
		for _, path := range run {
			key := path
			if rel, err := filepath.Rel(dir, path); err == nil && filepath.IsLocal(rel) {
				key = rel
			}
			files[key] = fileDigest(path)
		}
		list = append(list, entry{h.Event, h.Matcher, h.Command, h.Timeout, src, files})
	}
	b, _ := json.Marshal(list) // plain data: cannot fail; map keys sorted
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// NeedsTrust reports whether h runs only once the user trusts it: a
// project's hook always; one of the user's own when it runs files of the
// project in dir.
func NeedsTrust(h Hook, dir string, getenv func(string) string) bool {
	return h.Project || len(trustFiles(h, dir, getenv)) > 0
}

// ProjectFiles returns the files of the project in dir that h runs, as
// paths relative to dir, sorted; nil for a hook of the project (whose
// every file is trusted) and for one of the user's that runs none.
func ProjectFiles(h Hook, dir string, getenv func(string) string) []string {
	if h.Project {
		return nil
	}
	var out []string
	for _, path := range trustFiles(h, dir, getenv) {
		if rel, err := filepath.Rel(dir, path); err == nil {
			out = append(out, rel)
		}
	}
	return out
}

// trustFiles returns the files h runs that the trust given to it covers,
// absolute and sorted: for a project's hook every one (see runFiles); for
// one of the user's, those of the project alone.
func trustFiles(h Hook, dir string, getenv func(string) string) []string {
	files := runFiles(h.Command, dir, getenv)
	if h.Project {
		return files
	}
	return slices.DeleteFunc(files, func(path string) bool { return !within(path, dir) })
}

// pins are the files the hooks that need trust run (see trustFiles), by
// hook (see pinKey), as they were when trusted.
type pins map[string]map[string]pinned

// pinKey is what pins keeps h's files under: a project's hook and one of
// the user's with the same command are trusted with different files.
func pinKey(h Hook) string {
	if h.Project {
		return "project\x00" + h.Command
	}
	return "user\x00" + h.Command
}

// pinned is a file as trusted: its digest, and for a regular file a key of
// its metadata (size, times, inode) that any write changes, so that only
// a file whose key changed is read again (a directory is, every time).
type pinned struct{ sum, key string }

// pin is what is at path now.
func pin(path string) pinned {
	key := ""
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		key = statKey(path)
	}
	return pinned{fileDigest(path), key}
}

// unchanged reports whether path is what p pinned.
func (p pinned) unchanged(path string) bool {
	if p.key != "" && statKey(path) == p.key {
		return true
	}
	return fileDigest(path) == p.sum
}

// pinScripts reads the files the hooks run that their trust covers: those
// of the user's own hooks that run none yet are pinned too, so that one
// that comes to run a file of the project later counts as changed.
func pinScripts(hooks []Hook, dir string, getenv func(string) string) pins {
	p := pins{}
	for _, h := range hooks {
		files := map[string]pinned{}
		for _, path := range trustFiles(h, dir, getenv) {
			files[path] = pin(path)
		}
		p[pinKey(h)] = files
	}
	return p
}

// changed returns the first file h's command runs (of those its trust
// covers) that is not what it was when trusted, or that it runs now and
// did not then; "" when none is.
func (p pins) changed(h Hook, dir string, getenv func(string) string) string {
	was, ok := p[pinKey(h)]
	if !ok {
		return "its command" // declared after the trust was given: cannot be
	}
	now := trustFiles(h, dir, getenv)
	for _, path := range now {
		if pin, ok := was[path]; !ok || !pin.unchanged(path) {
			return path
		}
	}
	for _, path := range slices.Sorted(maps.Keys(was)) {
		if !slices.Contains(now, path) && !was[path].unchanged(path) {
			return path
		}
	}
	return ""
}

// runFiles returns the files command runs, absolute and sorted: beneath
// dir, what each of its command lines would run or load as code
// (runfiles.Files, started in dir, $CLAUDE_PROJECT_DIR and
// $LATHE_PROJECT_DIR put in); elsewhere, every path a word of it names,
// there or not (a file that appears there later is a change).
func runFiles(command, dir string, getenv func(string) string) []string {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var out []string
	for _, argv := range commandLines(command) {
		for i, w := range argv {
			for _, v := range []string{"${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR", "${LATHE_PROJECT_DIR}", "$LATHE_PROJECT_DIR"} {
				w = strings.ReplaceAll(w, v, dir)
			}
			argv[i] = w
			if w == "" || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "$`*?") {
				continue
			}
			if !filepath.IsAbs(w) {
				w = filepath.Join(dir, w)
			}
			if w = filepath.Clean(w); !within(w, dir) {
				out = append(out, w)
			}
		}
		for len(argv) > 0 && strings.Contains(argv[0], "=") && !strings.Contains(argv[0], "/") {
			argv = argv[1:] // VAR=value before the program
		}
		out = append(out, runfiles.Files(runfiles.Command{Root: dir, Dir: dir, Argv: argv, Getenv: getenv})...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// within reports whether path is dir or lies beneath it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel)
}

// fileDigest is the digest of what is at path: a file's content, a
// directory's entries (a python package, run whole), a link's target and
// what is there, or nothing; the same wherever path is.
func fileDigest(path string) string {
	d := runfiles.Digest(path, []string{path})
	if real, err := filepath.EvalSymlinks(path); err == nil && real != filepath.Clean(path) {
		d += " " + runfiles.Digest(real, []string{real})
	}
	return d
}

// commandLines splits a shell command line into its simple commands
// (separated by ; & | ( ) and newlines), each as words (see shellWords).
func commandLines(s string) [][]string {
	var out [][]string
	for _, line := range shellWords(s) {
		if len(line) > 0 {
			out = append(out, line)
		}
	}
	return out
}

// shellWords splits a command line into words roughly as the shell does:
// quotes group, a backslash escapes; the operators ; & | ( ) and newlines
// end a command line, < and > a word.
func shellWords(s string) [][]string {
	var lines [][]string
	var words []string
	var cur strings.Builder
	in := false // a word is under way
	flush := func() {
		if in {
			words = append(words, cur.String())
		}
		cur.Reset()
		in = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			in = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			in = true
			i++
			cur.WriteByte(s[i])
		case strings.IndexByte(" \t<>", c) >= 0:
			flush()
		case strings.IndexByte("\n;&|()", c) >= 0:
			flush()
			lines = append(lines, words)
			words = nil
		default:
			in = true
			cur.WriteByte(c)
		}
	}
	flush()
	return append(lines, words)
}

type trustDoc struct {
	Version  int                     `json:"version"`
	Projects map[string]trustedEntry `json:"projects"`
}

type trustedEntry struct {
	Hooks    string    `json:"hooks"`
	Commands []string  `json:"commands"`
	Trusted  time.Time `json:"trusted"`
}

// Trusted reports whether the user trusted the project in dir with the
// hooks whose digest is given, as the trust file at path says. A file
// that does not exist trusts nothing.
func Trusted(path, dir, digest string) (bool, error) {
	doc, err := readTrust(path)
	if err != nil {
		return false, err
	}
	e, ok := doc.Projects[dir]
	return ok && e.Hooks == digest, nil
}

// Trust records that the user trusts the project in dir with the hooks
// whose digest is given, in the trust file at path (made, with its
// directory, as needed; replaced whole).
func Trust(path, dir, digest string, commands []string, now time.Time) error {
	doc, err := readTrust(path)
	if err != nil {
		return err
	}
	doc.Projects[dir] = trustedEntry{Hooks: digest, Commands: commands, Trusted: now.UTC()}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return safefile.Replace(path, append(b, '\n'))
}

// maxTrustFile bounds what is read of the trust file.
const maxTrustFile = 1 << 20

func readTrust(path string) (trustDoc, error) {
	doc := trustDoc{Version: 1, Projects: map[string]trustedEntry{}}
	b, err := safefile.ReadPath(path, maxTrustFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return doc, nil
	case err != nil:
		return doc, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return trustDoc{Version: 1, Projects: map[string]trustedEntry{}},
			fmt.Errorf("%s is damaged (%v): remove it, and trust the projects again", path, err)
	}
	if doc.Projects == nil {
		doc.Projects = map[string]trustedEntry{}
	}
	return doc, nil
}
