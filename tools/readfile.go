package tools

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"lathe/orchestrator/provider/images"
	"lathe/prompts/human"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxLineBytes is how much of one line read_file shows; the rest is cut.
const maxLineBytes = 2000

func readFileSpec(limit int) spec {
	return spec{
		name: "read_file",
		desc: "Read a text file. Lines come numbered; page through long files with offset and limit.",
		params: []param{
			{name: "path", typ: typeString, required: true, desc: "File path, relative to the working directory"},
			{name: "offset", typ: typeInteger, desc: "First line to read, from 1 (default 1)"},
			{name: "limit", typ: typeInteger, desc: "Number of lines to read (default " + strconv.Itoa(limit) + ")"},
		},
	}
}

type readFileArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

type readFile struct {
	base
	ws   *Workspace
	opts Options
	// images is the memory the images being read share: the read_file
	// calls of a turn run at the same time.
	images *images.Budget
}

func (*readFile) Kind() Kind { return KindRead }

// Aliases implements Aliased: Claude Code's name for the tool.
func (*readFile) Aliases() []string { return []string{"Read"} }

func (t *readFile) Prepare(raw json.RawMessage) (Call, error) {
	return prepare(&t.base, raw, func(a readFileArgs) (Call, error) {
		rel, err := t.ws.resolve(a.Path)
		if err != nil {
			return nil, err
		}
		if a.Offset < 0 || a.Limit < 0 {
			return nil, errors.New("offset and limit must be positive")
		}
		c := &readFileCall{t: t, rel: rel, offset: max(a.Offset, 1), limit: a.Limit}
		if c.limit == 0 {
			c.limit = t.opts.ReadLimit
		}
		return c, nil
	})
}

type readFileCall struct {
	t             *readFile
	rel           string
	offset, limit int
}

func (c *readFileCall) Subject() string { return c.rel }

func (c *readFileCall) Run(ctx context.Context, _ Caller) (Result, error) {
	ws := c.t.ws
	target, err := ws.follow(c.rel)
	if err != nil {
		return Errorf("refused", err.Error()), nil
	}
	f, fi, err := ws.openFile(c.rel, target)
	if err != nil {
		return Errorf("failed", err.Error()), nil
	}
	defer f.Close()
	sum := sha256.New() // of the whole file, for the stale-edit guard
	r := bufio.NewReaderSize(io.TeeReader(f, sum), 64<<10)
	head, _ := r.Peek(binarySniff)
	if images.Format(head) != "" {
		return c.image(ctx, r, fi.Size())
	}
	if isBinary(head) {
		return Errorf("binary", fmt.Sprintf("%s is a binary file (%d bytes); read_file only reads text", c.rel, fi.Size())), nil
	}
	seen := func() [sha256.Size]byte { return [sha256.Size]byte(sum.Sum(nil)) }
	if text, ok, err := ws.editorText(ctx, c.rel, target); ok {
		// The editor's buffer, unsaved changes included: what an edit
		// will change.
		if err != nil {
			return Errorf("failed", err.Error()), nil
		}
		r = bufio.NewReader(strings.NewReader(text))
		seen = func() [sha256.Size]byte { return sha256.Sum256([]byte(text)) }
	}
	p := page{from: c.offset, to: c.offset + c.limit - 1, budget: c.t.opts.MaxOutputBytes - markerRoom}
	if err := p.read(ctx, r); err != nil {
		return Result{}, err
	}
	ws.seen.record(target, seen())
	ws.read(target)
	return p.result(c.rel), nil
}

// page is the part of a file read_file shows: lines from..to, as far as
// they fit in budget bytes.
type page struct {
	from, to, budget int
	out              bytes.Buffer
	last             int // last line shown
	total            int // lines in the file
}

