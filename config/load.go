package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"lathe/config/safefile"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// Sources says where Load reads from.
type Sources struct {
	// Getenv reads the environment (os.Getenv in production).
	Getenv func(string) string
	// ProjectDir is the working directory; its .lathe/config.toml is read.
	ProjectDir string
	// Flags are the command-line overrides, applied last.
	Flags Flags
}

// Flags are the settings a command line can override. Zero values mean
// "not given".
type Flags struct {
	Model    string
	MaxTurns int
	Yes      bool
	Sandbox  string // --sandbox: the mode for this run
	Provider string // --provider
	BaseURL  string // --base-url
}

// Loaded is a Config and what Load noticed on the way.
type Loaded struct {
	Config
	// Files are the config files that were read, in order.
	Files []string
	// Warnings are problems worth telling the user that did not stop
	// loading.
	Warnings []string

	sources  []source // the files read, to say where a key was set
	userFile string   // the user's config file, read or not; "" when there is none
}

// source is a config file as read, and the keys of it that were ignored.
type source struct {
	path    string
	data    []byte
	ignored []string // dotted keys, or tables, that did not take effect
}

// ErrorAt returns an *Error about key, placed where the value in effect
// was set: the file, line and column of the last file read that set it;
// without a file when none did (a default, the environment).
func (l Loaded) ErrorAt(key, msg string) *Error {
	for _, src := range slices.Backward(l.sources) {
		if slices.ContainsFunc(src.ignored, func(k string) bool { return k == key || strings.HasPrefix(key, k+".") }) {
			continue
		}
		if line, col := keyPosition(src.data, key); line > 0 {
			return &Error{File: src.path, Line: line, Column: col, Key: key, Msg: msg}
		}
	}
	return &Error{Key: key, Msg: msg}
}

// Load builds the Config: defaults, then the user file, the project file,
// the environment, and flags. Any problem is an *Error.
func Load(src Sources) (Loaded, error) {
	l := Loaded{Config: Defaults(), userFile: UserFile(src.Getenv)}
	if user := l.userFile; user != "" {
		if err := l.readFile(user, false); err != nil {
			return l, err
		}
	}
	if src.ProjectDir != "" {
		if err := l.readFile(ProjectFile(src.ProjectDir), true); err != nil {
			return l, err
		}
		if err := l.readDotMCP(src.ProjectDir, src.Getenv); err != nil {
			return l, err
		}
		if err := l.readDotLSP(src.ProjectDir); err != nil {
			return l, err
		}
		l.readClaudeHooks(src.ProjectDir)
	}
	if err := l.applyEnv(src.Getenv); err != nil {
		return l, err
	}
	l.applyFlags(src.Flags)
	if err := l.validate(""); err != nil {
		return l, err
	}
	return l, nil
}

// UserFile is $XDG_CONFIG_HOME/lathe/config.toml, or ~/.config/... when
// XDG_CONFIG_HOME is unset; empty when neither can be found.
func UserFile(getenv func(string) string) string {
	dir := xdgDir(getenv, "XDG_CONFIG_HOME", ".config")
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "config.toml")
}

// ProjectFile is the project's config file in dir.
func ProjectFile(dir string) string {
	return filepath.Join(dir, ".lathe", "config.toml")
}

// maxFile is the most a config file may hold: a file of any size, or a
// link to an endless device, costs no more than this.
const maxFile = 1 << 20

