package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
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

// runDoneMsg ends a run; it comes through the bridge after the run's events.
type runDoneMsg struct {
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
	case orchestrator.TextDelta, orchestrator.ThinkingDelta, orchestrator.ToolProgress, pullProgressMsg:
		return true
	}
	return false
}
