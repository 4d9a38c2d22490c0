// Command lathe is a terminal coding assistant for models you run yourself.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"lathe/tools/sandbox"
	"lathe/ui/cli"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Main(os.Args[2:])) // a command's helper; see package sandbox
	}
	// SIGHUP too: a closed terminal must stop the request and what it runs.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl+C ends the process at once
	}()
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ())
	stop()
	os.Exit(code)
}
