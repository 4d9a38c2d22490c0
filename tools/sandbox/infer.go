package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Landlock refuses with EACCES (EXDEV for a link or rename that would
// carry a file out of its rights) and leaves no trace the helper could
// read, so refused file operations are recognised in the error output,
// the way a person would: a "Permission denied" naming a path the policy
// does not let the command write (or read). That is a guess, marked
// Inferred: the output is the command's own.

const (
	maxErrLines   = 32
	maxErrLine    = 4 << 10
	maxInferences = 10
)

var refusals = []string{
	"Permission denied", "permission denied",
	"Operation not permitted", "operation not permitted",
	"Invalid cross-device link", "invalid cross-device link",
}

// errScanner is an io.Writer that keeps the lines of an error output that
// report a refused operation.
type errScanner struct {
	partial []byte
	lines   []string
}

func (s *errScanner) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			s.partial = append(s.partial, b[:min(len(b), maxErrLine-len(s.partial))]...)
			break
		}
		s.partial = append(s.partial, b[:min(i, maxErrLine-len(s.partial))]...)
		s.line()
		b = b[i+1:]
	}
	return n, nil
}

func (s *errScanner) line() {
	l := string(s.partial)
	s.partial = s.partial[:0]
	if len(s.lines) >= maxErrLines {
		return
	}
	for _, r := range refusals {
		if strings.Contains(l, r) {
			s.lines = append(s.lines, l)
			return
		}
	}
}

// Lines returns the kept lines, the unfinished last one included.
func (s *errScanner) Lines() []string {
	if len(s.partial) > 0 {
		s.line()
	}
	return s.lines
}

// pseudoPath reports bash's network redirections (/dev/tcp/host/port),
// which are no files: the helper sees and reports those refusals itself.
func pseudoPath(path string) bool {
	return strings.HasPrefix(path, "/dev/tcp/") || strings.HasPrefix(path, "/dev/udp/")
}

// patterns are compiled on first use, not when lathe starts.
var patterns = sync.OnceValue(func() struct{ kill, quoted, program *regexp.Regexp } {
	return struct{ kill, quoted, program *regexp.Regexp }{
		kill:    regexp.MustCompile(`kill: \((\d+)\) - Operation not permitted`),
		quoted:  regexp.MustCompile("'([^']+)'|\"([^\"]+)\"|‘([^’]+)’|`([^']+)'"),
		program: regexp.MustCompile(`^([A-Za-z0-9._+-]+): `),
	}
})

// infer turns refusal lines into the operations p blocks that they most
// likely report. command is what ran: the directories it changes to are
// where its relative paths may start, besides the workspace.
func infer(p Policy, lines []string, command string) []Blocked {
	if p.Mode == Off {
		return nil
	}
	bases := append([]string{p.Workspace}, cdTargets(command, p.Workspace)...)
	var out []Blocked
	seen := map[Blocked]bool{}
	add := func(b Blocked) {
		if !seen[b] && len(out) < maxInferences {
			seen[b] = true
			out = append(out, b)
		}
	}
	for _, l := range lines {
		by := ""
		if m := patterns().program.FindStringSubmatch(l); m != nil {
			by = m[1]
		}
		if m := patterns().kill.FindStringSubmatch(l); m != nil {
			add(Blocked{Op: OpSignal, Target: "pid " + m[1], Inferred: true})
			continue
		}
		note := ""
		if strings.Contains(strings.ToLower(l), "cross-device") {
			note = "link or rename across directories"
		}
		for _, path := range paths(l) {
			for _, base := range bases {
				if op, target, ok := p.refusedOp(path, base); ok {
					add(Blocked{Op: op, Target: target, By: by, Note: note, Inferred: true})
					break
				}
				if filepath.IsAbs(path) {
					break
				}
			}
		}
	}
	return out
}

// paths picks what looks like a path out of an error line: quoted text,
// and words starting with a slash between ": " separators.
func paths(line string) []string {
	var out []string
	for _, m := range patterns().quoted.FindAllStringSubmatch(line, -1) {
		for _, g := range m[1:] {
			if g != "" && !strings.ContainsAny(g, "\n") {
				out = append(out, g)
			}
		}
	}
	segs := strings.Split(line, ": ")
	for i, seg := range segs {
		// "bash: line 1: ../x: Permission denied": the segment before the
		// refusal names the file, relative or not.
		if i+1 < len(segs) && isRefusal(segs[i+1]) && seg != "" && !strings.ContainsAny(seg, " \t") {
			out = append(out, seg)
			continue
		}
		for _, w := range strings.Fields(seg) {
			if strings.HasPrefix(w, "/") {
				out = append(out, strings.TrimRight(w, ",;"))
			}
		}
	}
	return out
}

func isRefusal(s string) bool {
	for _, r := range refusals {
		if strings.HasPrefix(s, r) {
			return true
		}
	}
	return false
}

// refusedOp says whether the policy refuses some access to path, which,
// and on what file: a denied path is for reading (or writing, if it is
// not there); else, reads being allowed everywhere, a refusal outside the
// writable directories must be a write. Relative paths are taken from
// base, and symlinks are followed as they are now, after the command.
func (p Policy) refusedOp(path, base string) (Op, string, bool) {
	if strings.HasPrefix(path, "~") || pseudoPath(path) {
		return "", "", false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, path)
	}
	path = resolve(filepath.Clean(path))
	for _, d := range p.ReadDeny {
		if within(path, d) {
			if _, err := os.Lstat(path); err != nil {
				return OpWrite, path, true
			}
			return OpRead, path, true
		}
	}
	if strings.HasPrefix(path, "/proc/") {
		return OpRead, path, true // another process's files, out of reach
	}
	if p.Mode == ReadOnly {
		return OpWrite, path, true
	}
	for _, d := range p.ReadDeny {
		if dir := filepath.Dir(path); within(d, dir) && d != dir {
			// A directory above a denied path cannot get new entries,
			// writable or not (see landlock.Grant).
			return OpWrite, path, true
		}
	}
	for _, w := range p.writableRoots() {
		kept := slices.ContainsFunc(p.keptReadOnly(w), func(k string) bool { return within(path, k) })
		if within(path, w) && !kept {
			return "", "", false
		}
	}
	return OpWrite, path, true
}

// cdTargets are the directories command changes to with cd or pushd and
// an argument that is a plain word: absolute, or taken from dir.
func cdTargets(command, dir string) []string {
	var out []string
	fields := strings.FieldsFunc(command, func(r rune) bool { return strings.ContainsRune(" \t\n;&|()", r) })
	for i := 0; i+1 < len(fields); i++ {
		if fields[i] != "cd" && fields[i] != "pushd" {
			continue
		}
		t := strings.Trim(fields[i+1], `"'`)
		if t == "" || strings.ContainsAny(t, "$`*?~") || strings.HasPrefix(t, "-") {
			continue
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(dir, t)
		}
		out = append(out, filepath.Clean(t))
	}
	return out
}

// resolve follows the symlinks in path, or in its directory when it does
// not exist; /proc/<pid>/root/x is x even when the process is gone.
func resolve(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(real, filepath.Base(path))
	}
	if parts := strings.SplitN(path, "/", 5); len(parts) == 5 && parts[1] == "proc" && parts[3] == "root" {
		return "/" + parts[4]
	}
	return path
}
