package sqlite

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

func say(t testing.TB, db *DB, id string, seq int, role, content string) {
	t.Helper()
	m := session.Message{Seq: seq, Message: provider.Message{Role: role, Content: content},
		Created: day.Add(time.Duration(seq) * time.Minute)}
	if err := db.SaveMessage(t.Context(), id, m); err != nil {
		t.Fatal(err)
	}
}

// sayV5 saves a message as version 5 of the schema has it.
func sayV5(t testing.TB, db *DB, id string, seq int, role, content string) {
	t.Helper()
	at := stamp(day.Add(time.Duration(seq) * time.Minute))
	if _, err := db.sql.ExecContext(t.Context(), `INSERT INTO messages (session_id, seq, role, content, thinking, tool_name,
		tool_call_id, created_at) VALUES (?, ?, ?, ?, '', '', '', ?)`, id, seq, role, content, at); err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.ExecContext(t.Context(), `UPDATE sessions SET updated_at = max(updated_at, ?) WHERE id = ?`, at, id); err != nil {
		t.Fatal(err)
	}
}

// seedSearch saves sessions in two projects: s1 and s2 in /p, s3 in /q.
func seedSearch(t testing.TB, db *DB) { seedSearchWith(t, db, say) }

func seedSearchWith(t testing.TB, db *DB, say func(t testing.TB, db *DB, id string, seq int, role, content string)) {
	createSession(t, db, "s1", "/p", day)
	createSession(t, db, "s2", "/p", day.Add(time.Hour))
	createSession(t, db, "s3", "/q", day)
	say(t, db, "s1", 0, "user", "how do the tests run here?")
	say(t, db, "s1", 1, "assistant", "The tests run with `make check`, which also vets the code.")
	say(t, db, "s1", 2, "user", notePrefix+"the tests were interrupted")
	say(t, db, "s2", 0, "user", "the parser panics on an empty file")
	say(t, db, "s2", 1, "tool", "parser.go:12: func Parse(src []byte) (*File, error)")
	say(t, db, "s2", 2, "assistant", "Fixed: Parse returns ErrEmpty for an empty file.")
	say(t, db, "s3", 0, "user", "run the tests of the other project")
}

func hitKeys(hits []session.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.SessionID+"/"+string(rune('0'+h.Seq)))
	}
	return out
}

