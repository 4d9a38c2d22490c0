package frontmatter

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	type fields struct {
		Description string   `yaml:"description"`
		Tools       []string `yaml:"allowed-tools"`
	}
	for _, tc := range []struct {
		name, file, desc, body string
		line                   int // of the error; 0 for none
	}{
		{"fields and body", "---\ndescription: Review a branch\nallowed-tools: [a, b]\n---\nReview $1.\n", "Review a branch", "Review $1.\n", 0},
		{"none", "Just text.\n", "", "Just text.\n", 0},
		{"folded", "---\ndescription: >\n  Two\n  lines\n---\nx", "Two lines\n", "x", 0},
		{"byte order mark, CRLF", "\xef\xbb\xbf---\r\ndescription: d\r\n---\r\nbody", "d", "body", 0},
		{"never closed", "---\ndescription: d\nbody\n", "", "", 1},
		{"broken", "---\ndescription: ok\nname: a: b\n---\nbody\n", "", "body\n", 3},
		{"not a mapping", "---\ndescription: a: b\n---\n", "", "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f fields
			body, err := Parse([]byte(tc.file), &f)
			var fe *Error
			switch {
			case tc.line == 0 && err != nil:
				t.Fatalf("error %v", err)
			case tc.line != 0 && (!errors.As(err, &fe) || fe.Line != tc.line):
				t.Fatalf("error %v, want one on line %d", err, tc.line)
			case tc.line != 0:
				return
			}
			if f.Description != tc.desc || string(body) != tc.body {
				t.Errorf("description %q body %q", f.Description, body)
			}
		})
	}
}