// readFile decodes one TOML file over the config so far. A missing file is
// not an error. A project's file comes with the code, so it is read
// through the project directory (a link out of it is refused), and it may
// not approve anything nor set [undo] (both are taken only from the user's
// own file) nor loosen a limit: code must not approve itself, lift the
// limits that stop it, or prune the checkpoints of every project. Either
// file must be a regular file of at most 1 MiB.
func (l *Loaded) readFile(path string, project bool) error {
	var data []byte
	var err error
	if project {
		data, err = safefile.Read(filepath.Dir(filepath.Dir(path)), ".lathe/config.toml", maxFile)
	} else {
		data, err = safefile.ReadPath(path, maxFile)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &Error{File: path, Msg: "not read: " + err.Error()}
	}
	// A generic decode first: syntax errors surface here, and the values
	// it yields are checked against the Config's types, so that a wrong
	// type is reported with what was written and where.
	var raw map[string]any
	if err := toml.Unmarshal(data, &raw); err != nil {
		return decodeError(path, data, err)
	}
	if err := checkTypes(path, data, raw); err != nil {
		return err
	}
	before := l.Config
	before.MCP.Servers = cloneServers(l.MCP.Servers)
	before.LSP = cloneLSP(l.LSP)
	l.Hooks = Hooks{} // each file's hooks add to those before
	before.Telemetry.ResourceAttributes = maps.Clone(l.Telemetry.ResourceAttributes)
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.EnableUnmarshalerInterface() // Seconds
	err = dec.Decode(&l.Config)
	fresh := l.Hooks
	l.Hooks = before.Hooks
	if err != nil {
		return decodeError(path, data, err)
	}
	l.Hooks.add(fresh, path, project)
	l.Files = append(l.Files, path)
	l.sources = append(l.sources, source{path: path, data: data})
	if project {
		l.userOnly(path, before)
	}
	if err := l.validate(path); err != nil {
		// Where the key is, or the table it is missing from.
		for key := err.Key; key != "" && err.Line == 0; key, _ = cutLast(key) {
			err.Line, err.Column = keyPosition(data, key)
		}
		return err
	}
	if project {
		l.keepTight(path, before)
		l.keepMCPTight(path, before.MCP)
		l.markProject(path, before.MCP.Servers)
		l.markProjectLSP(path, before.LSP)
	}
	return nil
}

// userOnly undoes what a project's file set of the tables only the user's
// own file may set, with a warning naming each: [approval], and [undo]
// (there is one session database for every project, so a project's
// bound would prune the checkpoints of all). It runs before the values
// are checked: a table ignored is not an error either.
func (l *Loaded) userOnly(path string, before Config) {
	src := &l.sources[len(l.sources)-1]
	own := "your own config file"
	if l.userFile != "" {
		own += " (" + l.userFile + ")"
	}
	if !reflect.DeepEqual(before.Approval, l.Approval) {
		l.Approval = before.Approval
		src.ignored = append(src.ignored, "approval")
		l.Warnings = append(l.Warnings, fmt.Sprintf(
			"%s: [approval] ignored: approval rules are only read from %s", path, own))
	}
	if !reflect.DeepEqual(before.Telemetry, l.Telemetry) {
		l.Telemetry = before.Telemetry
		src.ignored = append(src.ignored, "telemetry")
		l.Warnings = append(l.Warnings, fmt.Sprintf(
			"%s: [telemetry] ignored: where lathe sends its telemetry is only read from %s", path, own))
	}
	if before.Undo != l.Undo {
		l.Undo = before.Undo
		src.ignored = append(src.ignored, "undo")
		l.Warnings = append(l.Warnings, fmt.Sprintf(
			"%s: [undo] ignored: the checkpoints of every project are kept together, so [undo] is only read from %s",
			path, own))
	}
}

