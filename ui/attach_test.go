package ui

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/provider"
)

func TestPastedPaths(t *testing.T) {
	tests := []struct {
		paste string
		want  []string // nil: not paths, pasted as text
	}{
		{"/home/me/shot.png", []string{"/home/me/shot.png"}},
		{"  '/home/me/my shot.png' ", []string{"/home/me/my shot.png"}},
		{`"/home/me/my shot.PNG"`, []string{"/home/me/my shot.PNG"}},
		{`/home/me/my\ shot.jpg`, []string{"/home/me/my shot.jpg"}},
		{"file:///home/me/my%20shot.webp", []string{"/home/me/my shot.webp"}},
		{"/home/me/my shot.png", []string{"/home/me/my shot.png"}}, // bare, with a space
		{"'/a/one.png' '/b/two.gif'", []string{"/a/one.png", "/b/two.gif"}},
		{"/a/one.png\n/b/two.jpeg\n", []string{"/a/one.png", "/b/two.jpeg"}},
		{"hello world", nil},
		{"/a/README.md", nil},
		{"what is in shot.png?", nil},
		{"fix this\n\nsee /a/x.png", nil},
		{"'/a/open quote.png", nil},
		{`look at @big\ shot.png`, nil}, // a prompt, not a path (F13)
		{"describe this shot.png", nil},
	}
	for _, tt := range tests {
		got, ok := pastedPaths(tt.paste)
		if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("pastedPaths(%q) = %q, %v; want %q", tt.paste, got, ok, tt.want)
		}
	}
}

func TestAtPaths(t *testing.T) {
	for _, tt := range []struct {
		text, rest string
		paths      []string
	}{
		{"why does @shots/a.png look like @b.jpg? ask @alice", "why does look like? ask @alice", []string{"shots/a.png", "b.jpg"}},
		// Blanks escaped or quoted, as in a shell (F13).
		{`look at @big\ shot.png please`, "look at please", []string{"big shot.png"}},
		{`what is @'my shot.png'? and @"b c.jpg"`, "what is? and", []string{"my shot.png", "b c.jpg"}},
		{`@~/Pictures/a\ b.webp`, "", []string{"~/Pictures/a b.webp"}},
		{"an @'open quote.png", "an @'open quote.png", nil},
		{"mail@host.png is no path", "mail@host.png is no path", nil},
	} {
		paths, rest := atPaths(tt.text)
		if !slices.Equal(paths, tt.paths) || rest != tt.rest {
			t.Errorf("atPaths(%q) = %q, %q; want %q, %q", tt.text, paths, rest, tt.paths, tt.rest)
		}
	}
}

