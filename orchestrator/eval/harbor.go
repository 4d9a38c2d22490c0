package eval

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"gopkg.in/yaml.v3"
)

// A Harbor task (Terminal-Bench 2.x and the other Harbor datasets) is a
// directory holding instruction.md, task.toml, environment/ (its
// Dockerfile and the files it builds from), tests/test.sh and, optionally,
// solution/solve.sh. The older Terminal-Bench layout holds task.yaml (the
// instruction and limits), a Dockerfile, run-tests.sh, tests/ and
// solution.sh.
const (
	harborInstruction = "instruction.md"
	tbTaskFile        = "task.yaml"
)

// Harbor's defaults (models/task/config.py): ten minutes for the agent
// and for the verifier, one CPU, 2 GiB, the internet allowed.
const (
	harborTimeout  = 600 * time.Second
	harborCPUs     = 1
	harborMemoryMB = 2048
)

// harborConfig is the part of a Harbor task.toml lathe reads; the other
// keys are Harbor's own and are let be.
type harborConfig struct {
	Metadata map[string]any `toml:"metadata"`
	Verifier struct {
		TimeoutSec float64           `toml:"timeout_sec"`
		Env        map[string]string `toml:"env"`
	} `toml:"verifier"`
	Agent struct {
		TimeoutSec float64 `toml:"timeout_sec"`
	} `toml:"agent"`
	Environment struct {
		DockerImage   string `toml:"docker_image"`
		CPUs          int    `toml:"cpus"`
		MemoryMB      int    `toml:"memory_mb"`
		AllowInternet *bool  `toml:"allow_internet"`
	} `toml:"environment"`
}

// loadHarbor reads the Harbor task in dir, named name.
func loadHarbor(dir, name string) (Task, error) {
	file := filepath.Join(dir, TaskFile)
	fail := func(line int, msg string) (Task, error) {
		return Task{}, &TaskError{Task: name, File: file, Line: line, Msg: msg}
	}
	instruction, err := readLimited(filepath.Join(dir, harborInstruction))
	if err != nil {
		return Task{}, &TaskError{Task: name, File: filepath.Join(dir, harborInstruction), Msg: err.Error()}
	}
	data, err := readLimited(file)
	if err != nil {
		return fail(0, err.Error())
	}
	var c harborConfig
	if err := toml.NewDecoder(bytes.NewReader(data)).Decode(&c); err != nil {
		line, msg := decodeProblem(err)
		return fail(line, msg)
	}
	if !isFile(filepath.Join(dir, "tests", "test.sh")) {
		return fail(0, "no tests/test.sh: a Harbor task is checked by it")
	}
	t := Task{Name: name, Prompt: strings.TrimSpace(string(instruction)), Format: FormatHarbor,
		Timeout: seconds(c.Agent.TimeoutSec, harborTimeout), CheckTimeout: seconds(c.Verifier.TimeoutSec, harborTimeout),
		Requires: []string{"bash"}, Check: "bash /tests/test.sh", Tags: stringList(c.Metadata["tags"]),
		Kit: &Kit{Start: "environment", Skip: []string{"Dockerfile", "docker-compose.yaml", "docker-compose.yml",
			".dockerignore"}, Workdir: "/app", Tests: "tests", Env: c.Verifier.Env, Reward: true}}
	if t.Prompt == "" {
		return Task{}, &TaskError{Task: name, File: filepath.Join(dir, harborInstruction), Msg: "empty: it is the prompt"}
	}
	if isFile(filepath.Join(dir, "solution", "solve.sh")) {
		t.Kit.Solve, t.Kit.SolveDir = "/solution/solve.sh", "solution"
	}
	env := c.Environment
	internet := env.AllowInternet == nil || *env.AllowInternet
	ctr := &Container{CPUs: orDefault(env.CPUs, harborCPUs), MemoryMB: orDefault(env.MemoryMB, harborMemoryMB),
		Internet: internet}
	switch {
	case isFile(filepath.Join(dir, "environment", "Dockerfile")):
		ctr.Dockerfile, ctr.Context = "environment/Dockerfile", "environment"
		t.Container = ctr
	case env.DockerImage != "":
		ctr.Image = env.DockerImage
		t.Container = ctr
	}
	return withDigest(t, dir)
}

