package ui

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/images"
	"lathe/prompts/human"
)

// imageExts are the extensions of the files a pasted path or an @path
// attaches; the bytes decide what the file really is.
var imageExts = []string{".png", ".jpg", ".jpeg", ".gif", ".webp"}

func hasImageExt(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	for _, e := range imageExts {
		if ext == e {
			return true
		}
	}
	return false
}

// pastedPaths reads pasted text as the paths of image files, as terminals
// paste a file dragged onto them: one or more paths, each maybe quoted
// ('…' or "…"), with spaces escaped (\ ), or as a file:// URL. It reports
// false when the text is anything else: it is then pasted as text.
func pastedPaths(text string) ([]string, bool) {
	text = strings.TrimSpace(text)
	if text == "" || strings.ContainsAny(text, "\n\r") && !allLinesPaths(text) {
		return nil, false
	}
	words, ok := shellWords(text)
	if ok && len(words) > 0 {
		if paths, ok := imagePaths(words); ok {
			return paths, true
		}
	}
	if strings.ContainsAny(text, `'"`) || !pathLike(text) {
		return nil, false
	}
	// A path with spaces pasted bare.
	return imagePaths([]string{text})
}

// pathLike reports whether text starts as a path does, from the root, the
// home or the working directory: a prompt that merely ends in ".png" is
// no path.
func pathLike(text string) bool {
	for _, start := range []string{"/", "~/", "./", "../", "file://"} {
		if strings.HasPrefix(text, start) {
			return true
		}
	}
	return false
}

// allLinesPaths reports whether each line of text holds something: a
// drag of several files may come a path a line.
func allLinesPaths(text string) bool {
	for l := range strings.Lines(text) {
		if strings.TrimSpace(l) == "" {
			return false
		}
	}
	return true
}

// imagePaths turns words into paths, file:// URLs decoded, if each names
// an image file by its extension.
func imagePaths(words []string) ([]string, bool) {
	out := make([]string, 0, len(words))
	for _, w := range words {
		if strings.HasPrefix(w, "file://") {
			u, err := url.Parse(w)
			if err != nil || u.Path == "" {
				return nil, false
			}
			w = u.Path
		}
		if !hasImageExt(w) {
			return nil, false
		}
		out = append(out, w)
	}
	return out, len(out) > 0
}

// shellWords splits text into words as a shell would: blanks separate,
// '…' quotes literally, "…" quotes with \ escaping, a \ outside quotes
// escapes the next character. It reports false for an open quote.
func shellWords(text string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	inWord := false
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			inWord = true
		case r == '\'' || r == '"':
			end := i + 1
			for end < len(rs) && rs[end] != r {
				if r == '"' && rs[end] == '\\' && end+1 < len(rs) {
					end++
				}
				cur.WriteRune(rs[end])
				end++
			}
			if end == len(rs) {
				return nil, false
			}
			i, inWord = end, true
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}

// atPaths are the @paths of text that name image files by their
// extension, with the text left without them (and the blank before each).
// An @path is written as a shell word: its blanks escaped (@my\ shot.png)
// or quoted (@'my shot.png', @"my shot.png"); punctuation after an
// unquoted one (a "?") stays in the text.
func atPaths(text string) (paths []string, rest string) {
	var b strings.Builder
	from := 0 // what is not written yet
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || i > 0 && !isBlank(text[i-1]) {
			continue
		}
		raw, end, quoted, ok := shellWordAt(text, i+1)
		if !ok {
			continue
		}
		if !quoted {
			trimmed := strings.TrimRight(raw, "?!,.;:)")
			end -= len(raw) - len(trimmed)
			raw = trimmed
		}
		words, ok := shellWords(raw)
		if !ok || len(words) != 1 || !hasImageExt(words[0]) {
			continue
		}
		paths = append(paths, words[0])
		cut := i
		if cut > 0 {
			cut-- // the blank before it
		}
		b.WriteString(text[from:max(cut, from)])
		from, i = end, end-1
	}
	b.WriteString(text[from:])
	return paths, strings.TrimSpace(b.String())
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// shellWordAt reads the shell word of text starting at i, as shellWords
// reads one: raw is its text as written, end where it ends; quoted says a
// quote closed it. It reports false for an open quote.
func shellWordAt(text string, i int) (raw string, end int, quoted, ok bool) {
	j := i
	for j < len(text) && !isBlank(text[j]) {
		switch c := text[j]; {
		case c == '\\' && j+1 < len(text):
			j += 2
		case c == '\'' || c == '"':
			k := j + 1
			for k < len(text) && text[k] != c {
				if c == '"' && text[k] == '\\' {
					k++
				}
				k++
			}
			if k >= len(text) {
				return "", 0, false, false
			}
			j, quoted = k+1, true
		default:
			j++
			quoted = false
		}
	}
	return text[i:j], j, quoted, j > i
}

