package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// keyMap is every key the TUI answers to, in one place.
type keyMap struct {
	Send       key.Binding
	Newline    key.Binding
	Prev       key.Binding // history or list up
	Next       key.Binding // history or list down
	Complete   key.Binding
	Interrupt  key.Binding
	Quit       key.Binding
	PageUp     key.Binding
	PageDown   key.Binding
	Top        key.Binding
	Bottom     key.Binding
	SelectPrev key.Binding
	SelectNext key.Binding
	Expand     key.Binding
	CycleMode  key.Binding
	PasteImage key.Binding // an image from the clipboard, else text
	Detach     key.Binding // the last attachment, in an empty input

	// The approval dialog.
	First        key.Binding // the first line of what it shows
	Last         key.Binding // the last
	Allow        key.Binding
	AllowSession key.Binding
	Deny         key.Binding
	Force        key.Binding // undo over files changed since
	Unconfined   key.Binding // run a command outside the sandbox, once
	WithNetwork  key.Binding // run a command with network, once

	// An MCP server's form.
	Decline    key.Binding
	Toggle     key.Binding // a box, or a choice
	OptionPrev key.Binding
	OptionNext key.Binding

	// Screens before the session is ready.
	Yes   key.Binding
	No    key.Binding
	Retry key.Binding
}

func newKeyMap() keyMap {
	k := func(help string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(keys[0], help))
	}
	return keyMap{
		Send:       k("send", "enter"),
		Newline:    k("new line", "alt+enter", "ctrl+j"),
		Prev:       k("earlier prompt", "up"),
		Next:       k("later prompt", "down"),
		Complete:   k("complete command", "tab"),
		Interrupt:  k("interrupt, deny, close", "esc"),
		Quit:       k("interrupt; twice to quit", "ctrl+c"),
		PageUp:     k("scroll up", "pgup"),
		PageDown:   k("scroll down", "pgdown"),
		Top:        k("scroll to top", "ctrl+home"),
		Bottom:     k("scroll to bottom", "ctrl+end"),
		SelectPrev: k("select previous card", "ctrl+up", "alt+up"),
		SelectNext: k("select next card", "ctrl+down", "alt+down"),
		Expand:     k("expand or fold a card", "ctrl+o"),
		CycleMode:  k("next mode: build, plan, ask", "shift+tab"),
		PasteImage: k("attach an image from the clipboard", "ctrl+v"),
		Detach:     k("remove the last image attached", "backspace"),

		First:        k("first line", "home", "ctrl+home"),
		Last:         k("last line", "end", "ctrl+end"),
		Allow:        k("allow once", "y", "enter"),
		AllowSession: k("allow for this session", "a"),
		Deny:         k("deny", "n"),
		Force:        k("overwrite what changed since", "f"),
		Unconfined:   k("run outside the sandbox, once", "o"),
		WithNetwork:  k("run with network, once", "w"),

		Decline:    k("decline", "ctrl+d"),
		Toggle:     k("toggle", "space"),
		OptionPrev: k("previous choice", "left"),
		OptionNext: k("next choice", "right"),

		Yes:   k("yes", "y"),
		No:    k("no", "n", "q"),
		Retry: k("retry", "r"),
	}
}

// helpKeys lists the keys /help explains, in order.
func (k keyMap) helpKeys() []key.Binding {
	return []key.Binding{k.Send, k.Newline, k.Prev, k.Complete, k.Interrupt, k.Quit,
		k.PageUp, k.PageDown, k.Top, k.Bottom, k.SelectPrev, k.SelectNext, k.Expand, k.CycleMode}
}

// scrolls reports whether msg scrolls the transcript.
func (k keyMap) scrolls(msg tea.KeyPressMsg) bool {
	return key.Matches(msg, k.PageUp, k.PageDown, k.Top, k.Bottom)
}

// selects reports whether msg selects an item of the transcript, or
// expands it.
func (k keyMap) selects(msg tea.KeyPressMsg) bool {
	return key.Matches(msg, k.SelectPrev, k.SelectNext, k.Expand)
}
