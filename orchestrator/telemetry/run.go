package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/tools"
)

// run is one run's spans: invoke_agent for the run, chat for the model
// call under way, execute_tool for each call running.
type run struct {
	t       *Telemetry
	session string
	start   time.Time
	ctx     context.Context // the invoke_agent span's
	span    trace.Span
	model   string
	denied  int
	sets    chatSets // of the metrics of a model call

	chat      trace.Span // nil between model calls
	chatStart time.Time
	spill     *orchestrator.Spill // the model spilled to the CPU, as of this call
	text      []byte              // the reply's text, when content is logged
	calls     []toolCall          // the reply's calls, when content is logged
	tools     map[int]trace.Span  // the calls running, by index
}

// toolCall is a call of the reply, for gen_ai.output.messages.
type toolCall struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Run implements orchestrator.Observer: a run is an invoke_agent span,
// each model call a chat span under it and each tool call an execute_tool
// span beside them.
func (t *Telemetry) Run(session, prompt string) (func(orchestrator.Event), func(orchestrator.Result, error)) {
	r := &run{t: t, session: session, start: t.o.Now(), tools: map[int]trace.Span{}}
	attrs := []attribute.KeyValue{keyOperation.String("invoke_agent"), keyAgentName.String("lathe"),
		keyProvider.String(t.o.Provider), keyConversation.String(session)}
	for k, v := range t.set.eval {
		attrs = append(attrs, attribute.String(k, v))
	}
	if t.set.logContent {
		attrs = append(attrs, keyInputMessages.String(messages("user", prompt, nil, "")))
	}
	r.ctx, r.span = t.tracer.Start(t.parent, "invoke_agent lathe", trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithTimestamp(r.start), trace.WithAttributes(attrs...))
	return r.event, r.done
}

func (r *run) event(e orchestrator.Event) {
	switch e := e.(type) {
	case orchestrator.TurnStarted:
		r.turnStarted(e)
	case orchestrator.TextDelta:
		if r.t.set.logContent {
			r.text = append(r.text, e.Text...)
		}
	case orchestrator.ReplyRewritten:
		if r.chat != nil {
			r.chat.SetAttributes(keyRewritten.Bool(true))
		}
		if r.t.set.logContent {
			r.text = append(r.text[:0], e.Content...)
		}
	case orchestrator.Spill:
		r.spill = &e
	case orchestrator.ToolStarted:
		r.toolStarted(e)
	case orchestrator.ToolFinished:
		r.toolFinished(e)
	case orchestrator.TurnFinished:
		r.turnFinished(e)
	case orchestrator.Compacted:
		r.span.AddEvent("compacted", trace.WithAttributes(attribute.Int("lathe.compacted.messages", e.Summarized),
			attribute.Int("lathe.compacted.tokens_before", e.Before), attribute.Int("lathe.compacted.tokens_after", e.After)))
	case orchestrator.ModeChanged:
		r.span.AddEvent("mode_changed", trace.WithAttributes(attribute.String("lathe.mode.from", e.From),
			attribute.String("lathe.mode.to", e.To)))
	}
}

// chatAttrs are a model call's attributes for its metrics.
func (r *run) chatAttrs() []attribute.KeyValue {
	return []attribute.KeyValue{keyOperation.String("chat"), keyProvider.String(r.t.o.Provider), keyRequestModel.String(r.model)}
}

// chatSets are the attribute sets of the metrics of a call to r.model.
func (r *run) chatSets() chatSets {
	if r.sets.model != r.model || r.sets.attrs == nil {
		r.sets = newChatSets(r.model, r.chatAttrs())
	}
	return r.sets
}

