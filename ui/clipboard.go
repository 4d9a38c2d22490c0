package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/images"
)

// clipboardTool is a program that writes the clipboard's image to its
// standard output.
type clipboardTool struct {
	name    string
	args    []string
	install string // what to install to have it
}

// clipboardTools are the programs that can read an image from the
// clipboard on this system, by the display it has, best first; why says
// what is missing when there is none to try.
func clipboardTools(getenv func(string) string, goos string) (tools []clipboardTool, why string) {
	if goos == "darwin" {
		// pbpaste, which comes with macOS, writes only text: an image
		// takes pngpaste.
		return []clipboardTool{{"pngpaste", []string{"-"}, "pngpaste (brew install pngpaste)"}}, ""
	}
	if getenv("WAYLAND_DISPLAY") != "" {
		tools = append(tools, clipboardTool{"wl-paste", []string{"--no-newline", "--type", "image/png"}, "wl-clipboard (wl-paste)"})
	}
	if getenv("DISPLAY") != "" {
		tools = append(tools, clipboardTool{"xclip", []string{"-selection", "clipboard", "-target", "image/png", "-out"}, "xclip"})
	}
	if len(tools) == 0 {
		return nil, "there is no clipboard here (neither WAYLAND_DISPLAY nor DISPLAY is set): paste the image's path instead"
	}
	return tools, ""
}

// errNoClipboardImage: the clipboard holds no image; Ctrl+V then pastes
// its text, as it would have.
var errNoClipboardImage = errors.New("the clipboard holds no image")

// clipboard reads an image from the clipboard with the first of tools
// installed; lookPath finds them.
func readClipboard(ctx context.Context, tools []clipboardTool, lookPath func(string) (string, error), lim images.Limits) (provider.Image, error) {
	var missing []string
	for _, t := range tools {
		path, err := lookPath(t.name)
		if err != nil {
			missing = append(missing, t.install)
			continue
		}
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, path, t.args...)
		out, err := cmd.StdoutPipe()
		if err != nil {
			return provider.Image{}, err
		}
		if err := cmd.Start(); err != nil {
			return provider.Image{}, fmt.Errorf("%s: %w", t.name, err)
		}
		data, rerr := io.ReadAll(io.LimitReader(out, lim.MaxBytes+1))
		_, _ = io.Copy(io.Discard, out)
		werr := cmd.Wait()
		switch {
		case rerr != nil:
			return provider.Image{}, fmt.Errorf("%s: %w", t.name, rerr)
		case images.Format(data) == "" || werr != nil:
			return provider.Image{}, errNoClipboardImage
		}
		return images.ReadFrom(bytes.NewReader(data), "clipboard.png", lim)
	}
	return provider.Image{}, fmt.Errorf("Ctrl+V reads an image from the clipboard with %s: install it", strings.Join(missing, " or "))
}

// clipboardReadMsg is the clipboard's image, read in the background; key is
// the Ctrl+V that asked, for the text paste when it holds none.
type clipboardReadMsg struct {
	img provider.Image
	err error
	key tea.KeyPressMsg
}

// pasteImage reads an image from the clipboard in the background.
func (m *model) pasteImage(key tea.KeyPressMsg) tea.Cmd {
	tools, why := clipboardTools(m.getenv, runtime.GOOS)
	if m.opts.clipboard != nil {
		tools, why = m.opts.clipboard.tools, m.opts.clipboard.why
	}
	if why != "" {
		m.notice(noticeWarn, "", why+".")
		return nil
	}
	lookPath := exec.LookPath
	if m.opts.clipboard != nil {
		lookPath = m.opts.clipboard.lookPath
	}
	lim, ctx := m.imageLimits(), m.ctx
	return func() tea.Msg {
		img, err := readClipboard(ctx, tools, lookPath, lim)
		return clipboardReadMsg{img: img, err: err, key: key}
	}
}

// clipboardArrived attaches the clipboard's image, pastes its text when
// it holds none, or says what failed.
func (m *model) clipboardArrived(msg clipboardReadMsg) tea.Cmd {
	switch {
	case errors.Is(msg.err, errNoClipboardImage):
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg.key) // the textarea pastes text
		return cmd
	case msg.err != nil:
		m.notice(noticeWarn, "", msg.err.Error()+".")
		return nil
	}
	m.input.attach(msg.img)
	return nil
}

// clipboardSetup replaces the system's clipboard tools, in tests.
type clipboardSetup struct {
	tools    []clipboardTool
	why      string
	lookPath func(string) (string, error)
}

// getenv reads the environment the TUI was started with.
func (m *model) getenv(key string) string {
	for _, kv := range slices.Backward(m.opts.Environ) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}