// writePNG writes a w×h PNG at path.
func writePNG(t *testing.T, path string, w, h int) {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// imagesModel is a test model working in a directory holding "my shot.png"
// (200×100) and "b.png" (400×300), with images.max_edge 256.
func imagesModel(t *testing.T) (*model, string) {
	m, _ := testModel(t)
	dir := t.TempDir()
	writePNG(t, filepath.Join(dir, "my shot.png"), 200, 100)
	writePNG(t, filepath.Join(dir, "b.png"), 400, 300)
	m.opts.Dir = dir
	m.opts.Engine.Config.Images.MaxEdge = 256
	return m, dir
}

// describeAll is images by name and size, never their bytes.
func describeAll(imgs []provider.Image) string {
	var out []string
	for _, img := range imgs {
		out = append(out, fmt.Sprintf("%s %d×%d", img.Name, img.Width, img.Height))
	}
	return strings.Join(out, ", ")
}

// paste pastes text, and hands the model the images it names once read.
func paste(m *model, text string) {
	_, cmd := m.Update(tea.PasteMsg{Content: text})
	finish(m, cmd)
}

func TestPastedAndTypedPathsBecomeChips(t *testing.T) {
	m, dir := imagesModel(t)
	paste(m, "'"+filepath.Join(dir, "my shot.png")+"'")
	typeText(m, "why so ")
	_, cmd := m.Update(tea.KeyPressMsg{Code: '@', Text: "@"})
	finish(m, cmd)
	for _, r := range "b.png " {
		_, cmd := m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		finish(m, cmd) // the blank reads the image the @path names
	}
	typeText(m, "blue?")
	if got := m.input.value(); got != "why so blue?" {
		t.Errorf("input %q: the @path was not taken out", got)
	}
	golden(t, m, "input_chips")
	if got := describeAll(m.input.images); got != "my shot.png 200×100, b.png 256×192" {
		t.Fatalf("attached %s", got)
	}

	// Backspace removes the last chip once the text is gone.
	for range len("why so blue?") {
		press(m, "backspace")
	}
	press(m, "backspace")
	if len(m.input.images) != 1 || strings.Contains(screen(m), "[image 2:") || !strings.Contains(screen(m), "[image 1: my shot.png 200×100") {
		t.Fatalf("backspace on an empty input: %d images left, screen:\n%s", len(m.input.images), screen(m))
	}

	// Sent, the prompt carries the chip, and the input is empty again.
	paste(m, "file://"+strings.ReplaceAll(filepath.Join(dir, "b.png"), " ", "%20"))
	typeText(m, "compare them")
	m.Update(keyPress("enter"))
	if m.run == nil || m.run.prompt.Text != "compare them" || describeAll(m.run.prompt.Images) != "my shot.png 200×100, b.png 256×192" ||
		len(m.input.images) != 0 {
		t.Fatalf("sent %v, left %d images", m.run != nil, len(m.input.images))
	}
	if s := screen(m); !strings.Contains(s, "› compare them") || !strings.Contains(s, "[image 2: b.png 256×192") {
		t.Errorf("the transcript does not show the prompt's images:\n%s", s)
	}
}

func TestAtPathOnSend(t *testing.T) {
	m, _ := imagesModel(t)
	typeText(m, "what is @b.png")
	_, cmd := m.Update(keyPress("enter"))
	m.Update(cmd()) // the image read; the request it starts is not run
	if m.run == nil || m.run.prompt.Text != "what is" || describeAll(m.run.prompt.Images) != "b.png 256×192" {
		t.Fatalf("sent %v", m.run != nil)
	}
}

// TestAtPathOfAFIFO: an @path naming a FIFO is refused at once, typed or
// sent, with a notice saying why; sent, the prompt comes back to mend.
func TestAtPathOfAFIFO(t *testing.T) {
	m, dir := imagesModel(t)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.png"), 0o600); err != nil {
		t.Fatal(err)
	}
	typeText(m, "@fifo.png")
	_, cmd := m.Update(tea.KeyPressMsg{Code: ' ', Text: " "})
	finish(m, cmd) // the blank reads the file the @path names
	if s := screen(m); len(m.input.images) != 0 || !strings.Contains(s, "Cannot attach the image") ||
		!strings.Contains(s, "fifo.png: not a regular file (a FIFO)") {
		t.Fatalf("typed: %d images, screen:\n%s", len(m.input.images), s)
	}
	m.input.set("")
	typeText(m, "what is @fifo.png")
	_, cmd = m.Update(keyPress("enter"))
	finish(m, cmd)
	if m.run != nil || m.input.value() != "what is @fifo.png" || !strings.Contains(screen(m), "not a regular file (a FIFO)") {
		t.Fatalf("sent: run %v, input %q, screen:\n%s", m.run != nil, m.input.value(), screen(m))
	}
}

// TestPathsWithBlanksOnSend: an @path with a blank escaped is attached,
// the rest sent; a path typed, blank escaped, is no command but an image
// attached; an @path to no file says so at every Enter (F13).
func TestPathsWithBlanksOnSend(t *testing.T) {
	m, dir := imagesModel(t)
	typeText(m, `look at @my\ shot.png please`)
	_, cmd := m.Update(keyPress("enter"))
	m.Update(cmd())
	if m.run == nil || m.run.prompt.Text != "look at please" || describeAll(m.run.prompt.Images) != "my shot.png 200×100" {
		t.Fatalf("sent %v, input %q, screen:\n%s", m.run != nil, m.input.value(), screen(m))
	}

	m, dir = imagesModel(t)
	typeText(m, strings.ReplaceAll(filepath.Join(dir, "my shot.png"), " ", `\ `))
	_, cmd = m.Update(keyPress("enter"))
	finish(m, cmd)
	if s := screen(m); strings.Contains(s, "unknown command") || describeAll(m.input.images) != "my shot.png 200×100" {
		t.Errorf("a path typed: attached %q, screen:\n%s", describeAll(m.input.images), s)
	}

	m, _ = imagesModel(t)
	typeText(m, "look at @nope.png and tell me")
	for range 2 {
		_, cmd = m.Update(keyPress("enter"))
		finish(m, cmd)
		if s := screen(m); !strings.Contains(s, "an image was not attached") || m.input.value() != "look at @nope.png and tell me" {
			t.Fatalf("enter on an @path to no file: input %q, screen:\n%s", m.input.value(), s)
		}
	}
}

