// Command fakeollama serves the scripted fake Ollama server outside tests,
// for demos and manual runs of the TUI:
//
//	fakeollama [-addr-file FILE] [-pace DURATION] SCRIPT.json
//
// It prints the server's URL (and writes it to FILE), then serves the
// script's replies until it is killed. Requests with no reply left get an
// error, as in tests. -h says how a script is written. To try lathe
// without a model server, lathe --demo is simpler: its model answers
// whatever is typed.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"lathe/orchestrator/provider/ollama/ollamatest"
)

// usage is what -h prints before the flags.
const usage = `usage: fakeollama [-addr-file FILE] [-pace DURATION] SCRIPT.json

Serves a fake Ollama on a free port of 127.0.0.1, printing its URL: run lathe
with OLLAMA_HOST set to it. It has one model, qwen3:8b (tools, thinking, a 40,960-token
context), and answers each chat request with the next reply of SCRIPT.json,
in order, whatever the request says.

SCRIPT.json is a JSON array of replies, for example:

  [
    {"thinking": "I should look first.",
     "content": "Let me look.",
     "tool_calls": [{"name": "glob", "arguments": {"pattern": "*.go"}}]},
    {"content": "Done."},
    {"content": "Greeting file"}
  ]

A reply's keys: content, thinking, tool_calls (each a name and arguments),
done_reason; a failure: status and error (an HTTP error), error_line (the
stream ends with an error), drop (the connection breaks) or hang (the server
stops answering), each after after_chunks chunks. Unknown keys are errors.

Every chat request takes one reply, lathe's own included: after the first
answer of a session the UI asks for the session's title (the third reply
above), and a compaction asks for a summary. A script for the UI must have
those replies in their place; with -p there is no title request. A request
with no reply left gets an error.

Flags:
`

func main() {
	addrFile := flag.String("addr-file", "", "write the server's URL to this file")
	pace := flag.Duration("pace", 0, "wait this long before each streamed chunk (5ms: 200 tokens a second)")
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	replies, err := ollamatest.LoadScript(f)
	f.Close()
	if err != nil {
		log.Fatal(err)
	}
	tb := &logTB{}
	srv := ollamatest.New(tb, ollamatest.WithPace(*pace))
	srv.Script(replies...)
	fmt.Println(srv.URL())
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(srv.URL()+"\n"), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	<-ctx.Done()
	stop() // a second signal kills at once
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]()
	}
}

// logTB is the part of testing.TB the fake server uses, reporting to the
// log instead of a test.
type logTB struct {
	testing.TB // not set: the fake calls only the methods below
	cleanups   []func()
}

func (*logTB) Helper()                           {}
func (t *logTB) Cleanup(f func())                { t.cleanups = append(t.cleanups, f) }
func (*logTB) Errorf(format string, args ...any) { log.Printf(format, args...) }
func (*logTB) Fatalf(format string, args ...any) { log.Fatalf(format, args...) }
