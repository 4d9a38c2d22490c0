// Package config builds lathe's one Config value from defaults, the user and
// project config files, the environment and command-line flags, in that order.
package config

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is every setting lathe runs with. Settings that come only from
// the environment carry `toml:"-"`.
type Config struct {
	// Provider is the kind of server: "ollama" (the default: Ollama's
	// native API) or "openai" (an OpenAI-compatible server: llama.cpp's
	// llama-server, LM Studio, vLLM, SGLang).
	Provider string `toml:"provider"`
	// BaseURL is the server's API root. For "openai", the URL the
	// /chat/completions path goes under ("http://127.0.0.1:8080/v1"); for
	// "ollama", it stands in for OLLAMA_HOST when that is unset.
	BaseURL string `toml:"base_url"`
	// APIKeyEnv names the environment variable that holds the server's API
	// key (openai only). The key itself is never written in a config file.
	APIKeyEnv string `toml:"api_key_env"`
	// ContextLength is the server's context window in tokens, for an
	// OpenAI-compatible server that does not say (0: ask the server).
	ContextLength int `toml:"context_length"`
	// Hosts are servers to choose from, in order of preference: the first
	// that serves the model, one that has it loaded first; the next when
	// one cannot be reached before a request starts.
	Hosts []Host `toml:"hosts"`
	// Model is the model to use. Empty means: the first installed
	// model whose capabilities include tools.
	Model string `toml:"model"`
	// KeepAlive is how long Ollama keeps the model loaded after a request.
	KeepAlive Duration `toml:"keep_alive"`
	// Think turns a thinking model's reasoning on or off. Nil leaves the
	// model's default (thinking models think unless told not to).
	Think *bool `toml:"think"`

	Options  Options  `toml:"options"`
	Limits   Limits   `toml:"limits"`
	Context  Context  `toml:"context"`
	Approval Approval `toml:"approval"`
	Sandbox  Sandbox  `toml:"sandbox"`
	Undo     Undo     `toml:"undo"`
	Images   Images   `toml:"images"`
	TUI      TUI      `toml:"tui"`
	Memory   Memory   `toml:"memory"`
	Index    Index    `toml:"index"`
	MCP      MCP      `toml:"mcp"`
	// LSP are the language servers by name ([lsp.NAME]): the built-ins'
	// settings changed, and servers of the user's own.
	LSP         map[string]LSPServer `toml:"lsp"`
	Diagnostics Diagnostics          `toml:"diagnostics"`
	Navigation  Navigation           `toml:"navigation"`
	Hooks       Hooks                `toml:"hooks"`
	Skills      Skills               `toml:"skills"`

	Telemetry Telemetry `toml:"telemetry"`

	// OllamaURL is the server's base URL, from OLLAMA_HOST with the
	// ollama CLI's own rules.
	OllamaURL *url.URL `toml:"-"`
	// APIKey is the value of the variable APIKeyEnv names; empty without
	// one. It is never logged.
	APIKey string `toml:"-"`
	// LogLevel is from LOG_LEVEL (default warn).
	LogLevel LogLevel `toml:"-"`
	// NoColor is set when NO_COLOR is non-empty.
	NoColor bool `toml:"-"`
}

// Host is one server of [[hosts]].
type Host struct {
	// Provider is "ollama" or "openai".
	Provider string `toml:"provider"`
	// URL is the server's address: as OLLAMA_HOST for ollama, the API
	// root ("http://gpu-box:8000/v1") for openai.
	URL string `toml:"url"`
	// Models, when given, are the models the host serves; without them
	// the host is asked.
	Models []string `toml:"models"`
	// APIKeyEnv names the variable holding the host's API key (openai).
	APIKeyEnv string `toml:"api_key_env"`
	// APIKey is that variable's value.
	APIKey string `toml:"-"`
}

// Provider names.
const (
	ProviderOllama = "ollama"
	ProviderOpenAI = "openai"
)

// Options are Ollama runtime options, sent with every chat request. Nil
// fields are left out, so the model's own defaults apply.
type Options struct {
	NumCtx           int       `toml:"num_ctx"`
	NumPredict       *int      `toml:"num_predict"`
	NumKeep          *int      `toml:"num_keep"`
	Temperature      *float64  `toml:"temperature"`
	TopK             *int      `toml:"top_k"`
	TopP             *float64  `toml:"top_p"`
	MinP             *float64  `toml:"min_p"`
	TypicalP         *float64  `toml:"typical_p"`
	RepeatLastN      *int      `toml:"repeat_last_n"`
	RepeatPenalty    *float64  `toml:"repeat_penalty"`
	PresencePenalty  *float64  `toml:"presence_penalty"`
	FrequencyPenalty *float64  `toml:"frequency_penalty"`
	Seed             *int      `toml:"seed"`
	Stop             *[]string `toml:"stop"`
	NumBatch         *int      `toml:"num_batch"`
	NumGPU           *int      `toml:"num_gpu"`
	MainGPU          *int      `toml:"main_gpu"`
	NumThread        *int      `toml:"num_thread"`
	UseMmap          *bool     `toml:"use_mmap"`
}