// keepTight undoes every limit a project's file raised (or lifted) of
// before, and what it loosened of the sandbox, with a warning naming each.
func (l *Loaded) keepTight(path string, before Config) {
	src := &l.sources[len(l.sources)-1]
	b, a := &before.Limits, &l.Limits
	looser := func(key string, loosened bool, undo func()) {
		if loosened {
			undo()
			src.ignored = append(src.ignored, "limits."+key)
			l.Warnings = append(l.Warnings, fmt.Sprintf(
				"%s: limits.%s ignored: a project's config may tighten limits, not loosen them", path, key))
		}
	}
	looser("max_turns", a.MaxTurns > b.MaxTurns, func() { a.MaxTurns = b.MaxTurns })
	looser("tool_calls_per_turn", a.ToolCallsPerTurn > b.ToolCallsPerTurn, func() { a.ToolCallsPerTurn = b.ToolCallsPerTurn })
	looser("tool_calls_per_prompt", a.ToolCallsPerPrompt > b.ToolCallsPerPrompt, func() { a.ToolCallsPerPrompt = b.ToolCallsPerPrompt })
	looser("timeout", b.Timeout.Duration > 0 && (a.Timeout.Duration == 0 || a.Timeout.Duration > b.Timeout.Duration),
		func() { a.Timeout = b.Timeout })
	looser("shell_timeout", a.ShellTimeout.Duration > b.ShellTimeout.Duration, func() { a.ShellTimeout = b.ShellTimeout })
	looser("tool_output_bytes", a.ToolOutputBytes > b.ToolOutputBytes, func() { a.ToolOutputBytes = b.ToolOutputBytes })
	looser("repeat_warn", a.RepeatWarn > b.RepeatWarn, func() { a.RepeatWarn = b.RepeatWarn })
	looser("repeat_stop", a.RepeatStop > b.RepeatStop, func() { a.RepeatStop = b.RepeatStop })

	// The sandbox: a project may make it stricter, never looser.
	bs, as := &before.Sandbox, &l.Sandbox
	sandbox := func(key string, loosened bool, undo func()) {
		if loosened {
			undo()
			l.Warnings = append(l.Warnings, fmt.Sprintf(
				"%s: sandbox.%s ignored: a project's config may tighten the sandbox, not loosen it", path, key))
		}
	}
	sandbox("mode", sandboxModes[as.Mode] < sandboxModes[bs.Mode], func() { as.Mode = bs.Mode })
	sandbox("network", as.Network && !bs.Network, func() { as.Network = false })
	sandbox("writable", slices.ContainsFunc(as.Writable, func(w string) bool { return !slices.Contains(bs.Writable, w) }),
		func() { as.Writable = bs.Writable })
	// A project's readable_deny, which knows nothing of the user's, adds to
	// it (decoded, it replaced it): only an empty one would take away.
	sandbox("readable_deny", len(as.ReadableDeny) == 0 && len(bs.ReadableDeny) > 0, func() {})
	as.ReadableDeny = append(slices.Clone(bs.ReadableDeny), missing(as.ReadableDeny, bs.ReadableDeny)...)
	sandbox("fallback", as.Fallback == "warn" && bs.Fallback != "warn", func() { as.Fallback = bs.Fallback })
	// The same for the variables kept from commands; letting one through
	// is the user's to say.
	sandbox("env_deny", len(as.EnvDeny) == 0 && len(bs.EnvDeny) > 0, func() {})
	as.EnvDeny = append(slices.Clone(bs.EnvDeny), missing(as.EnvDeny, bs.EnvDeny)...)
	sandbox("env_pass", slices.ContainsFunc(as.EnvPass, func(v string) bool { return !slices.Contains(bs.EnvPass, v) }),
		func() { as.EnvPass = bs.EnvPass })

	// Where requests go, and which secret goes with them, is the user's
	// to say: a project's file could send the code, or any variable's
	// value, to a server of its choosing.
	server := func(key string, changed bool, undo func()) {
		if changed {
			undo()
			src.ignored = append(src.ignored, key)
			l.Warnings = append(l.Warnings, fmt.Sprintf(
				"%s: %s ignored: which server lathe talks to is only read from your own config file", path, key))
		}
	}
	server("provider", l.Provider != before.Provider, func() { l.Provider = before.Provider })
	server("base_url", l.BaseURL != before.BaseURL, func() { l.BaseURL = before.BaseURL })
	server("api_key_env", l.APIKeyEnv != before.APIKeyEnv, func() { l.APIKeyEnv = before.APIKeyEnv })
	server("hosts", !reflect.DeepEqual(l.Hosts, before.Hosts), func() { l.Hosts = before.Hosts })
}

// missing returns the elements of want that list lacks, in want's order.
func missing(want, list []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(list, w) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func (l *Loaded) applyEnv(getenv func(string) string) error {
	host := getenv("OLLAMA_HOST")
	if strings.TrimSpace(host) == "" && l.Provider != ProviderOpenAI && l.BaseURL != "" {
		host = l.BaseURL // base_url stands in for OLLAMA_HOST
	}
	u, err := ollamaURL(host)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) && host != getenv("OLLAMA_HOST") {
			ce.Key = "base_url"
		}
		return err
	}
	l.OllamaURL = u
	l.APIKey = apiKey(getenv, l.APIKeyEnv)
	for i := range l.Hosts {
		l.Hosts[i].APIKey = apiKey(getenv, l.Hosts[i].APIKeyEnv)
	}
	if m := strings.TrimSpace(getenv("LATHE_MODEL")); m != "" {
		l.Model = m
	}
	if v := strings.TrimSpace(getenv("LOG_LEVEL")); v != "" {
		lvl, err := parseLevel(v)
		if err != nil {
			return &Error{Key: "LOG_LEVEL", Msg: err.Error()}
		}
		l.LogLevel = lvl
	}
	l.NoColor = getenv("NO_COLOR") != ""
	l.readTelemetryEnv(getenv)
	return nil
}

