package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"lathe/orchestrator/session"
)

// Lathe is the lathe program attempts run: Exe (os.Executable) started
// with Args0 as its name, and Env.
type Lathe struct {
	Exe   string
	Args0 string
	Env   []string
	// Flags are given to every run: those that name the server.
	Flags []string
	// Grace is how long a run stopped at its timeout has to record its end
	// (it gets SIGTERM) before it is killed; 0 means 10 seconds.
	Grace time.Duration
}

// maxResult bounds the JSON result read from a run (its answer included).
const maxResult = 4 << 20

// runResult is the part of lathe's json output (see package print) an
// attempt records.
type runResult struct {
	StopReason string `json:"stop_reason"`
	Turns      int    `json:"turns"`
	ToolCalls  int    `json:"tool_calls"`
	Usage      struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	SessionID  string         `json:"session_id"`
	Recoveries map[string]int `json:"recoveries"`
	Timing     struct {
		LoadMS     int64   `json:"load_ms"`
		PrefillMS  int64   `json:"prefill_ms"`
		DecodeMS   int64   `json:"decode_ms"`
		PrefillTPS float64 `json:"prefill_tps"`
		DecodeTPS  float64 `json:"decode_tps"`
	} `json:"timing"`
	Error string `json:"error"`
}

// launched is how a run of lathe went.
type launched struct {
	exit        int // -1 when it did not exit by itself
	timedOut    bool
	interrupted bool       // the experiment was interrupted
	result      *runResult // nil when it printed none
	stderr      string     // its last lines
	wall        time.Duration
	err         error // it could not start
}

// run is one run of lathe in an attempt: its prompt (the task's, or a
// second try's), the session it continues ("" for a new one) and where it
// writes its trajectory ("" nowhere).
type run struct {
	prompt, resume, trajectory string
}

// args is the command line of a one-shot run of task t by model in dir.
func args(t Task, model, dir, sandbox string, r run) []string {
	a := []string{"--prompt=" + r.prompt, "--yes", "--output-format", "json", "-C", dir, "-m", model}
	if r.resume != "" {
		a = append(a, "--resume", r.resume)
	}
	if r.trajectory != "" {
		a = append(a, "--trajectory", r.trajectory)
	}
	if sandbox != "" {
		a = append(a, "--sandbox", sandbox)
	}
	if t.MaxTurns > 0 {
		a = append(a, "--max-turns", strconv.Itoa(t.MaxTurns))
	}
	if t.Mode != "" {
		a = append(a, "--mode", t.Mode)
	}
	return a
}

// launch runs lathe on task t with model in dir, stopping it at the
// task's timeout: SIGTERM, so that it records its end, then SIGKILL
// after the grace. lathe runs in a process group of its own, which goes
// with it, and gets SIGTERM if the runner dies.
func (l Lathe) launch(ctx context.Context, t Task, model, dir, sandbox string, r run) launched {
	runCtx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	var stdout bytes.Buffer
	stderr := &tail{max: checkOutput}
	cmd := exec.CommandContext(runCtx, l.Exe, append(args(t, model, dir, sandbox, r), l.Flags...)...)
	cmd.Args[0] = l.Args0
	cmd.Env, cmd.Dir = l.Env, dir
	cmd.Stdout, cmd.Stderr = &limited{w: &stdout, n: maxResult}, stderr
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = l.Grace
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = 10 * time.Second
	}
	start := time.Now()
	err := cmd.Run()
	out := launched{exit: -1, wall: time.Since(start), stderr: stderr.String()}
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what it left in its group
	}
	out.interrupted = ctx.Err() != nil
	out.timedOut = !out.interrupted && runCtx.Err() != nil
	var exit *exec.ExitError
	switch {
	case err == nil:
		out.exit = 0
	case errors.As(err, &exit):
		out.exit = exit.ExitCode() // -1 when killed by a signal
	case cmd.Process == nil:
		out.err = fmt.Errorf("start lathe: %w", err)
		return out
	}
	var res runResult
	if line := lastLine(stdout.Bytes()); len(line) > 0 && json.Unmarshal(line, &res) == nil {
		out.result = &res
	}
	return out
}

