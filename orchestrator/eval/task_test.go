package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeTask(t *testing.T, suite, name, toml string, files map[string]string) {
	t.Helper()
	dir := filepath.Join(suite, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if toml != "" {
		if err := os.WriteFile(filepath.Join(dir, TaskFile), []byte(toml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, content := range files {
		p = filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadTask(t *testing.T) {
	suite := t.TempDir()
	writeTask(t, suite, "full", `prompt = "do it"
mode = "plan"
max_turns = 7
timeout = "90s"
tags = ["a", "b"]
requires = ["bash"]
check = "test -f x"
check_timeout = "5s"
`, map[string]string{"files/x.txt": "x"})
	writeTask(t, suite, "least", "prompt = 'p'\ncheck = 'true'\n", nil)
	s, err := LoadSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Bad) != 0 || len(s.Tasks) != 2 {
		t.Fatalf("tasks %+v, bad %v", s.Tasks, s.Bad)
	}
	full, _ := s.Task("full")
	if full.Prompt != "do it" || full.Mode != "plan" || full.MaxTurns != 7 || full.Timeout != 90*time.Second ||
		strings.Join(full.Tags, ",") != "a,b" || full.Requires[0] != "bash" || full.Check != "test -f x" ||
		full.CheckTimeout != 5*time.Second || full.Dir != filepath.Join(suite, "full") || len(full.Digest) != 64 {
		t.Errorf("full: %+v", full)
	}
	least, _ := s.Task("least")
	if least.Timeout != DefaultTimeout || least.CheckTimeout != DefaultCheckTimeout || least.MaxTurns != 0 {
		t.Errorf("defaults: %+v", least)
	}
	if least.Digest == full.Digest {
		t.Error("two tasks have the same digest")
	}
}

// TestBadTasks: each bad task file is reported with its file and line,
// and the good tasks of the suite are still read.
func TestBadTasks(t *testing.T) {
	suite := t.TempDir()
	writeTask(t, suite, "good", "prompt = 'p'\ncheck = 'true'\n", nil)
	cases := map[string]struct{ toml, want string }{
		"syntax":       {"prompt = 'p'\ncheck = true false\n", "task.toml:2: "},
		"unknown-key":  {"prompt = 'p'\ncheck = 'true'\n\nchek = 'x'\n", `task.toml:4: unknown key "chek"`},
		"wrong-type":   {"prompt = 'p'\ncheck = 'true'\nmax_turns = 'ten'\n", "task.toml:3: "},
		"no-prompt":    {"check = 'true'\n", "task.toml: prompt: a task needs a prompt"},
		"empty-prompt": {"check = 'true'\nprompt = '  '\n", "task.toml:2: prompt: a task needs a prompt"},
		"no-check":     {"prompt = 'p'\n", "task.toml: check: a task needs a check command"},
		"bad-mode":     {"prompt = 'p'\ncheck = 'true'\nmode = 'fast'\n", "task.toml:3: mode: "},
		"bad-turns":    {"prompt = 'p'\ncheck = 'true'\nmax_turns = -2\n", "task.toml:3: max_turns: -2 is not between"},
		"bad-timeout":  {"prompt = 'p'\n\ncheck = 'true'\ntimeout = '5 minutes'\n", `task.toml:4: timeout: "5 minutes" is not a duration`},
		"bad-check-t":  {"prompt = 'p'\ncheck = 'true'\ncheck_timeout = '-1s'\n", "task.toml:3: check_timeout: "},
		"bad-requires": {"prompt = 'p'\ncheck = 'true'\nrequires = ['/usr/bin/go']\n", "task.toml:3: requires: "},
		"no-task-toml": {"", "task.toml: no such file"},
	}
	for name, c := range cases {
		writeTask(t, suite, name, c.toml, nil)
	}
	s, err := LoadSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tasks) != 1 || s.Tasks[0].Name != "good" {
		t.Errorf("good tasks %+v", s.Tasks)
	}
	got := map[string]string{}
	for _, b := range s.Bad {
		got[b.Task] = b.Error()
	}
	for name, c := range cases {
		file := filepath.Join(suite, name, "") // the message starts with the task's file
		if !strings.HasPrefix(got[name], file) || !strings.Contains(got[name], c.want) {
			t.Errorf("%s: %q, want %s…%q", name, got[name], file, c.want)
		}
	}
}

func TestLoadSuiteErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadSuite(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "no such directory") {
		t.Errorf("missing: %v", err)
	}
	if _, err := LoadSuite(dir); err == nil || !strings.Contains(err.Error(), "no tasks") {
		t.Errorf("empty: %v", err)
	}
	// A task directory is a suite of one.
	writeTask(t, dir, "one", "prompt = 'p'\ncheck = 'true'\n", nil)
	s, err := LoadSuite(filepath.Join(dir, "one"))
	if err != nil || len(s.Tasks) != 1 || s.Tasks[0].Dir != filepath.Join(dir, "one") {
		t.Errorf("one task: %+v, %v", s, err)
	}
}