func (r *run) turnStarted(e orchestrator.TurnStarted) {
	r.model = e.Model
	name := "chat"
	if e.Model != "" {
		name += " " + e.Model
	}
	attrs := append(r.chatAttrs(), keyConversation.String(r.session), keyTurn.Int(e.Turn))
	if r.t.server != "" {
		attrs = append(attrs, keyServerAddress.String(r.t.server))
		if r.t.port > 0 {
			attrs = append(attrs, keyServerPort.Int(r.t.port))
		}
	}
	r.chatStart = r.t.o.Now()
	_, r.chat = r.t.tracer.Start(r.ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(r.chatStart),
		trace.WithAttributes(attrs...))
	r.spill, r.text, r.calls = nil, r.text[:0], nil
	clear(r.tools)
}

func (r *run) turnFinished(e orchestrator.TurnFinished) {
	if r.chat == nil {
		return
	}
	tm := e.Timing
	attrs := []attribute.KeyValue{keyResponseModel.String(r.model), keyInputTokens.Int(e.PromptTokens),
		keyOutputTokens.Int(e.CompletionTokens), keyCacheRead.Int(tm.CachedTokens),
		keyLoadMS.Int64(tm.Load.Milliseconds()), keyFirstTokenMS.Int64(tm.FirstToken.Milliseconds()),
		keyPrefillTokens.Int(tm.PrefillTokens), keyPrefillTPS.Float64(round1(tm.PrefillRate)),
		keyDecodeTPS.Float64(round1(tm.DecodeRate)), keyCachedTokens.Int(tm.CachedTokens),
		keyToolCalls.Int(e.ToolCalls), keyReloaded.Bool(tm.Reloaded)}
	if e.DoneReason != "" {
		attrs = append(attrs, keyFinishReasons.StringSlice([]string{e.DoneReason}))
	}
	if tm.CacheMiss {
		attrs = append(attrs, keyCacheMiss.Bool(true))
	}
	if e.Failed {
		// The run ends in error with this call: done ends its span with
		// the cause (interrupted, out of time, the server's error).
		r.chat.SetAttributes(attrs...)
		return
	}
	end := r.chatStart.Add(e.Reply)
	if e.Reply <= 0 {
		end = r.t.o.Now()
	}
	if idle := r.t.used(end); tm.Reloaded {
		attrs = append(attrs, keyReloadCause.String(r.t.reloadCause(idle)))
	}
	attrs = append(attrs, keySpill.Bool(r.spill != nil))
	if s := r.spill; s != nil {
		attrs = append(attrs, keySpillSize.Int64(s.Size), keySpillVRAM.Int64(s.VRAM), keySpillNumCtx.Int(s.NumCtx),
			keySpillFit.Int(s.FitNumCtx))
	}
	if r.t.set.logContent {
		attrs = append(attrs, keyOutputMessage.String(messages("assistant", string(r.text), r.calls, e.DoneReason)))
	}
	r.chat.SetAttributes(attrs...)
	r.chat.End(trace.WithTimestamp(end))
	r.chat = nil
	r.t.inst.chat(r.chatSets(), chatFigures{input: e.PromptTokens, output: e.CompletionTokens, cached: tm.CachedTokens,
		seconds: end.Sub(r.chatStart).Seconds(), prefillRate: tm.PrefillRate, decodeRate: tm.DecodeRate,
		firstToken: tm.FirstToken.Seconds(), load: tm.Load.Seconds()})
}

func (r *run) toolStarted(e orchestrator.ToolStarted) {
	typ := "function"
	if e.Kind == tools.KindExternal {
		typ = "extension"
	}
	attrs := []attribute.KeyValue{keyOperation.String("execute_tool"), keyToolName.String(e.Name), keyToolType.String(typ),
		keyToolKind.String(e.Kind.String()), keyTurn.Int(e.Turn)}
	if e.ID != "" {
		attrs = append(attrs, keyToolCallID.String(e.ID))
	}
	if r.t.set.logContent {
		attrs = append(attrs, keyToolArgs.String(e.Args))
		r.calls = append(r.calls, toolCall{ID: e.ID, Name: e.Name, Arguments: rawJSON(e.Args)})
	}
	if old := r.tools[e.Index]; old != nil {
		old.End()
	}
	_, r.tools[e.Index] = r.t.tracer.Start(r.ctx, "execute_tool "+e.Name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithTimestamp(r.t.o.Now()), trace.WithAttributes(attrs...))
}

