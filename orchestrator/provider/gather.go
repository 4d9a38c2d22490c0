package provider

import (
	"context"
	"io"
	"time"
)

// A model server writes its reply a token at a time, each a line of its
// own (an NDJSON object, an SSE event). Read as it comes, every token
// costs a wake-up of the reading goroutine and a read of the socket,
// which at 200 tokens a second is most of what a client spends on the
// stream. Gathered, the reads of a fast stream take several tokens each.

// GatherInterval is how long a fast stream is left to gather between two
// reads when the text is shown fps frames a second: half a frame, so that
// gathering holds no text back by more than that, and 50 ms at most (at
// the default 10 frames a second), which is also the most it can add to
// the end of a reply.
func GatherInterval(fps int) time.Duration {
	if fps <= 0 {
		return maxGather
	}
	return min(time.Second/time.Duration(fps)/2, maxGather)
}

const maxGather = 50 * time.Millisecond

// fullRead is a read after which the next one does not wait: most of the
// 4 KB an HTTP/1 connection's buffer holds, which is about all that one
// read of a response can take. A stream that writes as much in an
// interval is read as fast as it comes, so that gathering never slows it
// down; one of tokens writes 2 to 3 KB in 50 ms at 200 tokens a second.
const fullRead = 3 << 10

// Gather returns body read so that a fast stream is read a batch of lines
// at a time: when the last read ended a line less than interval ago, the
// next one waits for the rest of the interval, for what comes meanwhile to
// be read at once. The first read does not wait, nor does one after a
// slower line (its text shows as soon as it comes), nor one that ends a
// line read in part, nor one after a read of fullRead bytes or more, nor
// any once the stream was said to be ending. A
// wait ends when ctx is done, with its error.
func Gather(ctx context.Context, body io.ReadCloser, interval time.Duration) *GatherReader {
	return &GatherReader{ReadCloser: body, ctx: ctx, interval: interval}
}

// GatherReader is a body read by Gather.
type GatherReader struct {
	io.ReadCloser
	ctx      context.Context
	interval time.Duration
	timer    *time.Timer
	lineEnd  time.Time // when the last read returned, if it ended a line
	ending   bool
}

// Ending says that the stream's last line was read, or is about to be:
// what comes after it is read as it comes, so that the end of a reply is
// not held back.
func (g *GatherReader) Ending() { g.ending = true }

func (g *GatherReader) Read(p []byte) (int, error) {
	if !g.lineEnd.IsZero() && !g.ending {
		if err := g.wait(g.interval - time.Since(g.lineEnd)); err != nil {
			return 0, err
		}
	}
	n, err := g.ReadCloser.Read(p)
	g.lineEnd = time.Time{}
	if n > 0 && n < fullRead && p[n-1] == '\n' {
		g.lineEnd = time.Now()
	}
	return n, err
}

// wait waits for d, or until the context is done.
func (g *GatherReader) wait(d time.Duration) error {
	if d <= 0 {
		return nil
	}
	if g.timer == nil {
		g.timer = time.NewTimer(d)
	} else {
		g.timer.Reset(d)
	}
	select {
	case <-g.timer.C:
		return nil
	case <-g.ctx.Done():
		g.timer.Stop()
		return g.ctx.Err()
	}
}
