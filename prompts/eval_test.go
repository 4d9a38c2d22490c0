package prompts

import (
	"strings"
	"testing"
)

func TestPolyglotRequests(t *testing.T) {
	task := PolyglotTask("# Two Fer\n\nSay one for you.\n", []string{"two_fer.go"})
	for _, want := range []string{"# Two Fer\n\nSay one for you.\n\nUse the instructions above to change these files: two_fer.go.",
		"the tests call them", "install nothing"} {
		if !strings.Contains(task, want) {
			t.Errorf("task request %q lacks %q", task, want)
		}
	}
	retry := PolyglotRetry("--- FAIL: TestShare\n", []string{"a.py", "b.py"})
	if !strings.HasPrefix(retry, "--- FAIL: TestShare\n\nThe tests failed") ||
		!strings.Contains(retry, "do not change them.\nFix the code in a.py, b.py so that they pass.") {
		t.Errorf("retry request %q", retry)
	}
}
