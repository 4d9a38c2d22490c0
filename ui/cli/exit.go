package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/prompts/human"
)

// Exit codes: a contract scripts depend on.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitLimit       = 3
	exitInterrupted = 130
)

// usageError is a command line lathe cannot run.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// stopped is a run that did not simply end with an answer: its stop reason
// decides the exit code, and the message says why.
type stopped struct {
	reason orchestrator.StopReason
	msg    string
}

func (e *stopped) Error() string { return e.msg }

// exitCode maps how lathe ended to its exit code: the one place that does.
func exitCode(err error) int {
	var usage usageError
	var cfg *config.Error
	var stop *stopped
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &usage), errors.As(err, &cfg):
		return exitUsage
	case errors.As(err, &stop):
		switch {
		case stop.reason.Limit():
			return exitLimit
		case stop.reason == orchestrator.StopInterrupted:
			return exitInterrupted
		}
		return exitFailure
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	return exitFailure
}

// exit tells the user how lathe ended, when not well, in one line or two
// on stderr, and returns the exit code: the one place that does. What the
// message quotes (a session's title, a file's name, a server's words) is
// shown with its control characters escaped, as the tool lines of -p are.
func exit(stderr io.Writer, err error) int {
	code := exitCode(err)
	if err == nil {
		return code
	}
	var cfg *config.Error
	switch {
	case errors.As(err, &cfg):
		fmt.Fprintf(stderr, "lathe: config: %s\n", human.Visible(err.Error()))
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "lathe: interrupted")
	default:
		fmt.Fprintf(stderr, "lathe: %s\n", human.Visible(err.Error()))
	}
	var usage usageError
	if errors.As(err, &usage) {
		fmt.Fprintln(stderr, `Run "lathe --help" for usage.`)
	}
	return code
}