func (r *run) toolFinished(e orchestrator.ToolFinished) {
	span := r.tools[e.Index]
	if span == nil {
		return
	}
	delete(r.tools, e.Index)
	attrs := []attribute.KeyValue{keyOutcome.String(string(e.Outcome)), keyToolMS.Int64(e.Duration.Milliseconds())}
	if e.Kind.NeedsApproval() {
		attrs = append(attrs, keyApprovalMS.Int64(e.Waited.Milliseconds()), keyDenied.Bool(e.NotApproved))
	}
	if e.NotApproved {
		r.denied++
	}
	if n := len(e.Result.Repairs); n > 0 {
		attrs = append(attrs, keyRepairs.Int(n))
	}
	if n := len(e.Result.Blocked); n > 0 {
		attrs = append(attrs, keyBlocked.Int(n))
		if r.t.set.logContent {
			attrs = append(attrs, keyBlockedWhat.StringSlice(e.Result.Blocked))
		}
	}
	if r.t.set.logContent {
		attrs = append(attrs, keyToolResult.String(e.Result.Content))
	}
	switch e.Outcome {
	case orchestrator.OutcomeFailed, orchestrator.OutcomeDenied, orchestrator.OutcomeInterrupted:
		attrs = append(attrs, keyErrorType.String(string(e.Outcome)))
		span.SetStatus(codes.Error, string(e.Outcome))
	}
	span.SetAttributes(attrs...)
	span.End(trace.WithTimestamp(r.t.o.Now()))
}

// done ends the run's spans: a model call without a reply ends failed.
func (r *run) done(res orchestrator.Result, err error) {
	now := r.t.o.Now()
	kind := errorType(err)
	if r.chat != nil {
		// The call got no reply: it failed, or the run was stopped
		// (interrupted, out of time) while it waited.
		why, cut := kind, string(res.StopReason)
		if err != nil {
			cut = err.Error()
		} else {
			why = cut
		}
		r.chat.SetStatus(codes.Error, cut)
		r.chat.SetAttributes(keyErrorType.String(why))
		r.chat.End(trace.WithTimestamp(now))
		r.chat = nil
		r.t.inst.chat(r.chatSets(), chatFigures{seconds: now.Sub(r.chatStart).Seconds(), errorType: why})
	}
	for _, span := range r.tools {
		span.End(trace.WithTimestamp(now))
	}
	clear(r.tools)
	if res.SessionID != "" {
		r.session = res.SessionID
	}
	if res.Model != "" {
		r.model = res.Model
	}
	rt := res.Timing
	attrs := []attribute.KeyValue{keyConversation.String(r.session), keyRequestModel.String(r.model),
		keyInputTokens.Int(res.Usage.PromptTokens), keyOutputTokens.Int(res.Usage.CompletionTokens),
		keyCacheRead.Int(rt.CachedTokens), keyStopReason.String(string(res.StopReason)), keyTurns.Int(res.Turns),
		keyToolCalls.Int(res.ToolCalls), keyDeniedCalls.Int(r.denied), keyMode.String(res.Mode),
		keyLoadMS.Int64(rt.Load.Milliseconds()), keyFirstTokenMS.Int64(rt.FirstToken.Milliseconds()),
		keyPrefillTokens.Int(rt.PrefillTokens), keyPrefillTPS.Float64(round1(rt.PrefillRate)),
		keyPrefillMS.Int64(rt.PrefillTime().Milliseconds()), keyDecodeTPS.Float64(round1(rt.DecodeRate)),
		keyDecodeMS.Int64(rt.DecodeTime().Milliseconds()), keyCachedTokens.Int(rt.CachedTokens)}
	attrs = append(attrs, recoveries(res.Recoveries)...)
	if r.t.set.logContent && res.Text != "" {
		attrs = append(attrs, keyOutputMessage.String(messages("assistant", res.Text, nil, "")))
	}
	if err != nil {
		attrs = append(attrs, keyErrorType.String(kind))
		r.span.SetStatus(codes.Error, err.Error())
	}
	r.span.SetAttributes(attrs...)
	r.span.End(trace.WithTimestamp(now))
	agent := []attribute.KeyValue{keyOperation.String("invoke_agent"), keyProvider.String(r.t.o.Provider),
		keyRequestModel.String(r.model)}
	if err == nil {
		kind = ""
	}
	r.t.inst.agent(agent, now.Sub(r.start).Seconds(), kind)
}

