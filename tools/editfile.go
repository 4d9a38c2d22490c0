package tools

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"lathe/prompts"
	"lathe/prompts/human"
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
	ws   *Workspace
	prot protection
}

func (*editFile) Kind() Kind { return KindWrite }

// Aliases implements Aliased: Claude Code's names for the tool.
func (*editFile) Aliases() []string { return []string{"Edit", "MultiEdit"} }

func (t *editFile) Prepare(raw json.RawMessage) (Call, error) {
	return prepare(&t.base, raw, func(a editFileArgs) (Call, error) {
		rel, err := fileRel(t.ws, a.Path)
		if err == nil {
			err = t.prot.check(rel)
		}
		switch {
		case err != nil:
			return nil, err
		case a.OldString == "":
			return nil, errors.New("old_string is empty; " + prompts.Hint(prompts.HintWholeFile))
		case a.OldString == a.NewString:
			return nil, errors.New("old_string and new_string are the same; there is nothing to change")
		}
		return &editFileCall{ws: t.ws, prot: t.prot, rel: rel, args: a}, nil
	})
}

type editFileCall struct {
	ws   *Workspace
	prot protection
	rel  string
	args editFileArgs
}

func (c *editFileCall) Subject() string { return c.rel }

// Run implements Call: the edit plan works out is written, and the content
// written becomes what the model has seen of the file.
func (c *editFileCall) Run(ctx context.Context, caller Caller) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	p, ee := c.plan(ctx)
	if ee != nil {
		return ee.result(), nil
	}
	note, err := c.ws.writeAtomic(ctx, p.target, []byte(p.edit.out), p.mode)
	if err != nil {
		return Errorf("failed", err.Error()), nil
	}
	c.ws.seen.record(p.target, sha256.Sum256([]byte(p.edit.out)))
	res := p.result()
	res.Content += noteLine(note)
	c.ws.check(ctx, caller, &res, FileChange{Path: p.target, Before: []byte(p.before), Known: true})
	return res, nil
}

// editPlan is an edit worked out against the file as it is now.
type editPlan struct {
	target string      // the file, after symlinks
	mode   fs.FileMode // its mode, kept by the rewrite
	before string      // its content now
	edit   edit
}

// plan reads the file and works out the edit, writing nothing. Its error
// is for the model: what Run returns and Preview reports.
// maxEdit is the largest file edit_file loads to edit.
const maxEdit = 10 << 20

func (c *editFileCall) plan(ctx context.Context) (editPlan, *editError) {
	target, err := c.ws.follow(c.rel)
	if err == nil {
		err = c.prot.check(c.rel) // again: a link may have appeared since Prepare
	}
	if err != nil {
		return editPlan{}, &editError{"refused", err.Error(), err}
	}
	data, fi, err := c.ws.readFileLimit(ctx, c.rel, target, maxEdit)
	var large *tooLargeError
	switch {
	case errors.As(err, &large):
		return editPlan{}, &editError{"too large", fmt.Sprintf("%s is %s: edit_file edits files up to %s; "+
			"%s", c.rel, human.Size(large.size), human.Size(maxEdit), prompts.Hint(prompts.HintTooLargeToEdit)), err}
	case errors.Is(err, fs.ErrNotExist):
		return editPlan{}, &editError{"not found", c.rel + " does not exist; " + prompts.Hint(prompts.HintCreateOrFind), err}
	case err != nil:
		return editPlan{}, &editError{"failed", err.Error(), err}
	case isBinary(data):
		return editPlan{}, &editError{"binary", c.rel + " is a binary file; edit_file only edits text", nil}
	}
	if err := c.ws.seen.check(c.rel, target, data); err != nil {
		return editPlan{}, &editError{"stale", err.Error(), err}
	}
	a := c.args
	e, err := applyEdit(string(data), a.OldString, a.NewString, a.ReplaceAll)
	if err != nil {
		return editPlan{}, matchFailure(c.rel, string(data), a.OldString, err)
	}
	return editPlan{target: target, mode: keptMode(fi), before: string(data), edit: e}, nil
}

// result is what the model is told of the edit once written.
func (p editPlan) result() Result {
	e := p.edit
	n := human.Plural(len(e.lines), "replacement")
	res := Result{Content: fmt.Sprintf("edited %s: %s at %s", p.target, n, lineList(e.lines, len(e.lines))), Summary: n}
	if len(e.loose.matched) == 0 {
		return res
	}
	at := rangeList(e.loose.matched)
	if e.loose.reindented {
		res.Content += "; old_string matched " + at + " ignoring indentation; new_string was re-indented to the file's"
		res.Repairs = []string{"old_string matched ignoring indentation"}
	} else {
		res.Content += "; old_string matched " + at + " ignoring trailing whitespace"
		res.Repairs = []string{"old_string matched ignoring trailing whitespace"}
	}
	return res
}