// tbTask is the part of an older Terminal-Bench task.yaml lathe reads.
type tbTask struct {
	Instruction       string   `yaml:"instruction"`
	Descriptions      []tbDesc `yaml:"descriptions"`
	MaxAgentTimeout   float64  `yaml:"max_agent_timeout_sec"`
	MaxTestTimeout    float64  `yaml:"max_test_timeout_sec"`
	Tags              []string `yaml:"tags"`
	RunTestsSameShell bool     `yaml:"run_tests_in_same_shell"`
}

// tbDesc is one description of the first task.yaml versions; the "base"
// one is the instruction.
type tbDesc struct {
	Key         string `yaml:"key"`
	Description string `yaml:"description"`
}

// loadTerminalBench reads the task of the older Terminal-Bench layout in
// dir, named name.
func loadTerminalBench(dir, name string) (Task, error) {
	file := filepath.Join(dir, tbTaskFile)
	fail := func(line int, msg string) (Task, error) {
		return Task{}, &TaskError{Task: name, File: file, Line: line, Msg: msg}
	}
	data, err := readLimited(file)
	if err != nil {
		return fail(0, err.Error())
	}
	var y tbTask
	if err := yaml.Unmarshal(data, &y); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			return fail(0, te.Errors[0])
		}
		return fail(0, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	prompt := strings.TrimSpace(y.Instruction)
	for _, d := range y.Descriptions {
		if prompt == "" && d.Key == "base" {
			prompt = strings.TrimSpace(d.Description)
		}
	}
	switch {
	case prompt == "":
		return fail(0, "instruction: a task needs one")
	case !isFile(filepath.Join(dir, "run-tests.sh")):
		return fail(0, "no run-tests.sh beside it: the task is checked by it")
	}
	t := Task{Name: name, Prompt: prompt, Format: FormatTerminalBench, Tags: y.Tags,
		Timeout: seconds(y.MaxAgentTimeout, DefaultTimeout), CheckTimeout: seconds(y.MaxTestTimeout, DefaultCheckTimeout),
		Requires: []string{"bash"}, Check: "bash /run-tests.sh",
		Kit: &Kit{Workdir: "/app", Tests: "tests", Copy: map[string]string{"/run-tests.sh": "run-tests.sh"},
			Env: map[string]string{"TEST_DIR": "/tests"}}}
	if isFile(filepath.Join(dir, "solution.sh")) {
		t.Kit.Solve, t.Kit.SolveFrom = "/solution/solution.sh", "solution.sh"
	}
	if isFile(filepath.Join(dir, "Dockerfile")) {
		t.Container = &Container{Dockerfile: "Dockerfile", Context: ".", Internet: true}
	}
	return withDigest(t, dir)
}

// withDigest is t with its directory and the digest of its files.
func withDigest(t Task, dir string) (Task, error) {
	d, err := digestDir(os.DirFS(dir), ".")
	if err != nil {
		return Task{}, &TaskError{Task: t.Name, File: dir, Msg: "read the task's files: " + err.Error()}
	}
	t.Dir, t.Digest = dir, d
	return t, nil
}

// readLimited reads a task's file, up to maxTaskFile.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errors.New("no such file")
		}
		return nil, err
	}
	defer f.Close()
	b := make([]byte, maxTaskFile+1)
	n, err := f.Read(b)
	for err == nil && n < len(b) {
		var k int
		k, err = f.Read(b[n:])
		n += k
	}
	if n > maxTaskFile {
		return nil, errors.New("larger than 256 KiB")
	}
	return b[:n], nil
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

func seconds(s float64, def time.Duration) time.Duration {
	if s <= 0 {
		return def
	}
	return time.Duration(s * float64(time.Second))
}

func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
