package orchestrator

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"lathe/orchestrator/checkpoint"
	"lathe/orchestrator/hooks"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/prompts"
)

// unpaged is a store that does not read messages back (no Pager): a
// session over it holds its whole history.
type unpaged struct{ Recorder }

// heldRun is what a long session sent and kept, run over a store that
// reads messages back or not.
type heldRun struct {
	session     *Session
	requests    []string // every chat request, summaries included, as JSON
	compactions []Compacted
	prompts     []string // undo's prompts
	transcript  string
}

// runHeld runs runs prompts, a read of a large file and an answer
// each, in a window small enough that the conversation is compacted
// several times, in the middle of a run too; the hooks' transcript is
// written after the first run, halfway and at the end, each time lacking
// messages let go of since. With resumeAt > 0 the session is closed
// before that run and resumed in a new one, as a new process would.
func runHeld(t *testing.T, runs int, paged bool, resumeAt int) heldRun {
	t.Helper()
	ctx := t.Context()
	db := sqlitetest.Open(t)
	tr, err := checkpoint.New(db, t.TempDir(), checkpoint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	stamp := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	turn := 0
	respond := func(req api.ChatRequest) ollamatest.Reply {
		if isSummaryRequest(req) {
			return ollamatest.Reply{Content: fmt.Sprintf("Files up to %d were read; they hold data.", turn)}
		}
		turn++
		if last := req.Messages[len(req.Messages)-1]; last.Role != "tool" {
			return ollamatest.Reply{Content: fmt.Sprintf("Reading it (turn %d).", turn),
				ToolCalls: []ollamatest.ToolCall{{ID: fmt.Sprintf("call_%08d", turn), Name: "read",
					Arguments: json.RawMessage(fmt.Sprintf(`{"path":"file%d.txt"}`, turn))}}}
		}
		return ollamatest.Reply{Content: fmt.Sprintf("It holds data (turn %d).", turn)}
	}
	open := func() *env {
		reader := bigRead(700)
		e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(ollamatest.Model{Name: "qwen3:8b", ContextLength: 3072})},
			withTools(reader), func(o *Options) {
				o.Recorder, o.Checkpoints = db, tr
				if !paged {
					o.Recorder = unpaged{db}
				}
				o.Transcripts = hooks.NewTranscripts(t.TempDir(), func() time.Time { return stamp })
			})
		reader.log = e.log
		e.srv.Respond(respond)
		return e
	}
	out := heldRun{}
	collect := func(e *env) {
		for _, req := range e.srv.ChatRequests() {
			j, _ := json.Marshal(req)
			out.requests = append(out.requests, string(j))
		}
		for _, ev := range e.events {
			if c, ok := ev.(Compacted); ok {
				out.compactions = append(out.compactions, c)
			}
		}
	}
	e := open()
	var path string
	for i := range runs {
		if i == resumeAt && i > 0 {
			collect(e)
			if err := e.session.Close(ctx); err != nil {
				t.Fatal(err)
			}
			saved, err := db.LoadResume(ctx, e.session.id)
			if err != nil {
				t.Fatal(err)
			}
			e = open()
			if err := e.session.ResumeFrom(saved); err != nil {
				t.Fatal(err)
			}
			if _, err := e.session.Prepare(ctx); err != nil {
				t.Fatal(err)
			}
			if s := e.session; saved.From == 0 || s.win.Base != saved.From || len(s.messages) != 1+len(saved.Messages) {
				t.Fatalf("resumed from seq %d: the session holds %d messages from seq %d", saved.From, len(s.messages)-1, s.win.Base)
			}
		}
		if _, err := e.run(ctx, fmt.Sprintf("prompt %d: read the next file", i)); err != nil {
			t.Fatal(err)
		}
		if i == 0 || i == runs/2 {
			path = e.session.writeTranscript(ctx)
		}
	}
	path = e.session.writeTranscript(ctx)
	collect(e)
	out.session = e.session
	turns, err := e.session.Turns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tu := range turns {
		out.prompts = append(out.prompts, tu.Prompt)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out.transcript = string(b)
	return out
}

