package ui

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator/session"
	"lathe/prompts"
	"lathe/prompts/human"
)

// Memory is what /search and /memory reach: the saved messages and the
// facts remembered (session/sqlite's DB).
type Memory interface {
	Search(ctx context.Context, q session.SearchQuery) ([]session.Hit, error)
	Facts(ctx context.Context, dir string) ([]session.Fact, error)
	EditFact(ctx context.Context, dir string, id int64, text string, at time.Time) error
	DeleteFact(ctx context.Context, dir string, id int64) error
}

type (
	// searchMsg carries what /search found.
	searchMsg struct {
		query string
		hits  []session.Hit
		err   error
	}
	// factsMsg carries the facts /memory lists.
	factsMsg struct {
		facts []session.Fact
		err   error
	}
	// factChangedMsg ends /memory rm and /memory edit.
	factChangedMsg struct {
		done string // what was done, for the notice
		err  error
	}
)

func (m *model) cmdSearch(arg string) tea.Cmd {
	mem := m.opts.Memory
	query := strings.TrimSpace(arg)
	switch {
	case mem == nil:
		m.notice(noticeWarn, "", "sessions are not being saved, so there is nothing to search")
		return nil
	case query == "":
		m.setStatusNote("/search WORDS: the words to look for")
		return nil
	case m.refuseBusy():
		return nil
	}
	// The messages found; Enter resumes the session of the one chosen,
	// at that message.
	m.panel = newList(listText{title: fmt.Sprintf("Messages of this directory's sessions holding %q", query),
		waiting: "searching…", empty: "no saved message holds them", action: "resume there"},
		func(h session.Hit) string { return hitRow(h, time.Now()) }, &m.st, m.keys)
	ctx, dir := m.ctx, m.opts.Dir
	return func() tea.Msg {
		hits, err := mem.Search(ctx, session.SearchQuery{Text: query, Dir: dir, Limit: 50})
		return searchMsg{query, hits, err}
	}
}

func (m *model) searched(msg searchMsg) {
	l, ok := m.panel.(*list[session.Hit])
	switch {
	case !ok:
		return
	case msg.err != nil:
		m.panel = nil
		m.notice(noticeError, "Cannot search", msg.err.Error())
		return
	}
	l.setItems(msg.hits, 0)
}

// hitChosen resumes the session of the message chosen, scrolled to it.
func (m *model) hitChosen(msg chosenMsg[session.Hit]) tea.Cmd {
	if !m.closePanel(msg.p) {
		return nil
	}
	h, ctx, st := msg.item, m.ctx, m.opts.Catalog
	if h.SessionID == m.session.Snapshot().ID {
		if !m.transcript.revealSeq(h.Seq) {
			m.setStatusNote("that message is in this session")
		}
		return nil
	}
	if st == nil {
		return nil
	}
	return func() tea.Msg {
		saved, err := st.Load(ctx, h.SessionID)
		return sessionLoadedMsg{saved: saved, err: err, at: h.Seq, atSet: true}
	}
}

// hitRow is a message found as the list shows it: the session, the
// message's age and role, the words around what was found.
func hitRow(h session.Hit, now time.Time) string {
	snippet := plainMarkdown(h.SnippetWith("", ""))
	return fmt.Sprintf("%s  %5s  %-9s %s — %s", session.ShortID(h.SessionID), human.Ago(now.Sub(h.Created)),
		h.Role, h.Title, snippet)
}

// markdownMarks are what a snippet of markdown on one line shows of its
// markup: emphasis, code, a table's rules and cells. The words stay.
var markdownMarks = regexp.MustCompile("\\*\\*|__|`+|\\|?(?:\\s*:?-{3,}:?\\s*\\|)+|\\s*\\|\\s*")

// plainMarkdown is a one-line snippet of markdown as words: "I created
// **a.txt** and `b.txt`. | file | lines |" reads "I created a.txt and
// b.txt. file · lines".
func plainMarkdown(s string) string {
	s = markdownMarks.ReplaceAllStringFunc(s, func(m string) string {
		if strings.Contains(m, "|") {
			return " · "
		}
		return ""
	})
	s = strings.Join(strings.Fields(s), " ")
	for strings.Contains(s, "· ·") {
		s = strings.ReplaceAll(s, "· ·", "·")
	}
	return strings.Trim(s, " ·")
}

// cmdMemory lists the facts remembered about the directory, or with "rm
// N" forgets one, with "edit N TEXT" rewrites one.
func (m *model) cmdMemory(arg string) tea.Cmd {
	mem := m.opts.Memory
	if mem == nil {
		m.notice(noticeWarn, "", "sessions are not being saved, so nothing is remembered")
		return nil
	}
	ctx, dir, now := m.ctx, m.opts.Dir, m.now()
	verb, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	switch verb {
	case "":
		return func() tea.Msg {
			facts, err := mem.Facts(ctx, dir)
			return factsMsg{facts, err}
		}
	case "rm", "edit":
		idText, text, _ := strings.Cut(strings.TrimSpace(rest), " ")
		id, err := strconv.ParseInt(idText, 10, 64)
		if err != nil || verb == "edit" && strings.TrimSpace(text) == "" {
			m.setStatusNote("/memory " + verb + " N" + map[string]string{"rm": "", "edit": " TEXT"}[verb] + ": N is a fact's number in /memory")
			return nil
		}
		return func() tea.Msg {
			if verb == "rm" {
				return factChangedMsg{fmt.Sprintf("Forgot fact %d.", id), mem.DeleteFact(ctx, dir, id)}
			}
			return factChangedMsg{fmt.Sprintf("Fact %d rewritten.", id), mem.EditFact(ctx, dir, id, text, now)}
		}
	}
	m.setStatusNote("/memory, /memory rm N or /memory edit N TEXT")
	return nil
}

func (m *model) factsListed(msg factsMsg) {
	if msg.err != nil {
		m.notice(noticeError, "Cannot list the facts", msg.err.Error())
		return
	}
	if len(msg.facts) == 0 {
		m.notice(noticeInfo, "", "Nothing is remembered about this directory. The model proposes facts in build mode; you approve each.")
		return
	}
	texts := make([]string, len(msg.facts))
	for i, f := range msg.facts {
		texts[i] = f.Text
	}
	left := prompts.FactsLeftOut(texts)
	item := &tableItem{title: "Remembered about this directory, oldest first"}
	for i, f := range msg.facts {
		text := f.Text
		if i < left {
			text += " (left out of the prompt for room)"
		}
		item.rows = append(item.rows, [2]string{strconv.FormatInt(f.ID, 10), text})
	}
	item.foot = "They go into the system prompt of new conversations (/new). /memory rm N forgets one, /memory edit N TEXT rewrites it."
	m.transcript.add(item)
}

func (m *model) factChanged(msg factChangedMsg) {
	if msg.err != nil {
		m.notice(noticeError, "", msg.err.Error())
		return
	}
	m.notice(noticeInfo, "", msg.done+" New conversations (/new) see the change.")
}
