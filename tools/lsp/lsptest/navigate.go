package lsptest

import (
	"encoding/json"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// initialize answers initialize, noting the workspace's directory.
func (s *server) initialize(msg message) {
	var p struct {
		RootURI string `json:"rootUri"`
	}
	_ = json.Unmarshal(msg.Params, &p)
	if u, err := url.Parse(p.RootURI); err == nil {
		s.root = u.Path
	}
	caps := map[string]any{"textDocumentSync": 1}
	if s.mode != ModeBare {
		for _, c := range []string{"definitionProvider", "referencesProvider", "hoverProvider", "workspaceSymbolProvider"} {
			caps[c] = true
		}
	}
	s.reply(msg.ID, map[string]any{"capabilities": caps})
}

// navigate answers a request for definitions, references, a hover or
// symbols, as the mode says; false when the server is to exit.
func (s *server) navigate(msg message) bool {
	switch s.mode {
	case ModeMute:
		return true
	case ModeBreak:
		return false
	case ModeFail:
		s.write(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32603, "message": "internal failure"}})
		return true
	}
	if msg.Method == "workspace/symbol" {
		var p struct {
			Query string `json:"query"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		s.reply(msg.ID, s.symbols(p.Query))
		return true
	}
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
		Position position `json:"position"`
	}
	_ = json.Unmarshal(msg.Params, &p)
	word := wordAt(s.files()[p.TextDocument.URI], p.Position)
	switch msg.Method {
	case "textDocument/definition":
		s.reply(msg.ID, s.definitions(word))
	case "textDocument/references":
		s.reply(msg.ID, s.references(word))
	case "textDocument/hover":
		s.reply(msg.ID, s.hover(word))
	}
	return true
}

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

func location(uri string, line, char, end int) map[string]any {
	return map[string]any{"uri": uri, "range": map[string]any{
		"start": position{line, char}, "end": position{line, end}}}
}

// files are the .fake files of the workspace by URI, the open ones as
// they were sent.
func (s *server) files() map[string]string {
	out := map[string]string{}
	if s.root != "" {
		_ = filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".fake") {
				if b, err := os.ReadFile(p); err == nil {
					out[(&url.URL{Scheme: "file", Path: p}).String()] = string(b)
				}
			}
			return nil
		})
	}
	for u, text := range s.docs {
		out[u] = text
	}
	return out
}

// occurrences calls fn for each whole word of the files that is word,
// with the line it is on, its start and end in UTF-16 units.
func (s *server) occurrences(word string, fn func(uri, line string, n, start, end int)) {
	if word == "" {
		return
	}
	for u, text := range s.files() {
		for n, line := range strings.Split(text, "\n") {
			units := utf16.Encode([]rune(line))
			for i := 0; i < len(units); {
				j := i
				for j < len(units) && isWord(rune(units[j])) {
					j++
				}
				if j > i && string(utf16.Decode(units[i:j])) == word {
					fn(u, line, n, i, j)
				}
				i = j + 1
			}
		}
	}
}

// definitions are where word follows "def ": everywhere in the flood.
func (s *server) definitions(word string) []map[string]any {
	var out []map[string]any
	s.occurrences(word, func(uri, line string, n, start, end int) {
		if strings.HasSuffix(string(utf16.Decode(utf16.Encode([]rune(line))[:start])), "def ") {
			out = append(out, location(uri, n, start, end))
		}
	})
	switch {
	case s.mode == ModeFlood && len(out) > 0:
		for i := range 5000 {
			out = append(out, location("file://"+s.root+"/gen"+strconv.Itoa(i)+".fake", 0, 4, 5))
		}
	case s.mode == ModeOutside && len(out) > 0:
		out = append(out, location("file:///etc/passwd", 0, 0, 4), location("jdt://contents/x.class", 3, 1, 2),
			location("file://"+s.root+"/../elsewhere.fake", 1, 0, 1))
	}
	return out
}

// references are every use of word, its definitions included.
func (s *server) references(word string) []map[string]any {
	var out []map[string]any
	s.occurrences(word, func(uri, _ string, n, start, end int) {
		out = append(out, location(uri, n, start, end))
	})
	switch {
	case s.mode == ModeFlood && len(out) > 0:
		u := out[0]["uri"].(string)
		for i := range 20000 {
			out = append(out, location(u, 1000+i, 0, 1))
		}
	case s.mode == ModeOutside && len(out) > 0:
		out = append(out, location("file:///etc/passwd", 0, 0, 4))
	}
	return out
}

// hover says where word is defined; nothing when it is not.
func (s *server) hover(word string) any {
	defs := s.definitions(word)
	if len(defs) == 0 {
		return nil
	}
	text := "def " + word + "\n\ndefined on line " + strconv.Itoa(defs[0]["range"].(map[string]any)["start"].(position).Line+1)
	if s.mode == ModeFlood {
		text += strings.Repeat(" and more", 100000)
	}
	return map[string]any{"contents": map[string]any{"kind": "plaintext", "value": text}}
}

// symbols are the definitions whose word matches query as gopls's fuzzy
// matcher does (its letters in order, ignoring case), each with its
// whole line as its range.
func (s *server) symbols(query string) []map[string]any {
	out := []map[string]any{}
	for u, text := range s.files() {
		for n, line := range strings.Split(text, "\n") {
			rest, ok := strings.CutPrefix(line, "def ")
			if !ok {
				continue
			}
			name := strings.FieldsFunc(rest, func(r rune) bool { return !isWord(r) })
			if len(name) > 0 && fuzzy(name[0], query) {
				out = append(out, map[string]any{"name": name[0], "kind": 12, "containerName": "fake",
					"location": location(u, n, 0, len(utf16.Encode([]rune(line))))})
			}
		}
	}
	if s.mode == ModeFlood {
		for i := range 20000 {
			out = append(out, map[string]any{"name": query + strconv.Itoa(i), "kind": 13,
				"location": location("file://"+s.root+"/gen.fake", i, 0, 1)})
		}
	}
	return out
}

// fuzzy reports whether the letters of query are in name, in order,
// ignoring case.
func fuzzy(name, query string) bool {
	name = strings.ToLower(name)
	for _, r := range strings.ToLower(query) {
		i := strings.IndexRune(name, r)
		if i < 0 {
			return false
		}
		name = name[i+len(string(r)):]
	}
	return true
}

// wordAt is the word at pos of text; "" when there is none.
func wordAt(text string, pos position) string {
	lines := strings.Split(text, "\n")
	if pos.Line >= len(lines) {
		return ""
	}
	units := utf16.Encode([]rune(lines[pos.Line]))
	if pos.Character > len(units) {
		return ""
	}
	i, j := pos.Character, pos.Character
	for i > 0 && isWord(rune(units[i-1])) {
		i--
	}
	for j < len(units) && isWord(rune(units[j])) {
		j++
	}
	return string(utf16.Decode(units[i:j]))
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
