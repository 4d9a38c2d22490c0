package orchestrator

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"lathe/orchestrator/provider/ollama/ollamatest"
)

// TestDebugLogIsPlain: the debug log shows a call's arguments as the model
// sent them (a shell's "&&" is not "\u0026\u0026"), and the speed of a
// reply as a number.
func TestDebugLogIsPlain(t *testing.T) {
	var log strings.Builder
	e := newEnv(t, nil, func(o *Options) { o.Log = zerolog.New(&log).Level(zerolog.DebugLevel) })
	e.srv.Script(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a && b <c>"}`)}},
		ollamatest.Reply{Content: "Done."},
	)
	if _, err := e.run(t.Context(), "read it"); err != nil {
		t.Fatal(err)
	}
	var sawCall, sawTurn bool
	for line := range strings.Lines(log.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		switch rec["message"] {
		case "tool call":
			sawCall = true
			if args := rec["args"]; args != `{"path":"a && b <c>"}` {
				t.Errorf("args = %q, want them as sent", args)
			}
		case "turn":
			if v, ok := rec["tokens_per_s"]; ok {
				sawTurn = true
				if _, isNumber := v.(float64); !isNumber {
					t.Errorf("tokens_per_s = %#v, want a number", v)
				}
			}
		}
	}
	if !sawCall || !sawTurn {
		t.Errorf("no tool call line or no turn line with tokens_per_s in\n%s", log.String())
	}
}
