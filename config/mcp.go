package config

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"lathe/config/safefile"
)

// MCP is the MCP servers whose tools the model may call, and how much of
// the context window their schemas may take.
type MCP struct {
	// Budget is the share of num_ctx the servers' tool schemas may take
	// together; past it the model gets one tool to search them and one to
	// call them instead.
	Budget float64 `toml:"budget"`
	// StartTimeout bounds the servers' start: in a one-shot run, the
	// wait for them, from the run's start, after which a server still
	// starting is left out of the run (default 5s); in the UI, which
	// does not wait, each server's start (default 30s). Zero is the
	// default.
	StartTimeout Seconds `toml:"start_timeout"`
	// Elicitation is how a server's request for the user's input is
	// answered (each server's own setting first): "ask" (the default: the
	// UI asks; where nobody can be asked, it is declined), "accept" (with
	// the defaults its form gives, at once) or "decline".
	Elicitation string `toml:"elicitation"`
	// Sampling is whether a server may have the model answer its messages
	// (each server's own setting first): "ask" (the default: the UI asks;
	// where nobody can be asked, it is refused), "allow" or "deny".
	Sampling string `toml:"sampling"`
	// Servers are the servers by name, which names their tools
	// (NAME__TOOL).
	Servers map[string]MCPServer `toml:"servers"`
}

// What a server's requests of the user get: Elicitation's and Sampling's
// values.
const (
	Ask     = "ask"
	Accept  = "accept"
	Decline = "decline"
	Allow   = "allow"
	Deny    = "deny"
)

// Default start timeouts (mcp.start_timeout).
const (
	DefaultMCPStartOneShot = 5 * time.Second
	DefaultMCPStartUI      = 30 * time.Second
)

// StartWait is the start timeout: the one configured, else the default for
// a one-shot run or the UI.
func (m MCP) StartWait(oneShot bool) time.Duration {
	switch {
	case m.StartTimeout.Duration > 0:
		return m.StartTimeout.Duration
	case oneShot:
		return DefaultMCPStartOneShot
	}
	return DefaultMCPStartUI
}

// ElicitationOf is how the server name's requests for input are answered.
func (m MCP) ElicitationOf(name string) string {
	return cmp.Or(m.Servers[name].Elicitation, m.Elicitation, Ask)
}

// SamplingOf is whether the server name may have the model answer.
func (m MCP) SamplingOf(name string) string {
	return cmp.Or(m.Servers[name].Sampling, m.Sampling, Ask)
}

// MCPServer is one MCP server: a command lathe starts and speaks to over
// its stdin and stdout, or a URL it speaks streamable HTTP to.
type MCPServer struct {
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	Cwd     string            `toml:"cwd"`

	URL     string            `toml:"url"`
	Headers map[string]string `toml:"headers"`
	// BearerTokenEnv names the environment variable that holds the token
	// sent as "Authorization: Bearer ...": the token itself is never in a
	// config file.
	BearerTokenEnv string `toml:"bearer_token_env"`
	// OAuth is how lathe authorizes with the server; nil is the default
	// (see MCPOAuth). Left out of the digest when nil, as before it was.
	OAuth *MCPOAuth `toml:"oauth" json:",omitempty"`

	// Enabled starts the server; nil means true.
	Enabled *bool `toml:"enabled"`
	// Tools are the only tools offered, by the server's own names; empty
	// offers all.
	Tools []string `toml:"tools"`
	// Timeout bounds one call (default 60s).
	Timeout Duration `toml:"timeout"`
	// Approve is "ask" (the default: calls that are not read-only ask
	// first) or "always". Only the user's own config may say "always".
	Approve string `toml:"approve"`
	// ReadOnlyHint, when false, ignores the server's readOnlyHint: none of
	// its tools counts as read-only. Nil means true.
	ReadOnlyHint *bool `toml:"read_only_hint"`
	// Elicitation and Sampling are the server's own [mcp] elicitation and
	// sampling; empty leaves them to those.
	Elicitation string `toml:"elicitation" json:",omitempty"`
	Sampling    string `toml:"sampling" json:",omitempty"`

	// Origin is where the server was declared or changed last when that is
	// the project (its .lathe/config.toml or .mcp.json): such a server
	// starts only once the user trusts the project's servers. Empty for a
	// server of the user's own config.
	Origin string `toml:"-"`
}

