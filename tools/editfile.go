package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

func editFileSpec() spec {
	return spec{
		name: "edit_file",
		desc: "Replace exact text in a file. old_string must match exactly once, whitespace included, unless replace_all is true.",
		params: []param{
			{name: "path", typ: typeString, required: true, desc: "File path, relative to the working directory"},
			{name: "old_string", typ: typeString, required: true, desc: "Exact text to replace; include enough lines to be unique"},
			{name: "new_string", typ: typeString, required: true, desc: "Replacement text"},
			{name: "replace_all", typ: typeBoolean, desc: "Replace every occurrence (default false)"},
		},
	}
}

type editFileArgs struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

type editFile struct {
	base
	ws *Workspace
}

func (*editFile) ReadOnly() bool { return false }

func (t *editFile) Prepare(raw json.RawMessage) (Call, error) {
	return prepare(&t.base, raw, func(a editFileArgs) (Call, error) {
		rel, err := fileRel(t.ws, a.Path)
		switch {
		case err != nil:
			return nil, err
		case a.OldString == "":
			return nil, errors.New("old_string is empty; to create or replace a whole file use write_file")
		case a.OldString == a.NewString:
			return nil, errors.New("old_string and new_string are the same; there is nothing to change")
		}
		return &editFileCall{ws: t.ws, rel: rel, args: a}, nil
	})
}

type editFileCall struct {
	ws   *Workspace
	rel  string
	args editFileArgs
}

func (c *editFileCall) Subject() string { return c.rel }

func (c *editFileCall) Run(ctx context.Context) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	target, err := c.ws.follow(c.rel)
	if err != nil {
		return Errorf("refused", err.Error()), nil
	}
	data, err := c.ws.readFile(c.rel, target)
	if errors.Is(err, fs.ErrNotExist) {
		return Errorf("not found", c.rel+" does not exist; use write_file to create a file, or glob to find one"), nil
	}
	if err != nil {
		return Errorf("failed", err.Error()), nil
	}
	if isBinary(data) {
		return Errorf("binary", c.rel+" is a binary file; edit_file only edits text"), nil
	}
	a := c.args
	out, lines, err := applyEdit(string(data), a.OldString, a.NewString, a.ReplaceAll)
	if err != nil {
		return matchFailure(c.rel, err), nil
	}
	mode, _, err := c.ws.fileMode(target)
	if err == nil {
		err = c.ws.writeAtomic(target, []byte(out), mode)
	}
	if err != nil {
		return Errorf("failed", err.Error()), nil
	}
	n := plural(len(lines), "replacement")
	return Result{Content: fmt.Sprintf("edited %s: %s at %s", target, n, lineList(lines, len(lines))), Summary: n}, nil
}

// matchFailure is the result of an edit whose old_string did not match
// exactly once.
func matchFailure(rel string, err error) Result {
	var amb *ambiguousError
	if errors.As(err, &amb) {
		return Errorf("ambiguous", fmt.Sprintf(
			"old_string matches %d times in %s (at %s); the file was not changed. "+
				"Include more surrounding lines to make it unique, or set replace_all to true.",
			amb.count, rel, lineList(amb.lines, amb.count)))
	}
	return Errorf("no match", fmt.Sprintf(
		"old_string was not found in %s; the file was not changed. "+
			"It must match exactly, whitespace and indentation included: read_file the region and copy it.", rel))
}

// lineList formats the first line numbers of total as "line 3" or
// "lines 3, 8, 20, ...".
func lineList(lines []int, total int) string {
	if total == 1 {
		return "line " + strconv.Itoa(lines[0])
	}
	parts := make([]string, 0, min(len(lines), maxListedLines)+1)
	for _, l := range lines[:min(len(lines), maxListedLines)] {
		parts = append(parts, strconv.Itoa(l))
	}
	if total > len(parts) {
		parts = append(parts, "...")
	}
	return "lines " + strings.Join(parts, ", ")
}
