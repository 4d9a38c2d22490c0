package checkpoint

import (
	"fmt"
	"strings"
	"testing"

	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools"
)

// benchTools are the file tools in a new directory, with or without a
// tracker keeping their changes in a database of its own.
func benchTools(b *testing.B, tracked bool) (*tools.Registry, *Tracker, *sqlite.DB) {
	b.Helper()
	ws, err := tools.OpenWorkspace(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	if !tracked {
		return tools.Default(ws, tools.Options{}), nil, nil
	}
	db := sqlitetest.Open(b)
	if err := db.CreateSession(b.Context(), session.Record{ID: "s1", Dir: ws.Dir()}); err != nil {
		b.Fatal(err)
	}
	tr, err := New(db, ws.Dir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tr.Close() })
	ws.Track(tr)
	return tools.Default(ws, tools.Options{}), tr, db
}

func runTool(b *testing.B, reg *tools.Registry, name, args string) {
	tool, _ := reg.Lookup(name)
	call, err := tool.Prepare([]byte(args))
	if err != nil {
		b.Fatal(err)
	}
	res, err := call.Run(b.Context(), tools.Caller{})
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %s", name, err, res.Content)
	}
}

// textOf is n bytes of source-like text, different for each seed.
func textOf(n, seed int) string {
	var s strings.Builder
	for i := 0; s.Len() < n; i++ {
		fmt.Fprintf(&s, "func f%d_%d(x int) int { return x*%d + %d }\n", seed, i, i, seed)
	}
	return s.String()[:n]
}

// BenchmarkWrite1MB measures a write_file of a 1 MB file, plain and with
// its checkpoint (the run's first change of the file: the content before
// and after kept, compressed).
func BenchmarkWrite1MB(b *testing.B) {
	for _, tracked := range []bool{false, true} {
		name := "plain"
		if tracked {
			name = "checkpointed"
		}
		b.Run(name, func(b *testing.B) {
			reg, tr, _ := benchTools(b, tracked)
			contents := []string{textOf(1<<20, 1), textOf(1<<20, 2)}
			i := 0
			for b.Loop() {
				if tr != nil {
					if err := tr.Begin(b.Context(), "s1", i); err != nil {
						b.Fatal(err)
					}
				}
				runTool(b, reg, "write_file", fmt.Sprintf(`{"path":"big.go","content":%q}`, contents[i%2]+fmt.Sprint(i)))
				if tr != nil {
					tr.End()
				}
				i++
			}
		})
	}
}

// BenchmarkStoreGrowth edits one line of a 100 KB file in each of 100
// runs and reports what the checkpoints add to the database per edit.
func BenchmarkStoreGrowth(b *testing.B) {
	for b.Loop() {
		reg, tr, db := benchTools(b, true)
		body := textOf(100<<10, 7)
		runTool(b, reg, "write_file", fmt.Sprintf(`{"path":"a.go","content":%q}`, body))
		line := strings.SplitAfter(body, "\n")[500]
		for i := range 100 {
			if err := tr.Begin(b.Context(), "s1", i); err != nil {
				b.Fatal(err)
			}
			next := strings.Replace(line, "{", fmt.Sprintf("{ /* %d */", i), 1)
			runTool(b, reg, "read_file", `{"path":"a.go","offset":500,"limit":3}`)
			runTool(b, reg, "edit_file", fmt.Sprintf(`{"path":"a.go","old_string":%q,"new_string":%q}`, line, next))
			line = next
			tr.End()
		}
		n, err := db.CheckpointBytes(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(n)/100/1024, "KB/edit")
		b.ReportMetric(float64(n)/1024/1024, "MB/100edits")
	}
}
