package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"lathe/config/safefile"
)

// The events a hook runs at, as Claude Code names them.
const (
	HookSessionStart     = "SessionStart"
	HookUserPromptSubmit = "UserPromptSubmit"
	HookPreToolUse       = "PreToolUse"
	HookPostToolUse      = "PostToolUse"
	HookStop             = "Stop"
	HookPreCompact       = "PreCompact"
	HookSessionEnd       = "SessionEnd"
	HookNotification     = "Notification"
)

// HookEvents are the events, in the order a session meets them.
var HookEvents = []string{HookSessionStart, HookUserPromptSubmit, HookPreToolUse, HookPostToolUse,
	HookStop, HookPreCompact, HookSessionEnd, HookNotification}

// Hooks are the commands lathe runs at points of a session, by event:
// [[hooks.PreToolUse]] in a config file, or the hooks block of a
// project's .claude/settings.json. Those of every file apply, the user's
// first.
type Hooks struct {
	SessionStart     []Hook `toml:"SessionStart"`
	UserPromptSubmit []Hook `toml:"UserPromptSubmit"`
	PreToolUse       []Hook `toml:"PreToolUse"`
	PostToolUse      []Hook `toml:"PostToolUse"`
	Stop             []Hook `toml:"Stop"`
	PreCompact       []Hook `toml:"PreCompact"`
	SessionEnd       []Hook `toml:"SessionEnd"`
	Notification     []Hook `toml:"Notification"`
}

// Hook is one command run at an event.
type Hook struct {
	// Matcher chooses the calls (the tools, by name or regular
	// expression) or the occasions (SessionStart's source, PreCompact's
	// trigger, Notification's type) the hook runs for; "" or "*" is every
	// one.
	Matcher string `toml:"matcher"`
	// Command is a shell command line, run by bash in the workspace.
	Command string `toml:"command"`
	// Timeout is how long the command may run, in seconds (0: the
	// default, 60).
	Timeout int `toml:"timeout"`

	// Event is the event the hook runs at.
	Event string `toml:"-"`
	// Source is the file that declared the hook.
	Source string `toml:"-"`
	// Project says the project declared it (its .lathe/config.toml or
	// .claude/settings.json): it runs only once the user trusts the
	// project's hooks.
	Project bool `toml:"-"`
}

// MaxHookTimeout is the longest a hook may be given, in seconds.
const MaxHookTimeout = 3600

// list returns the slice of event, and whether there is such an event.
func (h *Hooks) list(event string) (*[]Hook, bool) {
	switch event {
	case HookSessionStart:
		return &h.SessionStart, true
	case HookUserPromptSubmit:
		return &h.UserPromptSubmit, true
	case HookPreToolUse:
		return &h.PreToolUse, true
	case HookPostToolUse:
		return &h.PostToolUse, true
	case HookStop:
		return &h.Stop, true
	case HookPreCompact:
		return &h.PreCompact, true
	case HookSessionEnd:
		return &h.SessionEnd, true
	case HookNotification:
		return &h.Notification, true
	}
	return nil, false
}

// All returns every hook, event by event in HookEvents' order, each in the
// order declared.
func (h Hooks) All() []Hook {
	var out []Hook
	for _, ev := range HookEvents {
		list, _ := h.list(ev)
		out = append(out, *list...)
	}
	return out
}

// add appends more's hooks, from the file source, to h's.
func (h *Hooks) add(more Hooks, source string, project bool) {
	for _, ev := range HookEvents {
		to, _ := h.list(ev)
		from, _ := more.list(ev)
		for _, hk := range *from {
			hk.Event, hk.Source, hk.Project = ev, source, project
			*to = append(*to, hk)
		}
	}
}

// ProjectHooks are the hooks the project declared: what the user trusts,
// or not, at once.
func (h Hooks) ProjectHooks() []Hook {
	return slices.DeleteFunc(h.All(), func(hk Hook) bool { return !hk.Project })
}

// check reports what is wrong with a hook; "" when nothing.
func (hk Hook) check() string {
	switch {
	case strings.TrimSpace(hk.Command) == "":
		return "command is empty: give the shell command to run"
	case hk.Timeout < 0 || hk.Timeout > MaxHookTimeout:
		return fmt.Sprintf("timeout must be between 1 and %d seconds (0: the default, 60)", MaxHookTimeout)
	}
	if _, err := regexp.Compile(hk.Matcher); err != nil && hk.Matcher != "*" {
		return fmt.Sprintf("matcher %q is not a regular expression: %v", hk.Matcher, err)
	}
	return ""
}

// validateHooks checks the hooks, each blamed on the file that declared
// it.
func (l *Loaded) validateHooks() *Error {
	for _, ev := range HookEvents {
		list, _ := l.Hooks.list(ev)
		for i, hk := range *list {
			if msg := hk.check(); msg != "" {
				return &Error{File: hk.Source, Key: "hooks." + ev, Msg: fmt.Sprintf("entry %d: %s", i+1, msg)}
			}
		}
	}
	return nil
}

// ClaudeSettingsFiles are the files of a project, in Claude Code's
// format, whose hooks block is read: the shared one, then the local one.
var ClaudeSettingsFiles = []string{".claude/settings.json", ".claude/settings.local.json"}

// claudeSettings is the part of Claude Code's settings file lathe reads.
type claudeSettings struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Timeout *float64 `json:"timeout"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// readClaudeHooks adds the hooks of the project's Claude Code settings,
// as the project's own. The file holds much else lathe does not read, so
// what is wrong in it (broken JSON, an event or a kind of hook lathe does
// not have) is a warning, never an error: the rest loads.
func (l *Loaded) readClaudeHooks(dir string) {
	for _, rel := range ClaudeSettingsFiles {
		path := filepath.Join(dir, rel)
		data, err := safefile.Read(dir, rel, maxFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s: not read: %v", path, err))
			continue
		}
		var doc claudeSettings
		if err := json.Unmarshal(data, &doc); err != nil {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s: its hooks were not read: %v", path, err))
			continue
		}
		if len(doc.Hooks) == 0 {
			continue
		}
		var more Hooks
		events := make([]string, 0, len(doc.Hooks))
		for ev := range doc.Hooks {
			events = append(events, ev)
		}
		slices.Sort(events)
		for _, ev := range events {
			list, ok := more.list(ev)
			if !ok {
				l.Warnings = append(l.Warnings, fmt.Sprintf("%s: hooks.%s left out: lathe has no such event (it has %s)",
					path, ev, strings.Join(HookEvents, ", ")))
				continue
			}
			for _, group := range doc.Hooks[ev] {
				for _, h := range group.Hooks {
					hk := Hook{Matcher: group.Matcher, Command: h.Command}
					if h.Timeout != nil {
						hk.Timeout = int(*h.Timeout + 0.999)
					}
					if h.Type != "" && h.Type != "command" {
						l.Warnings = append(l.Warnings, fmt.Sprintf("%s: a hook of hooks.%s left out: lathe runs hooks of type \"command\", not %q",
							path, ev, h.Type))
						continue
					}
					if msg := hk.check(); msg != "" {
						l.Warnings = append(l.Warnings, fmt.Sprintf("%s: a hook of hooks.%s left out: %s", path, ev, msg))
						continue
					}
					*list = append(*list, hk)
				}
			}
		}
		l.Hooks.add(more, path, true)
		l.Files = append(l.Files, path)
	}
}