// TestLiveSessionLetsGoOfWhatItSent: a session whose store reads messages
// back lets go of those before the compaction point once the compaction
// is recorded, and sends the same requests, byte for byte, through
// several compactions, as one whose store does not, which holds them
// all; undo's prompts and the hooks' transcript, the whole conversation,
// are the same too. So does the session closed halfway and resumed from
// its last compaction, which holds only the messages after it.
func TestLiveSessionLetsGoOfWhatItSent(t *testing.T) {
	const runs = 24
	whole := runHeld(t, runs, false, 0)
	if w := whole.session; w.win.Base != 0 || len(w.messages) != 1+w.length() {
		t.Fatalf("over a store that does not read them back, the session holds %d messages from seq %d, want all %d",
			len(w.messages)-1, w.win.Base, w.length())
	}
	for _, c := range []struct {
		name     string
		resumeAt int
	}{{"live", 0}, {"resumed", runs / 2}} {
		t.Run(c.name, func(t *testing.T) {
			held := runHeld(t, runs, true, c.resumeAt)
			s := held.session
			if len(held.compactions) < 3 || s.win.Base == 0 || s.win.Base != s.win.CompactedTo() ||
				len(s.messages) != 1+s.length()-s.win.Base || s.length() != whole.session.length() {
				t.Fatalf("%d compactions; the session holds %d messages from seq %d of %d, compacted to %d",
					len(held.compactions), len(s.messages)-1, s.win.Base, s.length(), s.win.CompactedTo())
			}
			if len(held.requests) != len(whole.requests) {
				t.Fatalf("%d requests, %d holding the whole history", len(held.requests), len(whole.requests))
			}
			for i := range held.requests {
				if held.requests[i] != whole.requests[i] {
					a, b := held.requests[i], whole.requests[i]
					at := 0
					for at < min(len(a), len(b)) && a[at] == b[at] {
						at++
					}
					t.Fatalf("request %d differs at byte %d:\n%.800s\nholding the whole history:\n%.800s", i, at, a[max(0, at-200):], b[max(0, at-200):])
				}
			}
			if !slices.Equal(held.compactions, whole.compactions) {
				t.Errorf("compactions %+v, holding the whole history %+v", held.compactions, whole.compactions)
			}
			if len(held.prompts) != runs || !slices.Equal(held.prompts, whole.prompts) || held.prompts[0] != "prompt 0: read the next file" {
				t.Errorf("undo's prompts %q, holding the whole history %q", held.prompts, whole.prompts)
			}
			if strings.ReplaceAll(held.transcript, s.id, whole.session.id) != whole.transcript ||
				!strings.Contains(held.transcript, "prompt 0: read the next file") {
				t.Errorf("the hooks' transcript differs (%d and %d bytes)", len(held.transcript), len(whole.transcript))
			}
		})
	}
}