func parseLevel(s string) (LogLevel, error) {
	switch strings.ToLower(s) {
	case "debug":
		return LogDebug, nil
	case "info":
		return LogInfo, nil
	case "warn", "warning":
		return LogWarn, nil
	case "error":
		return LogError, nil
	}
	return "", fmt.Errorf("%q is not a log level: use debug, info, warn or error", s)
}

func (l *Loaded) applyFlags(f Flags) {
	if f.Model != "" {
		l.Model = f.Model
	}
	if f.MaxTurns != 0 {
		l.Limits.MaxTurns = f.MaxTurns
	}
	if f.Yes {
		l.Approval.All = true
	}
	if f.Sandbox != "" {
		l.Sandbox.Mode = f.Sandbox
	}
	if f.Provider != "" {
		l.Provider = f.Provider
	}
	if f.BaseURL != "" {
		l.BaseURL = f.BaseURL
		if l.Provider != ProviderOpenAI {
			if u, err := ollamaURL(f.BaseURL); err == nil {
				l.OllamaURL = u
			}
		}
	}
}

// sandboxModes rank the sandbox's modes from the loosest; 0 for a name
// that is none.
var sandboxModes = map[string]int{"off": 1, "workspace-write": 2, "read-only": 3}

// absolute is the first of paths that is not absolute; "" when all are.
func absolute(paths []string) string {
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return p
		}
	}
	return ""
}

