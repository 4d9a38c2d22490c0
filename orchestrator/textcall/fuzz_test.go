package textcall

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// allCases is every table case, used as the fuzz seed corpus.
func allCases() []findCase {
	return slices.Concat(jsonCases(), taggedCases(), xmlCases(), mistralCases(), nearMissCases())
}

func FuzzFind(f *testing.F) {
	for _, tc := range allCases() {
		f.Add(tc.content)
	}
	names := toolNames()
	resolve := Resolver(names)
	f.Fuzz(func(t *testing.T, content string) {
		calls, rest := Find(content, resolve)
		checkFound(t, content, calls, rest, func(name string) bool { return slices.Contains(names, name) })
	})
}

// FuzzJSONEnd checks that jsonEnd accepts exactly what encoding/json does.
func FuzzJSONEnd(f *testing.F) {
	for _, tc := range allCases() {
		if i := strings.IndexAny(tc.content, "{["); i >= 0 {
			f.Add(tc.content[i:])
		}
	}
	f.Add(`[1, -0.5e+3, "\u00e9\n", true, false, null, {"a": []}]`)
	f.Add(`{"a": 01}`)
	f.Add(`["\x"]`)
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" || s[0] != '{' && s[0] != '[' {
			return
		}
		end, ok := jsonEnd(s, 0)
		whole := ok && strings.TrimLeft(s[end:], " \t\r\n") == ""
		if valid := json.Valid([]byte(s)); whole != valid {
			t.Errorf("jsonEnd(%q) = %d, %v; json.Valid = %v", s, end, ok, valid)
		}
		if ok && !json.Valid([]byte(s[:end])) {
			t.Errorf("jsonEnd(%q) accepted %q, which is not JSON", s, s[:end])
		}
		if end < 0 || end > len(s) {
			t.Errorf("jsonEnd(%q) = %d, out of range", s, end)
		}
	})
}
