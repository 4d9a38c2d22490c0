package openai

import (
	"strings"
	"testing"

	oai "github.com/openai/openai-go/v3"
)

func delta(id, name, args string) []oai.ChatCompletionChunkChoiceDeltaToolCall {
	return []oai.ChatCompletionChunkChoiceDeltaToolCall{{ID: id,
		Function: oai.ChatCompletionChunkChoiceDeltaToolCallFunction{Name: name, Arguments: args}}}
}

// TestWholeArgumentsResent: a server that sends a call's whole arguments
// again once they are complete does not get them twice; a fragment that
// only looks like the text so far is kept.
func TestWholeArgumentsResent(t *testing.T) {
	for _, c := range []struct {
		name   string
		deltas [][]oai.ChatCompletionChunkChoiceDeltaToolCall
		want   string
	}{
		{"resent", [][]oai.ChatCompletionChunkChoiceDeltaToolCall{
			delta("c1", "read_file", `{"path":`), delta("", "", `"a"}`), delta("", "", `{"path":"a"}`)}, `{"path":"a"}`},
		{"same text, not yet whole", [][]oai.ChatCompletionChunkChoiceDeltaToolCall{
			delta("c1", "grep", `{"p":"ab`), delta("", "", `{"p":"ab`)}, `"{\"p\":\"ab{\"p\":\"ab"`},
	} {
		var a callAssembler
		for _, d := range c.deltas {
			a.add(d)
		}
		if got := a.result(); len(got) != 1 || string(got[0].Arguments) != c.want {
			t.Errorf("%s: %+v, want arguments %s", c.name, got, c.want)
		}
	}
}

// BenchmarkAssembleLongCall: a write_file call of 64 KB of content,
// streamed a few bytes a delta as models write it. What a delta costs
// must not grow with what came before it.
func BenchmarkAssembleLongCall(b *testing.B) {
	args := `{"path":"big.go","content":"` + strings.Repeat(`line of code\n`, 64<<10/14) + `"}`
	var deltas [][]oai.ChatCompletionChunkChoiceDeltaToolCall
	deltas = append(deltas, []oai.ChatCompletionChunkChoiceDeltaToolCall{{ID: "c1",
		Function: oai.ChatCompletionChunkChoiceDeltaToolCallFunction{Name: "write_file"}}})
	for i := 0; i < len(args); i += 4 {
		deltas = append(deltas, []oai.ChatCompletionChunkChoiceDeltaToolCall{{
			Function: oai.ChatCompletionChunkChoiceDeltaToolCallFunction{Arguments: args[i:min(i+4, len(args))]}}})
	}
	b.ReportAllocs()
	for b.Loop() {
		var a callAssembler
		for _, d := range deltas {
			a.add(d)
		}
		if got := a.result(); len(got) != 1 || string(got[0].Arguments) != args {
			b.Fatalf("assembled %d calls", len(got))
		}
	}
}