// TestPromptNotSentIsMarked: a prompt refused before it was sent (the
// model cannot see its images) is marked so in the transcript, and is
// back in the input (F13).
func TestPromptNotSentIsMarked(t *testing.T) {
	m, _ := testModel(t)
	m.beginRun("describe")
	m.run.prompt = orchestrator.Prompt{Text: "describe", Images: []provider.Image{{Name: "a.png", Width: 64, Height: 48}}}
	events(m, runDoneMsg{res: orchestrator.Result{StopReason: orchestrator.StopError},
		err: provider.Errorf(provider.ErrNoVision, nil, `model "qwen3:8b" cannot see images`)})
	if s := screen(m); !strings.Contains(s, "⊘ not sent: it is back in the input") || m.input.value() != "describe" {
		t.Errorf("input %q, screen:\n%s", m.input.value(), s)
	}
}

func TestPasteThatIsNoFile(t *testing.T) {
	m, dir := imagesModel(t)
	paste(m, filepath.Join(dir, "gone.png"))
	if got := m.input.value(); got != filepath.Join(dir, "gone.png") || len(m.input.images) != 0 {
		t.Errorf("input %q with %d images: a path to no file is pasted as text", got, len(m.input.images))
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.png"), []byte("\x89PNG\r\n\x1a\nnot really"), 0o644); err != nil {
		t.Fatal(err)
	}
	paste(m, filepath.Join(dir, "bad.png"))
	if s := screen(m); len(m.input.images) != 0 || !strings.Contains(s, "Cannot attach the image") || !strings.Contains(s, "bad.png: a damaged PNG image") {
		t.Errorf("a damaged image was attached, or not said:\n%s", s)
	}
}

func TestCtrlVAttachesTheClipboardImage(t *testing.T) {
	m, dir := imagesModel(t)
	script := filepath.Join(dir, "fake-wl-paste")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat '"+filepath.Join(dir, "my shot.png")+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	wl := clipboardTool{"wl-paste", nil, "wl-clipboard (wl-paste)"}
	m.opts.clipboard = &clipboardSetup{tools: []clipboardTool{wl}, lookPath: func(string) (string, error) { return script, nil }}
	do(m, "ctrl+v")
	if got := describeAll(m.input.images); got != "clipboard.png 200×100" {
		t.Fatalf("attached %s", got)
	}

	// Without the tool, Ctrl+V says which one it needs.
	m.opts.clipboard.lookPath = func(string) (string, error) { return "", errors.New("not found") }
	do(m, "ctrl+v")
	if s := screen(m); !strings.Contains(s, "Ctrl+V reads an image from the clipboard with wl-clipboard (wl-paste):\n    install it.") {
		t.Errorf("no word of the missing tool:\n%s", s)
	}
}

func TestClipboardTools(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	tools, why := clipboardTools(env(map[string]string{"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}), "linux")
	if len(tools) != 2 || tools[0].name != "wl-paste" || tools[1].name != "xclip" || why != "" {
		t.Errorf("wayland and X: %+v %q", tools, why)
	}
	if tools, why := clipboardTools(env(nil), "linux"); tools != nil || !strings.Contains(why, "paste the image's path instead") {
		t.Errorf("no display: %+v %q", tools, why)
	}
	if tools, _ := clipboardTools(env(nil), "darwin"); len(tools) != 1 || tools[0].name != "pngpaste" || tools[0].args[0] != "-" {
		t.Errorf("macOS: %+v", tools)
	}
}