func search(t *testing.T, db *DB, q session.SearchQuery) []session.Hit {
	t.Helper()
	hits, err := db.Search(t.Context(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	return hits
}

func TestSearchMessages(t *testing.T) {
	db := openTest(t)
	seedSearch(t, db)
	for _, c := range []struct {
		name string
		q    session.SearchQuery
		want []string
	}{
		{"stemmed, in one project, notes left out", session.SearchQuery{Text: "testing", Dir: "/p"}, []string{"s1/0", "s1/1"}},
		{"every project", session.SearchQuery{Text: "tests"}, []string{"s1/0", "s1/1", "s3/0"}},
		{"every word when some message has them all", session.SearchQuery{Text: "make check", Dir: "/p"}, []string{"s1/1"}},
		{"any word when none has them all", session.SearchQuery{Text: "panics vets", Dir: "/p"}, []string{"s1/1", "s2/0"}},
		{"tool results are searched", session.SearchQuery{Text: "func Parse", Dir: "/p"}, []string{"s2/1"}},
		{"one session left out", session.SearchQuery{Text: "empty file", Dir: "/p", Exclude: "s1"}, []string{"s2/0", "s2/2"}},
		{"punctuation is no operator", session.SearchQuery{Text: `"make" -check* AND (NOT`, Dir: "/p"}, []string{"s1/1"}},
		{"limited", session.SearchQuery{Text: "tests", Limit: 1}, nil},
		{"nothing found", session.SearchQuery{Text: "kubernetes"}, nil},
		{"common words find nothing alone", session.SearchQuery{Text: "kubernetes how the"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := hitKeys(search(t, db, c.q))
			slices.Sort(got)
			if c.q.Limit == 1 {
				if len(got) != 1 {
					t.Errorf("%d hits, want 1", len(got))
				}
				return
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("hits %v, want %v", got, c.want)
			}
		})
	}
}

func TestSearchHit(t *testing.T) {
	db := openTest(t)
	seedSearch(t, db)
	hits := search(t, db, session.SearchQuery{Text: "make check", Dir: "/p"})
	if len(hits) != 1 {
		t.Fatalf("%d hits", len(hits))
	}
	h := hits[0]
	if h.SessionID != "s1" || h.Title != "title s1" || h.Dir != "/p" || h.Seq != 1 || h.Role != "assistant" ||
		!h.Created.Equal(day.Add(time.Minute)) {
		t.Errorf("hit %+v", h)
	}
	if got, want := h.SnippetWith("[", "]"), "The tests run with `[make] [check]`, which also vets the code."; got != want {
		t.Errorf("snippet %q, want %q", got, want)
	}
}

// TestSearchRanking: the message that holds the words most densely comes
// first.
func TestSearchRanking(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/p", day)
	say(t, db, "s1", 0, "user", "sandbox "+strings.Repeat("and other words ", 40))
	say(t, db, "s1", 1, "assistant", "the sandbox: the sandbox confines commands")
	say(t, db, "s1", 2, "user", "nothing to see")
	if got := hitKeys(search(t, db, session.SearchQuery{Text: "sandbox"})); !slices.Equal(got, []string{"s1/1", "s1/0"}) {
		t.Errorf("hits %v, want the dense one first", got)
	}
}

func TestSearchNoWords(t *testing.T) {
	db := openTest(t)
	for _, q := range []string{"", "  ", "--- *** ()"} {
		if _, err := db.Search(t.Context(), session.SearchQuery{Text: q}); !errors.Is(err, session.ErrNoWords) {
			t.Errorf("search %q: %v, want ErrNoWords", q, err)
		}
	}
}

// ftsIntact fails the test when the message index does not match the
// messages (FTS5's own check).
func ftsIntact(t *testing.T, db *DB) {
	t.Helper()
	if _, err := db.sql.ExecContext(t.Context(), `INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Errorf("the message index does not match the messages: %v", err)
	}
}

// TestSearchFollowsChanges: the index follows a message replaced, the
// messages an undo takes back and a redo puts back, and a session
// removed.
func TestSearchFollowsChanges(t *testing.T) {
	ctx := t.Context()
	db := openTest(t)
	seedSearch(t, db)
	find := func(text string) []string {
		return hitKeys(search(t, db, session.SearchQuery{Text: text}))
	}

	say(t, db, "s2", 2, "assistant", "Fixed: Parse returns io.EOF now.")
	if got := find("ErrEmpty"); got != nil {
		t.Errorf("a replaced message is still found by its old words: %v", got)
	}
	if got := find("EOF"); !slices.Equal(got, []string{"s2/2"}) {
		t.Errorf("the replacement: %v", got)
	}
	ftsIntact(t, db)

	cp, err := db.CreateCheckpoint(ctx, "s2", 1, day)
	if err != nil {
		t.Fatal(err)
	}
	cps, err := db.Checkpoints(ctx, "s2")
	if err != nil || len(cps) != 1 || cps[0].ID != cp {
		t.Fatalf("checkpoints %v, %v", cps, err)
	}
	if err := db.UndoRun(ctx, cps[0], day.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := find("EOF"); got != nil {
		t.Errorf("a message undone is still found: %v", got)
	}
	ftsIntact(t, db)
	cps, _ = db.Checkpoints(ctx, "s2")
	if err := db.RedoRun(ctx, cps[0]); err != nil {
		t.Fatal(err)
	}
	if got := find("EOF"); !slices.Equal(got, []string{"s2/2"}) {
		t.Errorf("a message redone: %v", got)
	}
	ftsIntact(t, db)

	if err := db.Delete(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if got := find("check"); got != nil {
		t.Errorf("the messages of a removed session are still found: %v", got)
	}
	ftsIntact(t, db)
}

// TestSearchAfterUpgrade: the messages of a database made before the
// index are found once it is opened by this lathe.
func TestSearchAfterUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe.db")
	old, err := openSteps(t, path, migrations()[:5])
	if err != nil {
		t.Fatal(err)
	}
	seedSearchWith(t, old, sayV5)
	if tableExists(t, old, "messages_fts") {
		t.Fatal("the old database already has the index")
	}
	old.Close()

	db, err := Open(t.Context(), path, Options{NotePrefix: notePrefix})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := hitKeys(search(t, db, session.SearchQuery{Text: "make check"})); !slices.Equal(got, []string{"s1/1"}) {
		t.Errorf("hits after the upgrade: %v", got)
	}
	ftsIntact(t, db)
	say(t, db, "s3", 1, "assistant", "make check it is")
	if got := hitKeys(search(t, db, session.SearchQuery{Text: "make check"})); len(got) != 2 {
		t.Errorf("a message saved after the upgrade: %v", got)
	}
}

// TestSearchManyHitsMostRecentFirst checks that when more messages than
// rankedMessages hold the words, the most recent come first, not the best
// match (the oldest message, or the one in the middle).
func TestSearchManyHitsMostRecentFirst(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/p", day)
	say(t, db, "s1", 0, "user", "sandbox sandbox sandbox")
	for seq := 1; seq <= rankedMessages; seq++ {
		content := "the sandbox " + strings.Repeat("and other words ", 10)
		if seq == rankedMessages/2 {
			content = "the sandbox and the sandbox"
		}
		say(t, db, "s1", seq, "assistant", content)
	}
	hits := search(t, db, session.SearchQuery{Text: "sandbox", Limit: 3})
	var seqs []int
	for _, h := range hits {
		seqs = append(seqs, h.Seq)
		if !strings.Contains(h.Snippet, session.HitOpen+"sandbox"+session.HitClose) {
			t.Errorf("snippet %q does not mark the word", h.Snippet)
		}
	}
	if want := []int{rankedMessages, rankedMessages - 1, rankedMessages - 2}; !slices.Equal(seqs, want) {
		t.Errorf("hits %v, want the most recent %v", seqs, want)
	}
}
