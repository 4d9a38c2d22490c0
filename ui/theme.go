package ui

import (
	"lathe/ui/markdown"

	"charm.land/lipgloss/v2"
)

// theme is every style the TUI uses, built once. With NO_COLOR the
// renderer drops colours anyway; the markdown style then also avoids
// emphasis that only colour carries.
type theme struct {
	markdown string             // mdstream style name: "dark", "light" or "notty"
	md       *markdown.Renderer // the renderer of that style, once an answer needed it

	userMark, user    lipgloss.Style
	dim               lipgloss.Style
	thinking          lipgloss.Style
	toolName, subject lipgloss.Style
	ok, failed, warn  lipgloss.Style
	meta              lipgloss.Style
	diffAdd, diffDel  lipgloss.Style
	diffHunk          lipgloss.Style
	output            lipgloss.Style
	errorTitle        lipgloss.Style
	errorText         lipgloss.Style
	notice            lipgloss.Style
	selectedBar       lipgloss.Style
	rule              lipgloss.Style
	status, statusKey lipgloss.Style
	modePlan, modeAsk lipgloss.Style // the status line's mode, when not build
	approveAll        lipgloss.Style // the status line's "--yes"
	dialogTitle       lipgloss.Style
	key               lipgloss.Style
	accent            lipgloss.Style
	plain             lipgloss.Style
}

func newTheme(noColor, dark bool) theme {
	grey := lipgloss.Color("8")
	return theme{
		markdown:    markdownStyle(noColor, dark),
		userMark:    lipgloss.NewStyle().Foreground(lipgloss.Cyan).Bold(true),
		user:        lipgloss.NewStyle().Bold(true),
		dim:         lipgloss.NewStyle().Foreground(grey),
		thinking:    lipgloss.NewStyle().Foreground(grey).Italic(true),
		toolName:    lipgloss.NewStyle().Bold(true),
		subject:     lipgloss.NewStyle().Foreground(lipgloss.Cyan),
		ok:          lipgloss.NewStyle().Foreground(lipgloss.Green),
		failed:      lipgloss.NewStyle().Foreground(lipgloss.Red),
		warn:        lipgloss.NewStyle().Foreground(lipgloss.Yellow),
		meta:        lipgloss.NewStyle().Foreground(grey),
		diffAdd:     lipgloss.NewStyle().Foreground(lipgloss.Green),
		diffDel:     lipgloss.NewStyle().Foreground(lipgloss.Red),
		diffHunk:    lipgloss.NewStyle().Foreground(lipgloss.Cyan),
		output:      lipgloss.NewStyle().Foreground(grey),
		errorTitle:  lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true),
		errorText:   lipgloss.NewStyle().Foreground(lipgloss.Red),
		notice:      lipgloss.NewStyle().Foreground(grey),
		selectedBar: lipgloss.NewStyle().Foreground(lipgloss.Magenta),
		rule:        lipgloss.NewStyle().Foreground(grey),
		status:      lipgloss.NewStyle().Foreground(grey),
		statusKey:   lipgloss.NewStyle().Bold(true),
		modePlan:    lipgloss.NewStyle().Foreground(lipgloss.Blue).Bold(true),
		modeAsk:     lipgloss.NewStyle().Foreground(lipgloss.Green).Bold(true),
		approveAll:  lipgloss.NewStyle().Foreground(lipgloss.Yellow).Bold(true),
		dialogTitle: lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Yellow),
		key:         lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Cyan),
		accent:      lipgloss.NewStyle().Foreground(lipgloss.Magenta),
		plain:       lipgloss.NewStyle(),
	}
}

// markdownStyle is the markdown style for the terminal: without colour,
// or for its background.
func markdownStyle(noColor, dark bool) string {
	switch {
	case noColor:
		return "notty"
	case dark:
		return "dark"
	}
	return "light"
}

// renderer returns the markdown renderer for the current style, created
// on first use: no markdown is parsed before an answer needs it.
func (st *theme) renderer() *markdown.Renderer {
	if st.md == nil || st.md.Style() != st.markdown {
		st.md = markdown.NewRenderer(st.markdown)
	}
	return st.md
}
