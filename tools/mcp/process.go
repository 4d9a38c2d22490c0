package mcp

import (
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// process is a stdio server's process. lathe owns its pipes and its Wait,
// so that it can tell how the process ended while the SDK speaks to it.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed once Wait returned
	err    error         // Wait's, once exited
}

// startProcess starts cmd in a process group of its own (a signal meant
// for lathe's terminal does not reach it, and it is killed whole), with
// pipes to its stdin and from its stdout.
func startProcess(cmd *exec.Cmd) (p *process, stdout io.ReadCloser, stdin io.WriteCloser, err error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, nil, nil, err
	}
	p = &process{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, outR, inW, nil
}

// exitedWithin reports whether the process ended, waiting at most d for
// it. A nil process (an HTTP server) has not.
func (p *process) exitedWithin(d time.Duration) bool {
	if p == nil {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// status says how the process ended, once it did.
func (p *process) status() string {
	if p.cmd.ProcessState != nil {
		return p.cmd.ProcessState.String()
	}
	if p.err != nil {
		return p.err.Error()
	}
	return "exited"
}

// kill ends the process group, also once the process exited: its group
// may live on, children it left behind.
func (p *process) kill() {
	if p == nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
}
