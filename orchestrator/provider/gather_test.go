package provider

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"lathe/orchestrator/provider/internal/streamtest"
)

// arrival is a line read and when its last byte was.
type arrival struct {
	line string
	at   time.Duration
}

// readLines reads r to its end, a line at a time as a client's scanner
// would, noting when each line came (from start), taking think after
// each read.
func readLines(r io.Reader, start time.Time, think time.Duration) ([]arrival, error) {
	var got []arrival
	var line []byte
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		for _, b := range buf[:n] {
			line = append(line, b)
			if b == '\n' {
				got = append(got, arrival{string(line), time.Since(start)})
				line = nil
			}
		}
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		time.Sleep(think)
	}
}

func tokenLines(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf(`{"message":{"content":"token %d"},"done":false}`+"\n", i)
	}
	return lines
}

// TestGatherFastStream: a stream faster than the interval is read in a
// few reads, each taking the lines that came meanwhile, and no line comes
// later than an interval after it was written; what is read is the
// stream, byte for byte.
func TestGatherFastStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const interval, gap = 30 * time.Millisecond, 5 * time.Millisecond
		lines := tokenLines(120)
		s := streamtest.NewBody()
		start := time.Now()
		go streamtest.Pace(s, lines, gap)
		got, err := readLines(Gather(t.Context(), s, interval), start, 0)
		if err != nil {
			t.Fatal(err)
		}
		var want, read bytes.Buffer
		for i, a := range got {
			read.WriteString(a.line)
			if late := a.at - time.Duration(i)*gap; i < len(lines) && late > interval {
				t.Errorf("line %d came %v after it was written; want at most %v", i, late, interval)
			}
		}
		for _, l := range lines {
			want.WriteString(l)
		}
		if !bytes.Equal(read.Bytes(), want.Bytes()) {
			t.Errorf("read %q\nwant %q", read.String(), want.String())
		}
		// A read every interval takes interval/gap lines: 20 reads, the
		// first and the one that meets the end, and one more for each
		// time a line and the end of a wait fall on the same instant,
		// against 121 reads one line at a time.
		if max := len(lines)*int(gap)/int(interval) + 4; s.Reads() > max {
			t.Errorf("%d lines took %d reads; want at most %d", len(lines), s.Reads(), max)
		}
	})
}

// TestGatherNoDelay: lines that come slower than the interval, the first
// line of a stream, a line after a read that took as much as a read can
// and the rest of a line read in part are each read as soon as they come,
// however long the reader took over the read before.
func TestGatherNoDelay(t *testing.T) {
	const interval = 30 * time.Millisecond
	cases := []struct {
		name  string
		lines []string
		gap   time.Duration
		think time.Duration // the reader's time over each read
	}{
		{"slow stream", tokenLines(8), 50 * time.Millisecond, 0},
		{"slow stream, slow reader", tokenLines(8), 60 * time.Millisecond, 40 * time.Millisecond},
		{"one line", tokenLines(1), 0, 0},
		{"after a full read", []string{strings.Repeat("x", fullRead) + "\n", "next\n"}, time.Millisecond, 0},
		{"line in parts", []string{`{"message":{"content":"to`, `ken"}}` + "\n"}, time.Millisecond, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := streamtest.NewBody()
				start := time.Now()
				go streamtest.Pace(s, c.lines, c.gap)
				got, err := readLines(Gather(t.Context(), s, interval), start, c.think)
				if err != nil {
					t.Fatal(err)
				}
				// Line i ends with the piece written at i gaps (a line
				// in parts: the last line ends with the last piece).
				var want []arrival
				var line string
				for i, l := range c.lines {
					if line += l; l[len(l)-1] == '\n' {
						want = append(want, arrival{line, time.Duration(i) * c.gap})
						line = ""
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("lines came as %v\nwant %v", got, want)
				}
			})
		})
	}
}

// TestGatherEnding: once the stream is said to be ending, what comes is
// read as it comes.
func TestGatherEnding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := streamtest.NewBody()
		go streamtest.Pace(s, []string{"last line\n", "the end\n"}, time.Millisecond)
		r := Gather(t.Context(), s, time.Hour)
		start := time.Now()
		buf := make([]byte, 64)
		if n, err := r.Read(buf); err != nil || string(buf[:n]) != "last line\n" {
			t.Fatalf("first read: %q, %v", buf[:n], err)
		}
		r.Ending()
		if n, err := r.Read(buf); err != nil || string(buf[:n]) != "the end\n" {
			t.Fatalf("second read: %q, %v", buf[:n], err)
		}
		if at := time.Since(start); at != time.Millisecond {
			t.Errorf("the line after the end was said came at %v; want at once, at 1ms", at)
		}
	})
}

// TestGatherCancel: a read waiting for a stream to gather returns as soon
// as its context is done, with the context's error.
func TestGatherCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		s := streamtest.NewBody()
		_, _ = io.WriteString(s, "first\n")
		r := Gather(ctx, s, time.Hour)
		buf := make([]byte, 64)
		if n, err := r.Read(buf); err != nil || string(buf[:n]) != "first\n" {
			t.Fatalf("first read: %q, %v", buf[:n], err)
		}
		_, _ = io.WriteString(s, "second\n")
		done := make(chan error, 1)
		go func() {
			_, err := r.Read(buf)
			done <- err
		}()
		synctest.Wait() // the read is waiting for the stream to gather
		select {
		case err := <-done:
			t.Fatalf("the read returned %v before its interval or its context ended", err)
		default:
		}
		start := time.Now()
		cancel()
		synctest.Wait()
		select {
		case err := <-done:
			if err != context.Canceled {
				t.Errorf("read after cancel: %v; want %v", err, context.Canceled)
			}
		default:
			t.Fatal("the read still waits after its context was canceled")
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("the read returned %v after the cancel", waited)
		}
	})
}

// TestGatherInterval: half a frame, 50 ms at most.
func TestGatherInterval(t *testing.T) {
	for fps, want := range map[int]time.Duration{
		0: 50 * time.Millisecond, 1: 50 * time.Millisecond, 10: 50 * time.Millisecond,
		20: 25 * time.Millisecond, 60: time.Second / 120, 120: time.Second / 240,
	} {
		if got := GatherInterval(fps); got != want {
			t.Errorf("GatherInterval(%d) = %v, want %v", fps, got, want)
		}
	}
}
