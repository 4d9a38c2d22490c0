package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"lathe/prompts/human"
	"lathe/tools/sandbox"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const (
	maxShellTimeout = 600
	// shellWaitDelay bounds how long a finished or killed command's
	// leftover processes may keep its output pipes open.
	shellWaitDelay = time.Second
)

func shellSpec(timeout time.Duration) spec {
	return spec{
		name: "shell",
		desc: "Run a command with bash -c in the working directory. Returns exit code, stdout and stderr. No stdin; non-interactive.",
		params: []param{
			{name: "command", typ: typeString, required: true, desc: "The bash command line"},
			{name: "timeout_seconds", typ: typeInteger, desc: "Kill the command after this many seconds, 1-600 (default " + strconv.Itoa(int(timeout.Seconds())) + ")"},
		},
	}
}

type shellArgs struct {
	Command        string `json:"command"`
	TimeoutSeconds int    `json:"timeout_seconds"`
}

type shellTool struct {
	base
	ws   *Workspace
	opts Options
}

func (*shellTool) Kind() Kind { return KindExec }

// Aliases implements Aliased: Claude Code's name for the tool.
func (*shellTool) Aliases() []string { return []string{"Bash"} }

// CommandArgs implements CommandTool.
func (*shellTool) CommandArgs(command string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"command": command}) // a string: cannot fail
	return b
}

func (t *shellTool) Prepare(raw json.RawMessage) (Call, error) {
	return prepare(&t.base, raw, func(a shellArgs) (Call, error) {
		if strings.TrimSpace(a.Command) == "" {
			return nil, errors.New("command is empty")
		}
		if strings.ContainsRune(a.Command, 0) {
			return nil, errors.New("command contains a NUL byte")
		}
		timeout := t.opts.ShellTimeout
		if a.TimeoutSeconds != 0 {
			if a.TimeoutSeconds < 1 || a.TimeoutSeconds > maxShellTimeout {
				return nil, fmt.Errorf("timeout_seconds must be between 1 and %d, got %d", maxShellTimeout, a.TimeoutSeconds)
			}
			timeout = time.Duration(a.TimeoutSeconds) * time.Second
		}
		return &shellCall{t: t, command: a.Command, timeout: timeout}, nil
	})
}

type shellCall struct {
	t          *shellTool
	command    string
	timeout    time.Duration
	escalation Escalation
}

func (c *shellCall) Subject() string { return c.command }

// Confined implements Sandboxed.
func (c *shellCall) Confined() bool {
	conf := c.t.opts.Confinement
	return conf != nil && conf.Policy.Mode != sandbox.Off
}

// Escalate implements Sandboxed.
func (c *shellCall) Escalate(e Escalation) { c.escalation = e }

// Unruled implements Unruled: a rule for git ("git status") covers git,
// not the programs the repository's config names (core.fsmonitor, a
// filter, a "!" alias), which git would run for it; where the repository
// sets any, the command is asked for.
func (c *shellCall) Unruled() string {
	if f := strings.Fields(c.command); len(f) == 0 || f[0] != "git" {
		return ""
	}
	if keys := sandbox.GitPrograms(c.t.ws.Dir()); len(keys) > 0 {
		return "the repository's git config makes git run programs (" + strings.Join(keys, ", ") + ")"
	}
	return ""
}

// policy is the policy the command runs under: the configured one, with
// what the user lifted for this call.
func (c *shellCall) policy(conf *Confinement) sandbox.Policy {
	p := conf.Policy
	switch {
	case c.escalation.Unconfined:
		p.Mode = sandbox.Off
	case c.escalation.Network:
		p.Network = true
	}
	return p
}

// Run runs the command. With a Confinement (lathe always has one) it runs
// through the sandbox helper, which confines it as the policy says and,
// when it exits, times out or is cancelled, kills every process it
// started, however they detached; the result says which it killed.
// Without one, bash runs in its own process group, which is killed.
func (c *shellCall) Run(ctx context.Context, caller Caller) (res Result, err error) {
	if ch := c.t.ws.changes; ch != nil {
		done := ch.Running(ctx)
		defer func() {
			note, changed := done()
			res.Content += noteLine(note)
			if err == nil {
				c.t.ws.check(ctx, caller, &res, commandChanges(changed)...)
			}
		}()
	}
	if conf := c.t.opts.Confinement; conf != nil {
		return c.runConfined(ctx, conf)
	}
	return c.runGroup(ctx)
}

