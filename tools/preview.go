package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"lathe/prompts/human"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Previewer is a Call that can show, before it runs, the change it would
// make: what an approval prompt and a tool card show.
type Previewer interface {
	// Preview returns the change as a unified diff of the file as it is
	// now against what the call would leave; empty when the call would
	// change nothing. An error means there is nothing to preview; one
	// WouldFail recognizes means the call cannot succeed as things stand,
	// with the result Run would give.
	Preview() (string, error)
}

// WouldFail reports whether err, of a Preview, says the call cannot
// succeed (an edit of a file too large, an old_string that matches
// nowhere), and the result Run would give: there is no call to approve.
func WouldFail(err error) (Result, bool) {
	if e, ok := errors.AsType[*editError](err); ok {
		return e.result(), true
	}
	return Result{}, false
}

var (
	_ Previewer = (*writeFileCall)(nil)
	_ Previewer = (*editFileCall)(nil)
)

// Preview returns the change a prepared call would make, when it is a call
// that can tell (ok); see Previewer.
func Preview(c Call) (diff string, ok bool, err error) {
	if w, isCapped := c.(capped); isCapped {
		c = w.Call
	}
	p, ok := c.(Previewer)
	if !ok {
		return "", false, nil
	}
	diff, err = p.Preview()
	return diff, true, err
}

// maxPreview is the largest file, before or after a change, whose change
// a preview shows as a diff: a diff of anything larger is no help to
// anyone deciding, and reading and diffing it would cost seconds and
// gigabytes before the user even answers.
const maxPreview = 512 << 10

// Preview implements Previewer.
func (c *writeFileCall) Preview() (string, error) {
	target, err := c.ws.follow(c.rel)
	if err != nil {
		return "", err
	}
	if len(c.content) > maxPreview {
		return tooLargeToShow(c.rel, int64(len(c.content))), nil
	}
	data, _, err := c.ws.readFileLimit(context.Background(), c.rel, target, maxPreview)
	var large *tooLargeError
	from := c.rel
	switch {
	case errors.As(err, &large):
		return tooLargeToShow(c.rel, large.size), nil
	case errors.Is(err, fs.ErrNotExist):
		from = NewFile // a file created: its diff says so, as git's does
	case err != nil:
		return "", err
	}
	old := ""
	if !isBinary(data) {
		old = string(data)
	}
	return udiff.Unified(from, c.rel, old, c.content), nil
}

// NewFile is the name a preview's diff gives the file before the change
// when there was none: "--- /dev/null".
const NewFile = "/dev/null"

// Preview implements Previewer. It works the edit out as Run does, so it
// fails, with Run's message, where Run would: a file changed since the
// model read it (ErrStale), an old_string that does not match.
func (c *editFileCall) Preview() (string, error) {
	p, ee := c.plan(context.Background())
	if ee != nil {
		return "", ee
	}
	if n := max(len(p.before), len(p.edit.out)); n > maxPreview {
		return tooLargeToShow(c.rel, int64(n)), nil
	}
	return udiff.Unified(c.rel, c.rel, p.before, p.edit.out), nil
}

// tooLargeToShow is the preview of a change to a file too large to diff:
// one line that says so, where a diff would be.
func tooLargeToShow(rel string, size int64) string {
	return fmt.Sprintf("(%s: %s, too large to show the change)", rel, human.Size(size))
}

// readFileLimit returns the content and the FileInfo of the regular file
// target (rel as the model named it), when it has at most limit bytes: a
// larger one is a *tooLargeError, found before reading it. Its error is
// for the model, and errors.Is(err, fs.ErrNotExist) when there is no file.
// With an Editor, the content of a text file is the editor's.
func (w *Workspace) readFileLimit(ctx context.Context, rel, target string, limit int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := w.openFile(rel, target)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, fi, &tooLargeError{rel: rel, size: fi.Size(), limit: limit}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		return nil, fi, &tooLargeError{rel: rel, size: int64(len(data)), limit: limit}
	}
	if err != nil || isBinary(data) {
		return data, fi, err
	}
	text, ok, err := w.editorText(ctx, rel, target)
	switch {
	case !ok:
		return data, fi, nil
	case err != nil:
		return nil, fi, err
	case int64(len(text)) > limit:
		return nil, fi, &tooLargeError{rel: rel, size: int64(len(text)), limit: limit}
	}
	return []byte(text), fi, nil
}

// tooLargeError is a file larger than an operation takes.
type tooLargeError struct {
	rel         string
	size, limit int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s has %s, more than the %s this takes", e.rel, human.Size(e.size), human.Size(e.limit))
}
