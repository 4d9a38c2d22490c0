package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"lathe/orchestrator"
	"lathe/orchestrator/checkpoint"
	"lathe/orchestrator/mode"
)

// The slash commands that make sense in an editor's panel: those that
// act on the session. The TUI's others (pickers, panels, the model
// switch) have the editor's own means, or none.
var slashCommands = []struct {
	name, about, hint string
	run               func(s *acpSession, ctx context.Context, args string) string
}{
	{"compact", "Summarize the conversation so far, to free the context window", "", (*acpSession).compact},
	{"undo", "Take back the last request's file changes and its part of the conversation", "", (*acpSession).undo},
	{"redo", "Do the last undone request's file changes again", "", (*acpSession).redo},
	{"mode", "Switch to ask, plan or build mode", "ask, plan or build", (*acpSession).setMode},
	{"clear", "Start a new conversation in this session, with the same model and settings", "", (*acpSession).clear},
}

// availableCommands are the slash commands as the client offers them.
func availableCommands() []sdk.AvailableCommand {
	out := make([]sdk.AvailableCommand, 0, len(slashCommands))
	for _, c := range slashCommands {
		cmd := sdk.AvailableCommand{Name: c.name, Description: c.about}
		if c.hint != "" {
			cmd.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: c.hint}}
		}
		out = append(out, cmd)
	}
	return out
}

// command runs text when it is one of the slash commands, saying how it
// went as the agent's message; ok is false for any other prompt.
func (s *acpSession) command(ctx context.Context, text string) (sdk.StopReason, bool) {
	name, args, _ := strings.Cut(strings.TrimSpace(text), " ")
	name, isCommand := strings.CutPrefix(name, "/")
	if !isCommand {
		return "", false
	}
	for _, c := range slashCommands {
		if c.name == name {
			s.update(sdk.UpdateAgentMessageText(c.run(s, ctx, strings.TrimSpace(args))))
			if ctx.Err() != nil {
				return sdk.StopReasonCancelled, true
			}
			return sdk.StopReasonEndTurn, true
		}
	}
	return "", false // a path, or a command of the model's: the prompt
}

func (s *acpSession) compact(ctx context.Context, _ string) string {
	st := newStream(ctx, s)
	defer st.close()
	err := s.s.Compact(ctx, st.event)
	switch {
	case errors.Is(err, orchestrator.ErrNothingToCompact):
		return "Nothing to compact yet."
	case err != nil:
		return "Could not compact: " + err.Error()
	}
	return "The conversation is compacted."
}

func (s *acpSession) undo(ctx context.Context, _ string) string { return s.takeBack(ctx, false) }
func (s *acpSession) redo(ctx context.Context, _ string) string { return s.takeBack(ctx, true) }

// takeBack undoes the last request (or redoes the last undone one); a
// file changed since is left alone, and said so.
func (s *acpSession) takeBack(ctx context.Context, redo bool) string {
	plan, err := s.s.PlanUndo(ctx)
	if redo {
		plan, err = s.s.PlanRedo(ctx)
	}
	switch {
	case errors.Is(err, checkpoint.ErrNothingToUndo) && !redo:
		return "Nothing to undo."
	case errors.Is(err, checkpoint.ErrNothingToUndo):
		return "Nothing to redo: there was no undo, or the conversation went on since."
	case err != nil:
		return "Cannot undo: " + err.Error()
	}
	out, _, err := s.s.ApplyPlan(ctx, plan, false)
	if err != nil {
		return "Cannot undo: " + err.Error()
	}
	verb := "Undone"
	if redo {
		verb = "Done again"
	}
	lines := []string{fmt.Sprintf("%s: %d file(s).", verb, len(out.Done))}
	for _, a := range out.Done {
		lines = append(lines, "- "+a.Do.Done()+" "+a.Path)
	}
	for _, a := range out.Refused {
		lines = append(lines, "- left alone "+a.Path+": "+a.Why)
	}
	return strings.Join(lines, "\n")
}

func (s *acpSession) setMode(ctx context.Context, args string) string {
	m, err := mode.Parse(args)
	if err != nil {
		return err.Error()
	}
	if err := s.s.SetMode(ctx, m, "user"); err != nil {
		return "Cannot switch: " + err.Error()
	}
	s.update(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{
		SessionUpdate: "current_mode_update", CurrentModeId: sdk.SessionModeId(m.Name())}})
	return "Now in " + m.Name() + " mode."
}

func (s *acpSession) clear(ctx context.Context, _ string) string {
	if err := s.s.Reset(ctx); err != nil {
		return "Cannot start a new conversation: " + err.Error()
	}
	return "A new conversation starts."
}
