package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"lathe/config/safefile"
)

// The project's hooks run outside the sandbox, so they must never be
// something a sandboxed command could have written without the user's
// say. The user trusts them as they are: their definitions, and the
// content of every file their commands name (a script in the workspace,
// or anywhere a command may write, such as the temp directory). The
// digest covers both, so that a changed hook or script asks again at the
// next start; and a script that changes while lathe runs (the model can
// write in the workspace) stops its hook from running.
//
// This mirrors how a project's MCP servers are trusted (tools/mcp,
// trust.go): the same shape of file, per project, the same prompt.

// TrustFileName is the file, in lathe's data directory, that keeps the
// projects whose hooks the user trusted. It is JSON:
//
//	{"version": 1,
//	 "projects": {
//	   "/home/me/api": {"hooks": "sha256:…", "commands": ["./fmt.sh"], "trusted": "2026-11-23T10:00:00Z"}}}
const TrustFileName = "hooks-trust.json"

// maxScript is the most of a file a command names that is read for its
// digest; past it, its size stands for the rest.
const maxScript = 8 << 20

// Digest is what the user's trust in the project's hooks (of hooks, those
// with Project set) is given to: each hook's event, matcher, command,
// time limit and file, and the content of every file its command names,
// relative to the workspace dir.
func Digest(hooks []Hook, dir string) string {
	type entry struct {
		Event, Matcher, Command string
		Timeout                 time.Duration
		Source                  string
		Files                   map[string]string
	}
	var list []entry
	for _, h := range hooks {
		if !h.Project {
			continue
		}
		src := h.Source
		if rel, err := filepath.Rel(dir, src); err == nil && filepath.IsLocal(rel) {
			src = rel // the project may move; its files are the same
		}
		files := map[string]string{}
		for path, sum := range scriptsOf(h.Command, dir) {
			if rel, err := filepath.Rel(dir, path); err == nil && filepath.IsLocal(rel) {
				path = rel
			}
			files[path] = sum
		}
		list = append(list, entry{h.Event, h.Matcher, h.Command, h.Timeout, src, files})
	}
	b, _ := json.Marshal(list) // plain data: cannot fail; map keys sorted
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// pins are the files the project's hooks name, by command, as they were
// when trusted.
type pins map[string]map[string]pinned

// pinned is a file as trusted: its digest ("" for none there), and a key
// of its metadata (size, times, inode) that any write changes, so that
// only a file whose key changed is read again.
type pinned struct{ sum, key string }

// pinScripts reads the files the project's hooks name.
func pinScripts(hooks []Hook, dir string) pins {
	p := pins{}
	for _, h := range hooks {
		if !h.Project {
			continue
		}
		files := map[string]pinned{}
		for path, sum := range scriptsOf(h.Command, dir) {
			files[path] = pinned{sum, statKey(path)}
		}
		p[h.Command] = files
	}
	return p
}

// changed returns the first file h's command names that is not what it
// was when trusted; "" when none is.
func (p pins) changed(h Hook, dir string) string {
	was, ok := p[h.Command]
	if !ok {
		return "its command" // declared after the trust was given: cannot be
	}
	for _, path := range slices.Sorted(maps.Keys(was)) {
		pin := was[path]
		if statKey(path) != pin.key && fileDigest(path) != pin.sum {
			return path
		}
	}
	return ""
}

// scriptsOf returns the files command names, each as an absolute path with
// the digest of its content ("" when there is none, or it is not a
// regular file): every word of it, with $CLAUDE_PROJECT_DIR and
// $LATHE_PROJECT_DIR put in, relative to dir unless absolute. A word that
// names nothing now is kept too: a file that appears there later is a
// change.
func scriptsOf(command, dir string) map[string]string {
	out := map[string]string{}
	for _, w := range shellWords(command) {
		for _, v := range []string{"${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR", "${LATHE_PROJECT_DIR}", "$LATHE_PROJECT_DIR"} {
			w = strings.ReplaceAll(w, v, dir)
		}
		if w == "" || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "$`*?") {
			continue
		}
		if !filepath.IsAbs(w) {
			w = filepath.Join(dir, w)
		}
		out[filepath.Clean(w)] = fileDigest(w)
	}
	return out
}

// fileDigest is the SHA-256 of the regular file at path (links
// followed), or "" when there is none.
func fileDigest(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxScript)); err != nil {
		return ""
	}
	if fi.Size() > maxScript {
		fmt.Fprintf(h, "\x00%d", fi.Size())
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// shellWords splits a command line into words roughly as the shell does:
// quotes group, a backslash escapes, and operators (; & | < > ( ))
// separate.
func shellWords(s string) []string {
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
		case strings.IndexByte(" \t\n;&|<>()", c) >= 0:
			flush()
		default:
			in = true
			cur.WriteByte(c)
		}
	}
	flush()
	return words
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
	tmp, err := os.CreateTemp(filepath.Dir(path), ".hooks-trust-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
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
