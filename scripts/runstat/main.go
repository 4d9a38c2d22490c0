// Command runstat runs a command and prints what it cost, for
// scripts/bench.sh: its wall time and its CPU time (user and system, its
// children's included) in microseconds, and its peak resident set size in
// KiB, on one line, to the file given (or to stderr):
//
//	runstat [-o FILE] COMMAND [ARG...]
//
// The command's own output and exit status pass through; GNU time gives
// CPU time in hundredths of a second, too coarse for runs of tens of
// milliseconds.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	args := os.Args[1:]
	out := os.Stderr
	if len(args) >= 2 && args[0] == "-o" {
		f, err := os.Create(args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "runstat:", err)
			os.Exit(2)
		}
		defer f.Close()
		out, args = f, args[2:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: runstat [-o FILE] COMMAND [ARG...]")
		os.Exit(2)
	}
	os.Exit(run(out, args))
}

func run(out *os.File, args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "runstat:", err)
		return 127
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Fprintf(out, "%d %d %d\n", wall.Microseconds(), cpu.Microseconds(), ru.Maxrss)
	return cmd.ProcessState.ExitCode()
}
