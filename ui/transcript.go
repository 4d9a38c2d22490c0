package ui

import (
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// item is one block of the transcript: a prompt, an answer, thinking, a
// tool card, a notice.
type item interface {
	// lines renders the item at width, from its cache while it is valid.
	// The slice belongs to the item: callers must not modify it.
	lines(width int, st *theme) []string
	// invalidate drops the cache: the next lines call renders again.
	// Streamed content is only rendered then, once a frame.
	invalidate()
}

// foldable items can be selected and expanded.
type foldable interface {
	item
	toggle()
}

// sometimesFoldable items are foldable only when they have something to
// expand: an answer, when a line of its code is cut.
type sometimesFoldable interface {
	foldable
	folds() bool
}

// canFold reports whether it can be selected and expanded now.
func canFold(it item) bool {
	f, ok := it.(foldable)
	if s, some := f.(sometimesFoldable); some {
		return s.folds()
	}
	return ok
}

// render is an item's render cache: valid for one width until invalidated.
type render struct {
	width int
	lines []string
	valid bool
}

func (r *render) get(width int) ([]string, bool) {
	return r.lines, r.valid && r.width == width
}

func (r *render) set(width int, lines []string) []string {
	r.width, r.lines, r.valid = width, lines, true
	return lines
}

// invalidate drops the render, and its lines with it: an item far off
// screen holds none (see shed).
func (r *render) invalidate() { r.valid, r.lines = false, nil }

// shedder items hold more than their render to show, made from what they
// keep: an answer's markdown document. shed drops it; it is made again
// when the item is shown.
type shedder interface {
	shed(st *theme)
}

// changed re-renders item i after its content changed.
func (t *transcript) changed(i int) {
	t.items[i].invalidate()
	t.measure(i)
}

// estimator items can guess their height without rendering.
type estimator interface {
	estimate(width int) int
}

// transcript is the scrollable list of items. It keeps each item's height
// at the current width and the running sums of heights, so that showing a
// window costs as much as the window, whatever the length of the session.
// An item is rendered, and so measured, only once it comes into view (see
// settle): before that its height is a guess. A resumed session of
// thousands of messages costs its last screen, not its length.
type transcript struct {
	items    []item
	heights  []int
	measured []bool // heights[i] is the rendered height, not a guess
	sums     []int  // sums[i] is the height of items[:i]
	selected int    // index of the selected item; -1 for none
	offset   int    // first visible line when not following
	follow   bool   // stick to the bottom as content grows
	width    int
	height   int
	st       *theme
	keys     keyMap
	// gen counts the changes to what items show (each measure, a
	// remeasure, an item added): view's result is kept while neither it
	// nor the window moves, as between two frames of a stream, when
	// Bubble Tea still calls View after every token.
	gen    int
	shown  viewKey
	viewed string
	// seqs maps a message of the session shown from its history to its
	// item; revealAt is the message to show first once a session loaded
	// from /search is shown (-1: none).
	seqs     map[int]int
	revealAt int
	// drawn lists the items rendered since they were last shed (see
	// shedFar), cached them; liveFrom is the first item the run under
	// way may stream into, whose document is never shed.
	drawn    []int
	cached   []bool
	liveFrom int
	// shifted is told that the others' indices moved by n, after items
	// were put above them or taken from there (see splice).
	shifted func(n int)
	// starts are where the live runs' items start, oldest first: what
	// the oldest turns show may be let go of from there (see shedTurns).
	starts []runStart
}

// runStart is where a run's items start, and the seq of its first
// message: the items above it show the messages before.
type runStart struct{ item, seq int }

// viewKey is what decides the transcript's view.
type viewKey struct{ gen, top, selected, width, height int }

func newTranscript(st *theme, keys keyMap) *transcript {
	return &transcript{selected: -1, follow: true, st: st, keys: keys, sums: []int{0}, revealAt: -1}
}

// add appends an item, its height guessed until it comes into view.
func (t *transcript) add(it item) {
	h := guess(it, t.width)
	t.gen++
	t.items = append(t.items, it)
	t.heights = append(t.heights, h)
	t.measured = append(t.measured, false)
	t.cached = append(t.cached, false)
	t.sums = append(t.sums, t.sums[len(t.sums)-1]+h)
}

// addStreamed appends an item whose content streams in, measured at once
// while it is empty (which costs nothing): what streams in renders at the
// next frame (changed), never before.
func (t *transcript) addStreamed(it item) {
	t.items = append(t.items, it)
	t.heights = append(t.heights, 0)
	t.measured = append(t.measured, false)
	t.cached = append(t.cached, false)
	t.sums = append(t.sums, t.sums[len(t.sums)-1])
	t.measure(len(t.items) - 1)
}

// guess is an item's height before it is rendered.
func guess(it item, width int) int {
	if e, ok := it.(estimator); ok {
		return max(e.estimate(max(width, 1)), 1)
	}
	return 2
}

// replaceFirst puts items in the place of the first item: a page of
// older messages where the line that stood for them was. seqs are the
// messages' indices among items. The window keeps showing what it showed.
func (t *transcript) replaceFirst(items []item, seqs map[int]int) { t.splice(1, items, seqs) }

// splice puts items in the place of the first k items (see replaceFirst);
// the indices of the items after them move by len(items)-k, and what
// pointed at the k items is forgotten.
func (t *transcript) splice(k int, items []item, seqs map[int]int) {
	n := len(items) - k
	above := 0
	heights, measured := make([]int, len(items)), make([]bool, len(items))
	for i, it := range items {
		heights[i] = guess(it, t.width)
		above += heights[i]
	}
	above -= t.sums[k]
	t.items = append(items, t.items[k:]...)
	t.heights = append(heights, t.heights[k:]...)
	t.measured = append(measured, t.measured[k:]...)
	t.cached = append(make([]bool, len(items)), t.cached[k:]...)
	drawn := t.drawn[:0]
	for _, i := range t.drawn {
		if i >= k { // those before are gone
			drawn = append(drawn, i+n)
		}
	}
	t.drawn = drawn
	if t.liveFrom >= k {
		t.liveFrom += n
	} else {
		t.liveFrom = 0
	}
	t.sums = make([]int, len(t.items)+1)
	t.resum(0)
	if !t.follow {
		t.offset = max(0, t.offset+above)
	}
	switch {
	case t.selected >= k:
		t.selected += n
	case t.selected >= 0:
		t.selected = -1
	}
	for seq, i := range t.seqs {
		if i < k {
			delete(t.seqs, seq)
		} else {
			t.seqs[seq] = i + n
		}
	}
	if t.seqs == nil && len(seqs) > 0 {
		t.seqs = make(map[int]int, len(seqs))
	}
	for seq, i := range seqs {
		t.seqs[seq] = i
	}
	starts := t.starts[:0]
	for _, st := range t.starts {
		if st.item >= k {
			starts = append(starts, runStart{st.item + n, st.seq})
		}
	}
	t.starts = starts
	t.gen++
	if t.shifted != nil && n != 0 {
		t.shifted(n)
	}
}

// clear removes every item.
func (t *transcript) clear() {
	t.items, t.heights, t.measured, t.sums = nil, nil, nil, []int{0}
	t.cached, t.drawn, t.liveFrom, t.starts = nil, nil, 0, nil
	t.gen++
	t.selected, t.offset, t.follow = -1, 0, true
}

// SetSize changes the window; items re-render at the new width as they
// are measured.
func (t *transcript) SetSize(width, height int) {
	resized := width != t.width
	t.width, t.height = width, max(height, 1)
	if resized {
		t.remeasure()
	}
}

// remeasure drops every item's rendering: after a resize or a style
// change. They render again as they come into view; until then their
// heights are guesses.
func (t *transcript) remeasure() {
	t.gen++
	for i, it := range t.items {
		it.invalidate()
		t.measured[i] = false
	}
}

// measure renders item i, and updates its height and the sums after it.
func (t *transcript) measure(i int) {
	h := len(t.items[i].lines(t.width, t.st))
	t.drew(i)
	t.gen++
	t.measured[i] = true
	if h == t.heights[i] {
		return
	}
	t.heights[i] = h
	t.resum(i)
}

// settle measures the items in view, and those that come into view as
// guesses are replaced by heights, until the window holds still. Only
// what the window shows is rendered.
func (t *transcript) settle() {
	for range 64 {
		top := t.top()
		moved := false
		i := sort.Search(len(t.items), func(i int) bool { return t.sums[i+1] > top })
		for ; i < len(t.items) && t.sums[i] < top+t.height; i++ {
			if !t.measured[i] {
				t.measure(i)
				moved = true
			}
		}
		if !moved {
			return
		}
	}
}

func (t *transcript) resum(from int) {
	for i := from; i < len(t.items); i++ {
		t.sums[i+1] = t.sums[i] + t.heights[i]
	}
}

func (t *transcript) total() int { return t.sums[len(t.items)] }

// top is the first visible line.
func (t *transcript) top() int {
	maxTop := max(0, t.total()-t.height)
	if t.follow {
		return maxTop
	}
	return min(max(t.offset, 0), maxTop)
}

// scroll moves the window by delta lines; reaching the bottom resumes
// following the stream.
func (t *transcript) scroll(delta int) {
	t.offset = t.top() + delta
	maxTop := max(0, t.total()-t.height)
	t.offset = min(max(t.offset, 0), maxTop)
	t.follow = t.offset >= maxTop
}

func (t *transcript) scrollToTop() { t.offset, t.follow = 0, t.total() <= t.height }

func (t *transcript) scrollToBottom() { t.follow = true }

// View returns exactly height lines: the visible part of the transcript,
// padded below when it is shorter.
func (t *transcript) View() string {
	top := t.top()
	key := viewKey{t.gen, top, t.selected, t.width, t.height}
	if key == t.shown && t.viewed != "" {
		return t.viewed
	}
	var b strings.Builder
	written := 0
	i := sort.Search(len(t.items), func(i int) bool { return t.sums[i+1] > top })
	for ; i < len(t.items) && written < t.height; i++ {
		lines := t.items[i].lines(t.width, t.st)
		t.drew(i)
		start := max(0, top-t.sums[i])
		bar := i == t.selected
		for _, l := range lines[min(start, len(lines)):] {
			if written == t.height {
				break
			}
			if written > 0 {
				b.WriteByte('\n')
			}
			if bar {
				l = t.st.selectedBar.Render("▌") + l
			}
			b.WriteString(l)
			written++
		}
	}
	for ; written < t.height; written++ {
		if written > 0 {
			b.WriteByte('\n')
		}
	}
	t.shown, t.viewed = key, b.String()
	t.shedFar(top)
	return t.viewed
}

// keepRendered is how many items keep their render before those far off
// screen are shed; nearScreens is how far off screen, in screens, an item
// keeps it.
const (
	keepRendered = 128
	nearScreens  = 3
)

// drew notes that item i holds a render.
func (t *transcript) drew(i int) {
	if !t.cached[i] {
		t.cached[i] = true
		t.drawn = append(t.drawn, i)
	}
}

// shedFar drops the renders, and the documents, of the items more than a
// few screens away from the window at top, once more than keepRendered
// items hold one: a long session holds the renders of what is near the
// screen, not of every turn it showed. Their heights stay: shown again,
// they render the same lines.
func (t *transcript) shedFar(top int) {
	if len(t.drawn) <= keepRendered {
		return
	}
	from, to := top-nearScreens*t.height, top+(nearScreens+1)*t.height
	kept := t.drawn[:0]
	for _, i := range t.drawn {
		if i >= len(t.items) {
			continue
		}
		if t.sums[i+1] > from && t.sums[i] < to {
			kept = append(kept, i)
			continue
		}
		t.items[i].invalidate()
		if s, ok := t.items[i].(shedder); ok && i < t.liveFrom {
			s.shed(t.st)
		}
		t.cached[i] = false
	}
	t.drawn = kept
}

// Update scrolls and selects: PgUp and PgDn scroll a page, Ctrl+Home and
// Ctrl+End to an end, the wheel three lines; Ctrl+↑↓ select a foldable
// item, Ctrl+O expands or folds it.
func (t *transcript) Update(msg tea.Msg) (*transcript, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		switch msg.Mouse().Button {
		case tea.MouseWheelUp:
			t.scroll(-3)
		case tea.MouseWheelDown:
			t.scroll(3)
		}
	case tea.KeyPressMsg:
		t.key(msg)
	}
	return t, nil
}

