package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The task formats lathe eval reads besides its own.
const (
	FormatHarbor        = "harbor"         // Harbor, Terminal-Bench 2.x
	FormatTerminalBench = "terminal-bench" // the older Terminal-Bench layout
	FormatPolyglot      = "polyglot"       // Aider Polyglot (Exercism exercises)
)

// Kit is how a task of another format is laid out: the files its work
// starts with, the tests run once lathe is done and the reference
// solution. Paths are the task directory's, slash-separated; "container
// paths" are the absolute ones the task's scripts use, which a task run on
// the host has mapped to directories of the attempt (see mapping).
type Kit struct {
	// Start is the directory whose files the work starts with ("" none),
	// less the names in Skip.
	Start string   `json:"start,omitempty"`
	Skip  []string `json:"skip,omitempty"`
	// Workdir is the work's container path ("/app"); "" when the task
	// uses none.
	Workdir string `json:"workdir,omitempty"`
	// Tests is the directory copied to /tests once lathe is done; Copy
	// are files copied beside it, by container path.
	Tests string            `json:"tests,omitempty"`
	Copy  map[string]string `json:"copy,omitempty"`
	// Env is the check's environment besides lathe's.
	Env map[string]string `json:"env,omitempty"`
	// Reward says that the verdict is the reward the check writes to
	// /logs/verifier/reward.txt or reward.json: the goal is met at 1.
	Reward bool `json:"reward,omitempty"`
	// Restore are files of the task copied over the work's before each
	// check: the tests, which the model must not change.
	Restore []string `json:"restore,omitempty"`
	// Files are the files the model is asked to change, named again in a
	// second try's request.
	Files []string `json:"files,omitempty"`
	// Solve is the reference solution's script (a container path), run
	// in the work with SolveDir copied to /solution, or the file SolveFrom
	// copied to Solve; Examples are files copied over the solution files
	// instead (example → solution file).
	Solve     string            `json:"solve,omitempty"`
	SolveDir  string            `json:"solve_dir,omitempty"`
	SolveFrom string            `json:"solve_from,omitempty"`
	Examples  map[string]string `json:"examples,omitempty"`
}

// Container is the image a task runs in.
type Container struct {
	// Dockerfile and Context build it (the task directory's paths), or
	// Image names it.
	Dockerfile string `json:"dockerfile,omitempty"`
	Context    string `json:"context,omitempty"`
	Image      string `json:"image,omitempty"`
	CPUs       int    `json:"cpus,omitempty"`
	MemoryMB   int    `json:"memory_mb,omitempty"`
	Internet   bool   `json:"allow_internet"`
}

// attemptDirs are the directories of one attempt: root holds everything,
// work is where lathe runs (root itself, or root/app).
type attemptDirs struct{ root, work string }

// containerPaths are the absolute paths a task's scripts use that an
// attempt on the host has under its root.
var containerPaths = []string{"/logs", "/tests", "/solution"}

// mapping maps the container paths of t's scripts to the attempt's
// directories, the longest first.
func (t Task) mapping(d attemptDirs) [][2]string {
	var m [][2]string
	if t.Kit == nil {
		return nil
	}
	if t.Kit.Workdir != "" {
		m = append(m, [2]string{t.Kit.Workdir, d.work})
	}
	for _, p := range containerPaths {
		m = append(m, [2]string{p, filepath.Join(d.root, p)})
	}
	for dest := range t.Kit.Copy {
		m = append(m, [2]string{dest, filepath.Join(d.root, dest)})
	}
	slices.SortFunc(m, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	return m
}

// mapPaths rewrites in s each container path of m that stands as a path
// of its own: not part of a longer name (/testsuite) or of another path
// (/x/tests).
func mapPaths(s string, m [][2]string) string {
	if len(m) == 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		replaced := false
		if i == 0 || !pathByte(s[i-1]) {
			for _, p := range m {
				end := i + len(p[0])
				if strings.HasPrefix(s[i:], p[0]) && (end == len(s) || !nameByte(s[end])) {
					b.WriteString(p[1])
					i, replaced = end, true
					break
				}
			}
		}
		if !replaced {
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// nameByte: a byte that continues a file name.
func nameByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// pathByte: a byte that continues a path before a slash.
func pathByte(c byte) bool { return nameByte(c) || c == '/' || c == '~' || c == '$' }

// prepareAttempt makes an attempt's directories under tmp, with the
// task's starting files in the work.
func prepareAttempt(tmp string, t Task) (attemptDirs, error) {
	if t.Kit == nil {
		dir, err := prepare(tmp, t)
		return attemptDirs{root: dir, work: dir}, err
	}
	root, err := os.MkdirTemp(tmp, "lathe-eval-"+strings.ReplaceAll(t.Name, "/", "-")+"-")
	if err != nil {
		return attemptDirs{}, err
	}
	d := attemptDirs{root: root, work: root}
	if t.Kit.Workdir != "" {
		d.work = filepath.Join(root, "app")
	}
	err = os.MkdirAll(d.work, 0o755)
	if err == nil && t.Kit.Start != "" {
		err = copyTree(filepath.Join(t.Dir, filepath.FromSlash(t.Kit.Start)), d.work, t.Kit.Skip, nil)
	}
	if err != nil {
		os.RemoveAll(root)
		return attemptDirs{}, fmt.Errorf("copy the files of task %s: %w", t.Name, err)
	}
	return d, nil
}

// copyTree copies the files under src into dst, leaving out the top-level
// names in skip, rewriting the text files' container paths by m.
func copyTree(src, dst string, skip []string, m [][2]string) error {
	if _, err := os.Stat(src); err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == "." {
			return os.MkdirAll(dst, 0o755)
		}
		if top := strings.Split(filepath.ToSlash(rel), "/")[0]; slices.Contains(skip, top) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return nil // links and devices are not a task's files
		}
		return copyFile(p, target, m)
	})
}