// Limits bound one prompt's run.
type Limits struct {
	// MaxTurns is the number of model calls per prompt.
	MaxTurns int `toml:"max_turns"`
	// ToolCallsPerTurn caps the calls run from one reply; the rest are
	// answered with an error asking the model to continue next turn.
	ToolCallsPerTurn int `toml:"tool_calls_per_turn"`
	// ToolCallsPerPrompt caps the calls run for one prompt.
	ToolCallsPerPrompt int `toml:"tool_calls_per_prompt"`
	// Timeout is the wall-clock limit per prompt; zero means none.
	Timeout Duration `toml:"timeout"`
	// ShellTimeout is the default timeout of one shell command.
	ShellTimeout Duration `toml:"shell_timeout"`
	// ToolOutputBytes caps each tool result sent to the model.
	ToolOutputBytes int `toml:"tool_output_bytes"`
	// RepeatWarn is how many times the same call with the same result runs
	// before the model is told it is repeating itself; at RepeatStop the
	// run stops.
	RepeatWarn int `toml:"repeat_warn"`
	RepeatStop int `toml:"repeat_stop"`
	// NudgeAnnouncements gives a reply that announces an action ("Let me
	// create the file:") but makes no call one nudge to make it (build
	// mode only, never twice in a row).
	NudgeAnnouncements bool `toml:"nudge_announcements"`
}

// Context says how the conversation is kept inside the context window,
// each as a share of num_ctx.
type Context struct {
	// CompactAt is how full the window may get before older turns are
	// summarized.
	CompactAt float64 `toml:"compact_at"`
	// KeepRecent is how much of the window the most recent turns, kept
	// word for word after the summary, may take.
	KeepRecent float64 `toml:"keep_recent"`
	// ToolResult is the most one tool result may take; longer ones are cut
	// harder, with a note on how to read the rest.
	ToolResult float64 `toml:"tool_result"`
}

// Approval says which calls run without asking.
type Approval struct {
	// All approves every call (the --yes flag). Not settable from files.
	All bool `toml:"-"`
	// Tools lists tools allowed without asking ("edit_file").
	Tools []string `toml:"tools"`
	// Commands lists shell command prefixes allowed without asking
	// ("go test"). A prefix never covers a command that chains or
	// redirects (";", "&&", "|", "$(", ">"...).
	Commands []string `toml:"commands"`
}

// Sandbox says how the commands a tool runs are confined.
type Sandbox struct {
	// Mode is "workspace-write" (the default: writes only in the
	// workspace, temp and cache directories), "read-only" or "off".
	Mode string `toml:"mode"`
	// Network lets commands use the network.
	Network bool `toml:"network"`
	// Writable are more directories commands may write in.
	Writable []string `toml:"writable"`
	// ReadableDeny are more paths commands may not read.
	ReadableDeny []string `toml:"readable_deny"`
	// EnvDeny are more environment variables kept from commands, by name
	// or pattern ("*_TOKEN"), beside the credentials lathe keeps from
	// them anyway; EnvPass lets some of those through.
	EnvDeny []string `toml:"env_deny"`
	EnvPass []string `toml:"env_pass"`
	// Fallback is what happens where the system cannot confine commands:
	// "refuse" (run none) or "warn" (say so and run them unconfined).
	// Empty means refuse with --yes, warn otherwise (each command is then
	// approved by the user).
	Fallback string `toml:"fallback"`
}

// Undo bounds what is kept to take runs back.
type Undo struct {
	// MaxBytes is the most the kept contents may take in the database;
	// the oldest sessions' checkpoints go first.
	MaxBytes int64 `toml:"max_bytes"`
	// MaxFile is the largest file kept; a larger one cannot be undone.
	// 0 keeps no file, as max_bytes = 0 keeps nothing: no change can be
	// undone, and each write is said so before it is approved.
	MaxFile int64 `toml:"max_file"`
}

// Images bounds the images attached for a model to see.
type Images struct {
	// MaxEdge is the longest side of an image sent, in pixels: a larger
	// one is downscaled to it, keeping its aspect ratio.
	MaxEdge int `toml:"max_edge"`
	// MaxBytes is the largest image file accepted.
	MaxBytes int64 `toml:"max_bytes"`
}

// TUI tunes the interactive mode.
type TUI struct {
	// FPS is how many times a second streamed text and spinners are
	// drawn. More is smoother and costs more CPU per streamed token. (Keys
	// are drawn within 33 ms whatever it is; a second after the last
	// change, the screen is checked twice a second only.)
	FPS int `toml:"fps"`
}

