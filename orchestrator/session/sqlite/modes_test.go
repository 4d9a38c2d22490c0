package sqlite

import (
	"errors"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fullPlan has a step of every status, and text that JSON must escape.
func fullPlan() *session.PlanRecord {
	return &session.PlanRecord{
		Summary: "Réparer le parseur 🛠️: \"quoted\", back\\slash, <b>&</b>\nsecond line\tand a tab",
		Steps: []session.PlanStep{
			{Text: "read parser.go", Status: "done"},
			{Text: "修复 the off-by-one in lex()", Status: "in_progress"},
			{Text: "skip the vendored copy \u0000 (NUL)", Status: "skipped"},
			{Text: "", Status: "pending"},
			{Text: "run go test ./... — ключ", Status: "pending"},
		},
	}
}

func saveMode(t *testing.T, db *DB, id string, m session.ModeRecord) {
	t.Helper()
	if err := db.SaveMode(t.Context(), id, m); err != nil {
		t.Fatal(err)
	}
}

func savedModes(t *testing.T, db *DB, id string) []session.ModeRecord {
	t.Helper()
	saved, err := db.Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return saved.Modes
}

// sameMode compares two records, their times as instants.
func sameMode(got, want session.ModeRecord) bool {
	if !got.Created.Equal(want.Created) {
		return false
	}
	got.Created, want.Created = time.Time{}, time.Time{}
	return reflect.DeepEqual(got, want)
}

func TestModeRoundTrip(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/w", day)
	if modes := savedModes(t, db, "s1"); len(modes) != 0 {
		t.Fatalf("before any mode: %+v, want none", modes)
	}
	cases := []struct {
		name string
		m    session.ModeRecord
	}{
		{"no plan", session.ModeRecord{Mode: "ask", Reason: "/mode ask"}},
		{"plan mode, no plan yet", session.ModeRecord{Mode: "plan", Reason: "/mode plan — «план»"}},
		{"plan of every status", session.ModeRecord{Mode: "build", Plan: fullPlan(), Reason: "the plan was approved"}},
		{"empty plan", session.ModeRecord{Mode: "build", Plan: &session.PlanRecord{}}},
		{"plan with no steps", session.ModeRecord{Mode: "build", Plan: &session.PlanRecord{Summary: "nothing to do", Steps: []session.PlanStep{}}}},
		{"empty record", session.ModeRecord{}},
	}
	for i, c := range cases {
		c.m.Seq, c.m.Created = 3*i, day.Add(time.Duration(i)*time.Minute)
		saveMode(t, db, "s1", c.m)
		cases[i] = c
	}
	modes := savedModes(t, db, "s1")
	if len(modes) != len(cases) {
		t.Fatalf("loaded %d mode records, want %d", len(modes), len(cases))
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := modes[i]; !sameMode(got, c.m) {
				t.Errorf("loaded %s\nsaved  %s", mustJSON(t, got), mustJSON(t, c.m))
			}
			if modes[i].Created.Location() != time.UTC {
				t.Errorf("created in %v, want UTC", modes[i].Created.Location())
			}
		})
	}
}

// TestModePlanColumn: the plan is kept as JSON text with PlanRecord's field
// names, and as NULL when there is none (not the JSON null).
func TestModePlanColumn(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/w", day)
	saveMode(t, db, "s1", session.ModeRecord{Seq: 0, Mode: "ask"})
	saveMode(t, db, "s1", session.ModeRecord{Seq: 1, Mode: "build", Plan: fullPlan()})
	var (
		null            int
		status, summary string
	)
	err := db.sql.QueryRowContext(t.Context(), `SELECT
		(SELECT plan IS NULL FROM modes WHERE seq = 0),
		json_extract(plan, '$.steps[1].status'), json_extract(plan, '$.summary')
		FROM modes WHERE seq = 1`).Scan(&null, &status, &summary)
	if err != nil {
		t.Fatal(err)
	}
	if null != 1 {
		t.Error("a record without a plan has a plan that is not NULL")
	}
	if status != "in_progress" || summary != fullPlan().Summary {
		t.Errorf("plan JSON: steps[1].status %q, summary %q", status, summary)
	}
}

func TestSaveModeReplaces(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/w", day)
	ask := session.ModeRecord{Seq: 0, Mode: "ask", Reason: "default", Created: day}
	saveMode(t, db, "s1", ask)
	p := fullPlan()
	for i := range p.Steps {
		p.Steps[i].Status = "pending"
	}
	build := session.ModeRecord{Seq: 4, Mode: "build", Plan: p, Reason: "the plan was approved", Created: day.Add(time.Minute)}
	saveMode(t, db, "s1", build)

	// The checklist moves on, in place; then the plan loses a step.
	updated := fullPlan()
	build2 := session.ModeRecord{Seq: 4, Mode: "build", Plan: updated, Reason: "step 2 started", Created: day.Add(time.Hour)}
	saveMode(t, db, "s1", build2)
	if modes := savedModes(t, db, "s1"); len(modes) != 2 || !sameMode(modes[0], ask) || !sameMode(modes[1], build2) {
		t.Fatalf("after the update: %s", mustJSON(t, modes))
	}
	shorter := &session.PlanRecord{Summary: updated.Summary, Steps: updated.Steps[:2]}
	build3 := session.ModeRecord{Seq: 4, Mode: "build", Plan: shorter, Created: day.Add(2 * time.Hour)}
	saveMode(t, db, "s1", build3)
	if modes := savedModes(t, db, "s1"); len(modes) != 2 || !sameMode(modes[1], build3) {
		t.Fatalf("after a shorter plan: %s", mustJSON(t, modes))
	}
	// A record without a plan replaces one with a plan.
	noPlan := session.ModeRecord{Seq: 4, Mode: "ask", Reason: "/mode ask", Created: day.Add(3 * time.Hour)}
	saveMode(t, db, "s1", noPlan)
	if modes := savedModes(t, db, "s1"); len(modes) != 2 || !sameMode(modes[0], ask) || !sameMode(modes[1], noPlan) {
		t.Fatalf("after replacing the plan with none: %s", mustJSON(t, modes))
	}
}

