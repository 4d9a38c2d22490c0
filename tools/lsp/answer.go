package lsp

import (
	"encoding/json"
	"strings"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// location is a Location as a server sends it: its URI may be of any
// scheme (protocol.DocumentURI takes only files).
type location struct {
	URI   string         `json:"uri"`
	Range protocol.Range `json:"range"`
}

// locations reads an answer of definition or references: a Location, a
// list of them, or of LocationLinks (sent by some servers whether asked
// for or not); null is none.
func locations(raw json.RawMessage) []location {
	type either struct {
		URI                  string         `json:"uri"`
		Range                protocol.Range `json:"range"`
		TargetURI            string         `json:"targetUri"`
		TargetSelectionRange protocol.Range `json:"targetSelectionRange"`
	}
	var list []either
	if err := json.Unmarshal(raw, &list); err != nil {
		var one either
		if json.Unmarshal(raw, &one) != nil {
			return nil
		}
		list = []either{one}
	}
	out := make([]location, 0, len(list))
	for _, l := range list {
		switch {
		case l.URI != "":
			out = append(out, location{URI: l.URI, Range: l.Range})
		case l.TargetURI != "":
			out = append(out, location{URI: l.TargetURI, Range: l.TargetSelectionRange})
		}
	}
	return out
}

// hoverText reads an answer of hover: its contents, markup or plain, one
// piece or several; "" for none.
func hoverText(raw json.RawMessage) string {
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(raw, &h) != nil || len(h.Contents) == 0 {
		return ""
	}
	var pieces []json.RawMessage
	if json.Unmarshal(h.Contents, &pieces) != nil {
		pieces = []json.RawMessage{h.Contents}
	}
	var out []string
	for _, p := range pieces {
		var s string
		if json.Unmarshal(p, &s) == nil {
			out = append(out, s)
			continue
		}
		var m struct {
			Kind     string `json:"kind"`
			Language string `json:"language"`
			Value    string `json:"value"`
		}
		if json.Unmarshal(p, &m) != nil {
			continue
		}
		if m.Language != "" {
			m.Value = "```" + m.Language + "\n" + m.Value + "\n```"
		}
		out = append(out, m.Value)
	}
	return tidy(strings.Join(out, "\n\n"))
}

// tidy trims the lines of s and keeps no more than one blank line in a
// row.
func tidy(s string) string {
	var b strings.Builder
	blank := false
	for _, l := range strings.Split(strings.ReplaceAll(s, "\r", ""), "\n") {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			blank = b.Len() > 0
			continue
		}
		if blank {
			b.WriteString("\n")
			blank = false
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(l)
	}
	return b.String()
}

// symbol is one answer of workspace/symbol (SymbolInformation or
// WorkspaceSymbol: the same fields, as far as lathe reads them).
type symbol struct {
	Name      string              `json:"name"`
	Kind      protocol.SymbolKind `json:"kind"`
	Container string              `json:"containerName"`
	Location  location            `json:"location"`
}

// symbolKinds name the protocol's kinds of symbols.
var symbolKinds = map[protocol.SymbolKind]string{
	1: "file", 2: "module", 3: "namespace", 4: "package", 5: "class", 6: "method", 7: "property", 8: "field",
	9: "constructor", 10: "enum", 11: "interface", 12: "function", 13: "variable", 14: "constant", 15: "string",
	16: "number", 17: "boolean", 18: "array", 19: "object", 20: "key", 21: "null", 22: "enum member",
	23: "struct", 24: "event", 25: "operator", 26: "type parameter",
}

// named reports how well s answers to name: 2 when its name, or its name
// qualified by its container, is name or ends with "."+name; 1 for the
// same ignoring case; 0 otherwise.
func (s symbol) named(name string) int {
	full := s.Name
	if s.Container != "" && !strings.Contains(s.Name, ".") {
		full = s.Container + "." + s.Name
	}
	for _, fold := range []bool{false, true} {
		for _, n := range []string{s.Name, full} {
			if fold {
				n, name = strings.ToLower(n), strings.ToLower(name)
			}
			if n == name || strings.HasSuffix(n, "."+name) {
				if fold {
					return 1
				}
				return 2
			}
		}
	}
	return 0
}
