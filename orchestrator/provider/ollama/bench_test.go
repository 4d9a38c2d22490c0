package ollama

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"lathe/config"
	"lathe/orchestrator/provider"
)

// BenchmarkRequest measures turning a conversation into the wire request,
// which happens on every turn: a 200-message history with a tool call in
// every other message.
func BenchmarkRequest(b *testing.B) {
	msgs := []provider.Message{{Role: "system", Content: strings.Repeat("You are lathe. ", 80)}}
	for i := range 100 {
		msgs = append(msgs,
			provider.Message{Role: "assistant", Content: "Reading the next file.", Thinking: strings.Repeat("hmm ", 50),
				ToolCalls: []provider.ToolCall{{ID: fmt.Sprintf("call_%d", i), Name: "read_file",
					Arguments: json.RawMessage(fmt.Sprintf(`{"path":"src/file%d.go","offset":1,"limit":200}`, i))}}},
			provider.Message{Role: "tool", Content: strings.Repeat("line of code\n", 80), ToolName: "read_file",
				ToolCallID: fmt.Sprintf("call_%d", i)})
	}
	tools := []provider.ToolSpec{{Name: "read_file", Description: "Read a file.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"path"}},"required":["path"]}`)}}
	c := newClient(&testing.T{}, "http://127.0.0.1:11434")
	req := &provider.Request{Model: provider.ModelInfo{Name: "qwen3:8b", NumCtx: 32768}, Messages: msgs, Tools: tools}
	b.ReportAllocs()
	for b.Loop() {
		_ = c.request(req)
	}
}

// serveEnv makes the test binary the paced server of BenchmarkStreamRead,
// in a process of its own so that its CPU time is not counted: it serves
// the lines of a reply of as many tokens, one every 5 ms (200 tokens a
// second), prints its URL and serves until its input closes.
const serveEnv = "LATHE_OLLAMA_PACED_SERVER"

func TestMain(m *testing.M) {
	if n, err := strconv.Atoi(os.Getenv(serveEnv)); err == nil {
		os.Exit(servePaced(n))
	}
	os.Exit(m.Run())
}

func servePaced(tokens int) int {
	lines, _ := replyLines(tokens)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for _, l := range lines {
			<-tick.C
			_, _ = io.WriteString(w, l)
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	fmt.Println(srv.URL)
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// BenchmarkStreamRead measures Chat reading a reply of 1,000 tokens
// streamed at 200 tokens a second by a server in another process, each
// line read as it comes and gathered (at the default tui.fps): the reads
// of the connection per line, and this process's CPU time per line (the
// official client's 8 MB line buffer, made for each reply, included).
func BenchmarkStreamRead(b *testing.B) {
	const tokens = 1000
	server := exec.CommandContext(b.Context(), os.Args[0])
	server.Env = append(os.Environ(), serveEnv+"="+strconv.Itoa(tokens))
	server.Stderr = os.Stderr
	stdin, err := server.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := server.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := server.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); server.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	u, err := url.Parse(strings.TrimSpace(addr))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		gather time.Duration
	}{{"each line", 0}, {"gathered", provider.GatherInterval(config.DefaultFPS)}} {
		b.Run(bc.name, func(b *testing.B) {
			var reads atomic.Int64
			tr := http.DefaultTransport.(*http.Transport).Clone()
			tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
				return countedConn{conn, &reads}, err
			}
			c := New(Options{URL: u, HTTP: &http.Client{Transport: tr}, Gather: bc.gather})
			req := &provider.Request{Model: provider.ModelInfo{Name: "m", NumCtx: 4096},
				Messages: []provider.Message{{Role: "user", Content: "hi"}}}
			cpu := processCPU()
			for b.Loop() {
				if err := c.Chat(b.Context(), req, func(provider.Chunk) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			n := float64(b.N * (tokens + 1))
			b.ReportMetric(float64(reads.Load())/n, "reads/line")
			b.ReportMetric(float64(processCPU()-cpu)/n/1e3, "cpu-µs/line")
		})
	}
}

// countedConn counts its reads.
type countedConn struct {
	net.Conn
	reads *atomic.Int64
}

func (c countedConn) Read(p []byte) (int, error) {
	c.reads.Add(1)
	return c.Conn.Read(p)
}

// processCPU is the process's CPU time so far, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
