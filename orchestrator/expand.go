package orchestrator

import (
	"context"
	"fmt"

	"lathe/orchestrator/provider"
	"lathe/prompts"
	"lathe/tools"
)

// expand makes the text the model gets of a prompt that expands (a
// custom command's file), running the commands it asks for.
func (r *run) expand(p Prompt) string {
	if p.Expand == nil {
		return p.Text
	}
	n := 0
	return p.Expand(r.ctx, func(ctx context.Context, command string) string {
		n++
		return r.runCommand(ctx, n-1, command)
	})
}

// runCommand runs a command a prompt asked for (a custom command's
// !`…`) as a call of the tool that runs commands: its PreToolUse hooks,
// the approval its kind asks for, the sandbox, its card; it goes into no
// history but the prompt's. It returns the result's text, or why it did
// not run.
func (r *run) runCommand(ctx context.Context, index int, command string) string {
	var tool tools.CommandTool
	for _, t := range r.s.opts.Tools.All() {
		if ct, ok := t.(tools.CommandTool); ok {
			tool = ct
			break
		}
	}
	if tool == nil {
		return prompts.CommandNotRun(command, "lathe has no tool that runs commands here")
	}
	args := string(tool.CommandArgs(command))
	c := &callState{index: index, call: provider.ToolCall{Name: tool.Name()}, args: args, tool: tool, kind: tool.Kind()}
	prepared, err := tool.Prepare([]byte(args))
	if err != nil {
		c.settle(OutcomeFailed, tools.Errorf("invalid arguments", err.Error()))
	} else {
		c.prepared, c.subject = prepared, prepared.Subject()
	}
	r.preToolUse(0, []*callState{c})
	r.emit(ToolStarted{Index: c.index, Name: c.call.Name, Kind: c.kind, Args: c.args, Subject: c.subject})
	if !c.settled {
		r.execute(0, c)
	}
	r.emit(ToolFinished{Index: c.index, Name: c.call.Name, Kind: c.kind, Subject: c.subject, Result: c.result,
		Outcome: c.outcome, Duration: c.duration, NotApproved: c.notApproved, HookNotes: c.hookNotes})
	r.s.opts.Log.Debug().Str("command", abbreviate(command, 160)).Str("outcome", string(c.outcome)).
		Dur("duration_ms", c.duration).Msg("prompt command")
	if c.outcome != OutcomeOK && c.outcome != OutcomeFailed {
		return prompts.CommandNotRun(command, fmt.Sprint(c.outcome, ": ", c.result.Content))
	}
	return prompts.CommandOutput(command, c.result.Content)
}
