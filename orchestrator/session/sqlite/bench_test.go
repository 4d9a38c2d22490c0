package sqlite

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// words make text that looks like source code and prose.
var words = strings.Fields(`func return if err != nil { } := the session message tool call result
	context ctx string int error fmt.Errorf for range package import struct type var const
	model reply run store file path line test want got and of to a in is that it`)

// text is about n bytes of lines of words.
func text(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		for range 4 + r.IntN(8) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		b.WriteString("\n\t")
	}
	return b.String()
}

// realisticHistory is n messages as a coding session makes them: a
// prompt, then turns of an assistant thinking and calling one to three
// tools, each answered by a result of 1-6 KB, until a final answer.
func realisticHistory(n int) []session.Message {
	r := rand.New(rand.NewPCG(1, 2))
	var out []session.Message
	add := func(m provider.Message, meta *session.ToolMeta) {
		out = append(out, session.Message{Seq: len(out), Message: m, Tool: meta, Created: day.Add(time.Duration(len(out)) * time.Second)})
	}
	for len(out) < n {
		add(provider.Message{Role: "user", Content: text(r, 100+r.IntN(400))}, nil)
		for turn := 0; turn < 1+r.IntN(6) && len(out) < n; turn++ {
			calls := realisticCalls(r, 1+r.IntN(3))
			add(provider.Message{Role: "assistant", Thinking: text(r, 200+r.IntN(800)), Content: text(r, r.IntN(200)), ToolCalls: calls}, nil)
			for _, c := range calls {
				meta := &session.ToolMeta{Subject: "agent/loop.go", Outcome: "ok", Summary: "120 lines", Duration: 40 * time.Millisecond}
				add(provider.Message{Role: "tool", Content: text(r, 1000+r.IntN(5000)), ToolName: c.Name, ToolCallID: c.ID}, meta)
			}
		}
		add(provider.Message{Role: "assistant", Thinking: text(r, 300), Content: text(r, 300+r.IntN(1500))}, nil)
	}
	return out[:n]
}

func realisticCalls(r *rand.Rand, n int) []provider.ToolCall {
	calls := make([]provider.ToolCall, n)
	for i := range calls {
		name := []string{"read_file", "bash", "edit_file"}[r.IntN(3)]
		a := map[string]string{"path": "session/sqlite/messages.go"}
		if name == "edit_file" {
			a["old"], a["new"] = text(r, 200+r.IntN(600)), text(r, 200+r.IntN(600))
		} else {
			a["command"] = text(r, 40)
		}
		args, _ := json.Marshal(a)
		calls[i] = provider.ToolCall{ID: fmt.Sprintf("call_%08x", r.Uint32()), Index: i, Name: name, Arguments: args}
	}
	return calls
}

// writeHistory makes a database at path holding one session of msgs and
// returns its size after a checkpoint.
func writeHistory(b *testing.B, path string, msgs []session.Message) int64 {
	db, err := Open(b.Context(), path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	createSession(b, db, "s1", "/w", day)
	for _, m := range msgs {
		if err := db.SaveMessage(b.Context(), "s1", m); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := db.sql.ExecContext(b.Context(), "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}

// BenchmarkResume1000 opens the database and loads a 1,000-message
// session, as `lathe --continue` does.
func BenchmarkResume1000(b *testing.B) {
	const n = 1000
	path := filepath.Join(b.TempDir(), "lathe.db")
	msgs := realisticHistory(n)
	size := writeHistory(b, path, msgs)
	var content int
	for _, m := range msgs {
		content += len(m.Message.Content) + len(m.Message.Thinking) + len(mustJSON(b, m.Message.ToolCalls))
	}
	b.ResetTimer()
	for b.Loop() {
		db, err := Open(b.Context(), path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		s, err := db.Load(b.Context(), "s1")
		if err != nil || len(s.Messages) != n {
			b.Fatalf("%d messages, %v", len(s.Messages), err)
		}
		db.Close()
	}
	b.ReportMetric(float64(size)/(n/100), "bytes/100msgs")
	b.ReportMetric(float64(content)/(n/100), "content-bytes/100msgs")
}

// BenchmarkSaveMessage is the cost of committing one message of a
// realistic history (a transaction each), with the message index kept
// current and, to compare, with the schema before it.
func BenchmarkSaveMessage(b *testing.B) {
	for _, c := range []struct {
		name  string
		steps []string
	}{{"indexed", migrations()}, {"unindexed", withoutIndex()}} {
		b.Run(c.name, func(b *testing.B) {
			db, err := open(b.Context(), filepath.Join(b.TempDir(), "lathe.db"), c.steps)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			createSession(b, db, "s1", "/w", day)
			msgs := realisticHistory(1000)
			i := 0
			for b.Loop() {
				m := msgs[i%len(msgs)]
				m.Seq = i
				if err := db.SaveMessage(b.Context(), "s1", m); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkMessageIndex reports what the full-text index of messages
// costs on disk: the size of a 1,000-message history with the schema
// before it and with it.
func BenchmarkMessageIndex(b *testing.B) {
	msgs := realisticHistory(1000)
	var before, after int64
	for b.Loop() {
		dir := b.TempDir()
		old, err := open(b.Context(), filepath.Join(dir, "old.db"), withoutIndex())
		if err != nil {
			b.Fatal(err)
		}
		createSession(b, old, "s1", "/w", day)
		for _, m := range msgs {
			if err := old.SaveMessage(b.Context(), "s1", m); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := old.sql.ExecContext(b.Context(), "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			b.Fatal(err)
		}
		old.Close()
		fi, err := os.Stat(filepath.Join(dir, "old.db"))
		if err != nil {
			b.Fatal(err)
		}
		before, after = fi.Size(), writeHistory(b, filepath.Join(dir, "new.db"), msgs)
	}
	b.ReportMetric(float64(before)/10, "bytes/100msgs-unindexed")
	b.ReportMetric(float64(after)/10, "bytes/100msgs-indexed")
}

// BenchmarkMessageSearch searches 10,000 saved messages (ten sessions of
// a realistic history) for three words, as lathe sessions search and
// recall do.
func BenchmarkMessageSearch(b *testing.B) {
	db := openTest(b)
	msgs := realisticHistory(1000)
	for s := range 10 {
		id := fmt.Sprintf("s%d", s)
		createSession(b, db, id, "/w", day)
		for _, m := range msgs {
			if err := db.SaveMessage(b.Context(), id, m); err != nil {
				b.Fatal(err)
			}
		}
	}
	for b.Loop() {
		hits, err := db.Search(b.Context(), session.SearchQuery{Text: "session store context", Dir: "/w", Limit: 8})
		if err != nil || len(hits) != 8 {
			b.Fatal(len(hits), err)
		}
	}
}

// withoutIndex is the schema without the full-text index of messages
// (version 7's step left out).
func withoutIndex() []string {
	steps := migrations()
	steps[6] = ""
	return steps
}
