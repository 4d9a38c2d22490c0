// Package cli is lathe's command line: it parses the arguments, runs the
// subcommand or the session they ask for, and maps what happened to one
// exit code and at most one message.
package cli

import (
	"context"
	"io"
	"strings"

	"lathe/ui/print"
)

// Run is the whole program: it parses the command line and does what it
// asks, and returns the exit code. environ is the environment (KEY=VALUE),
// read nowhere else.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	f := &Factory{In: stdin, Out: stdout, ErrOut: stderr, Env: newEnv(environ)}
	defer f.close()
	cmd, err := parse(f, args)
	if err == nil {
		f.Out = terminalOut(cmd, stdout)
		err = cmd.run(ctx)
	}
	return exit(stderr, err)
}

// terminalOut is where cmd writes its output: to a terminal, through
// the cleaning the answer of lathe -p gets, for what a model or a
// repository wrote in it (titles, prompts, answers, file names and
// contents) to show as text, never act on the terminal. A session
// (lathe -p cleans its answer itself; the UI draws the screen), doctor
// (which escapes what it shows, and looks at the terminal) and acp (JSON-RPC,
// byte for byte) write to stdout as it is.
func terminalOut(cmd command, stdout io.Writer) io.Writer {
	switch cmd.(type) {
	case *sessionCommand, *doctorCommand, *acpCommand:
		return stdout
	}
	if !isTerminal(stdout) {
		return stdout
	}
	return print.TerminalWriter(stdout)
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
