package ui

import (
	"slices"
	"sort"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/session"
)

// shownAtResume is how many messages of a resumed session are shown at
// first, and how many a page read as the user scrolls up to them holds
// (about: a page starts where a round starts). The rest stays where the
// history keeps it (the session's store) until the user scrolls back.
const shownAtResume = 60

// olderPages is what is left to show of a resumed session above the
// transcript's first item, a line that says so (olderItem): the messages
// before first, read a page at a time once that line comes into view.
type olderPages struct {
	h       *orchestrator.History
	first   int               // the seq of the oldest message shown
	rest    []session.Message // the messages of h.Messages before first
	loading bool
	reveal  int // the message to show once read (a message /search found); -1 for none
}

// olderItem is the transcript's first line while older messages of a
// resumed session are not shown.
type olderItem struct {
	loading bool
	r       render
}

func (o *olderItem) lines(width int, st *theme) []string {
	if l, ok := o.r.get(width); ok {
		return l
	}
	text := "↑ Older messages: scroll up to load them."
	if o.loading {
		text = "↑ Loading older messages…"
	}
	return o.r.set(width, []string{indent + st.meta.Render(text), ""})
}

func (o *olderItem) invalidate() { o.r.invalidate() }

// olderMsg is a page of older messages read, to show above the others.
type olderMsg struct {
	p    *olderPages
	msgs []session.Message
	err  error
}

// pageIn starts reading the page above the transcript once the line that
// stands for it is in view; nil when there is none, or it is being read.
func (m *model) pageIn() tea.Cmd {
	p := m.older
	if p == nil || p.loading || !m.olderShown() || p.reveal < 0 && m.transcript.top() >= m.transcript.sums[1] {
		return nil
	}
	p.loading = true
	m.transcript.items[0].(*olderItem).loading = true
	m.transcript.changed(0)
	n := shownAtResume
	if p.reveal >= 0 {
		n = max(n, p.first-p.reveal+shownAtResume/2) // down to the message to show, and some before it
	}
	if len(p.rest) > 0 {
		page := p.rest[pageFrom(p.rest, len(p.rest)-n):]
		return send(olderMsg{p: p, msgs: page})
	}
	ctx, older, first := m.ctx, p.h.Older, p.first
	return func() tea.Msg {
		msgs, err := older(ctx, first, n)
		return olderMsg{p: p, msgs: msgs, err: err}
	}
}

// olderShown reports whether the transcript starts with the line that
// stands for older messages.
func (m *model) olderShown() bool {
	if len(m.transcript.items) == 0 {
		return false
	}
	_, ok := m.transcript.items[0].(*olderItem)
	return ok
}

// pageFrom is where a page starting about at from starts in msgs: not on
// a call's result, which shows in its call's card.
func pageFrom(msgs []session.Message, from int) int {
	from = max(from, 0)
	for from > 0 && msgs[from].Message.Role == "tool" {
		from--
	}
	return from
}

// showOlder shows a page of older messages above the transcript, in the
// place of the line that stood for them, and that line again above it
// while there are more.
func (m *model) showOlder(msg olderMsg) {
	p := msg.p
	if p != m.older || !m.olderShown() {
		return // the transcript was cleared, or shows another session
	}
	p.loading = false
	if msg.err != nil || len(msg.msgs) == 0 || msg.msgs[len(msg.msgs)-1].Seq >= p.first {
		m.transcript.items[0].(*olderItem).loading = false
		m.transcript.changed(0)
		if msg.err != nil {
			m.setStatusNote("cannot read the older messages: " + msg.err.Error())
		}
		p.reveal = -1
		return
	}
	if n := len(p.rest); n > 0 && p.rest[n-1].Seq == p.first-1 {
		p.rest = p.rest[:n-len(msg.msgs)]
	}
	p.first = msg.msgs[0].Seq
	more := p.first > 0
	if !more {
		m.older = nil
	}
	items, seqs := m.pageItems(p.h, msg.msgs, false)
	if more {
		items = append([]item{&olderItem{}}, items...)
		for seq, i := range seqs {
			seqs[seq] = i + 1
		}
	}
	m.transcript.replaceFirst(items, seqs)
	if at := p.reveal; at >= 0 && at >= p.first {
		p.reveal = -1
		m.transcript.settle() // the heights above the message, measured
		if !m.transcript.revealSeq(at) {
			m.setStatusNote("the message found is no longer in the conversation")
		}
	}
}

