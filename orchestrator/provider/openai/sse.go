package openai

import (
	"bytes"
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

// finishField is how the event that finishes a reply starts its reason
// (null in the others; in the text of a string its quotes would be
// escaped).
var finishField = []byte(`"finish_reason":"`)

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
			r := &eventReader{ReadCloser: resp.Body, limit: maxEventBytes}
			if gather > 0 {
				r.gather = provider.Gather(req.Context(), resp.Body, gather)
				r.ReadCloser = r.gather
			}
			resp.Body = r
		}
		return resp, nil
	}
}

// eventReader reads a server-sent event stream, failing once an event
// (what lies between two empty lines) is longer than limit. Once an event
// finished the reply, the stream's few last events are read as they come.
type eventReader struct {
	io.ReadCloser
	gather  *provider.GatherReader // nil when events are read as they come
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
	if r.gather != nil && bytes.Contains(p[:n], finishField) {
		r.gather.Ending() // the usage and [DONE] follow
	}
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
