// Command streamfloor measures the floor under lathe's cost per streamed
// token: the official Ollama client receiving a chat stream and doing
// nothing with it. It asks the server at ADDR (the fake, serving an
// mdscript script) for one reply with the first model it lists, and prints
// the process's CPU time per chunk in milliseconds:
//
//	streamfloor ADDR
package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: streamfloor ADDR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "streamfloor:", err)
		os.Exit(1)
	}
}

func run(addr string) error {
	base, err := url.Parse(addr)
	if err != nil {
		return err
	}
	c := api.NewClient(base, http.DefaultClient)
	ctx := context.Background()
	list, err := c.List(ctx)
	if err != nil {
		return err
	}
	if len(list.Models) == 0 {
		return fmt.Errorf("%s lists no model", addr)
	}
	stream, shift := true, false
	req := &api.ChatRequest{
		Model:    list.Models[0].Name,
		Messages: []api.Message{{Role: "user", Content: "write the overview"}},
		Stream:   &stream,
		Shift:    &shift,
		Options:  map[string]any{"num_ctx": 8192},
	}
	chunks := 0
	before := cpu()
	if err := c.Chat(ctx, req, func(api.ChatResponse) error { chunks++; return nil }); err != nil {
		return err
	}
	spent := cpu() - before
	if chunks == 0 {
		return fmt.Errorf("%s streamed nothing", addr)
	}
	fmt.Printf("%.3f\n", float64(spent)/float64(chunks)/float64(time.Millisecond))
	return nil
}

// cpu is the process's CPU time so far, user and system.
func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
