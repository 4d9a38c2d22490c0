package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"lathe/orchestrator"
	"lathe/orchestrator/plan"
	"lathe/prompts/human"
	"lathe/tools"
)

// stream turns a run's events into session/update notifications, as they
// come: text and thinking as chunks, each call as a tool_call and its
// tool_call_updates, a plan's checklist as plan entries, a mode change as
// current_mode_update.
type stream struct {
	ctx context.Context // the run's: the editor's reads for a diff end with it
	s   *acpSession
	run int

	mu    sync.Mutex
	calls map[[2]int]sdk.ToolCallId // by turn and index
	// prepared are the calls waiting to run, to find the tool call an
	// approval is about.
	prepared []preparedCall
}

type preparedCall struct {
	call tools.Call
	id   sdk.ToolCallId
}

func newStream(ctx context.Context, s *acpSession) *stream {
	s.mu.Lock()
	run := s.seq
	s.mu.Unlock()
	st := &stream{ctx: ctx, s: s, run: run, calls: map[[2]int]sdk.ToolCallId{}}
	s.asker.use(st)
	return st
}

// close ends the stream: approvals no longer look in it.
func (st *stream) close() { st.s.asker.use(nil) }

// event is the run's emit.
func (st *stream) event(ev orchestrator.Event) {
	s := st.s
	switch e := ev.(type) {
	case orchestrator.TextDelta:
		s.update(sdk.UpdateAgentMessageText(e.Text))
	case orchestrator.ThinkingDelta:
		s.update(sdk.UpdateAgentThoughtText(e.Text))
	case orchestrator.ToolStarted:
		st.started(e)
	case orchestrator.ToolProgress:
		st.progress(e)
	case orchestrator.ToolFinished:
		st.finished(e)
	case orchestrator.ModeChanged:
		s.update(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{
			SessionUpdate: "current_mode_update", CurrentModeId: sdk.SessionModeId(e.To)}})
		if e.Plan != nil {
			s.update(planUpdate(e.Plan))
		}
	case orchestrator.PlanProposed:
		s.update(planUpdate(e.Plan))
	case orchestrator.PlanUpdated:
		s.update(planUpdate(e.Plan))
	case orchestrator.Warning:
		s.a.o.Log.Warn().Str("session", string(s.id)).Msg(e.Text)
		s.update(sdk.UpdateAgentThoughtText("\nlathe: warning: " + e.Text + "\n"))
	case orchestrator.Compacted:
		s.update(sdk.UpdateAgentThoughtText(fmt.Sprintf("\nlathe: the conversation was compacted: %s → %s tokens\n",
			human.Thousands(e.Before), human.Thousands(e.After))))
	}
}

// callID is the id of the call at turn and index, unique in the session.
func (st *stream) callID(turn, index int) sdk.ToolCallId {
	st.mu.Lock()
	defer st.mu.Unlock()
	key := [2]int{turn, index}
	if id, ok := st.calls[key]; ok {
		return id
	}
	id := sdk.ToolCallId(fmt.Sprintf("lathe-%d-%d-%d", st.run, turn, index))
	st.calls[key] = id
	return id
}

// started tells of a call: its kind, title, the file it works on, and
// for a write the change it would make as a diff.
func (st *stream) started(e orchestrator.ToolStarted) {
	s := st.s
	id := st.callID(e.Turn, e.Index)
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(toolKind(e.Kind, e.Call)), sdk.WithStartStatus(sdk.ToolCallStatusPending),
		sdk.WithStartRawInput(rawArgs(e.Args))}
	if loc := st.location(e.Call); loc != nil {
		opts = append(opts, sdk.WithStartLocations(loc))
	}
	if diff := st.diff(e.Call); diff != nil {
		opts = append(opts, sdk.WithStartContent(diff))
	}
	if e.Call != nil && e.Kind.NeedsApproval() {
		st.mu.Lock()
		st.prepared = append(st.prepared, preparedCall{call: e.Call, id: id})
		st.mu.Unlock()
	}
	terminal := e.Kind == tools.KindExec && s.a.terminalOutput()
	if terminal {
		opts = append(opts, sdk.WithStartContent([]sdk.ToolCallContent{sdk.ToolTerminalRef(string(id))}))
	}
	u := sdk.StartToolCall(id, title(e.Name, e.Kind, e.Subject), opts...)
	if terminal {
		u.ToolCall.Meta = map[string]any{"terminal_info": map[string]any{"terminal_id": string(id), "cwd": s.dir}}
	}
	s.update(u)
}

// progress tells what a running call said of how far it got.
func (st *stream) progress(e orchestrator.ToolProgress) {
	st.s.update(sdk.UpdateToolCall(st.callID(e.Turn, e.Index), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress),
		sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(e.Text))})))
}

// finished tells how a call ended, with what it sent the model.
func (st *stream) finished(e orchestrator.ToolFinished) {
	id := st.callID(e.Turn, e.Index)
	st.mu.Lock()
	for i, p := range st.prepared {
		if p.id == id {
			st.prepared = append(st.prepared[:i], st.prepared[i+1:]...)
			break
		}
	}
	st.mu.Unlock()
	status := sdk.ToolCallStatusCompleted
	if e.Outcome != orchestrator.OutcomeOK {
		status = sdk.ToolCallStatusFailed
	}
	if e.Kind == tools.KindExec && st.s.a.terminalOutput() {
		st.terminalEnd(id, status, e.Result)
		return
	}
	text := e.Result.Content
	if e.Kind == tools.KindExec && text != "" {
		text = fence(text)
	}
	var content []sdk.ToolCallContent
	if text != "" {
		content = append(content, sdk.ToolContent(sdk.TextBlock(text)))
	}
	st.s.update(sdk.UpdateToolCall(id, sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content),
		sdk.WithUpdateRawOutput(map[string]any{"outcome": string(e.Outcome), "summary": e.Result.Summary})))
}