// DefaultMCPTimeout is an MCP call's default time limit.
const DefaultMCPTimeout = 60 * time.Second

// On reports whether the server is enabled.
func (s MCPServer) On() bool { return s.Enabled == nil || *s.Enabled }

// CallTimeout is the time limit of one call.
func (s MCPServer) CallTimeout() time.Duration {
	if s.Timeout.Duration > 0 {
		return s.Timeout.Duration
	}
	return DefaultMCPTimeout
}

// HonoursReadOnly reports whether the server's readOnlyHint is believed.
func (s MCPServer) HonoursReadOnly() bool { return s.ReadOnlyHint == nil || *s.ReadOnlyHint }

// Project reports whether the project declared the server.
func (s MCPServer) Project() bool { return s.Origin != "" }

// Transport is "stdio" or "http".
func (s MCPServer) Transport() string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}

// ProjectServers are the servers the project declared, by name: what the
// user trusts, or not, at once.
func (m MCP) ProjectServers() map[string]MCPServer {
	out := map[string]MCPServer{}
	for name, s := range m.Servers {
		if s.Project() {
			out[name] = s
		}
	}
	return out
}

// ServerDigest is what the user's trust in a server's definition is
// given to: every setting of it, under its name, and only the base name
// of the file that declared it (the project may move; its files are the
// same). What the server runs from the project is the caller's to add.
func ServerDigest(name string, s MCPServer) string {
	s.Origin = filepath.Base(s.Origin)
	b, _ := json.Marshal(struct {
		Name   string
		Server MCPServer
	}{name, s}) // plain data: cannot fail
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// serverName is what a server may be called: its tools are named
// NAME__TOOL, so the name may not hold a double underscore.
var serverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)

// envName is what an environment variable may be called.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// check reports the first problem of a server's settings: the key
// (relative to the server's table) and what is wrong. A server of
// .mcp.json may carry its token in a header, expanded from the
// environment as Claude Code does.
func (s MCPServer) check(name string) (key, msg string) {
	switch {
	case !serverName.MatchString(name) || strings.Contains(name, "__"):
		return "", "a server's name is 1 to 32 letters, digits, - and _ (no __), starting with a letter or digit"
	case s.Command == "" && s.URL == "":
		return "command", "say how to reach the server: command (and args) for a program, or url"
	case s.Command != "" && s.URL != "":
		return "url", "give command or url, not both"
	case s.Approve != "" && s.Approve != "ask" && s.Approve != "always":
		return "approve", `must be "ask" or "always"`
	case !oneOf(s.Elicitation, "", Ask, Accept, Decline):
		return "elicitation", `must be "ask", "accept" or "decline"`
	case !oneOf(s.Sampling, "", Ask, Allow, Deny):
		return "sampling", `must be "ask", "allow" or "deny"`
	case s.Timeout.Duration < 0 || s.Timeout.Duration > time.Hour || s.Timeout.Duration > 0 && s.Timeout.Duration < time.Second:
		return "timeout", "must be between 1s and 1h"
	case s.BearerTokenEnv != "" && !envName.MatchString(s.BearerTokenEnv):
		return "bearer_token_env", fmt.Sprintf("%q is not an environment variable's name", s.BearerTokenEnv)
	case s.BearerTokenEnv != "" && s.URL == "":
		return "bearer_token_env", "goes with url"
	case len(s.Headers) > 0 && s.URL == "":
		return "headers", "go with url"
	case (len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "") && s.Command == "":
		return "command", "args, env and cwd go with command"
	}
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "url", fmt.Sprintf("%q is not an http or https URL", s.URL)
		}
	}
	if key, msg := s.checkOAuth(); msg != "" {
		return key, msg
	}
	for k := range s.Env {
		if !envName.MatchString(k) {
			return "env", fmt.Sprintf("%q is not an environment variable's name", k)
		}
	}
	for k := range s.Headers {
		if strings.EqualFold(k, "Authorization") && s.BearerTokenEnv == "" && filepath.Base(s.Origin) != DotMCPFile {
			return "headers", "a token does not belong in a config file: name the variable that holds it with bearer_token_env"
		}
	}
	return "", ""
}

