// Package frontmatter reads Markdown files that open with YAML front
// matter, as agents' prompt files are written (Claude Code's commands,
// Agent Skills' SKILL.md): the fields between the two "---" lines, and the
// body after them, with errors placed on the file's own lines.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is front matter that cannot be read, at a line of the file (1
// for the file's first line; 0 when unknown).
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// Split cuts a file into its front matter (without the "---" lines) and
// its body. A file that does not open with "---" has none; one whose
// front matter is never closed is an *Error.
func Split(data []byte) (front, body []byte, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a byte order mark
	first, rest, ok := cutLine(data)
	if !ok && len(first) == 0 || string(bytes.TrimRight(first, " \t\r")) != "---" {
		return nil, data, nil
	}
	start := len(data) - len(rest)
	for pos := start; pos < len(data); {
		line, _, _ := cutLine(data[pos:])
		next := pos + len(line) + 1
		if s := string(bytes.TrimRight(line, " \t\r")); s == "---" || s == "..." {
			return data[start:pos], data[min(next, len(data)):], nil
		}
		pos = next
	}
	return nil, nil, &Error{Line: 1, Msg: `the front matter opened with "---" is never closed with another "---" line`}
}

func cutLine(b []byte) (line, rest []byte, found bool) {
	return bytes.Cut(b, []byte("\n"))
}

// Parse reads a file's front matter into v (a struct with yaml tags, or a
// map) and returns its body. Errors name the file's line.
func Parse(data []byte, v any) (body []byte, err error) {
	front, body, err := Split(data)
	if err != nil || front == nil {
		return body, err
	}
	if err := yaml.Unmarshal(front, v); err != nil {
		return body, placed(err)
	}
	return body, nil
}

// yamlLine is where yaml.v3 says an error is.
var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// placed turns a yaml.v3 error into an *Error on the file's line: the
// front matter starts on the file's second.
func placed(err error) *Error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		err = errors.New(te.Errors[0])
	}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &Error{Line: n + 1, Msg: m[2]}
	}
	// yaml.v3 leaves the line out when it is the first.
	return &Error{Line: 2, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
}
