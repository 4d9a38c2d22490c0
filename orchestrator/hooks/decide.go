package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"
)

// Status is how one hook's run went.
type Status string

const (
	StatusOK      Status = "ok"      // exit 0
	StatusBlocked Status = "blocked" // exit 2, or a decision that blocks
	StatusFailed  Status = "failed"  // another exit code, or output lathe could not read: a warning, never a block
	StatusTimeout Status = "timeout" // killed at its time limit
	StatusError   Status = "error"   // it could not be run
	StatusChanged Status = "changed" // not run: a script it runs changed since the project's hooks were trusted
)

// Permission decisions of PreToolUse hooks, from the weakest: a deny
// wins over an ask, which wins over an allow.
const (
	Allow = "allow"
	Ask   = "ask"
	Deny  = "deny"
)

var permissionRank = map[string]int{"": 0, Allow: 1, Ask: 2, Deny: 3}

// Run is one hook's run, as it is reported.
type Run struct {
	Hook     Hook
	Status   Status
	ExitCode int // -1 when it was killed, or did not run
	Duration time.Duration
	// Output is what the hook printed for the user: its stdout on success
	// (unless it asked to suppress it), its systemMessage, its stderr on
	// a failure.
	Output string
	// Problem says what went wrong ("timed out after 60s", "exit 1",
	// "stdout is not valid JSON"); "" when nothing did.
	Problem string
	// Warn: this is the first time in the session this hook went wrong,
	// and the user should be told; later problems are logged only.
	Warn bool
}

// Outcome is what the hooks an event ran decided, together.
type Outcome struct {
	// Block: a hook exited 2, or decided to block (PreToolUse: deny).
	// Reason is what they said, for the model or the user, by event.
	Block  bool
	Reason string
	// Permission is PreToolUse's decision: "", Allow, Deny or Ask;
	// PermissionReason is what the hook said of it.
	Permission       string
	PermissionReason string
	// UpdatedInput is PreToolUse's change to the call's arguments: a JSON
	// object of the fields to set; nil for none.
	UpdatedInput json.RawMessage
	// Context is text to add to what the model reads: additionalContext,
	// and the stdout of SessionStart and UserPromptSubmit hooks.
	Context []string
	// Stop: a hook said "continue": false; StopReason is what it said to
	// the user.
	Stop       bool
	StopReason string
	// Runs are the hooks that ran, in the order they are configured.
	Runs []Run
}

// Ran reports whether any hook ran.
func (o Outcome) Ran() bool { return len(o.Runs) > 0 }

