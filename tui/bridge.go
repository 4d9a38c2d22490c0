package tui

import (
	"context"
	"slices"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"lathe/agent"
	"lathe/tools"
)

// bridge carries what the engine's goroutine produces (events, approval
// requests, the end of a run) to Update, in order, through one channel.
// Once closed, sends are dropped: a run winding down after the TUI quit
// must not block on a channel nobody reads.
type bridge struct {
	ch   chan any
	done chan struct{}
}

// maxBatch bounds how many queued items one message carries.
const maxBatch = 512

func newBridge() *bridge { return &bridge{ch: make(chan any, 1024), done: make(chan struct{})} }

// emit is the engine's event sink.
func (b *bridge) emit(e agent.Event) { b.send(e) }

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
	res agent.Result
	err error
}

// wait returns a command that blocks for the next item and takes every
// other one already queued with it.
func (b *bridge) wait() tea.Cmd {
	return func() tea.Msg {
		batch := engineMsg{<-b.ch}
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

// approvalAsk is a call waiting for the user's decision.
type approvalAsk struct {
	req   agent.ApprovalRequest
	reply chan agent.Decision // buffered: answering never blocks
}

// dialogApprover asks the user through the TUI, after the rules the user
// granted during this session ("allow this tool", "allow this command").
type dialogApprover struct {
	b        *bridge
	mu       sync.Mutex
	tools    []string
	commands []string
}

// Approve implements agent.Approver.
func (a *dialogApprover) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Decision, error) {
	a.mu.Lock()
	granted := agent.Rules{Tools: slices.Clone(a.tools), Commands: slices.Clone(a.commands)}
	a.mu.Unlock()
	if d, _ := granted.Approve(ctx, req); d.Allow {
		return d, nil
	}
	ask := approvalAsk{req: req, reply: make(chan agent.Decision, 1)}
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

// grant allows what the request asked for the rest of the session: the
// shell command's prefix, or the whole tool.
func (a *dialogApprover) grant(req agent.ApprovalRequest) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if req.Kind == tools.KindExec {
		a.commands = append(a.commands, commandPrefix(req.Subject))
		return
	}
	a.tools = append(a.tools, req.Tool)
}

// commandPrefix is what "allow for this session" allows of a shell
// command: its program, and its subcommand when it has one ("go test",
// "git status", "npm run"), so that "go test ./..." also allows "go test
// -run X" but not "go build".
func commandPrefix(command string) string {
	fields := strings.Fields(command)
	if len(fields) == 0 {
		return ""
	}
	if len(fields) > 1 && isWord(fields[1]) {
		return fields[0] + " " + fields[1]
	}
	return fields[0]
}

func isWord(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_') {
			return false
		}
	}
	return s != "" && s[0] != '-'
}
