package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 80)
	for _, tc := range []struct{ server, tool, want string }{
		{"github", "create_issue", "github__create_issue"},
		{"my.server", "list files/now", "my_server__list_files_now"},
		{"db", "query-rows", "db__query-rows"},
		{"é", "", "____"},
	} {
		if got := ToolName(tc.server, tc.tool); got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	a, b := ToolName("s", long+"a"), ToolName("s", long+"b")
	if len(a) != 64 || len(b) != 64 || a == b || !strings.HasPrefix(a, "s__xxx") {
		t.Errorf("long names: %q, %q: want 64 characters, apart", a, b)
	}
	if again := ToolName("s", long+"a"); again != a {
		t.Errorf("not stable: %q then %q", a, again)
	}
	taken := map[string]bool{"s__a_b": true}
	if got := uniqueName("s__a_b", "s", "a.b", taken); got == "s__a_b" || len(got) > 64 {
		t.Errorf("a taken name: %q", got)
	}
}

func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"Create an issue. It needs a title.":           "Create an issue.",
		"List files, e.g. the ones in src. Then stop.": "List files, e.g. the ones in src.",
		"One line\nwrapped here.\n\nA new paragraph.":  "One line wrapped here.",
		"No full stop":                                  "No full stop",
		strings.Repeat("word ", 60):                     strings.TrimSpace(strings.Repeat("word ", 40)) + "…",
		"Version 1.2 is supported. Later ones are not.": "Version 1.2 is supported.",
	} {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMinifySchema(t *testing.T) {
	in := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","title":"Args",
	"properties":{
	  "title":{"type":"string","description":"The issue's title. Keep it short.","examples":["Bug"]},
	  "owner":{"$ref":"#/$defs/user"},
	  "tree":{"$ref":"#/$defs/node"}},
	"required":["title"],
	"$defs":{
	  "user":{"type":"object","properties":{"login":{"type":"string","description":"A login. Lowercase."}}},
	  "node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`
	got := string(minifySchema(json.RawMessage(in)))
	want := `{"properties":{"owner":{"properties":{"login":{"description":"A login.","type":"string"}},"type":"object"},` +
		`"title":{"description":"The issue's title.","type":"string"},` +
		`"tree":{"properties":{"kids":{"items":{"type":"object"},"type":"array"}},"type":"object"}},` +
		`"required":["title"],"type":"object"}`
	if got != want {
		t.Errorf("minified:\n%s\nwant\n%s", got, want)
	}
	if got := string(minifySchema(json.RawMessage(`[1]`))); got != `{"type":"object"}` {
		t.Errorf("a schema that is no object: %s", got)
	}
}
