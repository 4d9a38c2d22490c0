package orchestrator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/hooks"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/orchestrator/session/sqlite/sqlitetest"
)

// TestPagedHistory: a history holds its last page, starting where a
// round starts, and reads the older messages a page at a time, none left
// out or read twice: read back to the start, the pages are the history.
func TestPagedHistory(t *testing.T) {
	var all []session.Message
	for i := 0; len(all) < 1000; i++ {
		for _, role := range []string{"user", "assistant", "tool", "tool", "tool"}[:2+i%4] {
			all = append(all, session.Message{Seq: len(all), Message: provider.Message{Role: role}})
		}
	}
	h := paged(&History{}, all, 0, nil)
	if n := len(h.Messages); n < historyPage || n > historyPage+3 || h.Messages[0].Message.Role == "tool" {
		t.Fatalf("the last page holds %d messages, from a %s", n, h.Messages[0].Message.Role)
	}
	if h.Len() != len(all) {
		t.Errorf("Len %d, want %d", h.Len(), len(all))
	}
	got := h.Messages
	for got[0].Seq > 0 {
		page, err := h.Older(t.Context(), got[0].Seq, 37)
		if err != nil || len(page) == 0 || page[0].Message.Role == "tool" {
			t.Fatalf("the page before %d: %d messages, %v", got[0].Seq, len(page), err)
		}
		got = append(slices.Clip(page), got...)
	}
	if !slices.EqualFunc(got, all, func(a, b session.Message) bool { return a.Seq == b.Seq }) {
		t.Errorf("the pages read back are not the history")
	}
	whole, err := h.All(t.Context())
	if err != nil || !slices.EqualFunc(whole, all, func(a, b session.Message) bool { return a.Seq == b.Seq }) {
		t.Errorf("All: %d messages, %v", len(whole), err)
	}
	if small := paged(&History{}, all[:50], 0, nil); small.Older != nil || len(small.Messages) != 50 {
		t.Errorf("a history of one page: %d messages, Older set %v", len(small.Messages), small.Older != nil)
	}
}