func (p *page) read(ctx context.Context, r *bufio.Reader) error {
	var buf []byte
	p.last = p.from - 1
	for n := 1; ; n++ {
		keep := 0
		if n >= p.from && n <= p.to {
			keep = maxLineBytes + utf8.UTFMax
		}
		line, size, err := nextLine(r, keep, buf)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		p.total = n
		if keep > 0 && p.last == n-1 {
			p.add(n, line, size)
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		buf = line
	}
}

// add appends line n unless it would overflow the budget.
func (p *page) add(n int, line []byte, size int) {
	entry := numberedLine(n, string(line), size)
	if p.out.Len()+len(entry) > p.budget && p.last >= p.from {
		return
	}
	p.out.WriteString(entry)
	p.last = n
}

func (p *page) result(rel string) Result {
	switch {
	case p.total == 0:
		return Result{Content: "(" + rel + " is empty)", Summary: "empty"}
	case p.from > p.total:
		return Errorf("past end", fmt.Sprintf("offset %d is past the end of %s (%s)", p.from, rel, human.Plural(p.total, "line")))
	case p.last < p.total:
		p.out.WriteString(fmt.Sprintf("(lines %d-%d of %d; call read_file with offset=%d to read more)", p.from, p.last, p.total, p.last+1))
		return Result{Content: p.out.String(), Summary: fmt.Sprintf("lines %d-%d of %d", p.from, p.last, p.total)}
	case p.from > 1:
		return Result{Content: p.out.String(), Summary: fmt.Sprintf("lines %d-%d of %d", p.from, p.last, p.total)}
	}
	return Result{Content: p.out.String(), Summary: human.Plural(p.total, "line")}
}

// numberedLine formats line n as read_file shows it: its number, a tab
// and text, cut after maxLineBytes. text is the line, or its start when
// size, the length of the whole line, is larger.
func numberedLine(n int, text string, size int) string {
	if size > maxLineBytes {
		text = text[:runeStart(text, maxLineBytes)]
		text += fmt.Sprintf(" [... line cut: %d more bytes]", size-len(text))
	}
	return fmt.Sprintf("%6d\t%s\n", n, text)
}

// nextLine reads one line from r. It returns at most keep bytes of it, in
// buf's storage, and size, the length of the whole line; both leave out the
// line ending (\n or \r\n). At the end of input size is 0 and err io.EOF.
func nextLine(r *bufio.Reader, keep int, buf []byte) (line []byte, size int, err error) {
	line = buf[:0]
	for {
		chunk, err := r.ReadSlice('\n')
		size += len(chunk)
		if room := keep - len(line); room > 0 {
			line = append(line, chunk[:min(room, len(chunk))]...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case size == 0 || (err != nil && !errors.Is(err, io.EOF)):
			return line, size, err
		}
		if bytes.HasSuffix(chunk, []byte("\r\n")) {
			size -= 2
		} else if bytes.HasSuffix(chunk, []byte("\n")) {
			size--
		}
		return line[:min(len(line), size)], size, nil
	}
}

// image reads an image file for the model to see: the result says what
// it is, and carries the image, which the agent attaches to the next
// request (or, for a model that cannot see, replaces by a note saying so).
func (c *readFileCall) image(ctx context.Context, r io.Reader, size int64) (Result, error) {
	lim := c.t.opts.Images
	if size > lim.MaxBytes {
		return Errorf("image too large", fmt.Sprintf("%s is an image of %s, more than the %s an image may take",
			c.rel, human.Bytes(size), human.Bytes(lim.MaxBytes))), nil
	}
	img, err := c.t.images.ReadFrom(ctx, r, c.rel, lim)
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	if err != nil {
		return Errorf("image", err.Error()), nil
	}
	return Result{
		Content: fmt.Sprintf("%s is an image, %d×%d pixels (%s as sent); it is attached after these results for you to look at.",
			c.rel, img.Width, img.Height, human.Bytes(int64(len(img.Data)))),
		Summary: fmt.Sprintf("image %d×%d", img.Width, img.Height),
		Image:   &img,
	}, nil
}
