package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"lathe/config/safefile"
)

// LSPServer is a language server of [lsp.NAME]: one of the built-ins
// (named after their programs: gopls, pyright, basedpyright, typescript,
// rust-analyzer, clangd) with some of its settings changed, or one of
// its own.
type LSPServer struct {
	Command string   `toml:"command"`
	Args    []string `toml:"args"`
	// Extensions are the files it serves (".go").
	Extensions []string `toml:"extensions"`
	// RootMarkers are files that mark a project of its language.
	RootMarkers []string          `toml:"root_markers"`
	Env         map[string]string `toml:"env"`
	// Enabled starts the server when needed; nil means true.
	Enabled *bool `toml:"enabled"`

	// Languages are the language ids of extensions, from .lsp.json.
	Languages map[string]string `toml:"-"`
	// Origin is the project file that declared or changed the server
	// last: it starts only once trusted. Empty for the user's own.
	Origin string `toml:"-"`
}

// On reports whether the server is enabled.
func (s LSPServer) On() bool { return s.Enabled == nil || *s.Enabled }

// Project reports whether the project declared or changed the server.
func (s LSPServer) Project() bool { return s.Origin != "" }

// Diagnostics is how the language servers' findings reach the model.
type Diagnostics struct {
	// Wait is how long a change waits for the diagnostics of the files
	// it changed; 0 waits for none.
	Wait Duration `toml:"wait"`
	// Warnings reports the warnings a change brought too, not only its
	// errors.
	Warnings bool `toml:"warnings"`
}

// Navigation offers the language servers' read-only navigation tools:
// definition, references and hover.
type Navigation struct {
	// Enabled offers them where a server can start for a language the
	// workspace holds. Off by default: their schemas cost every request.
	Enabled bool `toml:"enabled"`
	// Wait bounds how long a call of these tools, or of the diagnostics
	// tool, waits for its server to start and answer.
	Wait Duration `toml:"wait"`
}

// DefaultDiagnosticsWait is how long a change waits for diagnostics.
const DefaultDiagnosticsWait = 3 * time.Second

// DefaultNavigationWait is how long a call of the language servers'
// tools waits for its server: a large workspace's first load takes
// seconds.
const DefaultNavigationWait = 15 * time.Second

// BuiltinLSP are the names of the built-in language servers.
var BuiltinLSP = []string{"gopls", "pyright", "basedpyright", "typescript", "rust-analyzer", "clangd"}

