// Package streamtest is a model server's streamed reply as the client's
// end of the connection sees it, written at a pace, for tests of how a
// client reads a stream; in a testing/synctest bubble its pace is the
// bubble's clock.
package streamtest

import (
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// Body is a response body over a socket: a read waits for the first bytes
// to come and takes every one that came since the last read. It counts
// its reads.
type Body struct {
	in     chan []byte
	left   []byte
	reads  atomic.Int64
	closed atomic.Bool
}

// NewBody returns a body nothing was written to yet.
func NewBody() *Body { return &Body{in: make(chan []byte, 4096)} }

// Write sends p to the reader.
func (b *Body) Write(p []byte) (int, error) {
	b.in <- append([]byte(nil), p...)
	return len(p), nil
}

// End ends the stream: reads past what was written return io.EOF.
func (b *Body) End() { close(b.in) }

// Reads is how many times the body was read.
func (b *Body) Reads() int { return int(b.reads.Load()) }

func (b *Body) Read(p []byte) (int, error) {
	b.reads.Add(1)
	if b.closed.Load() {
		return 0, errors.New("streamtest: read of a closed body")
	}
	if len(b.left) == 0 {
		next, ok := <-b.in
		if !ok {
			return 0, io.EOF
		}
		b.left = next
	}
	b.take()
	n := copy(p, b.left)
	b.left = b.left[n:]
	return n, nil
}

// take appends to left what came and was not read yet.
func (b *Body) take() {
	for {
		select {
		case next, ok := <-b.in:
			if !ok {
				return
			}
			b.left = append(b.left, next...)
		default:
			return
		}
	}
}

func (b *Body) Close() error {
	b.closed.Store(true)
	return nil
}

// Pace writes lines to b, one every gap, and then ends it.
func Pace(b *Body, lines []string, gap time.Duration) {
	for i, l := range lines {
		if i > 0 {
			time.Sleep(gap)
		}
		_, _ = io.WriteString(b, l)
	}
	b.End()
}

// Server is an http.RoundTripper answering every request with a 200 of
// ContentType whose body is Lines, one every Gap.
type Server struct {
	ContentType string
	Lines       []string
	Gap         time.Duration
	// Bodies are the bodies it answered with, one per request.
	Bodies []*Body
}

func (s *Server) RoundTrip(req *http.Request) (*http.Response, error) {
	body := NewBody()
	s.Bodies = append(s.Bodies, body)
	go Pace(body, s.Lines, s.Gap)
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {s.ContentType}}, Body: body, ContentLength: -1, Request: req}, nil
}