func TestModesBySeq(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/w", day)
	createSession(t, db, "s2", "/w", day)
	// Saved out of order, and created in an order unlike seq's.
	for i, seq := range []int{10, 2, 0, 9, 100, 11} {
		m := session.ModeRecord{Seq: seq, Mode: "plan", Reason: "r" + mustJSON(t, seq), Created: day.Add(-time.Duration(i) * time.Minute)}
		saveMode(t, db, "s1", m)
	}
	saveMode(t, db, "s2", session.ModeRecord{Seq: 5, Mode: "build", Reason: "other session"})
	var got []string
	for _, m := range savedModes(t, db, "s1") {
		if m.Reason != "r"+mustJSON(t, m.Seq) {
			t.Errorf("record at %d has the reason %q", m.Seq, m.Reason)
		}
		got = append(got, mustJSON(t, m.Seq))
	}
	if want := "0 2 9 10 11 100"; strings.Join(got, " ") != want {
		t.Errorf("seqs %s, want %s", strings.Join(got, " "), want)
	}
	if modes := savedModes(t, db, "s2"); len(modes) != 1 || modes[0].Reason != "other session" {
		t.Errorf("s2's modes: %s", mustJSON(t, modes))
	}
}

func TestSaveModeUnknownSession(t *testing.T) {
	db := openTest(t)
	err := db.SaveMode(t.Context(), "nope", session.ModeRecord{Seq: 3, Mode: "build", Plan: fullPlan()})
	if !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("err = %v, want ErrSessionNotFound", err)
	}
	if want := "save mode at 3 of session nope"; !strings.Contains(err.Error(), want) {
		t.Errorf("err = %q, want it to say %q", err, want)
	}
	var n int
	if err := db.sql.QueryRowContext(t.Context(), `SELECT count(*) FROM modes`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d mode records, %v; want none", n, err)
	}
}

// TestSaveModeTimes: a zero time means now, and a mode record does not
// move the session's updated time (it is not a message).
func TestSaveModeTimes(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/w", day)
	before := time.Now()
	saveMode(t, db, "s1", session.ModeRecord{Mode: "ask"})
	after := time.Now()
	saved, err := db.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if got := saved.Modes[0].Created; got.Before(before) || got.After(after) {
		t.Errorf("created %v, want between %v and %v", got, before, after)
	}
	if !saved.Updated.Equal(day) {
		t.Errorf("a mode record moved the session's updated time to %v", saved.Updated)
	}
}

// TestModesFollowTheirSession: mode records need their session, and go
// with it.
func TestModesFollowTheirSession(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/w", day)
	saveMode(t, db, "s1", session.ModeRecord{Mode: "build", Plan: fullPlan()})
	checkModesCascade(t, db, "s1")
}

// checkModesCascade checks the modes table's foreign key: a record of an
// unknown session is refused, and deleting session id (which has mode
// records) deletes them.
func checkModesCascade(t *testing.T, db *DB, id string) {
	t.Helper()
	ctx := t.Context()
	_, err := db.sql.ExecContext(ctx, `INSERT INTO modes (session_id, seq, mode, reason, created_at)
		VALUES ('nope', 0, 'ask', '', 0)`)
	if err == nil {
		t.Error("a mode record of an unknown session was inserted")
	}
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM modes WHERE session_id = ?`, id).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d mode records of the deleted session %s left, %v", n, id, err)
	}
}

// TestLoadSessionModesSnapshot: LoadSession reads the mode records in
// the snapshot the rest comes from, while another handle writes.
func TestLoadSessionModesSnapshot(t *testing.T) {
	db := openTest(t)
	other, err := Open(t.Context(), db.path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	createSession(t, db, "s1", "/w", day)
	done := make(chan error, 1)
	const n = 200
	go func() {
		// Message seq then the mode record at seq: a snapshot never has a
		// mode record beyond its last message.
		for seq := range n {
			m := session.Message{Seq: seq, Message: provider.Message{Role: "user", Content: "m"}}
			if err := other.SaveMessage(t.Context(), "s1", m); err != nil {
				done <- err
				return
			}
			if err := other.SaveMode(t.Context(), "s1", session.ModeRecord{Seq: seq, Mode: "build"}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for finished := false; !finished; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			finished = true
		default:
		}
		s, err := db.Load(t.Context(), "s1")
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Modes) > len(s.Messages) || len(s.Modes) < len(s.Messages)-1 {
			t.Fatalf("a snapshot with %d messages and %d mode records", len(s.Messages), len(s.Modes))
		}
	}
	if s, _ := db.Load(t.Context(), "s1"); len(s.Modes) != n {
		t.Errorf("%d mode records, want %d", len(s.Modes), n)
	}
}