// validate checks ranges the types cannot express. It runs after each
// layer, so a bad value is blamed on the file that set it.
func (l *Loaded) validate(file string) *Error {
	lim := l.Limits
	checks := []struct {
		ok  bool
		key string
		msg string
	}{
		{lim.MaxTurns >= 1 && lim.MaxTurns <= MaxTurns, "limits.max_turns", fmt.Sprintf("must be between 1 and %d", MaxTurns)},
		{lim.ToolCallsPerTurn >= 1 && lim.ToolCallsPerTurn <= 64, "limits.tool_calls_per_turn", "must be between 1 and 64"},
		{lim.ToolCallsPerPrompt >= 1 && lim.ToolCallsPerPrompt <= 10000, "limits.tool_calls_per_prompt", "must be between 1 and 10000"},
		{lim.Timeout.Duration >= 0 && lim.Timeout.Duration <= 24*time.Hour, "limits.timeout",
			"must be between 0 (no limit) and 24h"},
		{lim.ShellTimeout.Duration >= time.Second && lim.ShellTimeout.Duration <= 10*time.Minute,
			"limits.shell_timeout", "must be between 1s and 10m"},
		{lim.ToolOutputBytes >= 1024 && lim.ToolOutputBytes <= 1<<20, "limits.tool_output_bytes", "must be between 1024 and 1048576 (1 MiB)"},
		{lim.RepeatWarn >= 2 && lim.RepeatWarn <= 100, "limits.repeat_warn", "must be between 2 and 100"},
		{lim.RepeatStop > lim.RepeatWarn && lim.RepeatStop <= 1000, "limits.repeat_stop", "must be more than limits.repeat_warn, and at most 1000"},
		{l.Options.NumCtx >= 2048, "options.num_ctx", "must be at least 2048 (the system prompt and tools alone need about 1,500 tokens)"},
		{l.Options.badFloat() == "", "options." + l.Options.badFloat(), "must be a finite number"},
		{l.Context.CompactAt >= 0.3 && l.Context.CompactAt <= 0.95, "context.compact_at", "must be between 0.3 and 0.95"},
		{l.Context.KeepRecent >= 0.05 && l.Context.KeepRecent <= l.Context.CompactAt-0.2, "context.keep_recent",
			"must be at least 0.05 and at most context.compact_at - 0.2"},
		{l.Context.ToolResult >= 0.05 && l.Context.ToolResult <= 0.5, "context.tool_result", "must be between 0.05 and 0.5"},
		{sandboxModes[l.Sandbox.Mode] > 0, "sandbox.mode", `must be "workspace-write", "read-only" or "off"`},
		{l.Sandbox.Fallback == "" || l.Sandbox.Fallback == "refuse" || l.Sandbox.Fallback == "warn", "sandbox.fallback",
			`must be "refuse" or "warn"`},
		{absolute(l.Sandbox.Writable) == "", "sandbox.writable", fmt.Sprintf("%q is not an absolute path", absolute(l.Sandbox.Writable))},
		{absolute(l.Sandbox.ReadableDeny) == "", "sandbox.readable_deny", fmt.Sprintf("%q is not an absolute path", absolute(l.Sandbox.ReadableDeny))},
		{badEnvPattern(l.Sandbox.EnvDeny) == "", "sandbox.env_deny", badEnvPattern(l.Sandbox.EnvDeny)},
		{badEnvPattern(l.Sandbox.EnvPass) == "", "sandbox.env_pass", badEnvPattern(l.Sandbox.EnvPass)},
		{l.Undo.MaxBytes >= 0 && l.Undo.MaxBytes <= 1<<40, "undo.max_bytes", "must be between 0 (keep nothing) and 1 TiB"},
		{l.Undo.MaxFile >= 0 && l.Undo.MaxFile <= 1<<30, "undo.max_file", "must be between 0 (keep no file) and 1 GiB"},
		{l.Images.MaxEdge >= 64 && l.Images.MaxEdge <= 8192, "images.max_edge", "must be between 64 and 8192 pixels"},
		{l.Images.MaxBytes >= 1000 && l.Images.MaxBytes <= 200_000_000, "images.max_bytes", "must be between 1000 and 200000000 (200 MB)"},
		{l.TUI.FPS >= 1 && l.TUI.FPS <= 120, "tui.fps", "must be between 1 and 120"},
		{l.Provider == "" || l.Provider == ProviderOllama || l.Provider == ProviderOpenAI, "provider",
			fmt.Sprintf("unknown provider %q: use %q or %q", l.Provider, ProviderOllama, ProviderOpenAI)},
		{l.ContextLength == 0 || l.ContextLength >= 2048 && l.ContextLength <= 10_000_000, "context_length",
			"must be at least 2048 tokens (0: ask the server)"},
		{validEnvName(l.APIKeyEnv), "api_key_env", "must name an environment variable (letters, digits and _), not hold the key"},
		{l.Index.MaxFile >= 1<<10 && l.Index.MaxFile <= 16<<20, "index.max_file", "must be between 1024 and 16777216 (16 MiB)"},
		{l.Index.MaxChunks >= 100 && l.Index.MaxChunks <= 1_000_000, "index.max_chunks", "must be between 100 and 1000000"},
		{l.Index.MapTokens >= 0 && l.Index.MapTokens <= 8000, "index.map_tokens", "must be between 0 (no map) and 8000"},
		{l.Skills.Budget >= 0.005 && l.Skills.Budget <= 0.2, "skills.budget", "must be between 0.005 and 0.2"},
	}
	for _, c := range checks {
		if !c.ok {
			return &Error{File: file, Key: c.key, Msg: c.msg}
		}
	}
	if key, msg := l.Telemetry.check(); msg != "" {
		return &Error{File: file, Key: key, Msg: msg}
	}
	if l.BaseURL != "" && (l.Provider == ProviderOpenAI || file == "") {
		if msg := checkAPIURL(l.BaseURL); msg != "" && l.Provider == ProviderOpenAI {
			return &Error{File: file, Key: "base_url", Msg: msg}
		}
	}
	for i, h := range l.Hosts {
		if msg := h.check(); msg != "" {
			return &Error{File: file, Key: "hosts", Msg: fmt.Sprintf("entry %d: %s", i+1, msg)}
		}
	}
	if file == "" && l.Provider == ProviderOpenAI && l.BaseURL == "" && len(l.Hosts) == 0 {
		return &Error{Key: "base_url", Msg: `provider "openai" needs the server's URL: set base_url (for example "http://127.0.0.1:8080/v1") or pass --base-url`}
	}
	if err := l.validateLSP(file); err != nil {
		return err
	}
	if err := l.validateHooks(); err != nil {
		return err
	}
	return l.validateMCP(file)
}

// cutLast cuts the last part off a dotted key: "a.b.c" is "a.b".
func cutLast(key string) (string, bool) {
	i := strings.LastIndexByte(key, '.')
	if i < 0 {
		return "", false
	}
	return key[:i], true
}
