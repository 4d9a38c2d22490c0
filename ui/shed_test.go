package ui

import (
	"fmt"
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"

	"lathe/ui/markdown"
)

// TestFarItemsShedTheirRenders: after a thousand answered turns, the
// transcript holds the renders and markdown documents of the items near
// the screen only, not of every turn; scrolled back to, a turn shows the
// same lines as before its render was dropped.
func TestFarItemsShedTheirRenders(t *testing.T) {
	m, _ := testModel(t)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	first := []string(nil)
	for i := range 1000 {
		m.beginRun(fmt.Sprintf("turn %d: why does the parser cut the line in two?", i))
		md := markdown.NewDoc(m.st.renderer())
		md.Append(fmt.Sprintf("The parser reads the **whole line** (turn %d):\n\n```go\nfunc parse(line string) error { return nil } // %s\n```\n", i,
			"a comment long enough for the line to be cut at the width of the transcript"))
		md.Finish()
		m.transcript.add(&answerItem{md: md})
		m.run = nil
		m.View()
		if i == 0 {
			first = slices.Clone(m.transcript.items[len(m.transcript.items)-1].lines(m.transcript.width, m.transcript.st))
		}
	}
	docs, renders := 0, 0
	for _, it := range m.transcript.items {
		if a, ok := it.(*answerItem); ok && a.md != nil {
			docs++
		}
		if holdsRender(it) {
			renders++
		}
	}
	if docs > keepRendered || renders > keepRendered+1 {
		t.Errorf("after 1000 turns, %d answers hold their document and %d items their render", docs, renders)
	}
	i := slices.IndexFunc(m.transcript.items, func(it item) bool { _, ok := it.(*answerItem); return ok })
	a := m.transcript.items[i].(*answerItem)
	if a.md != nil || !a.folds() {
		t.Fatalf("the first answer kept its document (%v), or forgot that its code is cut (%v)", a.md != nil, a.folds())
	}
	m.transcript.scrollToTop()
	m.View()
	if got := a.lines(m.transcript.width, m.transcript.st); !slices.Equal(got, first) {
		t.Errorf("the first answer, shown again:\n%q\nwhen it was first shown:\n%q", got, first)
	}
}

// holdsRender reports whether a prompt, an answer or a notice holds the
// lines of a render.
func holdsRender(it item) bool {
	switch it := it.(type) {
	case *userItem:
		return it.r.lines != nil
	case *answerItem:
		return it.r.lines != nil
	case *noticeItem:
		return it.r.lines != nil
	}
	return false
}
