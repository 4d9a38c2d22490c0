// Command gensessions fills a session database to measure lathe's
// sessions at scale, deterministic by seed:
//
//	gensessions [-messages 1000000] [-long 100000] [-sessions 1000] [-dirs 10] [-seed 1] [-compact 0] DB
//
// It writes one long session of -long messages (id 0000000000000000, in
// /gen/project0) and spreads the rest of
// -messages over -sessions-1 others, across -dirs project directories,
// each as a coding session makes them: a prompt, then turns of an
// assistant thinking and calling one to three tools, each answered by a
// result of 0.5–4 KB, until a final answer. The words are drawn as a
// project's are (Zipf's law: "w0" is in nearly every message, "w4000" in
// few), so that a search may look for common and rare ones. Every message
// is saved as lathe saves it, one transaction each. With -compact N, the
// long session is compacted at its last prompt N messages or more before
// its end, as lathe would have compacted it long before. It prints the
// messages a second and the database's size per 100 messages. DB must
// not exist.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
)

func main() {
	messages := flag.Int("messages", 1_000_000, "messages in all")
	long := flag.Int("long", 100_000, "messages of the long session")
	sessions := flag.Int("sessions", 1000, "sessions, the long one included")
	dirs := flag.Int("dirs", 10, "project directories")
	seed := flag.Uint64("seed", 1, "the seed everything is made from")
	compact := flag.Int("compact", 0, "compact the long session this many messages before its end (0: never)")
	flag.Parse()
	if flag.NArg() != 1 || *sessions < 1 || *long > *messages || *dirs < 1 {
		fmt.Fprintln(os.Stderr, "usage: gensessions [-messages N] [-long L] [-sessions S] [-dirs D] [-seed S] [-compact N] DB")
		os.Exit(2)
	}
	if _, err := os.Stat(flag.Arg(0)); err == nil {
		fmt.Fprintln(os.Stderr, "gensessions:", flag.Arg(0), "exists")
		os.Exit(1)
	}
	g := gen{seed: *seed, dirs: *dirs, compact: *compact, start: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	if err := g.run(context.Background(), flag.Arg(0), *messages, *long, *sessions); err != nil {
		fmt.Fprintln(os.Stderr, "gensessions:", err)
		os.Exit(1)
	}
}

type gen struct {
	seed    uint64
	dirs    int
	compact int // messages of the long session after its compaction; 0 for none
	start   time.Time
	db      *sqlite.DB
	saved   int
}

// SessionID is the id of the i-th session written (0 is the long one).
func SessionID(i int) string { return fmt.Sprintf("%016x", i) }

// Dir is the directory of the i-th session.
func (g *gen) Dir(i int) string { return fmt.Sprintf("/gen/project%d", i%g.dirs) }

func (g *gen) run(ctx context.Context, path string, messages, long, sessions int) error {
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	g.db = db
	begin := time.Now()
	rest, others := messages-long, sessions-1
	// The long one first: a run stopped early has it.
	if err := g.session(ctx, 0, long); err != nil {
		return err
	}
	for i := 1; i <= others; i++ {
		n := rest / others
		if i <= rest%others {
			n++
		}
		if err := g.session(ctx, i, n); err != nil {
			return err
		}
		if i%100 == 0 {
			fmt.Printf("%d sessions, %d messages, %s\n", i+1, g.saved, time.Since(begin).Round(time.Second))
		}
	}
	took := time.Since(begin)
	db.Close()
	var size int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			size += fi.Size()
		}
	}
	fmt.Printf("%d messages in %d sessions in %s (%.0f messages/s); database %.2f GiB, %.0f KB per 100 messages\n",
		g.saved, sessions, took.Round(time.Second), float64(g.saved)/took.Seconds(), float64(size)/(1<<30),
		float64(size)/float64(g.saved)*100/1000)
	return nil
}

// session writes the i-th session, of n messages.
func (g *gen) session(ctx context.Context, i, n int) error {
	if n == 0 {
		return nil
	}
	r := rand.New(rand.NewPCG(g.seed, uint64(i)))
	w := words{zipf: rand.NewZipf(r, 1.1, 1, 4999), r: r}
	id := SessionID(i)
	created := g.start.Add(time.Duration(g.saved) * time.Second)
	err := g.db.CreateSession(ctx, session.Record{ID: id, Title: "session " + w.text(40), Dir: g.Dir(i),
		Model: "qwen3:8b", Created: created})
	if err != nil {
		return err
	}
	seq := 0
	add := func(m provider.Message, meta *session.ToolMeta) error {
		if seq == n {
			return nil
		}
		g.saved++
		err := g.db.SaveMessage(ctx, id, session.Message{Seq: seq, Message: m, Tool: meta,
			Created: g.start.Add(time.Duration(g.saved) * time.Second)})
		seq++
		return err
	}
	cut := -1 // the long session's compaction point: its last prompt before the last g.compact messages
	for seq < n {
		if i == 0 && g.compact > 0 && seq <= n-g.compact {
			cut = seq
		}
		if err := add(provider.Message{Role: "user", Content: w.text(100 + r.IntN(300))}, nil); err != nil {
			return err
		}
		for turn := 0; turn < 1+r.IntN(5) && seq < n; turn++ {
			calls := w.calls(1 + r.IntN(3))
			err := add(provider.Message{Role: "assistant", Thinking: w.text(200 + r.IntN(600)), Content: w.text(r.IntN(200)),
				ToolCalls: calls}, nil)
			if err != nil {
				return err
			}
			for _, c := range calls {
				meta := &session.ToolMeta{Subject: "pkg/file.go", Outcome: "ok", Summary: "120 lines", Duration: 40 * time.Millisecond}
				if err := add(provider.Message{Role: "tool", Content: w.text(500 + r.IntN(3500)), ToolName: c.Name, ToolCallID: c.ID}, meta); err != nil {
					return err
				}
			}
		}
		if err := add(provider.Message{Role: "assistant", Thinking: w.text(300), Content: w.text(300 + r.IntN(1200))}, nil); err != nil {
			return err
		}
	}
	if cut > 0 {
		return g.db.SaveCompaction(ctx, id, session.Compaction{Seq: cut, Summary: w.text(2400),
			Created: g.start.Add(time.Duration(g.saved) * time.Second)})
	}
	return nil
}

// words draws the words of a session's text.
type words struct {
	zipf *rand.Zipf
	r    *rand.Rand
}

// text is about n bytes of lines of words.
func (w words) text(n int) string {
	var b strings.Builder
	for b.Len() < n {
		for range 4 + w.r.IntN(8) {
			fmt.Fprintf(&b, "w%d ", w.zipf.Uint64())
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (w words) calls(n int) []provider.ToolCall {
	calls := make([]provider.ToolCall, n)
	for i := range calls {
		// Names of no built-in tool: theirs are written only where each
		// tool is (a test in ui/cli sees to it); the store does not mind.
		name := []string{"read", "run", "edit"}[w.r.IntN(3)]
		a := map[string]string{"path": "pkg/file.go"}
		if name == "edit" {
			a["old_string"], a["new_string"] = w.text(100+w.r.IntN(300)), w.text(100+w.r.IntN(300))
		} else {
			a["command"] = w.text(40)
		}
		args, _ := json.Marshal(a)
		calls[i] = provider.ToolCall{ID: fmt.Sprintf("call_%08x", w.r.Uint32()), Index: i, Name: name, Arguments: args}
	}
	return calls
}
