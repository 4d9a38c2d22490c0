package tools

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"lathe/prompts/human"
	"strings"
)

func writeFileSpec() spec {
	return spec{
		name: "write_file",
		desc: "Create or overwrite a file with the given content. Missing parent directories are created.",
		params: []param{
			{name: "path", typ: typeString, required: true, desc: "File path, relative to the working directory"},
			{name: "content", typ: typeString, required: true, desc: "The complete new content of the file", file: true},
		},
	}
}

type writeFileArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

type writeFile struct {
	base
	ws   *Workspace
	prot protection
}

func (*writeFile) Kind() Kind { return KindWrite }

// Aliases implements Aliased: Claude Code's name for the tool.
func (*writeFile) Aliases() []string { return []string{"Write"} }

func (t *writeFile) Prepare(raw json.RawMessage) (Call, error) {
	return prepare(&t.base, raw, func(a writeFileArgs) (Call, error) {
		rel, err := fileRel(t.ws, a.Path)
		if err == nil {
			err = t.prot.check(rel)
		}
		if err != nil {
			return nil, err
		}
		return &writeFileCall{ws: t.ws, prot: t.prot, rel: rel, content: a.Content}, nil
	})
}

// fileRel is Rel for a path that must name a file, not a directory.
func fileRel(ws *Workspace, p string) (string, error) {
	rel, err := ws.resolve(p)
	if err != nil {
		return "", err
	}
	if rel == "." || strings.HasSuffix(p, "/") {
		return "", fmt.Errorf("path %q names a directory; give a file path", p)
	}
	return rel, nil
}

type writeFileCall struct {
	ws      *Workspace
	prot    protection
	rel     string
	content string
}

func (c *writeFileCall) Subject() string { return c.rel }

func (c *writeFileCall) Run(ctx context.Context, caller Caller) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	target, err := c.ws.follow(c.rel)
	if err == nil {
		err = c.prot.check(c.rel) // again: a link may have appeared since Prepare
	}
	if err != nil {
		return Errorf("refused", err.Error()), nil
	}
	mode, exists, err := c.ws.fileMode(target)
	if err != nil {
		return Errorf("failed", err.Error()), nil
	}
	change := c.ws.before(target)
	note, err := c.ws.writeAtomic(ctx, target, []byte(c.content), mode)
	if err != nil {
		return Errorf("failed", err.Error()), nil
	}
	c.ws.seen.record(target, sha256.Sum256([]byte(c.content)))
	verb := "created"
	if exists {
		verb = "overwrote"
	}
	lines := human.Plural(countLines([]byte(c.content)), "line")
	msg := fmt.Sprintf("%s %s (%s, %d bytes)", verb, target, lines, len(c.content))
	if target != c.rel {
		msg += " through the symlink " + c.rel
	}
	res := Result{Content: msg + noteLine(note), Summary: verb + ", " + lines}
	c.ws.check(ctx, caller, &res, change)
	return res, nil
}
