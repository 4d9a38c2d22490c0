package tools

import (
	"context"
	"errors"
	"io/fs"
	"strings"
)

// What a call works on and what it would change, for a front end that
// shows it in an editor: the file to open beside the call, and the change
// as the file's text before and after.

// Place is the file or directory a call works on, relative to the
// workspace with slashes, and the line it starts at (0: none).
type Place struct {
	Path string
	Line int
}

// Placed is a call that works on one file or directory (a read, a
// listing, a write), rather than across them (a search, a command).
type Placed interface {
	Call
	Place() Place
}

// PlaceOf finds a Placed call under c, and where it works.
func PlaceOf(c Call) (Place, bool) {
	p, ok := findCall[Placed](c)
	if !ok {
		return Place{}, false
	}
	return p.Place(), true
}

// Change is what a call that writes one file would make of it.
type Change struct {
	Path string // relative to the workspace, with slashes, after symlinks
	// Before is the file's text now; Existed is false for a file the call
	// creates.
	Before  string
	Existed bool
	After   string
	// Line is the first line the change touches, from 1.
	Line int
}

// Changer is a call that can tell the change it would make before it runs.
type Changer interface {
	Call
	// Change works the change out as the call would now, writing nothing.
	// An error means there is none to show: the call cannot succeed, or
	// the file is too large or not text.
	Change(ctx context.Context) (Change, error)
}

// ChangeOf finds a Changer under c and asks it for its change; ok is
// false when c cannot tell.
func ChangeOf(ctx context.Context, c Call) (ch Change, ok bool, err error) {
	changer, found := findCall[Changer](c)
	if !found {
		return Change{}, false, nil
	}
	ch, err = changer.Change(ctx)
	return ch, true, err
}

var errNotShown = errors.New("too large, or not text: no change to show")

var (
	_ Placed  = (*readFileCall)(nil)
	_ Placed  = (*listDirCall)(nil)
	_ Placed  = (*writeFileCall)(nil)
	_ Placed  = (*editFileCall)(nil)
	_ Changer = (*writeFileCall)(nil)
	_ Changer = (*editFileCall)(nil)
)

func (c *readFileCall) Place() Place  { return Place{Path: c.rel, Line: c.offset} }
func (c *listDirCall) Place() Place   { return Place{Path: c.rel} }
func (c *writeFileCall) Place() Place { return Place{Path: c.rel} }
func (c *editFileCall) Place() Place  { return Place{Path: c.rel} }

// Change implements Changer.
func (c *writeFileCall) Change(ctx context.Context) (Change, error) {
	target, err := c.ws.follow(c.rel)
	if err != nil {
		return Change{}, err
	}
	if len(c.content) > maxPreview {
		return Change{}, errNotShown
	}
	data, _, err := c.ws.readFileLimit(ctx, c.rel, target, maxPreview)
	ch := Change{Path: target, After: c.content, Existed: true}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		ch.Existed = false
	case err != nil:
		return Change{}, errNotShown
	case isBinary(data):
		return Change{}, errNotShown
	}
	ch.Before = string(data)
	ch.Line = firstDifference(ch.Before, ch.After)
	return ch, nil
}

// Change implements Changer: the edit worked out as Run works it out.
func (c *editFileCall) Change(ctx context.Context) (Change, error) {
	p, ee := c.plan(ctx)
	switch {
	case ee != nil:
		return Change{}, ee
	case max(len(p.before), len(p.edit.out)) > maxPreview:
		return Change{}, errNotShown
	}
	ch := Change{Path: p.target, Before: p.before, Existed: true, After: p.edit.out, Line: 1}
	if len(p.edit.lines) > 0 {
		ch.Line = p.edit.lines[0]
	}
	return ch, nil
}

// firstDifference is the first line where a and b differ, from 1.
func firstDifference(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return strings.Count(a[:n], "\n") + 1
}
