package orchestrator

import (
	"testing"

	"lathe/config"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/prompts"
)

func TestAnnounces(t *testing.T) {
	for text, want := range map[string]bool{
		"Let me create the file:":                                true,
		"I'll now run the tests.":                                true,
		"The config is in main.go. Let me read it.":              true,
		"Okay, next I'll edit `lex.go` to fix the bug…":          true,
		"Okay, I'll edit lex.go to fix the bug…":                 true,
		"Now let me check the output.":                           true,
		"I am going to update the README.":                       true,
		"**Let me search for the function:**":                    true,
		"I created the file and ran the tests.":                  false,
		"Let me know if you need anything else.":                 false,
		"Shall I run the tests?":                                 false,
		"Would you like me to create the file?":                  false,
		"Done. I'll be happy to help further.":                   false,
		"I have updated main.go.":                                false,
		"Let me create it:\n\n```go\npackage main\n```":          false,
		"Here is the summary.\n\nLet me run the build to check.": true,
		"": false,
	} {
		if got := announces(text); got != want {
			t.Errorf("announces(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestAnnouncedNudge: a reply that announces a call it does not make gets
// one nudge, in build mode, never twice in a row; a final summary, other
// modes and the config turned off get none.
func TestAnnouncedNudge(t *testing.T) {
	announce := ollamatest.Reply{Content: "The bug is in a. Let me fix it:"}
	for _, tt := range []struct {
		name    string
		opts    []envOption
		replies []ollamatest.Reply
		nudges  int
		text    string
	}{
		{"nudged, then calls", nil, []ollamatest.Reply{announce,
			{ToolCalls: []ollamatest.ToolCall{call("write", `{"path":"a"}`)}}, {Content: "Fixed a."}}, 1, "Fixed a."},
		{"not twice in a row", nil, []ollamatest.Reply{announce, announce}, 1, announce.Content},
		{"again after a call", nil, []ollamatest.Reply{announce, {ToolCalls: []ollamatest.ToolCall{call("read", `{"path":"a"}`)}},
			announce, {Content: "Done."}}, 2, "Done."},
		{"a summary", nil, []ollamatest.Reply{{Content: "I created the file and ran the tests."}}, 0, "I created the file and ran the tests."},
		{"ask mode", []envOption{withMode(mode.Ask{})}, []ollamatest.Reply{announce}, 0, announce.Content},
		{"turned off", []envOption{withLimits(func(l *config.Limits) { l.NudgeAnnouncements = false })},
			[]ollamatest.Reply{announce}, 0, announce.Content},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil, tt.opts...)
			e.srv.Script(tt.replies...)
			res, err := e.run(t.Context(), "fix a")
			if err != nil || res.StopReason != StopDone || res.Text != tt.text {
				t.Fatalf("res %+v, err %v", res, err)
			}
			if res.Recoveries.AnnouncedNudges != tt.nudges {
				t.Errorf("%d nudges, want %d", res.Recoveries.AnnouncedNudges, tt.nudges)
			}
			if tt.nudges > 0 {
				msgs := e.srv.ChatRequests()[1].Messages
				if last := msgs[len(msgs)-1]; last.Role != "user" || last.Content != prompts.Announced() {
					t.Errorf("the request after the announcement ends with %s %q", last.Role, last.Content)
				}
			}
		})
	}
}
