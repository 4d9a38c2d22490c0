// Command toolrun runs one call of a built-in tool over a directory, the
// way a model's call goes through Prepare and Run, and prints the result's
// summary and the CPU time of the call alone, for scripts/bench.sh:
//
//	toolrun DIR TOOL ARGS
//
// ARGS is the call's arguments as JSON, e.g. '{"pattern":"TODO"}'. The
// process does nothing else, so its peak resident set size is the Go
// runtime's floor plus what the call holds: the measure of a call's
// memory that scripts/bench.sh sets against the other tool's process.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"time"

	"lathe/tools"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: toolrun DIR TOOL ARGS")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "toolrun:", err)
		os.Exit(1)
	}
}

func run(dir, name, args string) error {
	ws, err := tools.OpenWorkspace(dir)
	if err != nil {
		return err
	}
	defer ws.Close()
	tool, ok := tools.Default(ws, tools.Options{}).Lookup(name)
	if !ok {
		return fmt.Errorf("no tool %q", name)
	}
	start := cpuTime()
	call, err := tool.Prepare(json.RawMessage(args))
	if err != nil {
		return err
	}
	res, err := call.Run(context.Background(), tools.Caller{})
	if err != nil {
		return err
	}
	// The same line as the benchmarks log, which scripts/bench.sh reads.
	fmt.Printf("%s; call: %d us of CPU\n", res.Summary, (cpuTime() - start).Microseconds())
	return nil
}

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
