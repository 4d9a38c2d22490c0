package eval

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"lathe/config"
	"lathe/orchestrator/mode"
)

// TaskFile is the name of a task's description in its directory.
const TaskFile = "task.toml"

// Defaults of a task that sets none.
const (
	DefaultTimeout      = 10 * time.Minute
	DefaultCheckTimeout = time.Minute
)

// maxTaskFile bounds what is read of a task.toml.
const maxTaskFile = 256 << 10

// Task is one task of a suite: a prompt run in a fresh copy of its files,
// and a check that says whether the goal was met.
type Task struct {
	Name string `json:"name"` // its directory's name
	// Prompt is the request lathe runs.
	Prompt string `json:"prompt"`
	// Mode is the mode it starts in ("" is lathe's default, build).
	Mode string `json:"mode,omitempty"`
	// MaxTurns is the run's turn limit; 0 leaves lathe's.
	MaxTurns int `json:"max_turns,omitempty"`
	// Timeout bounds lathe's run, after which it is stopped.
	Timeout time.Duration `json:"timeout"`
	Tags    []string      `json:"tags,omitempty"`
	// Requires are the programs the task needs on PATH (its toolchain):
	// without one, it is skipped.
	Requires []string `json:"requires,omitempty"`
	// Check is the command (bash -c) run in the working directory once
	// lathe is done: exit 0 means the goal is met. LATHE_TASK_DIR holds
	// the task's directory, for files the model must not see.
	Check        string        `json:"check"`
	CheckTimeout time.Duration `json:"check_timeout"`

	// Format is where the task comes from: "" for lathe's own task.toml,
	// FormatHarbor, FormatTerminalBench (the older layout) or
	// FormatPolyglot. The fields below are theirs.
	Format string `json:"format,omitempty"`
	// Kit says how a task of another format is laid out: its starting
	// files, its tests and its reference solution.
	Kit *Kit `json:"kit,omitempty"`
	// Container is the image the task runs in; nil runs it on the host.
	Container *Container `json:"container,omitempty"`
	// Tries is how many times lathe runs, each after the check failed, in
	// the same session, told the check's output (Polyglot: 2); 0 is once.
	Tries int `json:"tries,omitempty"`
	// Probe is a command that must succeed for the task to run (Python's
	// pytest), and ProbeWhat what it looks for, for the reason it is
	// skipped.
	Probe     []string `json:"probe,omitempty"`
	ProbeWhat string   `json:"-"`
	// Toolchain holds the versions of the programs it requires, as found
	// when the experiment began.
	Toolchain map[string]string `json:"toolchain,omitempty"`

	// Dir is the task's directory; Digest the SHA-256 of its files.
	Dir    string `json:"-"`
	Digest string `json:"-"`
}

// taskFile is task.toml as written.
type taskFile struct {
	Prompt       string   `toml:"prompt"`
	Mode         string   `toml:"mode"`
	MaxTurns     int      `toml:"max_turns"`
	Timeout      string   `toml:"timeout"`
	Tags         []string `toml:"tags"`
	Requires     []string `toml:"requires"`
	Check        string   `toml:"check"`
	CheckTimeout string   `toml:"check_timeout"`
}

// TaskError is a task that cannot be read: its file and line (0 when the
// problem has no line, a missing file say) and what is wrong.
type TaskError struct {
	Task string
	File string
	Line int
	Msg  string
}

