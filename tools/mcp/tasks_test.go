package mcp

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// The tools that require a task are read from the lists as they go by,
// over stdio (lines of JSON) and HTTP (a JSON body, or server-sent
// events), whatever the reads' sizes; a list read again says anew.
func TestWatchLists(t *testing.T) {
	list := func(support string) string {
		return `{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"plain","inputSchema":{"type":"object"}},` +
			`{"name":"research","inputSchema":{"type":"object"},"execution":{"taskSupport":"` + support + `"}}]}}`
	}
	for name, stream := range map[string]string{
		"stdio":     `{"jsonrpc":"2.0","method":"notifications/message"}` + "\n" + list("required") + "\n",
		"json body": list("required"),
		"sse":       "event: message\nid: 1\ndata: " + list("required") + "\n\n",
	} {
		s := &server{taskOnly: map[string]bool{}}
		w := &lineWatch{r: iotest.OneByteReader(strings.NewReader(stream)), fn: s.watchLists}
		got, err := io.ReadAll(w)
		if err != nil || string(got) != stream {
			t.Errorf("%s: passed on %q, %v", name, got, err)
		}
		if !s.taskOnly["research"] || s.taskOnly["plain"] || len(s.taskOnly) != 1 {
			t.Errorf("%s: task-only = %v", name, s.taskOnly)
		}
		s.watchLists([]byte(list("optional")))
		if len(s.taskOnly) != 0 {
			t.Errorf("%s: listed again as optional, still %v", name, s.taskOnly)
		}
	}
	// A line past the bound is passed on, unread.
	s := &server{taskOnly: map[string]bool{}}
	long := list("required") + strings.Repeat(" ", maxLine) + "\n"
	got, _ := io.ReadAll(&lineWatch{r: strings.NewReader(long), fn: s.watchLists})
	if !bytes.Equal(got, []byte(long)) || len(s.taskOnly) != 0 {
		t.Errorf("a long line: %d bytes passed on, task-only %v", len(got), s.taskOnly)
	}
}