// lastLine is the last non-empty line of b.
func lastLine(b []byte) []byte {
	b = bytes.TrimRight(b, "\n")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return b
}

// end is how the attempt ended, from how lathe's run went and what the
// check said (nil when it did not run).
func (l launched) end(t Task, check *CheckResult) session.AttemptEnd {
	e := session.AttemptEnd{State: session.AttemptFailed}
	if r := l.result; r != nil {
		e.StopReason, e.SessionID, e.Failure = r.StopReason, r.SessionID, r.Error
		e.Result = session.AttemptResult{Turns: r.Turns, ToolCalls: r.ToolCalls,
			PromptTokens: r.Usage.PromptTokens, CompletionTokens: r.Usage.CompletionTokens,
			Load:    time.Duration(r.Timing.LoadMS) * time.Millisecond,
			Prefill: time.Duration(r.Timing.PrefillMS) * time.Millisecond,
			Decode:  time.Duration(r.Timing.DecodeMS) * time.Millisecond, PrefillRate: r.Timing.PrefillTPS,
			DecodeRate: r.Timing.DecodeTPS}
		for _, n := range r.Recoveries {
			e.Result.Recoveries += n
		}
	}
	e.Result.Wall = l.wall
	if check != nil {
		met, exit := check.Met, check.Exit
		e.GoalMet, e.CheckOutput = &met, check.Output
		if exit >= 0 {
			e.CheckExit = &exit
		}
	}
	switch {
	case l.interrupted:
		e.FailureReason, e.Failure = session.FailInterrupted, "the experiment was interrupted"
	case l.timedOut:
		e.FailureReason, e.Failure = session.FailTimeout, fmt.Sprintf("stopped at the task's timeout, %s", t.Timeout)
	case l.err != nil:
		e.FailureReason, e.Failure = session.FailError, l.err.Error()
	case l.result == nil:
		e.FailureReason, e.Failure = session.FailError, l.noResult()
	case l.exit == 0:
		e.State = session.AttemptFinished
	case l.exit == 3:
		e.FailureReason = session.FailLimit
		if e.Failure == "" {
			e.Failure = lastText(l.stderr)
		}
	case l.exit == 130:
		e.FailureReason = session.FailInterrupted
	default:
		e.FailureReason = session.FailError
		if e.Failure == "" {
			e.Failure = lastText(l.stderr)
		}
	}
	return e
}

// noResult says what is known of a run that printed no result.
func (l launched) noResult() string {
	msg := fmt.Sprintf("lathe exited with code %d and printed no result", l.exit)
	if l.exit < 0 {
		msg = "lathe was killed and printed no result"
	}
	if s := lastText(l.stderr); s != "" {
		msg += ": " + s
	}
	return msg
}

// lastText is the last non-empty line of s.
func lastText(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimPrefix(s, "lathe: ")
}

// limited writes up to n bytes to w and drops the rest.
type limited struct {
	w interface{ Write([]byte) (int, error) }
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		if _, err := l.w.Write(p[:k]); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// combine is how the runs of an attempt went, taken together: the last
// run's outcome, with the counts and times of all of them summed (the
// speeds are the last run's).
func combine(runs []launched) launched {
	last := runs[len(runs)-1]
	if len(runs) == 1 {
		return last
	}
	var sum runResult
	if last.result != nil {
		sum = *last.result
		sum.Recoveries = maps.Clone(last.result.Recoveries)
	}
	for _, l := range runs[:len(runs)-1] {
		last.wall += l.wall
		r := l.result
		if r == nil {
			continue
		}
		sum.Turns += r.Turns
		sum.ToolCalls += r.ToolCalls
		sum.Usage.PromptTokens += r.Usage.PromptTokens
		sum.Usage.CompletionTokens += r.Usage.CompletionTokens
		sum.Timing.LoadMS += r.Timing.LoadMS
		sum.Timing.PrefillMS += r.Timing.PrefillMS
		sum.Timing.DecodeMS += r.Timing.DecodeMS
		for k, n := range r.Recoveries {
			if sum.Recoveries == nil {
				sum.Recoveries = map[string]int{}
			}
			sum.Recoveries[k] += n
		}
	}
	if last.result != nil {
		last.result = &sum
	}
	return last
}
