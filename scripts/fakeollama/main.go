// Command fakeollama serves the scripted fake Ollama server outside tests,
// for demos and manual runs of the TUI:
//
//	fakeollama [-addr-file FILE] [-pace DURATION] SCRIPT.json
//
// It prints the server's URL (and writes it to FILE), then serves the
// script's replies until it is killed. Requests with no reply left get an
// error, as in tests.
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

func main() {
	addrFile := flag.String("addr-file", "", "write the server's URL to this file")
	pace := flag.Duration("pace", 0, "wait this long before each streamed chunk (5ms: 200 tokens a second)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: fakeollama [-addr-file FILE] [-pace DURATION] SCRIPT.json")
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