// recoveries are the run's recoveries of the model's mistakes, one
// attribute a kind, named as json output names them, and their total.
func recoveries(rec orchestrator.Recoveries) []attribute.KeyValue {
	return []attribute.KeyValue{attribute.Int(keyRecoveries+"total", rec.Total()),
		attribute.Int(keyRecoveries+"text_calls", rec.TextCalls), attribute.Int(keyRecoveries+"tool_names", rec.ToolNames),
		attribute.Int(keyRecoveries+"argument_repairs", rec.ArgumentRepairs),
		attribute.Int(keyRecoveries+"think_leaks", rec.ThinkLeaks),
		attribute.Int(keyRecoveries+"repetition_warnings", rec.RepetitionWarnings),
		attribute.Int(keyRecoveries+"empty_nudges", rec.EmptyNudges),
		attribute.Int(keyRecoveries+"announced_nudges", rec.AnnouncedNudges)}
}

// used notes that the model was used until end, and returns how long it
// had been idle before.
func (t *Telemetry) used(end time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	last := t.lastUsed
	t.lastUsed = end
	if last.IsZero() {
		return 0
	}
	return max(0, end.Sub(last))
}

// reloadCause says why the model was loaded again after idle: keep_alive
// ran out (it had been idle longer), or the server put it out of memory
// (another model, another program).
func (t *Telemetry) reloadCause(idle time.Duration) string {
	if ka := t.o.KeepAlive; ka > 0 && idle >= ka {
		return "keep_alive"
	}
	return "evicted"
}

// errorType names the kind of failure for error.type; empty without one.
func errorType(err error) string {
	kinds := []struct {
		err  error
		name string
	}{
		{provider.ErrUnreachable, "unreachable"}, {provider.ErrModelNotFound, "model_not_found"},
		{provider.ErrNoToolSupport, "no_tool_support"}, {provider.ErrNoVision, "no_vision"},
		{provider.ErrNoModel, "no_model"}, {provider.ErrContextOverflow, "context_overflow"},
		{provider.ErrStreamBroken, "stream_broken"}, {provider.ErrRepeating, "repeating"},
		{provider.ErrServer, "server_error"}, {context.Canceled, "cancelled"}, {context.DeadlineExceeded, "timeout"},
	}
	if err == nil {
		return ""
	}
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "_OTHER"
}

// messages is gen_ai.input.messages or gen_ai.output.messages: one
// message of role, its text and calls.
func messages(role, text string, calls []toolCall, finish string) string {
	type part struct {
		Type    string `json:"type"`
		Content string `json:"content,omitempty"`
		toolCall
	}
	msg := struct {
		Role         string `json:"role"`
		Parts        []part `json:"parts"`
		FinishReason string `json:"finish_reason,omitempty"`
	}{Role: role, Parts: []part{}, FinishReason: finish}
	if text != "" {
		msg.Parts = append(msg.Parts, part{Type: "text", Content: text})
	}
	for _, c := range calls {
		msg.Parts = append(msg.Parts, part{Type: "tool_call", toolCall: c})
	}
	b, _ := json.Marshal([]any{msg})
	return string(b)
}

// rawJSON passes valid JSON through and quotes anything else.
func rawJSON(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// round1 rounds as json output does.
func round1(f float64) float64 { return math.Round(f*10) / 10 }