// savedLongSession saves in db a session of rounds rounds (a prompt, a
// reply calling read twice, the results, an answer), compacted at seq
// compactAt (none for 0), with a switch to plan mode and back.
func savedLongSession(t *testing.T, db *sqlite.DB, rounds, compactAt int) string {
	t.Helper()
	ctx := t.Context()
	id := "0123456789abcdef"
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	if err := db.CreateSession(ctx, session.Record{ID: id, Title: "long", Dir: "/src/project", Model: "qwen3:8b", Created: at}); err != nil {
		t.Fatal(err)
	}
	seq := 0
	save := func(m provider.Message, meta *session.ToolMeta) {
		t.Helper()
		at = at.Add(time.Second)
		if err := db.SaveMessage(ctx, id, session.Message{Seq: seq, Message: m, Tool: meta, Created: at}); err != nil {
			t.Fatal(err)
		}
		seq++
	}
	for i := range rounds {
		if i == rounds/3 {
			if err := db.SaveMode(ctx, id, session.ModeRecord{Seq: seq, Mode: "plan", Reason: "asked", Created: at}); err != nil {
				t.Fatal(err)
			}
		}
		if i == rounds/3+2 {
			if err := db.SaveMode(ctx, id, session.ModeRecord{Seq: seq, Mode: "build", Reason: "asked", Created: at}); err != nil {
				t.Fatal(err)
			}
		}
		save(provider.Message{Role: "user", Content: fmt.Sprintf("prompt %d: read both files", i)}, nil)
		save(provider.Message{Role: "assistant", Content: "Reading them.", Thinking: fmt.Sprintf("thought %d", i),
			ToolCalls: []provider.ToolCall{{ID: fmt.Sprintf("a%d", i), Name: "read", Arguments: []byte(`{"path":"a.go"}`)},
				{ID: fmt.Sprintf("b%d", i), Name: "read", Arguments: []byte(`{"path":"b.go"}`)}}}, nil)
		for _, f := range []string{"a", "b"} {
			save(provider.Message{Role: "tool", ToolName: "read", ToolCallID: fmt.Sprintf("%s%d", f, i),
				Content: strings.Repeat(fmt.Sprintf("line of %s.go in round %d\n", f, i), 20)},
				&session.ToolMeta{Subject: f + ".go", Outcome: "ok", Summary: "20 lines", Duration: time.Millisecond})
		}
		save(provider.Message{Role: "assistant", Content: fmt.Sprintf("Answer %d: both files are fine.", i)}, nil)
	}
	if compactAt > 0 {
		if err := db.SaveCompaction(ctx, id, session.Compaction{Seq: compactAt, Summary: "the files were read", Created: at}); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// TestResumeFromTheCompactionSendsTheSame: resuming a compacted session
// from its compaction on, the messages before it left in the store,
// holds only those after it, and sends the model the same request, byte
// for byte, and counts the window the same, as resuming it read whole,
// for a compaction on a reply (the request repeats the prompt before it,
// read from the store) and on a prompt; its history, read back page by
// page from the store, and the hooks' transcript are the whole session's.
func TestResumeFromTheCompactionSendsTheSame(t *testing.T) {
	for _, c := range []struct {
		name string
		at   int
	}{{"on a reply", 1001}, {"on a prompt", 1000}} {
		t.Run(c.name, func(t *testing.T) {
			resumeFromTheCompaction(t, c.at)
		})
	}
}

func resumeFromTheCompaction(t *testing.T, at int) {
	ctx := t.Context()
	db := sqlitetest.Open(t)
	id := savedLongSession(t, db, 300, at)

	resume := func(saved session.Saved) (*env, *History, string) {
		t.Helper()
		dir := t.TempDir()
		stamp := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
		e := newEnv(t, nil, func(o *Options) {
			o.Recorder = db
			o.Transcripts = hooks.NewTranscripts(dir, func() time.Time { return stamp })
		})
		if err := e.session.ResumeFrom(saved); err != nil {
			t.Fatal(err)
		}
		p, err := e.session.Prepare(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Release(ctx, id); err != nil {
			t.Fatal(err)
		}
		path := e.session.writeTranscript(ctx)
		transcript, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return e, p.History, string(transcript)
	}
	whole, err := db.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	from, err := db.LoadResume(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if from.From != at || len(from.Messages) != len(whole.Messages)-at {
		t.Fatalf("LoadResume: from %d, %d messages of %d", from.From, len(from.Messages), len(whole.Messages))
	}
	a, ha, ta := resume(whole)
	b, hb, tb := resume(from)
	if n := len(b.session.messages); n != 1+len(whole.Messages)-at || len(a.session.messages) != 1+len(whole.Messages) {
		t.Errorf("the engine holds %d messages, want the system prompt and the %d from the compaction on", n, len(whole.Messages)-at)
	}

	ra, _ := json.Marshal(a.session.request())
	rb, _ := json.Marshal(b.session.request())
	if !bytes.Equal(ra, rb) {
		t.Errorf("the request differs:\n%.600s\n%.600s", ra, rb)
	}
	if na, nb := a.session.win.Next(a.session.messages), b.session.win.Next(b.session.messages); na != nb {
		t.Errorf("the window counts %d tokens, %d resumed from the compaction", na, nb)
	}
	all := func(h *History) string {
		t.Helper()
		msgs, err := h.All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		j, _ := json.Marshal(msgs)
		return string(j)
	}
	if ja, jb := all(ha), all(hb); ja != jb || !strings.Contains(jb, "line of a.go in round 0") {
		t.Errorf("the history read back from the store differs from the whole one (%d and %d bytes)", len(ja), len(jb))
	}
	pages := hb.Messages
	for pages[0].Seq > 0 {
		page, err := hb.Older(ctx, pages[0].Seq, 33)
		if err != nil || len(page) == 0 || page[0].Message.Role == "tool" {
			t.Fatalf("the page before %d: %d messages, %v", pages[0].Seq, len(page), err)
		}
		pages = append(slices.Clip(page), pages...)
	}
	if j, _ := json.Marshal(pages); string(j) != all(ha) {
		t.Errorf("the history read back a page at a time differs from the whole one")
	}
	if ta != tb || !strings.Contains(tb, "prompt 0: read both files") {
		t.Errorf("the hooks' transcript differs (%d and %d bytes)", len(ta), len(tb))
	}
	if pa, pb := a.session.lastPrompt(), b.session.lastPrompt(); pa != pb {
		t.Errorf("the last prompt: %q and %q", pa, pb)
	}
}