// runConfined runs the command through the sandbox helper.
func (c *shellCall) runConfined(ctx context.Context, conf *Confinement) (Result, error) {
	if conf.Refused != nil && !c.escalation.Unconfined {
		return Errorf("not run", "not run: "+conf.Refused.Error()), nil
	}
	runCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	half := c.t.opts.MaxOutputBytes/2 - markerRoom
	stdout, stderr := newCapWriter(half), newCapWriter(half)
	cmd, err := sandbox.Command(runCtx, conf.Exe, c.policy(conf), c.command)
	if err != nil {
		return Result{}, fmt.Errorf("start the command: %w", err)
	}
	cmd.Env = append(c.env(cmd.Cmd), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	rep, err := cmd.Run()
	if errors.Is(err, sandbox.ErrUnsupported) {
		return Errorf("not run", "not run: "+err.Error()), nil
	}
	if err != nil {
		return Result{}, err
	}
	return c.ended(ctx, runCtx, confinedResult(rep, stdout, stderr), "the command was stopped")
}

// confinedResult is the result of a command as the helper reported it:
// its status, its output, what was killed and what the sandbox blocked.
func confinedResult(rep sandbox.Report, stdout, stderr *capWriter) Result {
	status := "exit " + strconv.Itoa(rep.ExitCode)
	if rep.Signal != "" {
		status = "killed by signal " + rep.Signal
	}
	var b strings.Builder
	b.WriteString(status + "\n")
	section(&b, "stdout", stdout)
	section(&b, "stderr", stderr)
	if stdout.Len()+stderr.Len() == 0 {
		b.WriteString("(no output)\n")
	}
	if k := rep.KilledSummary(); k != "" {
		b.WriteString("(" + k + ")\n")
	}
	var blocked []string
	for _, bl := range rep.Blocked {
		blocked = append(blocked, bl.String())
		b.WriteString("blocked by the sandbox: " + bl.String() + "\n")
	}
	res := Result{Content: b.String(), IsError: rep.ExitCode != 0 || rep.Signal != "", Summary: status, Blocked: blocked}
	if len(rep.Blocked) > 0 {
		res.Summary += ", " + human.Plural(len(rep.Blocked), "operation") + " blocked"
	}
	return res
}

// runGroup runs the command in its own process group. When the timeout
// passes or ctx ends, the whole group is killed, grandchildren included;
// so are processes the command left running in the background when it
// exits. Processes that left the group (setsid) are out of its reach.
func (c *shellCall) runGroup(ctx context.Context) (Result, error) {
	runCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	// Each stream gets half the cap, less room for the status and headers.
	half := c.t.opts.MaxOutputBytes/2 - markerRoom
	stdout, stderr := newCapWriter(half), newCapWriter(half)
	cmd := exec.CommandContext(runCtx, "bash", "-c", c.command)
	cmd.Dir = c.t.ws.Dir()
	cmd.Env = append(c.env(cmd), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = shellWaitDelay
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("start bash: %w", err)
	}
	waitErr := cmd.Wait()
	_ = killGroup(cmd) // leftover background processes
	if cmd.ProcessState == nil {
		return Result{}, fmt.Errorf("wait for bash: %w", waitErr)
	}
	return c.ended(ctx, runCtx, shellResult(cmd, waitErr, stdout, stderr), "the process group was killed")
}

// ended marks res as cancelled when ctx ended, or as timed out when only
// runCtx (the call's time limit) did, saying what was done about it.
func (c *shellCall) ended(ctx, runCtx context.Context, res Result, stopped string) (Result, error) {
	switch {
	case ctx.Err() != nil:
		res.IsError, res.Summary = true, "cancelled"
		return res, ctx.Err()
	case runCtx.Err() != nil:
		res.IsError, res.Summary = true, "timed out"
		res.Content = fmt.Sprintf("timed out after %s; %s\n%s", c.timeout, stopped, res.Content)
	}
	return res, nil
}

func (c *shellCall) env(cmd *exec.Cmd) []string {
	if c.t.opts.Env != nil {
		return c.t.opts.Env
	}
	return cmd.Environ()
}

// killGroup sends SIGKILL to the command's process group.
func killGroup(cmd *exec.Cmd) error {
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

func shellResult(cmd *exec.Cmd, waitErr error, stdout, stderr *capWriter) Result {
	status := "exit " + strconv.Itoa(cmd.ProcessState.ExitCode())
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		status = "killed by signal " + unix.SignalName(ws.Signal())
	}
	var b strings.Builder
	b.WriteString(status + "\n")
	if errors.Is(waitErr, exec.ErrWaitDelay) {
		b.WriteString("(processes left running in the background kept the output open; their process group was killed)\n")
	}
	section(&b, "stdout", stdout)
	section(&b, "stderr", stderr)
	if stdout.Len()+stderr.Len() == 0 {
		b.WriteString("(no output)\n")
	}
	return Result{Content: b.String(), IsError: !cmd.ProcessState.Success(), Summary: status}
}

func section(b *strings.Builder, name string, w *capWriter) {
	if w.Len() == 0 {
		return
	}
	b.WriteString("[" + name + "]\n")
	s := w.String()
	b.WriteString(s)
	if !strings.HasSuffix(s, "\n") {
		b.WriteString("\n[no newline at end]\n")
	}
}