// Memory says what lathe remembers of a project from one session to the
// next.
type Memory struct {
	// Recall offers the recall tool: the model searches the messages of
	// the project's earlier sessions.
	Recall bool `toml:"recall"`
	// Facts offers the remember tool (build mode; every fact approved by
	// the user) and puts the facts into the system prompt.
	Facts bool `toml:"facts"`
}

// Index configures the semantic code index: the search_code tool and
// lathe index.
type Index struct {
	// Enabled offers search_code, when an embedding model is installed.
	Enabled bool `toml:"enabled"`
	// Model is the Ollama embedding model; empty means embeddinggemma,
	// else nomic-embed-text, whichever is installed.
	Model string `toml:"model"`
	// Background indexes the project in the interactive UI while the chat
	// model is idle.
	Background bool `toml:"background"`
	// MaxFile is the largest file indexed, in bytes.
	MaxFile int64 `toml:"max_file"`
	// MaxChunks bounds a project's index (and the memory a search takes:
	// about 3 KiB a chunk with 768-wide vectors).
	MaxChunks int `toml:"max_chunks"`
	// MapTokens, when not zero, puts a map of the repository (directories,
	// files, top-level symbols) of about that many tokens into the system
	// prompt.
	MapTokens int `toml:"map_tokens"`
}

// Skills says how the Agent Skills found are offered.
type Skills struct {
	// Enabled lists the skills in the system prompt and offers the skill
	// tool, when there are skills.
	Enabled bool `toml:"enabled"`
	// Budget is the share of num_ctx their list may take in the system
	// prompt; past it only their names are listed, past that only how
	// many there are.
	Budget float64 `toml:"budget"`
}

// MaxTurns is the most model calls a prompt may be given (limits.max_turns,
// --max-turns).
const MaxTurns = 1000

// DefaultFPS is tui.fps's default (README, "Measured": what a streamed
// token costs at each rate).
const DefaultFPS = 10

// Defaults returns the settings lathe uses when nothing overrides them.
func Defaults() Config {
	return Config{
		KeepAlive: Duration{30 * time.Minute},
		Options:   Options{NumCtx: 32768},
		Limits: Limits{
			MaxTurns:           10,
			ToolCallsPerTurn:   8,
			ToolCallsPerPrompt: 50,
			Timeout:            Duration{30 * time.Minute},
			ShellTimeout:       Duration{120 * time.Second},
			ToolOutputBytes:    16 << 10,
			RepeatWarn:         3,
			RepeatStop:         5,
			NudgeAnnouncements: true,
		},
		Context:     Context{CompactAt: 0.8, KeepRecent: 0.35, ToolResult: 0.25},
		Sandbox:     Sandbox{Mode: "workspace-write"},
		Undo:        Undo{MaxBytes: 500 << 20, MaxFile: 10 << 20},
		Images:      Images{MaxEdge: 1568, MaxBytes: 20_000_000},
		TUI:         TUI{FPS: DefaultFPS},
		Memory:      Memory{Recall: true, Facts: true},
		Index:       Index{Enabled: true, Background: true, MaxFile: 256 << 10, MaxChunks: 100_000},
		MCP:         MCP{Budget: 0.1},
		Diagnostics: Diagnostics{Wait: Duration{DefaultDiagnosticsWait}},
		Navigation:  Navigation{Wait: Duration{DefaultNavigationWait}},
		Skills:      Skills{Enabled: true, Budget: 0.02},
		LogLevel:    LogWarn,
	}
}

// LogLevel is how much lathe logs: what is at the level and above.
type LogLevel string

// The log levels, from the most said to the least.
const (
	LogDebug LogLevel = "debug"
	LogInfo  LogLevel = "info"
	LogWarn  LogLevel = "warn"
	LogError LogLevel = "error"
)

// Duration is a time.Duration written in TOML as a Go duration string
// ("30m", "90s").
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return errBadDuration
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Seconds is a time.Duration written in TOML as a number of seconds (5,
// 2.5) or as a Go duration string ("2s", "1m").
type Seconds struct {
	time.Duration
	bad bool // not a duration: the [mcp] check says so, with the key
}

// UnmarshalTOML reads a number of seconds or a duration string, as the
// raw TOML value.
func (d *Seconds) UnmarshalTOML(data []byte) error {
	text := strings.TrimSpace(string(data))
	if len(text) >= 2 && (text[0] == '"' || text[0] == '\'') && text[len(text)-1] == text[0] {
		v, err := time.ParseDuration(text[1 : len(text)-1])
		*d = Seconds{Duration: v, bad: err != nil}
		return nil
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(text, "_", ""), 64)
	*d = Seconds{Duration: time.Duration(v * float64(time.Second)), bad: err != nil || v < 0 || v > 1e6}
	return nil
}
