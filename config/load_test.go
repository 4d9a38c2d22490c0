package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// setup writes the user and project files (empty content means no file)
// and returns Sources reading them with env as the environment.
func setup(t *testing.T, user, project string, env map[string]string) Sources {
	t.Helper()
	xdg, proj := t.TempDir(), t.TempDir()
	write := func(path, content string) {
		if content == "" {
			return
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(xdg, "lathe", "config.toml"), user)
	write(ProjectFile(proj), project)
	vars := map[string]string{"XDG_CONFIG_HOME": xdg, "HOME": "/nonexistent"}
	for k, v := range env {
		vars[k] = v
	}
	return Sources{Getenv: func(k string) string { return vars[k] }, ProjectDir: proj}
}

func TestLoadDefaults(t *testing.T) {
	l, err := Load(setup(t, "", "", nil))
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	if l.Limits != want.Limits || l.Options.NumCtx != 32768 || l.KeepAlive != want.KeepAlive {
		t.Errorf("defaults changed: %+v", l.Config)
	}
	if l.LogLevel != LogWarn {
		t.Errorf("LogLevel = %v, want warn", l.LogLevel)
	}
	if got := l.OllamaURL.String(); got != "http://127.0.0.1:11434" {
		t.Errorf("OllamaURL = %s", got)
	}
	if len(l.Files) != 0 || len(l.Warnings) != 0 {
		t.Errorf("Files=%v Warnings=%v, want none", l.Files, l.Warnings)
	}
}

func TestLoadLayers(t *testing.T) {
	user := `
model = "user-model"
keep_alive = "1h"
[options]
num_ctx = 8192
temperature = 0.2
[limits]
max_turns = 20
tool_calls_per_turn = 4
[approval]
tools = ["edit_file"]
commands = ["go test"]
`
	project := `
model = "project-model"
[options]
temperature = 0.7
[limits]
tool_calls_per_turn = 3
`
	tests := []struct {
		name  string
		env   map[string]string
		flags Flags
		check func(t *testing.T, c Config)
	}{
		{"project over user", nil, Flags{}, func(t *testing.T, c Config) {
			if c.Model != "project-model" {
				t.Errorf("Model = %q", c.Model)
			}
			if *c.Options.Temperature != 0.7 || c.Options.NumCtx != 8192 {
				t.Errorf("Options = %+v", c.Options)
			}
			if c.Limits.MaxTurns != 20 || c.Limits.ToolCallsPerTurn != 3 || c.Limits.ToolCallsPerPrompt != 50 {
				t.Errorf("Limits = %+v", c.Limits)
			}
			if c.KeepAlive.Duration != time.Hour {
				t.Errorf("KeepAlive = %v", c.KeepAlive)
			}
			if len(c.Approval.Tools) != 1 || c.Approval.Commands[0] != "go test" || c.Approval.All {
				t.Errorf("Approval = %+v", c.Approval)
			}
		}},
		{"env over files", map[string]string{"LATHE_MODEL": "env-model", "LOG_LEVEL": "DEBUG", "NO_COLOR": "1"}, Flags{},
			func(t *testing.T, c Config) {
				if c.Model != "env-model" || c.LogLevel != LogDebug || !c.NoColor {
					t.Errorf("Model=%q LogLevel=%v NoColor=%v", c.Model, c.LogLevel, c.NoColor)
				}
			}},
		{"flags over env", map[string]string{"LATHE_MODEL": "env-model"}, Flags{Model: "flag-model", MaxTurns: 3, Yes: true},
			func(t *testing.T, c Config) {
				if c.Model != "flag-model" || c.Limits.MaxTurns != 3 || !c.Approval.All {
					t.Errorf("Model=%q MaxTurns=%d All=%v", c.Model, c.Limits.MaxTurns, c.Approval.All)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := setup(t, user, project, tt.env)
			src.Flags = tt.flags
			l, err := Load(src)
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Files) != 2 {
				t.Errorf("Files = %v, want both files", l.Files)
			}
			tt.check(t, l.Config)
		})
	}
}

func TestProjectCannotApproveItself(t *testing.T) {
	project := "[approval]\ntools = [\"shell\"]\ncommands = [\"rm\"]\n"
	l, err := Load(setup(t, "[approval]\ntools = [\"edit_file\"]\n", project, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Approval.Tools) != 1 || l.Approval.Tools[0] != "edit_file" || len(l.Approval.Commands) != 0 {
		t.Errorf("project approval rules were applied: %+v", l.Approval)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "[approval] ignored") {
		t.Errorf("Warnings = %q, want one about ignored approval rules", l.Warnings)
	}
	own := "only read from your own config file (" + l.Files[0] + ")"
	if len(l.Warnings) == 1 && !strings.HasSuffix(l.Warnings[0], own) {
		t.Errorf("warning %q, want it to end %q", l.Warnings[0], own)
	}
}

// TestProjectCannotSetUndo: a project's [undo] is ignored with a warning
// naming its file, even a value out of range: one database keeps the
// checkpoints of every project, and a project must not prune them.
func TestProjectCannotSetUndo(t *testing.T) {
	project := "[undo]\nmax_bytes = 0\nmax_file = -5\n"
	l, err := Load(setup(t, "[undo]\nmax_bytes = 1000\n", project, nil))
	if err != nil {
		t.Fatal(err)
	}
	if l.Undo != (Undo{MaxBytes: 1000, MaxFile: 10 << 20}) {
		t.Errorf("undo = %+v, want the user's max_bytes and the default max_file", l.Undo)
	}
	want := l.Files[1] + ": [undo] ignored: "
	if len(l.Warnings) != 1 || !strings.HasPrefix(l.Warnings[0], want) || !strings.HasSuffix(l.Warnings[0], "("+l.Files[0]+")") {
		t.Errorf("Warnings = %q, want one starting %q and naming the user's file", l.Warnings, want)
	}
	if got := l.ErrorAt("undo.max_bytes", "x").Error(); got != l.Files[0]+":2:1: undo.max_bytes: x" {
		t.Errorf("ErrorAt blames %s", got)
	}
}

// TestErrorAt: an error about a setting names the file and line of the
// value in effect: not a project's approval rules, which were ignored.
func TestErrorAt(t *testing.T) {
	user := "model = \"m\"\n\n[approval]\ntools = [\"edit_flie\"]\n"
	project := "[approval]\ntools = [\"shell\"]\n[limits]\nmax_turns = 5\n"
	l, err := Load(setup(t, user, project, nil))
	if err != nil {
		t.Fatal(err)
	}
	got := l.ErrorAt("approval.tools", `unknown tool "edit_flie"`).Error()
	if want := l.Files[0] + `:4:1: approval.tools: unknown tool "edit_flie"`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got, want := l.ErrorAt("limits.max_turns", "x").Error(), l.Files[1]+":4:1: limits.max_turns: x"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := l.ErrorAt("keep_alive", "x").Error(); got != "keep_alive: x" {
		t.Errorf("a default: got %s", got)
	}
}

// TestProjectCannotLoosenLimits: a project's config may tighten every
// limit, and what it loosens (a higher limit, no time limit) is ignored
// with a warning naming it; the user's own file sets them freely.
func TestProjectCannotLoosenLimits(t *testing.T) {
	user := "[limits]\ntimeout = \"5s\"\nmax_turns = 20\n"
	project := "[limits]\ntimeout = \"0s\"\nmax_turns = 1000\ntool_output_bytes = 1048576\ntool_calls_per_turn = 2\n"
	l, err := Load(setup(t, user, project, nil))
	if err != nil {
		t.Fatal(err)
	}
	lim := l.Limits
	if lim.Timeout.Duration != 5*time.Second || lim.MaxTurns != 20 || lim.ToolOutputBytes != 16<<10 || lim.ToolCallsPerTurn != 2 {
		t.Errorf("limits = %+v, want the user's timeout and turns, the default output cap, the project's 2 calls a turn", lim)
	}
	var ignored []string
	for _, w := range l.Warnings {
		if strings.Contains(w, "a project's config may tighten limits, not loosen them") {
			ignored = append(ignored, w[strings.Index(w, "limits."):strings.Index(w, " ignored")])
		}
	}
	if strings.Join(ignored, " ") != "limits.max_turns limits.timeout limits.tool_output_bytes" {
		t.Errorf("warnings %q", l.Warnings)
	}
}

// TestConfigFilesAreReadSafely: a project's config that is a link out of
// the project (to /dev/zero, a secret), a FIFO or a huge file is an error
// naming it, read without blocking or reading without end.
func TestConfigFilesAreReadSafely(t *testing.T) {
	for name, make := range map[string]func(path string) error{
		"link to /dev/zero": func(p string) error { return os.Symlink("/dev/zero", p) },
		"FIFO":              func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"huge":              func(p string) error { return os.WriteFile(p, bytes.Repeat([]byte("# x\n"), 1<<19), 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			src := setup(t, "", "", nil)
			path := ProjectFile(src.ProjectDir)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := make(path); err != nil {
				t.Fatal(err)
			}
			_, err := Load(src)
			var ce *Error
			if !errors.As(err, &ce) || ce.File != path || !strings.HasPrefix(ce.Msg, "not read: ") {
				t.Fatalf("err = %v, want a config error naming %s", err, path)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name    string
		user    string
		project string
		env     map[string]string
		want    string // substring of the error after the file name
		line    int
		key     string
	}{
		{"unknown key", "[options]\nnum_ctx = 4096\nnum_cxt = 1\n", "", nil, "unknown key (did you mean \"options.num_ctx\"?)", 3, "options.num_cxt"},
		{"unknown key no suggestion", "colour = true\n", "", nil, "unknown key", 1, "colour"},
		{"unknown table", "[limit]\nmax_turns = 3\n", "", nil, "unknown key (did you mean \"limits\"?)", 1, "limit"},
		{"wrong type string for int", "[limits]\nmax_turns = \"ten\"\n", "", nil, `must be an integer, not the string "ten"`, 2, "limits.max_turns"},
		{"wrong type int for string", "model = 3\n", "", nil, "must be a string, not 3", 1, "model"},
		{"wrong list element", "[approval]\ntools = [\"a\", 2]\n", "", nil, "must be a list of strings, not a list with other values", 2, "approval.tools"},
		{"bad duration", "keep_alive = \"30 minutes\"\n", "", nil, "not a duration", 1, "keep_alive"},
		{"duration as number", "[limits]\ntimeout = 30\n", "", nil, `must be a duration such as "30m", not 30`, 2, "limits.timeout"},
		{"unparsable", "model = \"x\n", "", nil, "cannot have new lines", 1, ""},
		{"duplicate key", "model = \"a\"\nmodel = \"b\"\n", "", nil, "set twice (first on line 1): keep one", 2, "model"},
		{"duplicate key in a table", "[options]\nnum_ctx = 4096\ntemperature = 0.1\nnum_ctx = 8192\n", "", nil,
			"set twice (first on line 2): keep one", 4, "options.num_ctx"},
		{"duplicate table", "[limits]\nmax_turns = 3\n\n[limits]\ntimeout = \"1m\"\n", "", nil,
			"[limits] appears twice (first on line 1): put its keys under one", 4, "limits"},
		{"unquoted string", "model = qwen3:8b # mine\n", "", nil, `(strings need quotes: model = "qwen3:8b" # mine)`, 1, ""},
		{"unquoted string in a list", "[approval]\ntools = [\"edit_file\", write_file]\n", "", nil,
			`(strings need quotes: "write_file")`, 2, ""},
		{"range in project", "", "model = \"m\"\n[limits]\nmax_turns = 0\n", nil, "must be between 1 and 1000", 3, "limits.max_turns"},
		{"no upper bound", "[limits]\ntool_output_bytes = 9223372036854775807\n", "", nil, "must be between 1024 and 1048576", 2, "limits.tool_output_bytes"},
		{"NaN option", "[options]\ntemperature = nan\n", "", nil, "must be a finite number", 2, "options.temperature"},
		{"infinite option", "[options]\ntop_p = inf\n", "", nil, "must be a finite number", 2, "options.top_p"},
		{"num_ctx too small", "[options]\nnum_ctx = 512\n", "", nil, "must be at least 2048", 2, "options.num_ctx"},
		{"first wrong type in file order", "model = 1\n[limits]\nmax_turns = \"x\"\n[options]\ntemperature = \"hot\"\n", "", nil, "must be a string, not 1", 1, "model"},
		{"table for a string", "[model]\nname = \"x\"\n", "", nil, "must be a string, not a table", 1, "model"},
		{"bad log level", "", "", map[string]string{"LOG_LEVEL": "loud"}, `"loud" is not a log level`, 0, "LOG_LEVEL"},
		{"compaction threshold", "[context]\ncompact_at = 1.2\n", "", nil, "must be between 0.3 and 0.95", 2, "context.compact_at"},
		{"keep more than the threshold", "[context]\nkeep_recent = 0.7\n", "", nil, "at most context.compact_at - 0.2", 2, "context.keep_recent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := setup(t, tt.user, tt.project, tt.env)
			_, err := Load(src)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if !strings.Contains(ce.Msg, tt.want) {
				t.Errorf("Msg = %q, want it to contain %q", ce.Msg, tt.want)
			}
			if ce.Line != tt.line || ce.Key != tt.key {
				t.Errorf("Line=%d Key=%q, want %d %q (err: %v)", ce.Line, ce.Key, tt.line, tt.key, err)
			}
			wantFile := ""
			switch {
			case tt.user != "":
				wantFile = UserFile(src.Getenv)
			case tt.project != "":
				wantFile = ProjectFile(src.ProjectDir)
			}
			if ce.File != wantFile {
				t.Errorf("File = %q, want %q", ce.File, wantFile)
			}
			if wantFile != "" && !strings.HasPrefix(err.Error(), wantFile+":") {
				t.Errorf("Error() = %q, want it to start with the file name", err)
			}
		})
	}
}

// TestOllamaHostFollowsOllamaCLI: OLLAMA_HOST is read from the getenv
// given (never the process's environment) as the ollama CLI reads it; what
// the CLI would guess at is an error naming the variable.
func TestOllamaHostFollowsOllamaCLI(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "http://from-the-process:1") // must not be read
	tests := map[string]string{
		"":                        "http://127.0.0.1:11434",
		"example.com":             "http://example.com:11434",
		"example.com:1234":        "http://example.com:1234",
		"http://example.com":      "http://example.com:80",
		"https://example.com":     "https://example.com:443",
		":11435":                  "http://:11435",
		"[::1]":                   "http://[::1]:11434",
		` "http://q:1" `:          "http://q:1",
		"http://host:8080/prefix": "http://host:8080/prefix",
		"ollama.com":              "https://ollama.com:443",
	}
	for host, want := range tests {
		t.Run(host, func(t *testing.T) {
			l, err := Load(setup(t, "", "", map[string]string{"OLLAMA_HOST": host}))
			if err != nil {
				t.Fatal(err)
			}
			if got := l.OllamaURL.String(); got != want {
				t.Errorf("OLLAMA_HOST=%q: URL %s, want %s", host, got, want)
			}
		})
	}
	bad := map[string]string{
		"localhost:99999":             `"99999" is not a port`,
		"ftp://example.com":           `the scheme "ftp" is not http or https`,
		"unix:///tmp/x.sock":          `the scheme "unix"`,
		"http://user:secretpw@host:9": "a user name or password is not supported",
		"garbage with spaces":         "is not a host name",
		"::::":                        `"::::" is not a host name or an IP address (use host`, // not Go's ParseAddr (F16)
	}
	for host, want := range bad {
		t.Run(host, func(t *testing.T) {
			_, err := Load(setup(t, "", "", map[string]string{"OLLAMA_HOST": host}))
			var ce *Error
			if !errors.As(err, &ce) || ce.Key != "OLLAMA_HOST" || !strings.Contains(ce.Msg, want) {
				t.Fatalf("err = %v, want an OLLAMA_HOST error with %q", err, want)
			}
			if strings.Contains(err.Error(), "secretpw") {
				t.Errorf("the password is repeated: %v", err)
			}
		})
	}
}

func TestOptionsMap(t *testing.T) {
	temp, seed := 0.5, 42
	stop := []string{"</s>"}
	o := Options{NumCtx: 9999, Temperature: &temp, Seed: &seed, Stop: &stop}
	m := o.Map(4096)
	got, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"num_ctx":4096,"seed":42,"stop":["\u003c/s\u003e"],"temperature":0.5}`
	if string(got) != want {
		t.Errorf("options = %s, want %s", got, want)
	}
}

func TestXDGPaths(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	tests := []struct {
		name            string
		vars            map[string]string
		user, log, data string
	}{
		{"xdg", map[string]string{"XDG_CONFIG_HOME": "/c", "XDG_STATE_HOME": "/s", "XDG_DATA_HOME": "/d", "HOME": "/h"}, "/c/lathe/config.toml", "/s/lathe", "/d/lathe"},
		{"home", map[string]string{"HOME": "/h"}, "/h/.config/lathe/config.toml", "/h/.local/state/lathe", "/h/.local/share/lathe"},
		{"neither", map[string]string{}, "", "", ""},
		{"relative", map[string]string{"XDG_CONFIG_HOME": "rel/c", "XDG_STATE_HOME": "s", "XDG_DATA_HOME": "./d", "HOME": "/h"}, "/h/.config/lathe/config.toml", "/h/.local/state/lathe", "/h/.local/share/lathe"},
	}
	for _, tt := range tests {
		if got := UserFile(env(tt.vars)); got != tt.user {
			t.Errorf("%s: UserFile = %q, want %q", tt.name, got, tt.user)
		}
		if got := StateDir(env(tt.vars)); got != tt.log {
			t.Errorf("%s: StateDir = %q, want %q", tt.name, got, tt.log)
		}
		if got := DataDir(env(tt.vars)); got != tt.data {
			t.Errorf("%s: DataDir = %q, want %q", tt.name, got, tt.data)
		}
	}
}

func TestRepeatThresholds(t *testing.T) {
	l, err := Load(setup(t, "[limits]\nrepeat_warn = 2\nrepeat_stop = 4\n", "", nil))
	if err != nil || l.Limits.RepeatWarn != 2 || l.Limits.RepeatStop != 4 {
		t.Fatalf("Limits = %+v, err = %v", l.Limits, err)
	}
	_, err = Load(setup(t, "[limits]\nrepeat_warn = 4\nrepeat_stop = 4\n", "", nil))
	var ce *Error
	if !errors.As(err, &ce) || ce.Key != "limits.repeat_stop" || ce.Line != 3 {
		t.Errorf("repeat_stop not above repeat_warn: err = %v", err)
	}
}

// TestProjectCannotLoosenTheSandbox: a project may make the sandbox
// stricter (a stricter mode, no network, more denied paths, refusing where
// it cannot confine) but what it loosens is ignored, with a warning, and
// only that.
func TestProjectCannotLoosenTheSandbox(t *testing.T) {
	user := "[sandbox]\nmode = \"workspace-write\"\nnetwork = false\nwritable = [\"/opt/cache\"]\nreadable_deny = [\"/srv/keys\"]\n" +
		"env_deny = [\"CORP_*\"]\nenv_pass = [\"GH_TOKEN\"]\n"
	for _, tt := range []struct {
		name, project string
		check         func(s Sandbox) bool
		ignored       []string
	}{
		{"looser everything", "[sandbox]\nmode = \"off\"\nnetwork = true\nwritable = [\"/etc\"]\nreadable_deny = []\nfallback = \"warn\"\n",
			func(s Sandbox) bool {
				return s.Mode == "workspace-write" && !s.Network && slices.Equal(s.Writable, []string{"/opt/cache"}) &&
					slices.Equal(s.ReadableDeny, []string{"/srv/keys"}) && s.Fallback == ""
			}, []string{"mode", "network", "writable", "readable_deny", "fallback"}},
		{"stricter", "[sandbox]\nmode = \"read-only\"\nwritable = []\nreadable_deny = [\"/srv/keys\", \"/data\"]\nfallback = \"refuse\"\n",
			func(s Sandbox) bool {
				return s.Mode == "read-only" && len(s.Writable) == 0 && slices.Equal(s.ReadableDeny, []string{"/srv/keys", "/data"}) &&
					s.Fallback == "refuse"
			}, nil},
		// A project knows nothing of the user's denied paths: those it
		// lists are added to them, and nothing is said.
		{"more denied paths", "[sandbox]\nreadable_deny = [\"/data\"]\n",
			func(s Sandbox) bool { return slices.Equal(s.ReadableDeny, []string{"/srv/keys", "/data"}) }, nil},
		{"more denied paths, the user's among them", "[sandbox]\nreadable_deny = [\"/data\", \"/srv/keys\", \"/data\"]\n",
			func(s Sandbox) bool { return slices.Equal(s.ReadableDeny, []string{"/srv/keys", "/data"}) }, nil},
		{"no more denied paths", "[sandbox]\nreadable_deny = [\"/srv/keys\"]\n",
			func(s Sandbox) bool { return slices.Equal(s.ReadableDeny, []string{"/srv/keys"}) }, nil},
		// Variables kept from commands likewise; letting one through is
		// the user's to say.
		{"more variables kept", "[sandbox]\nenv_deny = [\"DB_URL\"]\nenv_pass = [\"GH_TOKEN\"]\n",
			func(s Sandbox) bool {
				return slices.Equal(s.EnvDeny, []string{"CORP_*", "DB_URL"}) && slices.Equal(s.EnvPass, []string{"GH_TOKEN"})
			}, nil},
		{"variables let through", "[sandbox]\nenv_deny = []\nenv_pass = [\"GH_TOKEN\", \"*\"]\n",
			func(s Sandbox) bool {
				return slices.Equal(s.EnvDeny, []string{"CORP_*"}) && slices.Equal(s.EnvPass, []string{"GH_TOKEN"})
			}, []string{"env_deny", "env_pass"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Load(setup(t, user, tt.project, nil))
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(l.Sandbox) {
				t.Errorf("sandbox %+v", l.Sandbox)
			}
			var ignored []string
			for _, w := range l.Warnings {
				if i := strings.Index(w, "sandbox."); i >= 0 && strings.Contains(w, "may tighten the sandbox, not loosen it") {
					ignored = append(ignored, w[i+len("sandbox."):strings.Index(w, " ignored")])
				}
			}
			if !slices.Equal(ignored, tt.ignored) {
				t.Errorf("ignored %q, want %q (warnings %q)", ignored, tt.ignored, l.Warnings)
			}
		})
	}
}

func TestSandboxSettingsChecked(t *testing.T) {
	for _, bad := range []string{"[sandbox]\nmode = \"none\"\n", "[sandbox]\nfallback = \"ignore\"\n",
		"[sandbox]\nwritable = [\"relative/dir\"]\n", "[undo]\nmax_bytes = -1\n",
		"[sandbox]\nenv_deny = [\"A B\"]\n", "[sandbox]\nenv_pass = [\"\"]\n"} {
		var ce *Error
		if _, err := Load(setup(t, bad, "", nil)); !errors.As(err, &ce) || (!strings.HasPrefix(ce.Key, "sandbox.") && !strings.HasPrefix(ce.Key, "undo.")) {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
	l, err := Load(setup(t, "", "", nil))
	if err != nil || l.Sandbox.Mode != "workspace-write" || l.Undo.MaxBytes != 500<<20 {
		t.Errorf("defaults: %+v %+v, %v", l.Sandbox, l.Undo, err)
	}
}

func TestFPSChecked(t *testing.T) {
	for _, bad := range []string{"[tui]\nfps = 0\n", "[tui]\nfps = 121\n", "[tui]\nfps = -5\n"} {
		var ce *Error
		if _, err := Load(setup(t, bad, "", nil)); !errors.As(err, &ce) || ce.Key != "tui.fps" {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
	for file, want := range map[string]int{"": DefaultFPS, "[tui]\nfps = 60\n": 60} {
		l, err := Load(setup(t, file, "", nil))
		if err != nil || l.TUI.FPS != want {
			t.Errorf("%q: fps = %d, %v; want %d", file, l.TUI.FPS, err, want)
		}
	}
}

func TestImagesChecked(t *testing.T) {
	for bad, key := range map[string]string{"[images]\nmax_edge = 10\n": "images.max_edge",
		"[images]\nmax_bytes = 0\n": "images.max_bytes", "[images]\nmax_edje = 100\n": "images.max_edje"} {
		var ce *Error
		if _, err := Load(setup(t, bad, "", nil)); !errors.As(err, &ce) || ce.Key != key {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
	l, err := Load(setup(t, "[images]\nmax_edge = 1024\n", "", nil))
	if err != nil || l.Images != (Images{MaxEdge: 1024, MaxBytes: 20_000_000}) {
		t.Errorf("images = %+v, %v", l.Images, err)
	}
}
