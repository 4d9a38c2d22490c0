package config

import "testing"

func TestQuoteHint(t *testing.T) {
	tests := []struct {
		name, doc string
		line, col int
		want      string
	}{
		{"bare word", "model = qwen3\n", 1, 9, `model = "qwen3"`},
		{"inside the word", "x = trueish\n", 1, 9, `x = "trueish"`},
		{"in a list", "tools = [\"a\", edit_file]\n", 1, 15, `"edit_file"`},
		{"a keyword is no string", "x = true false\n", 1, 10, ""},
		{"a number is no string", "max_turns = 1x\n", 1, 13, ""},
		{"not after =, [ or ,", "model = \"a\" b\n", 1, 13, ""},
		{"beyond the document", "model = a\n", 5, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := quoteHint([]byte(tt.doc), tt.line, tt.col); got != tt.want {
				t.Errorf("quoteHint = %q, want %q", got, tt.want)
			}
		})
	}
}
