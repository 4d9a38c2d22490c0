package textcall

import (
	"slices"
	"strings"
	"testing"
)

// TestFindLargeInputs feeds Find half a megabyte of each pathological
// pattern and checks it keeps its guarantees; BenchmarkFindLarge measures
// that it stays linear (a quadratic walk would take minutes here).
func TestFindLargeInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("large inputs")
	}
	const size = 1 << 19
	tests := []struct {
		name, unit string
		calls      int // calls per unit
	}{
		{"unclosed objects", `{"a":`, 0},
		{"unclosed arrays", "[", 0},
		{"unclosed strings", `{"`, 0},
		{"unclosed functions", "<function=read_file><parameter=path>", 0},
		{"unclosed tags", `<tool_call>{"name":"read_file"`, 0},
		{"tags missing their closing tag", `<tool_call>{"name":"list_dir"}`, 1},
		{"mistral markers", "[TOOL_CALLS]read_file", 0},
		{"backtick runs", "` `` ``` ```` ", 0},
		{"fence lines", "```\n", 0},
		{"thinking tags", "<think>", 0},
		{"prose with brackets", "word {x} [y] <z> ", 0},
		{"calls", `{"name":"read_file","arguments":{"path":"a"}} `, 1},
		{"xml calls", "<function=read_file><parameter=path>a</parameter></function>", 1},
	}
	names := toolNames()
	accepted := func(name string) bool { return slices.Contains(names, name) }
	resolve := Resolver(names)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			units := size / len(tt.unit)
			content := strings.Repeat(tt.unit, units)
			calls, rest := Find(content, resolve)
			if len(calls) != units*tt.calls {
				t.Errorf("found %d calls, want %d", len(calls), units*tt.calls)
			}
			checkFound(t, content, calls, rest, accepted)
		})
	}
}

func TestJSONEndDepth(t *testing.T) {
	tests := []struct {
		name  string
		depth int
		ok    bool
	}{
		{"at the limit", maxDepth, true},
		{"past the limit", maxDepth + 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := strings.Repeat("[", tt.depth) + strings.Repeat("]", tt.depth)
			if _, ok := jsonEnd(s, 0); ok != tt.ok {
				t.Errorf("jsonEnd at depth %d: ok = %v, want %v", tt.depth, ok, tt.ok)
			}
		})
	}
}

// BenchmarkFindLarge measures Find per byte on 512 KB inputs of the
// patterns most likely to make a scanner quadratic.
func BenchmarkFindLarge(b *testing.B) {
	resolve := Resolver(toolNames())
	for _, unit := range []string{`{"a":`, "<function=read_file><parameter=path>", "` `` ``` ```` ",
		`{"name":"read_file","arguments":{"path":"a"}} `} {
		content := strings.Repeat(unit, (1<<19)/len(unit))
		b.Run(strings.Fields(unit)[0], func(b *testing.B) {
			b.SetBytes(int64(len(content)))
			for b.Loop() {
				Find(content, resolve)
			}
		})
	}
}