func (t *transcript) key(msg tea.KeyPressMsg) {
	switch keys := t.keys; {
	case key.Matches(msg, keys.PageUp):
		t.scroll(-max(t.height-2, 1))
	case key.Matches(msg, keys.PageDown):
		t.scroll(max(t.height-2, 1))
	case key.Matches(msg, keys.Top):
		t.scrollToTop()
	case key.Matches(msg, keys.Bottom):
		t.scrollToBottom()
	case key.Matches(msg, keys.SelectPrev):
		t.selectStep(-1)
	case key.Matches(msg, keys.SelectNext):
		t.selectStep(+1)
	case key.Matches(msg, keys.Expand):
		t.toggleSelected()
	}
}

// selectStep moves the selection among foldable items by dir (-1, +1),
// starting from the bottom, and scrolls it into view.
func (t *transcript) selectStep(dir int) {
	i := t.selected
	if i < 0 {
		i = len(t.items)
	}
	for i += dir; i >= 0 && i < len(t.items); i += dir {
		if canFold(t.items[i]) {
			t.selected = i
			t.reveal(i)
			return
		}
	}
}

// toggleSelected expands or folds the selected item, or the last foldable
// one when nothing is selected.
func (t *transcript) toggleSelected() {
	i := t.selected
	if i < 0 {
		for i = len(t.items) - 1; i >= 0; i-- {
			if canFold(t.items[i]) {
				break
			}
		}
	}
	if i < 0 {
		return
	}
	t.items[i].(foldable).toggle()
	t.measure(i)
	t.reveal(i)
}

// revealTop scrolls so that item i starts at the top of the window (or
// as near as the end of the transcript allows).
func (t *transcript) revealTop(i int) {
	t.offset, t.follow = t.sums[i], false
	t.scroll(0)
}

// reveal scrolls so that item i's first line is visible.
func (t *transcript) reveal(i int) {
	top := t.top()
	switch start := t.sums[i]; {
	case start < top:
		t.offset, t.follow = start, false
	case start >= top+t.height:
		t.offset = min(start, t.sums[i+1]-t.height)
		t.follow = false
		t.scroll(0)
	}
}

// revealSeq scrolls the transcript to the message seq of the session
// shown from its history; false when it is not there (the session was
// not resumed, or the message came after).
func (t *transcript) revealSeq(seq int) bool {
	i, ok := t.seqs[seq]
	if !ok || i >= len(t.items) {
		return false
	}
	t.revealTop(i)
	return true
}
