package textcall

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// toolNames are lathe's tools, as a registry would list them.
func toolNames() []string {
	return []string{"read_file", "write_file", "edit_file", "list_dir", "glob", "grep", "shell"}
}

// call is a Call with its arguments as a string, for comparing.
type call struct {
	name, args string
}

// findCase is content as a model wrote it, and what Find must make of it.
type findCase struct {
	name    string
	content string
	calls   []call // nil: no call
	rest    string
}

// nearMiss is a case that holds no call: Find must leave content alone.
func nearMiss(name, content string) findCase {
	return findCase{name: name, content: content, rest: content}
}

// md lets a test write Markdown in a raw string: every ‵ becomes a backtick.
func md(s string) string { return strings.ReplaceAll(s, "‵", "`") }

func runFindCases(t *testing.T, cases []findCase) {
	t.Helper()
	resolve := Resolver(toolNames())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls, rest := Find(tc.content, resolve)
			if tc.calls == nil && calls != nil {
				t.Errorf("calls = %v, want nil", plain(calls))
			}
			if got := plain(calls); !slices.Equal(got, tc.calls) {
				t.Errorf("calls:\n got %q\nwant %q", got, tc.calls)
			}
			if rest != tc.rest {
				t.Errorf("rest:\n got %q\nwant %q", rest, tc.rest)
			}
		})
	}
}

func plain(calls []Call) []call {
	var out []call
	for _, c := range calls {
		out = append(out, call{c.Name, string(c.Arguments)})
	}
	return out
}

// checkFound checks what must hold of any result of Find.
func checkFound(t *testing.T, content string, calls []Call, rest string, accepted func(string) bool) {
	t.Helper()
	if len(calls) == 0 {
		if calls != nil || rest != content {
			t.Fatalf("no calls, but calls = %#v and rest = %q, want nil and %q", calls, rest, content)
		}
		return
	}
	if len(rest) > len(content) {
		t.Errorf("rest %q is longer than content %q", rest, content)
	}
	for _, c := range calls {
		if !accepted(c.Name) {
			t.Errorf("call to %q, a name resolve never returned", c.Name)
		}
		if a := strings.TrimLeft(string(c.Arguments), " \t\r\n"); !strings.HasPrefix(a, "{") || !json.Valid(c.Arguments) {
			t.Errorf("call %s: arguments %q are not a JSON object", c.Name, c.Arguments)
		}
	}
}
