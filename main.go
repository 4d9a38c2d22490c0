// Command lathe is a terminal coding assistant for models you run yourself.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"lathe/sandbox"
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
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ())
	stop()
	os.Exit(code)
}

// run is the whole program: it parses the command line and does what it
// asks, and returns the exit code. environ is the environment (KEY=VALUE),
// read nowhere else.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	cmd, err := parseArgs(args)
	if err == nil {
		cmd.env = newEnv(environ)
		err = cmd.do(ctx, stdin, stdout, stderr)
	}
	return exit(stderr, err)
}

// env is the process's environment.
type env struct {
	list []string
	vars map[string]string
}

func newEnv(environ []string) env {
	e := env{list: environ, vars: make(map[string]string, len(environ))}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			e.vars[k] = v
		}
	}
	return e
}

// get is the value of variable k, "" when unset.
func (e env) get(k string) string { return e.vars[k] }
