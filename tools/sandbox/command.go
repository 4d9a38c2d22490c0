package sandbox

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// HelperArg is the hidden subcommand that runs the helper: main must call
// Main(os.Args[2:]) first thing when os.Args[1] is HelperArg.
const HelperArg = "__sandbox-helper"

// The helper's inherited file descriptors, after stdin, stdout, stderr.
const (
	fdControl = 3 // the request; then held open by lathe until it wants the command stopped
	fdReport  = 4 // the Report, as JSON, written when everything is over
)

// DefaultWaitDelay is how long Wait gives the helper, once the context is
// done, to kill the command and report before it is killed itself. The
// helper gives up killing after 3 seconds (a process stuck in the kernel
// cannot die) and reports survivors, well within it.
const DefaultWaitDelay = 10 * time.Second

const maxReport = 1 << 20

// request is what lathe sends the helper, in gob: unlike JSON, it carries
// strings byte for byte, and paths and commands need not be UTF-8.
type request struct {
	Policy  Policy
	Command string
}

// wireReport is what the helper sends back.
type wireReport struct {
	Report
	Error       string `json:"error,omitempty"`
	Unsupported bool   `json:"unsupported,omitempty"`
}

// Cmd runs one command, "bash -c command", through the helper. Env,
// Stdin, Stdout, Stderr and WaitDelay of the embedded exec.Cmd may be set
// before Start; Dir is the policy's workspace. Use Start, Wait and Run
// from Cmd, not from exec.Cmd.
type Cmd struct {
	*exec.Cmd
	policy  Policy
	command string
	request []byte
	errs    errScanner

	mu      sync.Mutex
	control *os.File // lathe's end: closing it stops the command
	stopped bool
	report  chan reportResult
}

type reportResult struct {
	rep wireReport
	err error
}

// Command returns the Cmd that runs command under p. exe is the lathe
// executable (os.Executable), which runs the helper when given HelperArg.
// When ctx is done, the helper kills every process of the command and
// reports; after WaitDelay more, the helper itself is killed.
func Command(ctx context.Context, exe string, p Policy, command string) (*Cmd, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("%w: it needs Linux", ErrUnsupported)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	p = p.Clean()
	var req bytes.Buffer
	if err := gob.NewEncoder(&req).Encode(request{Policy: p, Command: command}); err != nil {
		return nil, fmt.Errorf("encode sandbox request: %w", err)
	}
	c := &Cmd{Cmd: exec.CommandContext(ctx, exe, HelperArg), policy: p, command: command, request: req.Bytes()}
	c.Dir = p.Workspace
	// Its own session: no controlling terminal to type into, and a
	// terminal hang-up does not reach it (lathe going away does, through
	// the control pipe).
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	c.WaitDelay = DefaultWaitDelay
	c.Cancel = func() error {
		c.stop()
		return nil
	}
	return c, nil
}

// stop asks the helper to end the command by closing the control pipe,
// once the request is through it.
func (c *Cmd) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped && c.control != nil {
		c.control.Close()
	}
	c.stopped = true
}

// Start starts the helper and sends it the request.
func (c *Cmd) Start() error {
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("start sandbox helper: %w", err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return fmt.Errorf("start sandbox helper: %w", err)
	}
	c.ExtraFiles = []*os.File{ctlR, repW}
	if c.Stderr != nil {
		c.Stderr = io.MultiWriter(c.Stderr, &c.errs)
	} else {
		c.Stderr = &c.errs
	}
	// Held until the request is written: a cancel that comes meanwhile
	// (exec.Cmd calls stop from its own goroutine) waits for it.
	c.mu.Lock()
	defer c.mu.Unlock()
	c.control = ctlW
	err = c.Cmd.Start()
	ctlR.Close()
	repW.Close()
	if err != nil {
		ctlW.Close()
		repR.Close()
		c.stopped = true
		return fmt.Errorf("start sandbox helper: %w", err)
	}
	c.report = make(chan reportResult, 1)
	go func() {
		defer repR.Close()
		var r reportResult
		b, err := io.ReadAll(io.LimitReader(repR, maxReport))
		if err == nil {
			err = json.Unmarshal(b, &r.rep)
		}
		r.err = err
		c.report <- r
	}()
	// A request larger than the pipe's buffer waits for the helper to
	// read it, which it does first. If the helper died, Wait says why.
	_, _ = ctlW.Write(c.request)
	return nil
}

// Wait waits for the command and returns the helper's report. The error
// is for the sandbox itself (helper failed, command could not be set up
// as the policy asks, which wraps ErrUnsupported when the kernel is at
// fault); the command's own failure is in the report.
func (c *Cmd) Wait() (Report, error) {
	if c.report == nil {
		return Report{}, errors.New("sandbox: Wait before Start")
	}
	waitErr := c.Cmd.Wait()
	c.stop()
	r := <-c.report
	switch {
	case r.err != nil:
		return Report{}, fmt.Errorf("sandbox helper ended without a report: %w", errors.Join(waitErr, r.err))
	case r.rep.Error != "" && r.rep.Unsupported:
		return Report{}, fmt.Errorf("%w: %s", ErrUnsupported, r.rep.Error)
	case r.rep.Error != "":
		return Report{}, errors.New("sandbox: " + r.rep.Error)
	}
	rep := r.rep.Report
	rep.Blocked = append(rep.Blocked, infer(c.policy, c.errs.Lines(), c.command)...)
	return rep, nil
}

// Run starts the command and waits for it.
func (c *Cmd) Run() (Report, error) {
	if err := c.Start(); err != nil {
		return Report{}, err
	}
	return c.Wait()
}