func (e *TaskError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// LoadTask reads the task in directory dir of fsys; file is how its
// task.toml is named in errors.
func LoadTask(fsys fs.FS, dir, file string) (Task, error) {
	name := path.Base(dir)
	fail := func(line int, format string, args ...any) (Task, error) {
		return Task{}, &TaskError{Task: name, File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	f, err := fsys.Open(path.Join(dir, TaskFile))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fail(0, "no such file: a task is a directory with a task.toml")
		}
		return fail(0, "%v", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTaskFile+1))
	f.Close()
	if err != nil {
		return fail(0, "%v", err)
	}
	if len(data) > maxTaskFile {
		return fail(0, "larger than %d KiB", maxTaskFile>>10)
	}
	var tf taskFile
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&tf); err != nil {
		line, msg := decodeProblem(err)
		return fail(line, "%s", msg)
	}
	t := Task{Name: name, Prompt: strings.TrimSpace(tf.Prompt), Mode: tf.Mode, MaxTurns: tf.MaxTurns,
		Timeout: DefaultTimeout, Tags: tf.Tags, Requires: tf.Requires, Check: strings.TrimSpace(tf.Check),
		CheckTimeout: DefaultCheckTimeout}
	at := func(key string) int { return keyLine(data, key) }
	switch {
	case t.Prompt == "":
		return fail(at("prompt"), "prompt: a task needs a prompt")
	case t.Check == "":
		return fail(at("check"), `check: a task needs a check command (exit 0 = goal met), e.g. check = "test -f hello.txt"`)
	case t.MaxTurns < 0 || t.MaxTurns > config.MaxTurns:
		return fail(at("max_turns"), "max_turns: %d is not between 1 and %d", t.MaxTurns, config.MaxTurns)
	}
	if t.Mode != "" {
		if _, err := mode.Parse(t.Mode); err != nil {
			return fail(at("mode"), "mode: %v", err)
		}
	}
	for _, d := range []struct {
		key  string
		text string
		into *time.Duration
	}{{"timeout", tf.Timeout, &t.Timeout}, {"check_timeout", tf.CheckTimeout, &t.CheckTimeout}} {
		if d.text == "" {
			continue
		}
		v, err := time.ParseDuration(d.text)
		if err != nil || v <= 0 {
			return fail(at(d.key), "%s: %q is not a duration such as 90s or 5m", d.key, d.text)
		}
		*d.into = v
	}
	for _, r := range t.Requires {
		if r == "" || strings.ContainsAny(r, "/ \t") {
			return fail(at("requires"), "requires: %q is not a program name", r)
		}
	}
	digest, err := digestDir(fsys, dir)
	if err != nil {
		return fail(0, "read the task's files: %v", err)
	}
	t.Digest = digest
	return t, nil
}

// decodeProblem is the line and message of a TOML decoding error.
func decodeProblem(err error) (int, string) {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		e := strict.Errors[0]
		line, _ := e.Position()
		return line, fmt.Sprintf("unknown key %q (the keys are prompt, mode, max_turns, timeout, tags, requires, check, check_timeout)",
			strings.Join(e.Key(), "."))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if m := typeMismatch.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("a TOML %s where %s belongs", m[1], goTypes[m[2]])
		}
		if key := strings.Join(de.Key(), "."); key != "" {
			msg = key + ": " + msg
		}
		return line, msg
	}
	return 0, err.Error()
}

// typeMismatch is go-toml's message for a value of the wrong type.
var typeMismatch = regexp.MustCompile(`^cannot decode TOML (\w+) into struct field \S+ of type (\S+)$`)

// goTypes names the types of taskFile's fields for people.
var goTypes = map[string]string{"int": "an integer", "string": "a string", "[]string": "a list of strings"}

// keyLine is the line where top-level key is set in a TOML document; 0
// when it is not.
func keyLine(data []byte, key string) int {
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind != unstable.KeyValue {
			continue
		}
		it := e.Key()
		if !it.Next() {
			continue
		}
		if first := it.Node(); string(first.Data) == key && !it.Next() {
			return p.Shape(first.Raw).Start.Line
		}
	}
	return 0
}

// digestDir is the SHA-256 of every file under dir in fsys: names and
// contents, in a fixed order.
func digestDir(fsys fs.FS, dir string) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", strings.TrimPrefix(p, dir), len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

// Suite is a directory of tasks.
type Suite struct {
	Name  string // the directory, absolute, or "builtin"
	FS    fs.FS  // where the tasks are read from
	Root  string // the directory the tasks' LATHE_TASK_DIR are under, on disk
	Tasks []Task
	// Bad are the tasks that could not be read, each with why: the rest
	// of the suite runs without them.
	Bad []*TaskError
}