// terminalEnd ends a command's call for a client that renders its
// output in a terminal of its own (Zed's terminal_output convention): the
// output, then the exit code, for the terminal the call started with. The
// command ran in lathe's sandbox; the editor only shows what it wrote.
func (st *stream) terminalEnd(id sdk.ToolCallId, status sdk.ToolCallStatus, res tools.Result) {
	output := sdk.UpdateToolCall(id)
	output.ToolCallUpdate.Meta = map[string]any{"terminal_output": map[string]any{"terminal_id": string(id), "data": res.Content}}
	st.s.update(output)
	var code any // null: killed, timed out, or not run
	var c int
	if n, err := fmt.Sscanf(res.Summary, "exit %d", &c); n == 1 && err == nil {
		code = c
	}
	end := sdk.UpdateToolCall(id, sdk.WithUpdateStatus(status),
		sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolTerminalRef(string(id))}),
		sdk.WithUpdateRawOutput(map[string]any{"summary": res.Summary}))
	end.ToolCallUpdate.Meta = map[string]any{"terminal_exit": map[string]any{"terminal_id": string(id), "exit_code": code, "signal": nil}}
	st.s.update(end)
}

// idOf is the tool call of a prepared call waiting for its approval.
func (st *stream) idOf(call tools.Call) (sdk.ToolCallId, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, p := range st.prepared {
		if sameCall(p.call, call) {
			return p.id, true
		}
	}
	return "", false
}

// sameCall reports whether a and b are the same prepared call.
func sameCall(a, b tools.Call) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !va.IsValid() || !vb.IsValid() || va.Kind() != reflect.Pointer || vb.Kind() != reflect.Pointer {
		return false
	}
	return va.Type() == vb.Type() && va.Pointer() == vb.Pointer()
}

// location is where call works, as an absolute path; nil when it works
// on no one file.
func (st *stream) location(call tools.Call) []sdk.ToolCallLocation {
	if call == nil {
		return nil
	}
	place, ok := tools.PlaceOf(call)
	if !ok {
		return nil
	}
	loc := sdk.ToolCallLocation{Path: filepath.Join(st.s.dir, filepath.FromSlash(place.Path))}
	if place.Line > 0 {
		loc.Line = sdk.Ptr(place.Line)
	}
	return []sdk.ToolCallLocation{loc}
}

// diff is the change a call that writes would make, as the protocol's
// diff content; nil when it cannot tell.
func (st *stream) diff(call tools.Call) []sdk.ToolCallContent {
	if call == nil {
		return nil
	}
	ch, ok, err := tools.ChangeOf(st.ctx, call)
	if !ok || err != nil {
		return nil
	}
	path := filepath.Join(st.s.dir, filepath.FromSlash(ch.Path))
	if !ch.Existed {
		return []sdk.ToolCallContent{sdk.ToolDiffContent(path, ch.After)}
	}
	return []sdk.ToolCallContent{sdk.ToolDiffContent(path, ch.After, ch.Before)}
}

// toolKind is the protocol's kind of a call, from its tool's kind: a
// read of one file is a read, one across files a search.
func toolKind(k tools.Kind, call tools.Call) sdk.ToolKind {
	switch k {
	case tools.KindRead:
		if call != nil {
			if _, placed := tools.PlaceOf(call); !placed {
				return sdk.ToolKindSearch
			}
		}
		return sdk.ToolKindRead
	case tools.KindWrite:
		return sdk.ToolKindEdit
	case tools.KindExec:
		return sdk.ToolKindExecute
	case tools.KindUI, tools.KindTransition:
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther // memory, MCP servers' tools
}

// title is what the client shows of a call.
func title(name string, k tools.Kind, subject string) string {
	subject = strings.TrimSpace(subject)
	switch {
	case subject == "":
		return name
	case k == tools.KindExec:
		first, _, _ := strings.Cut(subject, "\n")
		return "Run `" + first + "`"
	}
	return name + " " + subject
}

// rawArgs is a call's arguments as JSON, for rawInput.
func rawArgs(args string) any {
	if !json.Valid([]byte(args)) {
		return args
	}
	return rawJSON(args)
}

type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// fence puts a command's output in a code block.
func fence(text string) string {
	f := "```"
	for strings.Contains(text, f) {
		f += "`"
	}
	return f + "\n" + strings.TrimRight(text, "\n") + "\n" + f
}

// planUpdate is a plan's checklist as plan entries.
func planUpdate(p *plan.Plan) sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, 0, len(p.Steps))
	for _, step := range p.Steps {
		status := sdk.PlanEntryStatusPending
		switch step.Status {
		case plan.InProgress:
			status = sdk.PlanEntryStatusInProgress
		case plan.Done, plan.Skipped:
			status = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: step.Text, Priority: sdk.PlanEntryPriorityMedium, Status: status})
	}
	return sdk.UpdatePlan(entries...)
}