// TestTallyReadsBackWhatIsNotHeld: the prompts an overflow counts are
// the same for a session that let go of the messages before a seq as for
// one that holds them all, read back from the store as far as they must.
func TestTallyReadsBackWhatIsNotHeld(t *testing.T) {
	note := prompts.Nudge()
	for _, c := range []struct {
		name string
		hist []string // user prompts, notes (note) and replies ("<reply>")
		base int
	}{
		{"a prompt held, one before", []string{"p1", "<reply>", "p2"}, 2},
		{"a note held after a reply", []string{"p1", "<reply>", note}, 2},
		{"notes held after the only prompt", []string{"p1", note, note}, 1},
		{"a note before the only prompt", []string{note, "p1"}, 1},
		{"two prompts before", []string{"p1", "<reply>", "p2", note, note}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			db := sqlitetest.Open(t)
			e := newEnv(t, nil, func(o *Options) { o.Recorder = db })
			s := e.session
			if err := db.CreateSession(ctx, session.Record{ID: s.id, Created: time.Now()}); err != nil {
				t.Fatal(err)
			}
			msgs := []provider.Message{{Role: "system"}}
			for seq, text := range c.hist {
				m := provider.Message{Role: "user", Content: text}
				if text == "<reply>" {
					m = provider.Message{Role: "assistant", Content: "done"}
				}
				msgs = append(msgs, m)
				if err := db.SaveMessage(ctx, s.id, session.Message{Seq: seq, Message: m}); err != nil {
					t.Fatal(err)
				}
			}
			s.messages = msgs
			asked, last, answered := s.tally(ctx)
			s.win.Compaction = &session.Compaction{Seq: c.base}
			s.messages = s.win.Drop(msgs, c.base)
			if s.win.Base != c.base {
				t.Fatalf("dropped to %d, want %d", s.win.Base, c.base)
			}
			a, l, an := s.tally(ctx)
			if a != asked || l.Content != last.Content || an != answered {
				t.Errorf("held from %d: %d prompts, the last %q, answered %v; holding them all: %d, %q, %v",
					c.base, a, l.Content, an, asked, last.Content, answered)
			}
		})
	}
}

// TestPagesReadTheWholeHistory: a live session saved in a store that
// reads messages back gives a UI its history to page back through: every
// message as the store has it, the mode records it saved, however the
// mode changed, and how many messages there are; over a store that does
// not read them back, none.
func TestPagesReadTheWholeHistory(t *testing.T) {
	ctx := t.Context()
	db := sqlitetest.Open(t)
	e := newEnv(t, nil, func(o *Options) { o.Recorder = db })
	s := e.session
	if s.Pages() != nil {
		t.Fatal("pages of a session not saved yet")
	}
	for i, m := range []mode.Mode{mode.Plan{}, mode.Build{}, nil} {
		e.srv.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: fmt.Sprintf("answer %d", i)} })
		if _, err := e.run(ctx, fmt.Sprintf("prompt %d", i)); err != nil {
			t.Fatal(err)
		}
		if m != nil {
			if err := s.SetMode(ctx, m, "asked"); err != nil {
				t.Fatal(err)
			}
		}
	}
	saved, err := db.Load(ctx, s.id)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Pages()
	if h == nil || h.ID != s.id || len(h.Messages) != 0 {
		t.Fatalf("pages: %+v", h)
	}
	if n := s.Snapshot().Messages; n != len(saved.Messages) || n != 6 {
		t.Errorf("the snapshot counts %d messages, the store %d", n, len(saved.Messages))
	}
	got, err := h.Older(ctx, len(saved.Messages), 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(saved.Messages) {
		t.Fatalf("read back %d messages, the store has %d", len(got), len(saved.Messages))
	}
	for i := range got {
		if got[i].Seq != saved.Messages[i].Seq || !reflect.DeepEqual(got[i].Message, saved.Messages[i].Message) {
			t.Errorf("message %d: %+v, the store's %+v", i, got[i], saved.Messages[i])
		}
	}
	modes := func(recs []session.ModeRecord) (out []string) {
		for _, r := range recs {
			out = append(out, fmt.Sprintf("%d %s %s", r.Seq, r.Mode, r.Reason))
		}
		return out
	}
	if a, b := modes(h.Modes), modes(saved.Modes); !slices.Equal(a, b) || len(a) != 3 {
		t.Errorf("modes %q, the store's %q", a, b)
	}
	o := newEnv(t, nil, func(o *Options) { o.Recorder = unpaged{db} })
	o.srv.Respond(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "answer"} })
	if _, err := o.run(ctx, "prompt"); err != nil {
		t.Fatal(err)
	}
	if o.session.Pages() != nil {
		t.Error("pages over a store that does not read messages back")
	}
}
