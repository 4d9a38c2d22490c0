package sqlite

import (
	"os"
	"slices"
	"testing"
	"time"

	"lathe/orchestrator/session"
)

// BenchmarkSessionsAtScale measures a database filled by
// scripts/gensessions (a million messages, one session of 100,000 of
// them, by default) at the path LATHE_SESSIONS_SCALE names; skipped
// without it. list is `lathe sessions` in a project (list-all with
// --all); search is `lathe sessions search` in a project, recall the
// recall tool's search (this project's other sessions, 8 hits), each for
// words most messages hold (common), words few hold (rare), and one of
// each (mixed); load-long reads the long session whole, load-resume-long
// as a resume does (from its compaction on, the messages before left; see
// gensessions -compact). Each reports the median time of an operation (p50-ms).
//
//	go run ./scripts/gensessions /tmp/sessions.db
//	LATHE_SESSIONS_SCALE=/tmp/sessions.db go test -run X -bench SessionsAtScale ./orchestrator/session/sqlite/
func BenchmarkSessionsAtScale(b *testing.B) {
	path := os.Getenv("LATHE_SESSIONS_SCALE")
	if path == "" {
		b.Skip("LATHE_SESSIONS_SCALE names no database filled by scripts/gensessions")
	}
	db, err := Open(b.Context(), path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const long, dir = "0000000000000000", "/gen/project0"
	timed := func(b *testing.B, op func() error) {
		var took []time.Duration
		for b.Loop() {
			start := time.Now()
			err := op()
			took = append(took, time.Since(start))
			if err != nil {
				b.Fatal(err)
			}
		}
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	}
	b.Run("list", func(b *testing.B) {
		timed(b, func() error { _, err := db.List(b.Context(), dir); return err })
	})
	b.Run("list-all", func(b *testing.B) {
		timed(b, func() error { _, err := db.List(b.Context(), ""); return err })
	})
	for _, q := range []struct{ name, text string }{
		{"common", "w1 w2 w3"}, {"rare", "w3001 w4002"}, {"mixed", "w2 w3001"},
	} {
		b.Run("search-"+q.name, func(b *testing.B) {
			timed(b, func() error {
				_, err := db.Search(b.Context(), session.SearchQuery{Text: q.text, Dir: dir, Limit: 50})
				return err
			})
		})
		b.Run("recall-"+q.name, func(b *testing.B) {
			timed(b, func() error {
				_, err := db.Search(b.Context(), session.SearchQuery{Text: q.text, Dir: dir, Exclude: long, Limit: 8})
				return err
			})
		})
	}
	b.Run("load-long", func(b *testing.B) {
		timed(b, func() error { _, err := db.Load(b.Context(), long); return err })
	})
	b.Run("load-resume-long", func(b *testing.B) {
		timed(b, func() error { _, err := db.LoadResume(b.Context(), long); return err })
	})
}