// validateMCP checks the [mcp] table.
func (l *Loaded) validateMCP(file string) *Error {
	m := l.MCP
	switch {
	case !(m.Budget >= 0.01 && m.Budget <= 0.5):
		return &Error{File: file, Key: "mcp.budget", Msg: "must be between 0.01 and 0.5"}
	case m.StartTimeout.bad:
		return &Error{File: file, Key: "mcp.start_timeout", Msg: errBadSeconds.Error()}
	case m.StartTimeout.Duration < 0 || m.StartTimeout.Duration > 10*time.Minute:
		return &Error{File: file, Key: "mcp.start_timeout", Msg: "must be between 0 (the default) and 10 minutes"}
	case !oneOf(m.Elicitation, "", Ask, Accept, Decline):
		return &Error{File: file, Key: "mcp.elicitation", Msg: `must be "ask", "accept" or "decline"`}
	case !oneOf(m.Sampling, "", Ask, Allow, Deny):
		return &Error{File: file, Key: "mcp.sampling", Msg: `must be "ask", "allow" or "deny"`}
	}
	for _, name := range slices.Sorted(maps.Keys(l.MCP.Servers)) {
		if key, msg := l.MCP.Servers[name].check(name); msg != "" {
			k := "mcp.servers." + name
			if key != "" {
				k += "." + key
			}
			return &Error{File: file, Key: k, Msg: msg}
		}
	}
	return nil
}

// oneOf reports whether v is one of values.
func oneOf(v string, values ...string) bool { return slices.Contains(values, v) }

// cloneServers copies servers deeply: decoding a file over the config
// fills the map's entries in place.
func cloneServers(servers map[string]MCPServer) map[string]MCPServer {
	if servers == nil {
		return nil
	}
	out := make(map[string]MCPServer, len(servers))
	for name, s := range servers {
		s.Args = slices.Clone(s.Args)
		s.Env = maps.Clone(s.Env)
		s.Headers = maps.Clone(s.Headers)
		s.Tools = slices.Clone(s.Tools)
		if s.OAuth != nil {
			o := *s.OAuth
			s.OAuth = &o
		}
		if s.Enabled != nil {
			v := *s.Enabled
			s.Enabled = &v
		}
		if s.ReadOnlyHint != nil {
			v := *s.ReadOnlyHint
			s.ReadOnlyHint = &v
		}
		out[name] = s
	}
	return out
}

// markProject marks the servers a project's file declared or changed, so
// that they start only once trusted; a change that only turns a server
// off, or narrows its tools, needs no trust. A project may not approve its
// own servers' calls: "approve = always" from it is ignored, with a
// warning.
func (l *Loaded) markProject(path string, before map[string]MCPServer) {
	for _, name := range slices.Sorted(maps.Keys(l.MCP.Servers)) {
		s := l.MCP.Servers[name]
		old, existed := before[name]
		if existed && reflect.DeepEqual(old, s) {
			continue
		}
		if s.Approve == "always" && (!existed || old.Approve != "always") {
			s.Approve = old.Approve
			l.Warnings = append(l.Warnings, fmt.Sprintf(
				"%s: mcp.servers.%s.approve ignored: only your own config may approve a server's calls", path, name))
		}
		if looser(samplingRank, s.Sampling, cmp.Or(old.Sampling, l.MCP.Sampling, Ask)) {
			s.Sampling = old.Sampling
			l.Warnings = append(l.Warnings, fmt.Sprintf(
				"%s: mcp.servers.%s.sampling ignored: a project's config may only be stricter about a server's use of the model", path, name))
		}
		if looser(elicitationRank, s.Elicitation, cmp.Or(old.Elicitation, l.MCP.Elicitation, Ask)) {
			s.Elicitation = old.Elicitation
			l.Warnings = append(l.Warnings, fmt.Sprintf(
				"%s: mcp.servers.%s.elicitation ignored: a project's config may only be stricter about a server's questions", path, name))
		}
		if existed && tighterOnly(old, s) {
			l.MCP.Servers[name] = s
			continue
		}
		s.Origin = path
		l.MCP.Servers[name] = s
	}
}