// output is the JSON a hook may print on stdout, as Claude Code reads it.
type output struct {
	Continue           *bool  `json:"continue"`
	StopReason         string `json:"stopReason"`
	SuppressOutput     bool   `json:"suppressOutput"`
	SystemMessage      string `json:"systemMessage"`
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	HookSpecificOutput *struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// decide reads how a hook ended into its run and its part of the outcome.
func decide(event string, h Hook, e ended) (Run, Outcome) {
	run := Run{Hook: h, ExitCode: e.code, Duration: e.duration}
	var o Outcome
	stderr := strings.TrimSpace(e.stderr.text())
	switch {
	case e.err != nil:
		run.Status, run.Problem = StatusError, "could not run: "+e.err.Error()
	case e.timedOut:
		run.Status, run.Problem, run.ExitCode = StatusTimeout, fmt.Sprintf("timed out after %s; its processes were killed", h.timeout()), -1
		run.Output = stderr
	case e.code == 2:
		run.Status, run.Output = StatusBlocked, stderr
		o.Block, o.Reason = true, stderr
		if event == PreToolUse {
			o.Permission, o.PermissionReason = Deny, stderr
		}
	case e.code != 0:
		run.Status, run.Output = StatusFailed, stderr
		run.Problem = fmt.Sprintf("exit %d", e.code)
		if e.code < 0 {
			run.Problem = "killed by a signal"
		}
	default:
		run.Status = StatusOK
		o = readStdout(event, e.stdout, &run)
	}
	return run, o
}

// readStdout reads a successful hook's stdout: JSON for finer decisions,
// else text for the user (SessionStart, UserPromptSubmit: context for the
// model).
func readStdout(event string, stdout *capBuffer, run *Run) Outcome {
	var o Outcome
	text := strings.TrimSpace(stdout.text())
	if text == "" {
		return o
	}
	if strings.HasPrefix(text, "{") {
		var out output
		dec := json.NewDecoder(bytes.NewReader(stdout.buf))
		switch err := dec.Decode(&out); {
		case stdout.cut() > 0:
			run.Status, run.Problem = StatusFailed, fmt.Sprintf("stdout is larger than %d bytes: its JSON was not read", stdout.limit)
			return o
		case err == nil:
			return fromJSON(event, out, run)
		default:
			run.Status, run.Problem = StatusFailed, "stdout looks like JSON but is not ("+err.Error()+"); read as text"
		}
	}
	if event == SessionStart || event == UserPromptSubmit {
		o.Context = []string{text}
		return o
	}
	run.Output = text
	return o
}

// fromJSON applies a hook's JSON output.
func fromJSON(event string, out output, run *Run) Outcome {
	var o Outcome
	if out.Continue != nil && !*out.Continue {
		o.Stop, o.StopReason = true, out.StopReason
	}
	if !out.SuppressOutput {
		run.Output = out.SystemMessage
	}
	switch out.Decision {
	case "block":
		o.Block, o.Reason = true, out.Reason
		run.Status = StatusBlocked
		if event == PreToolUse {
			o.Permission, o.PermissionReason = Deny, out.Reason
		}
	case "approve": // PreToolUse's older word for allow
		if event == PreToolUse {
			o.Permission, o.PermissionReason = Allow, out.Reason
		}
	}
	hs := out.HookSpecificOutput
	if hs == nil {
		return o
	}
	if event == PreToolUse {
		switch hs.PermissionDecision {
		case Allow, Ask, Deny:
			o.Permission, o.PermissionReason = hs.PermissionDecision, hs.PermissionDecisionReason
			if hs.PermissionDecision == Deny {
				o.Block, o.Reason = true, hs.PermissionDecisionReason
				run.Status = StatusBlocked
			}
		case "":
		default:
			run.Problem = fmt.Sprintf("permissionDecision %q is none of allow, deny and ask: ignored", hs.PermissionDecision)
		}
		if len(hs.UpdatedInput) > 0 && string(hs.UpdatedInput) != "null" {
			if isObject(hs.UpdatedInput) {
				o.UpdatedInput = hs.UpdatedInput
			} else {
				run.Problem = "updatedInput is not a JSON object: ignored"
			}
		}
	}
	if c := strings.TrimSpace(hs.AdditionalContext); c != "" {
		o.Context = []string{c}
	}
	return o
}

func isObject(raw json.RawMessage) bool {
	var v map[string]json.RawMessage
	return json.Unmarshal(raw, &v) == nil && v != nil
}

// merge adds one hook's part to the outcome so far.
func (o *Outcome) merge(p Outcome) {
	if p.Block {
		o.Block = true
		o.Reason = joinLine(o.Reason, p.Reason)
	}
	if permissionRank[p.Permission] > permissionRank[o.Permission] {
		o.Permission, o.PermissionReason = p.Permission, p.PermissionReason
	}
	if p.UpdatedInput != nil {
		o.UpdatedInput = mergeObjects(o.UpdatedInput, p.UpdatedInput)
	}
	o.Context = append(o.Context, p.Context...)
	if p.Stop && !o.Stop {
		o.Stop, o.StopReason = true, p.StopReason
	}
}

func joinLine(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

// mergeObjects sets b's fields over a's (both JSON objects).
func mergeObjects(a, b json.RawMessage) json.RawMessage {
	if a == nil {
		return b
	}
	var ma, mb map[string]json.RawMessage
	_ = json.Unmarshal(a, &ma)
	_ = json.Unmarshal(b, &mb)
	maps.Copy(ma, mb)
	out, _ := json.Marshal(ma)
	return out
}

// ApplyInput returns args (a JSON object) with update's fields set over
// its own: what a call runs with once PreToolUse hooks changed it.
func ApplyInput(args string, update json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &m) != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	var u map[string]json.RawMessage
	_ = json.Unmarshal(update, &u)
	maps.Copy(m, u)
	out, _ := json.Marshal(m)
	return string(out)
}