// copyFile copies a file with its mode, its container paths rewritten by m
// when it is text.
func copyFile(src, dst string, m [][2]string) error {
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if len(m) > 0 && !bytes.ContainsRune(b[:min(len(b), 8<<10)], 0) {
		b = []byte(mapPaths(string(b), m))
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, info.Mode().Perm())
}

// installTests puts what the check needs in place once lathe is done:
// the tests under /tests and the files beside them, /logs/verifier empty;
// or, for a task whose tests live in its work, the pristine tests over
// whatever the model left.
func installTests(t Task, d attemptDirs) error {
	k := t.Kit
	if k == nil {
		return nil
	}
	m := t.mapping(d)
	for _, f := range k.Restore {
		if err := copyFile(filepath.Join(t.Dir, filepath.FromSlash(f)), filepath.Join(d.work, filepath.FromSlash(f)), nil); err != nil {
			return fmt.Errorf("restore %s: %w", f, err)
		}
	}
	if k.Tests == "" && len(k.Copy) == 0 && !k.Reward {
		return nil
	}
	for _, dir := range []string{"logs/verifier", "logs/agent"} {
		if err := os.MkdirAll(filepath.Join(d.root, dir), 0o777); err != nil {
			return err
		}
	}
	// A check run again (a second try) starts from nothing.
	for _, f := range []string{"reward.txt", "reward.json"} {
		os.Remove(filepath.Join(d.root, "logs", "verifier", f))
	}
	if k.Tests != "" {
		if err := copyTree(filepath.Join(t.Dir, filepath.FromSlash(k.Tests)), filepath.Join(d.root, "tests"), nil, m); err != nil {
			return fmt.Errorf("copy the tests: %w", err)
		}
	}
	for dest, src := range k.Copy {
		if err := copyFile(filepath.Join(t.Dir, filepath.FromSlash(src)), filepath.Join(d.root, dest), m); err != nil {
			return fmt.Errorf("copy %s: %w", src, err)
		}
	}
	return nil
}

// checkCommand is t's check as run in attempt d, with the environment it
// adds.
func (t Task) checkCommand(d attemptDirs) (string, []string) {
	m := t.mapping(d)
	cmd := mapPaths(t.Check, m)
	if d.work != d.root {
		cmd = "cd " + shellQuote(d.work) + " && " + cmd
	}
	var env []string
	if t.Kit != nil {
		keys := make([]string, 0, len(t.Kit.Env))
		for k := range t.Kit.Env {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			env = append(env, k+"="+mapPaths(t.Kit.Env[k], m))
		}
	}
	return cmd, env
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// readReward reads the reward a check wrote under d: reward.txt (a
// number), else reward.json's "reward"; nil and why when there is none.
func readReward(d attemptDirs) (*float64, string) {
	return readRewardIn(filepath.Join(d.root, "logs", "verifier"))
}

// readRewardIn reads the reward in a verifier's directory dir.
func readRewardIn(dir string) (*float64, string) {
	if b, err := os.ReadFile(filepath.Join(dir, "reward.txt")); err == nil {
		v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if err != nil {
			return nil, fmt.Sprintf("reward.txt holds %q, not a number", shortText(b))
		}
		return &v, ""
	}
	b, err := os.ReadFile(filepath.Join(dir, "reward.json"))
	if err != nil {
		return nil, "the check wrote no reward (/logs/verifier/reward.txt or reward.json)"
	}
	var rewards map[string]any
	if err := json.Unmarshal(b, &rewards); err != nil {
		return nil, fmt.Sprintf("reward.json is not a JSON object: %v", err)
	}
	v, ok := rewards["reward"].(float64)
	if !ok {
		return nil, `reward.json has no number "reward"`
	}
	return &v, ""
}

func shortText(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}