// keepMCPTight undoes what a project's file loosened of [mcp]'s answers
// to the servers' requests: letting them use the model, or answering
// their questions, unasked is the user's to say.
func (l *Loaded) keepMCPTight(path string, before MCP) {
	if looser(samplingRank, l.MCP.Sampling, cmp.Or(before.Sampling, Ask)) {
		l.MCP.Sampling = before.Sampling
		l.Warnings = append(l.Warnings, fmt.Sprintf(
			"%s: mcp.sampling ignored: a project's config may only be stricter about the servers' use of the model", path))
	}
	if looser(elicitationRank, l.MCP.Elicitation, cmp.Or(before.Elicitation, Ask)) {
		l.MCP.Elicitation = before.Elicitation
		l.Warnings = append(l.Warnings, fmt.Sprintf(
			"%s: mcp.elicitation ignored: a project's config may only be stricter about the servers' questions", path))
	}
}

// How much sampling and elicitation values let through: a project may
// only set a lower one.
var (
	samplingRank    = map[string]int{Deny: 0, Ask: 1, Allow: 2}
	elicitationRank = map[string]int{Decline: 0, Ask: 1, Accept: 2}
)

// looser reports whether value v, when set, lets more through than was.
func looser(rank map[string]int, v, was string) bool {
	return v != "" && rank[v] > rank[was]
}

// tighterOnly reports whether s differs from old only by being off, or by
// offering some of the tools old offered.
func tighterOnly(old, s MCPServer) bool {
	cmp := s
	cmp.Enabled, cmp.Tools, cmp.Approve = old.Enabled, old.Tools, old.Approve
	cmp.Sampling, cmp.Elicitation = old.Sampling, old.Elicitation // kept no looser (markProject)
	switch {
	case !reflect.DeepEqual(old, cmp), s.On() && !old.On():
		return false
	case len(s.Tools) == 0:
		return len(old.Tools) == 0
	case len(old.Tools) == 0:
		return true
	}
	return !slices.ContainsFunc(s.Tools, func(t string) bool { return !slices.Contains(old.Tools, t) })
}

// DotMCPFile is Claude Code's project file of MCP servers, read too.
const DotMCPFile = ".mcp.json"

// dotMCP is .mcp.json as Claude Code writes it.
type dotMCP struct {
	Servers map[string]struct {
		Type    string            `json:"type"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	} `json:"mcpServers"`
}

// readDotMCP adds the servers of the project's .mcp.json, as a project's
// own: a server the config files name already is left as they set it.
// ${VAR} and ${VAR:-default} in its strings are read from the environment,
// as Claude Code reads them.
func (l *Loaded) readDotMCP(dir string, getenv func(string) string) error {
	data, err := safefile.Read(dir, DotMCPFile, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	path := filepath.Join(dir, DotMCPFile)
	if err != nil {
		return &Error{File: path, Msg: "not read: " + err.Error()}
	}
	var doc dotMCP
	if err := json.Unmarshal(data, &doc); err != nil {
		return &Error{File: path, Msg: "not valid: " + err.Error()}
	}
	expand := func(s string) string { return expandVars(s, getenv) }
	for _, name := range slices.Sorted(maps.Keys(doc.Servers)) {
		if _, ok := l.MCP.Servers[name]; ok {
			continue
		}
		d := doc.Servers[name]
		if d.Type == "sse" {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s: server %s left out: lathe speaks streamable HTTP, not the older SSE transport", path, name))
			continue
		}
		s := MCPServer{Command: expand(d.Command), URL: expand(d.URL), Origin: path}
		for _, a := range d.Args {
			s.Args = append(s.Args, expand(a))
		}
		if len(d.Env) > 0 {
			s.Env = map[string]string{}
			for k, v := range d.Env {
				s.Env[k] = expand(v)
			}
		}
		if len(d.Headers) > 0 {
			s.Headers = map[string]string{}
			for k, v := range d.Headers {
				s.Headers[k] = expand(v)
			}
		}
		if key, msg := s.check(name); msg != "" {
			if key != "" {
				key = "." + key
			}
			return &Error{File: path, Key: "mcpServers." + name + key, Msg: msg}
		}
		if l.MCP.Servers == nil {
			l.MCP.Servers = map[string]MCPServer{}
		}
		l.MCP.Servers[name] = s
	}
	l.Files = append(l.Files, path)
	return nil
}

// varRef is ${NAME} or ${NAME:-default}.
var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`)

// expandVars replaces ${NAME} and ${NAME:-default} in s from getenv.
func expandVars(s string, getenv func(string) string) string {
	return varRef.ReplaceAllStringFunc(s, func(ref string) string {
		m := varRef.FindStringSubmatch(ref)
		if v := getenv(m[1]); v != "" {
			return v
		}
		return m[2]
	})
}
