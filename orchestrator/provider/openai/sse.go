package openai

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3/option"

	"lathe/orchestrator/provider"
)

// maxEventBytes bounds one event of a streamed reply, its data lines
// together: the client's reader would take lines of up to 32 MB, and an
// event of any number of them.
const maxEventBytes = 16 << 20

// eventTooLong is the error of a stream with an event longer than limit.
type eventTooLong struct{ limit int64 }

func (e *eventTooLong) Error() string {
	return fmt.Sprintf("a stream event of more than %d bytes", e.limit)
}

// streamEvents returns the middleware that bounds the events of a
// streamed reply (text/event-stream) to maxEventBytes and reads a fast
// stream's events in batches, gathered for gather (provider.Gather).
func streamEvents(gather time.Duration) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		resp, err := next(req)
		if err != nil {
			return resp, err
		}
		if t, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); t == "text/event-stream" {
			body := resp.Body
			if gather > 0 {
				body = provider.Gather(req.Context(), body, gather)
			}
			resp.Body = &eventReader{ReadCloser: body, limit: maxEventBytes}
		}
		return resp, nil
	}
}

// eventReader reads a server-sent event stream, failing once an event
// (what lies between two empty lines) is longer than limit.
type eventReader struct {
	io.ReadCloser
	limit   int64
	event   int64 // bytes of the event so far
	line    int   // bytes of its line so far, \r left out
	tooLong bool
}

func (r *eventReader) Read(p []byte) (int, error) {
	if r.tooLong {
		return 0, &eventTooLong{r.limit}
	}
	n, err := r.ReadCloser.Read(p)
	for i, b := range p[:n] {
		switch {
		case b == '\n' && r.line == 0:
			r.event = 0
			continue
		case b == '\n':
			r.line = 0
		case b != '\r':
			r.line++
		}
		if r.event++; r.event > r.limit {
			r.tooLong = true
			return i, &eventTooLong{r.limit}
		}
	}
	return n, err
}