// imagesReadMsg is the images of pasted text, an @path or the clipboard, read
// in the background.
type imagesReadMsg struct {
	imgs []provider.Image
	err  error
	// text is the pasted text, put into the input as text when its paths
	// name no file; send is the prompt to send once the images of its
	// @paths are attached; remove is an @path typed, taken out of the
	// input once attached.
	text, remove string
	send         *string
	paste        bool
}

// readImages reads the image files at paths (relative to dir), in the
// background.
func (m *model) readImages(paths []string, msg imagesReadMsg) tea.Cmd {
	lim := m.imageLimits()
	dir, home := m.opts.Dir, m.opts.Home
	return func() tea.Msg {
		for _, p := range paths {
			switch {
			case strings.HasPrefix(p, "~/") && home != "":
				p = filepath.Join(home, p[2:])
			case !filepath.IsAbs(p):
				p = filepath.Join(dir, p)
			}
			img, err := images.Read(p, lim)
			if err != nil {
				msg.err = err
				return msg
			}
			msg.imgs = append(msg.imgs, img)
		}
		return msg
	}
}

func (m *model) imageLimits() images.Limits {
	c := m.opts.Engine.Config.Images
	return images.Limits{MaxEdge: c.MaxEdge, MaxBytes: c.MaxBytes}
}

// paste takes pasted text: the paths of image files become attachments,
// anything else is text for the input.
func (m *model) paste(msg tea.PasteMsg) tea.Cmd {
	if m.dialog != nil || m.panel != nil {
		return nil // a panel hides the input
	}
	if paths, ok := pastedPaths(msg.Content); ok {
		return m.readImages(paths, imagesReadMsg{text: msg.Content, paste: true})
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// imagesArrived attaches what was read, or says why it could not be.
func (m *model) imagesArrived(msg imagesReadMsg) tea.Cmd {
	if msg.err != nil {
		if msg.paste && errors.Is(msg.err, os.ErrNotExist) {
			// Not a path after all: the text as pasted.
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(tea.PasteMsg{Content: msg.text})
			return cmd
		}
		m.notice(noticeError, "Cannot attach the image", msg.err.Error())
		m.setStatusNote("an image was not attached: mend its path, or take it out")
		if !msg.paste && msg.remove == "" && m.input.value() == "" {
			m.input.set(msg.text) // what was typed, to mend
		}
		return nil
	}
	if msg.remove != "" {
		if v := m.input.value(); strings.Contains(v, msg.remove) {
			i := strings.LastIndex(v, msg.remove)
			m.input.set(v[:i] + v[i+len(msg.remove):])
		}
	}
	m.input.attach(msg.imgs...)
	if msg.send != nil {
		return m.send(*msg.send)
	}
	return nil
}

// typedAtPath attaches the @path just finished by a blank, when it names
// an image file.
func (m *model) typedAtPath() tea.Cmd {
	v := m.input.value()
	if !strings.HasSuffix(v, " ") {
		return nil
	}
	fields := strings.Fields(v)
	if len(fields) == 0 {
		return nil
	}
	last := fields[len(fields)-1]
	if !strings.HasPrefix(last, "@") || !hasImageExt(last) {
		return nil
	}
	return m.readImages([]string{last[1:]}, imagesReadMsg{remove: last + " "})
}

// chip is how an attachment shows in the input.
func chip(i int, img provider.Image) string {
	return fmt.Sprintf("[image %d: %s %d×%d · ~%s tokens]", i+1, human.Visible(img.Name), img.Width, img.Height,
		human.Thousands(img.Tokens()))
}

// chipsView is the attachments of the input, with how to remove them,
// in lines of at most width columns, a chip never cut but by a line
// narrower than itself.
func chipsView(imgs []provider.Image, width int) string {
	words := make([]string, len(imgs), len(imgs)+1)
	for i, img := range imgs {
		words[i] = chip(i, img)
	}
	words = append(words, "(backspace removes the last)")
	var lines []string
	line := ""
	for _, w := range words {
		switch {
		case line == "":
			line = w
		case ansi.StringWidth(line)+1+ansi.StringWidth(w) <= width:
			line += " " + w
		default:
			lines, line = append(lines, line), w
		}
	}
	return ansi.Hardwrap(strings.Join(append(lines, line), "\n"), width, true)
}
