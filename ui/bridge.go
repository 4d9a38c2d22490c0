package ui

import (
	"context"
	"slices"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
	"lathe/tools"
)

// bridge carries what the engine's goroutine produces (events, approval
// requests, the end of a run) to Update, in order, through one channel.
// Once closed, sends are dropped: a run winding down after the TUI quit
// must not block on a channel nobody reads.
type bridge struct {
	ch   chan any
	done chan struct{}
	// gather is how long a batch that starts with streamed text waits for
	// more: a frame's interval, since nothing shows sooner. Each token
	// would otherwise wake the UI's loop and run Update and View, 200
	// times a second from a fast GPU. sleep is time.Sleep but in tests.
	gather time.Duration
	sleep  func(time.Duration)
}

// maxBatch bounds how many queued items one message carries.
const maxBatch = 512

func newBridge(gather time.Duration) *bridge {
	return &bridge{ch: make(chan any, 1024), done: make(chan struct{}), gather: gather, sleep: time.Sleep}
}

// emit is the engine's event sink.
func (b *bridge) emit(e orchestrator.Event) { b.send(e) }

// send queues v for Update, unless the bridge is closed.
func (b *bridge) send(v any) {
	select {
	case b.ch <- v:
	case <-b.done:
	}
}

// close stops the bridge; later sends are dropped.
func (b *bridge) close() { close(b.done) }

// engineMsg is everything the engine queued since the last one: streamed
// tokens arrive coalesced, so Update runs once per batch, not per token.
type engineMsg []any

// runDone ends a run; it comes through the bridge after the run's events.
type runDone struct {
	res orchestrator.Result
	err error
}

// wait returns a command that blocks for the next item and takes every
// other one already queued with it; when that item is streamed text, it
// first lets a frame's worth of the stream gather. Once the bridge is
// closed it returns nil: no goroutine waits on it after the program.
func (b *bridge) wait() tea.Cmd {
	return func() tea.Msg {
		var first any
		select {
		case first = <-b.ch:
		case <-b.done:
			return nil
		}
		batch := engineMsg{first}
		if streamed(batch[0]) && b.gather > 0 {
			b.sleep(b.gather)
		}
		for len(batch) < maxBatch {
			select {
			case v := <-b.ch:
				batch = append(batch, v)
			default:
				return batch
			}
		}
		return batch
	}
}

// streamed reports whether v is a piece of a stream, which can wait for
// the next frame.
func streamed(v any) bool {
	switch v.(type) {
	case orchestrator.TextDelta, orchestrator.ThinkingDelta, orchestrator.ToolProgress, pullProgress:
		return true
	}
	return false
}

// approvalAsk is a call waiting for the user's decision.
type approvalAsk struct {
	req   orchestrator.ApprovalRequest
	reply chan orchestrator.Decision // buffered: answering never blocks
}

// dialogApprover asks the user through the TUI, after the grants the user
// made during this session: a tool that writes, or one exact command. A
// command the sandbox blocked something of the last time it ran is asked
// about, grant or not: the user may lift the sandbox for it.
type dialogApprover struct {
	b        *bridge
	mu       sync.Mutex
	tools    []string
	commands []string // exact commands
}

// Approve implements orchestrator.Approver.
func (a *dialogApprover) Approve(ctx context.Context, req orchestrator.ApprovalRequest) (orchestrator.Decision, error) {
	a.mu.Lock()
	granted := orchestrator.Rules{Tools: slices.Clone(a.tools)}
	exact := req.Kind == tools.KindExec && slices.Contains(a.commands, req.Subject)
	a.mu.Unlock()
	if d, _ := granted.Approve(ctx, req); len(req.Blocked) == 0 && (d.Allow || exact) {
		return orchestrator.Decision{Allow: true}, nil
	}
	ask := approvalAsk{req: req, reply: make(chan orchestrator.Decision, 1)}
	return askUser(ctx, a.b, ask, ask.reply)
}

// askUser sends question to Update and waits for the answer on reply, or
// for ctx to end.
func askUser[T any](ctx context.Context, b *bridge, question any, reply <-chan T) (T, error) {
	var zero T
	select {
	case b.ch <- question:
	case <-ctx.Done():
		return zero, ctx.Err()
	case <-b.done:
		return zero, context.Canceled
	}
	select {
	case answer := <-reply:
		return answer, nil
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// grant allows what the request asked for the rest of the session: that
// exact command, or the whole tool that writes.
func (a *dialogApprover) grant(req orchestrator.ApprovalRequest) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if req.Kind == tools.KindExec {
		if !slices.Contains(a.commands, req.Subject) {
			a.commands = append(a.commands, req.Subject)
		}
		return
	}
	if !slices.Contains(a.tools, req.Tool) {
		a.tools = append(a.tools, req.Tool)
	}
}

// grants lists what the session allows without asking, tools first.
func (a *dialogApprover) grants() (toolNames, commands []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.tools), slices.Clone(a.commands)
}

// revoke takes back the grant numbered n (from 1, in the order grants
// lists them); false when there is none.
func (a *dialogApprover) revoke(n int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case n >= 1 && n <= len(a.tools):
		a.tools = slices.Delete(a.tools, n-1, n)
	case n > len(a.tools) && n <= len(a.tools)+len(a.commands):
		i := n - len(a.tools) - 1
		a.commands = slices.Delete(a.commands, i, i+1)
	default:
		return false
	}
	return true
}

// clear takes back every grant: a new or resumed session starts with
// none.
func (a *dialogApprover) clear() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tools, a.commands = nil, nil
}
