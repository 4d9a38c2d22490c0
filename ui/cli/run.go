// Package cli is lathe's command line: it parses the arguments, runs the
// subcommand or the session they ask for, and maps what happened to one
// exit code and at most one message.
package cli

import (
	"context"
	"io"
	"strings"
)

// Run is the whole program: it parses the command line and does what it
// asks, and returns the exit code. environ is the environment (KEY=VALUE),
// read nowhere else.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	f := &Factory{In: stdin, Out: stdout, ErrOut: stderr, Env: newEnv(environ)}
	defer f.close()
	cmd, err := parse(f, args)
	if err == nil {
		err = cmd.run(ctx)
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