// shiftIndices moves the transcript indices the model keeps by n, after
// items were put above them or taken from there (none it keeps).
func (m *model) shiftIndices(n int) {
	if m.mode.item >= 0 {
		m.mode.item += n
	}
	if r := m.run; r != nil {
		r.promptAt += n
		for _, i := range []*int{&r.answer, &r.thinking, &r.plan} {
			if *i >= 0 {
				*i += n
			}
		}
		for k, i := range r.cards {
			r.cards[k] = i + n
		}
		dirty := make(map[int]bool, len(r.dirty))
		for i, d := range r.dirty {
			dirty[i+n] = d
		}
		r.dirty = dirty
	}
}

// pageItems makes the items of msgs, a page of the history h, as
// showHistory shows them, without adding them to the transcript: the
// items and, for each message's seq, the index of its first item. last
// says it is the newest page, where the mode shown and the plan being
// carried out are taken from.
func (m *model) pageItems(h *orchestrator.History, msgs []session.Message, last bool) ([]item, map[int]int) {
	real, mode := m.transcript, m.mode
	m.transcript = newTranscript(&m.st, m.keys)
	m.transcript.seqs = map[int]int{}
	m.mode.shown, m.mode.item = modeBefore(h.Modes, msgs[0].Seq), -1
	end := -1 // the modes after the page's last message: the next page's
	if !last {
		end = msgs[len(msgs)-1].Seq + 1
	}
	m.showMessages(h, msgs, end)
	items, seqs := m.transcript.items, m.transcript.seqs
	m.transcript = real
	if !last {
		m.mode = mode
	} else if m.mode.item >= 0 {
		m.mode.item += len(real.items)
	}
	return items, seqs
}

// modeBefore is the mode the transcript shows before message seq: the
// mode of the last record before it, build mode before any.
func modeBefore(recs []session.ModeRecord, seq int) string {
	mode := "build"
	for _, r := range recs {
		if r.Seq >= seq {
			break
		}
		mode = r.Mode
	}
	return mode
}

// Over a long day the transcript would keep every turn's items. Once it
// holds more than shedAbove, after a run, the items of the oldest turns
// are let go of down to about keepItems, in the place of the line that
// stands for older messages: they are read back from the store a page at
// a time as the user scrolls up to them, as a resumed session's are.
// Only when the session is all saved in a store that reads them back,
// and the user is at the bottom.
const (
	shedAbove = 600
	keepItems = 300
)

// shedTurns lets go of the items of the oldest turns, as above.
func (m *model) shedTurns() {
	t := m.transcript
	if len(t.items) <= shedAbove || !t.follow {
		return
	}
	// The oldest turn kept is the first to start keepItems from the end,
	// or before: the plan being followed stays (t.starts is in item order).
	i := slices.IndexFunc(t.starts, func(st runStart) bool { return st.item >= len(t.items)-keepItems })
	if plan := m.mode.item; plan >= 0 {
		if j := sort.Search(len(t.starts), func(k int) bool { return t.starts[k].item > plan }) - 1; i < 0 || i > j {
			i = j
		}
	}
	if i < 0 || t.starts[i].item <= 1 {
		return
	}
	h := m.session.Pages()
	if h == nil {
		return
	}
	cut := t.starts[i]
	m.older = &olderPages{h: h, first: cut.seq, reveal: -1}
	t.splice(cut.item, []item{&olderItem{}}, nil)
}
