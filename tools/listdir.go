package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"lathe/prompts"
	"lathe/prompts/human"
	"path"
	"slices"
	"strings"
)

// maxDirEntries bounds how many entries list_dir shows.
const maxDirEntries = 500

func listDirSpec() spec {
	return spec{
		name: "list_dir",
		desc: "List a directory's entries, sorted by name, with type and size.",
		params: []param{
			{name: "path", typ: typeString, desc: "Directory, relative to the working directory (default .)"},
		},
	}
}

type listDirArgs struct {
	Path string `json:"path"`
}

type listDir struct {
	base
	ws *Workspace
}

func (*listDir) Kind() Kind { return KindRead }

// Aliases implements Aliased: Claude Code's name for the tool.
func (*listDir) Aliases() []string { return []string{"LS"} }

func (t *listDir) Prepare(raw json.RawMessage) (Call, error) {
	return prepare(&t.base, raw, func(a listDirArgs) (Call, error) {
		rel, err := optionalRel(t.ws, a.Path)
		if err != nil {
			return nil, err
		}
		return &listDirCall{t: t, rel: rel}, nil
	})
}

// optionalRel is Rel for an optional path, "" meaning the working directory.
func optionalRel(ws *Workspace, p string) (string, error) {
	if p == "" {
		return ".", nil
	}
	return ws.resolve(p)
}

type listDirCall struct {
	t   *listDir
	rel string
}

func (c *listDirCall) Subject() string { return c.rel }

func (c *listDirCall) Run(ctx context.Context, _ Caller) (Result, error) {
	ws := c.t.ws
	target, err := ws.follow(c.rel)
	if err != nil {
		return Errorf("refused", err.Error()), nil
	}
	f, err := ws.root.Open(target)
	if err != nil {
		return Errorf("failed", ws.fsError(c.rel, err).Error()), nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && !fi.IsDir() {
		return Errorf("not a directory", c.rel+" is a file, not a directory; "+prompts.Hint(prompts.HintReadIt)), nil
	}
	ents, err := f.ReadDir(-1) // through the Root: each entry's Info is read as it is listed
	if err != nil {
		return Errorf("failed", ws.fsError(c.rel, err).Error()), nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if len(ents) == 0 {
		return Result{Content: "(" + c.rel + " is empty)", Summary: "empty"}, nil
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s\n", human.Plural(len(ents), "entry"), c.rel)
	for _, e := range ents[:min(len(ents), maxDirEntries)] {
		b.WriteString(c.describe(target, e))
		b.WriteByte('\n')
	}
	if more := len(ents) - maxDirEntries; more > 0 {
		fmt.Fprintf(&b, "(%d more not shown; %s)\n", more, prompts.Hint(prompts.HintNarrowDown))
	}
	return Result{Content: b.String(), Summary: human.Plural(len(ents), "entry")}, nil
}

// describe returns one list_dir line for the entry e of the directory dir:
// type, name and size or link target.
func (c *listDirCall) describe(dir string, e fs.DirEntry) string {
	name := ShowName(e.Name())
	fi, err := e.Info()
	if err != nil {
		return "?     " + name
	}
	switch m := fi.Mode(); {
	case m.IsDir():
		return "dir   " + name + "/"
	case m&fs.ModeSymlink != 0:
		target, _ := c.t.ws.root.Readlink(path.Join(dir, e.Name()))
		return "link  " + name + " -> " + ShowName(target)
	case m.IsRegular():
		return fmt.Sprintf("file  %s (%d bytes)", name, fi.Size())
	}
	return "other " + name
}