// LSPDigest is what trust in a server's definition is given to: every
// setting of it under its name, and the base name of the file that
// declared it.
func LSPDigest(name string, s LSPServer) string {
	s.Origin = filepath.Base(s.Origin)
	b, _ := json.Marshal(struct {
		Name   string
		Server LSPServer
	}{name, s}) // plain data: cannot fail
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// extension is what a served extension looks like.
var extension = regexp.MustCompile(`^\.[A-Za-z0-9_+-]{1,16}$`)

// check reports the first problem of a server's settings: the key
// (relative to its table) and what is wrong.
func (s LSPServer) check(name string) (key, msg string) {
	builtin := slices.Contains(BuiltinLSP, name)
	switch {
	case !serverName.MatchString(name):
		return "", "a server's name is 1 to 32 letters, digits, - and _, starting with a letter or digit"
	case !builtin && s.Command == "":
		return "command", "say which program to start (only the built-ins " + strings.Join(BuiltinLSP, ", ") + " have one)"
	case !builtin && len(s.Extensions) == 0:
		return "extensions", `say which files it serves, as ".ext"`
	}
	for _, e := range s.Extensions {
		if !extension.MatchString(e) {
			return "extensions", fmt.Sprintf("%q is not an extension: write it with its dot (\".go\")", e)
		}
	}
	for k := range s.Env {
		if !envName.MatchString(k) {
			return "env", fmt.Sprintf("%q is not an environment variable's name", k)
		}
	}
	return "", ""
}

// validateLSP checks the [lsp], [diagnostics] and [navigation] tables.
func (l *Loaded) validateLSP(file string) *Error {
	if w := l.Diagnostics.Wait.Duration; w < 0 || w > time.Minute {
		return &Error{File: file, Key: "diagnostics.wait", Msg: "must be between 0 (no wait) and 1m"}
	}
	if w := l.Navigation.Wait.Duration; w < time.Second || w > 2*time.Minute {
		return &Error{File: file, Key: "navigation.wait", Msg: "must be between 1s and 2m"}
	}
	for _, name := range slices.Sorted(maps.Keys(l.LSP)) {
		if key, msg := l.LSP[name].check(name); msg != "" {
			k := "lsp." + name
			if key != "" {
				k += "." + key
			}
			return &Error{File: file, Key: k, Msg: msg}
		}
	}
	return nil
}

// cloneLSP copies servers deeply: decoding a file over the config fills
// the map's entries in place.
func cloneLSP(servers map[string]LSPServer) map[string]LSPServer {
	if servers == nil {
		return nil
	}
	out := make(map[string]LSPServer, len(servers))
	for name, s := range servers {
		s.Args, s.Extensions, s.RootMarkers = slices.Clone(s.Args), slices.Clone(s.Extensions), slices.Clone(s.RootMarkers)
		s.Env, s.Languages = maps.Clone(s.Env), maps.Clone(s.Languages)
		if s.Enabled != nil {
			v := *s.Enabled
			s.Enabled = &v
		}
		out[name] = s
	}
	return out
}

// markProjectLSP marks the servers a project's file declared or changed,
// so that they start only once trusted; turning one off needs no trust.
func (l *Loaded) markProjectLSP(path string, before map[string]LSPServer) {
	for _, name := range slices.Sorted(maps.Keys(l.LSP)) {
		s := l.LSP[name]
		old, existed := before[name]
		if existed && reflect.DeepEqual(old, s) {
			continue
		}
		off := s
		off.Enabled = old.Enabled
		if existed && !s.On() && reflect.DeepEqual(old, off) {
			continue
		}
		if !existed && !s.On() {
			continue
		}
		s.Origin = path
		l.LSP[name] = s
	}
}

// DotLSPFile is Claude Code's project file of language servers, read too.
const DotLSPFile = ".lsp.json"

// dotLSP is .lsp.json as Claude Code reads it: servers by name.
type dotLSP map[string]struct {
	Command             string            `json:"command"`
	Args                []string          `json:"args"`
	ExtensionToLanguage map[string]string `json:"extensionToLanguage"`
	Env                 map[string]string `json:"env"`
	Transport           string            `json:"transport"`
}

// readDotLSP adds the servers of the project's .lsp.json, as a project's
// own: a server the config files name already is left as they set it.
func (l *Loaded) readDotLSP(dir string) error {
	data, err := safefile.Read(dir, DotLSPFile, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	path := filepath.Join(dir, DotLSPFile)
	if err != nil {
		return &Error{File: path, Msg: "not read: " + err.Error()}
	}
	var doc dotLSP
	if err := json.Unmarshal(data, &doc); err != nil {
		return &Error{File: path, Msg: "not valid: " + err.Error()}
	}
	for _, name := range slices.Sorted(maps.Keys(doc)) {
		if _, ok := l.LSP[name]; ok {
			continue
		}
		d := doc[name]
		if d.Transport != "" && d.Transport != "stdio" {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s: server %s left out: lathe speaks to language servers over stdio, not %s", path, name, d.Transport))
			continue
		}
		s := LSPServer{Command: d.Command, Args: d.Args, Env: d.Env, Origin: path}
		for _, ext := range slices.Sorted(maps.Keys(d.ExtensionToLanguage)) {
			s.Extensions = append(s.Extensions, ext)
		}
		if len(d.ExtensionToLanguage) > 0 {
			s.Languages = maps.Clone(d.ExtensionToLanguage)
		}
		if key, msg := s.check(name); msg != "" {
			if key != "" {
				key = "." + key
			}
			return &Error{File: path, Key: name + key, Msg: msg}
		}
		if l.LSP == nil {
			l.LSP = map[string]LSPServer{}
		}
		l.LSP[name] = s
	}
	l.Files = append(l.Files, path)
	return nil
}
