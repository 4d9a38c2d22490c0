package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"lathe/orchestrator"
	"lathe/prompts"
)

// replay tells the client a loaded session's conversation, as
// session/update notifications in its order: the user's prompts, the
// replies and their thinking, each call and how it ended. lathe's own
// notes to the model are left out, as the TUI leaves them out.
func (s *acpSession) replay(ctx context.Context, h *orchestrator.History) {
	msgs, err := h.All(ctx)
	if err != nil {
		s.update(sdk.UpdateAgentThoughtText("lathe: the older messages of the session could not be read: " + err.Error() + "\n"))
		msgs = h.Messages
	}
	if h.Compaction != nil {
		s.update(sdk.UpdateAgentThoughtText("lathe: the conversation before this point was compacted; the saved session keeps it all\n"))
	}
	var waiting []sdk.ToolCallId // calls not answered yet, in order
	byID := map[string]sdk.ToolCallId{}
	n := 0
	for _, m := range msgs {
		msg := m.Message
		switch msg.Role {
		case "user":
			if strings.HasPrefix(msg.Content, prompts.NotePrefix) {
				continue
			}
			s.update(sdk.UpdateUserMessageText(msg.Content))
		case "assistant":
			if msg.Thinking != "" {
				s.update(sdk.UpdateAgentThoughtText(msg.Thinking))
			}
			if msg.Content != "" {
				s.update(sdk.UpdateAgentMessageText(msg.Content))
			}
			for _, c := range msg.ToolCalls {
				n++
				id := sdk.ToolCallId(fmt.Sprintf("lathe-loaded-%d", n))
				if c.ID != "" {
					byID[c.ID] = id
				}
				waiting = append(waiting, id)
				opts := []sdk.ToolCallStartOpt{sdk.WithStartStatus(sdk.ToolCallStatusPending),
					sdk.WithStartRawInput(rawArgs(string(c.Arguments)))}
				if tool, ok := s.w.Engine.Options.Tools.Lookup(c.Name); ok {
					opts = append(opts, sdk.WithStartKind(toolKind(tool.Kind(), nil)))
				}
				s.update(sdk.StartToolCall(id, c.Name, opts...))
			}
		case "tool":
			id, ok := byID[msg.ToolCallID]
			if !ok && len(waiting) > 0 {
				id = waiting[0]
			}
			for i, w := range waiting {
				if w == id {
					waiting = append(waiting[:i], waiting[i+1:]...)
					break
				}
			}
			if id == "" {
				continue
			}
			opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted)}
			if meta := m.Tool; meta != nil {
				if meta.Outcome != string(orchestrator.OutcomeOK) {
					opts[0] = sdk.WithUpdateStatus(sdk.ToolCallStatusFailed)
				}
				if meta.Subject != "" {
					opts = append(opts, sdk.WithUpdateTitle(msg.ToolName+" "+meta.Subject))
				}
			}
			if msg.Content != "" {
				opts = append(opts, sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(msg.Content))}))
			}
			s.update(sdk.UpdateToolCall(id, opts...))
		}
	}
}