// LoadSuite reads the suite in directory dir: each subdirectory is a task
// (a directory holding a task itself is a suite of that one task). A task
// is lathe's own (a task.toml), a Harbor task (instruction.md beside its
// task.toml) or one of the older Terminal-Bench layout (task.yaml); dir may
// also be an Aider Polyglot set: its root, one language's directory or one
// exercise. A task that cannot be read is in Bad; the error is for a suite
// that cannot be read at all.
func LoadSuite(dir string) (*Suite, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(abs)
	switch {
	case err != nil:
		return nil, fmt.Errorf("suite %s: no such directory", dir)
	case !info.IsDir():
		return nil, fmt.Errorf("suite %s: not a directory", dir)
	}
	if exercises, ok := polyglotExercises(abs); ok {
		s := &Suite{Name: abs, FS: os.DirFS(abs), Root: abs}
		for _, ex := range exercises {
			s.loaded(loadExercise(ex))
		}
		return s.nonEmpty(dir)
	}
	if kind := taskKind(abs); kind != "" {
		// One task: its parent is the suite.
		parent := filepath.Dir(abs)
		s := &Suite{Name: abs, FS: os.DirFS(parent), Root: parent}
		s.addKind(kind, filepath.Base(abs), filepath.Join(dir, TaskFile))
		return s, nil
	}
	s := &Suite{Name: abs, FS: os.DirFS(abs), Root: abs}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, fmt.Errorf("suite %s: %w", dir, err)
	}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			s.addKind(taskKind(filepath.Join(abs, e.Name())), e.Name(), filepath.Join(dir, e.Name(), TaskFile))
		}
	}
	return s.nonEmpty(dir)
}

// taskKind is the format of the task in dir: "" when it holds none, "lathe"
// for lathe's own.
func taskKind(dir string) string {
	switch {
	case isFile(filepath.Join(dir, harborInstruction)) && isFile(filepath.Join(dir, TaskFile)):
		return FormatHarbor
	case isFile(filepath.Join(dir, tbTaskFile)):
		return FormatTerminalBench
	case isFile(filepath.Join(dir, TaskFile)):
		return "lathe"
	}
	return ""
}

// addKind reads the task in directory name of the suite, of format kind
// ("" counts as lathe's, whose missing task.toml is then the problem).
func (s *Suite) addKind(kind, name, file string) {
	switch kind {
	case FormatHarbor:
		s.loaded(loadHarbor(filepath.Join(s.Root, name), name))
	case FormatTerminalBench:
		s.loaded(loadTerminalBench(filepath.Join(s.Root, name), name))
	default:
		s.add(name, file)
	}
}

// loaded adds a task of another format, or why it cannot be read.
func (s *Suite) loaded(t Task, err error) {
	var te *TaskError
	switch {
	case errors.As(err, &te):
		s.Bad = append(s.Bad, te)
	case err != nil:
		s.Bad = append(s.Bad, &TaskError{Task: t.Name, File: t.Dir, Msg: err.Error()})
	default:
		s.Tasks = append(s.Tasks, t)
	}
}

// nonEmpty is s, or an error when it holds no task at all.
func (s *Suite) nonEmpty(dir string) (*Suite, error) {
	if len(s.Tasks)+len(s.Bad) == 0 {
		return nil, fmt.Errorf("suite %s: no tasks (a task is a directory with a %s, a Harbor or Terminal-Bench "+
			"task, or an Aider Polyglot exercise)", dir, TaskFile)
	}
	return s, nil
}

// add reads the task in directory name of the suite.
func (s *Suite) add(name, file string) {
	t, err := LoadTask(s.FS, name, file)
	var te *TaskError
	switch {
	case errors.As(err, &te):
		s.Bad = append(s.Bad, te)
	case err != nil:
		s.Bad = append(s.Bad, &TaskError{Task: name, File: file, Msg: err.Error()})
	default:
		t.Dir = filepath.Join(s.Root, name)
		s.Tasks = append(s.Tasks, t)
	}
}

// Task returns the task named name.
func (s *Suite) Task(name string) (Task, bool) {
	i := slices.IndexFunc(s.Tasks, func(t Task) bool { return t.Name == name })
	if i < 0 {
		return Task{}, false
	}
	return s.Tasks[i], true
}
