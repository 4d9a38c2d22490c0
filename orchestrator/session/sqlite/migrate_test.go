package sqlite

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// addPinned is a test-only second schema version.
const addPinned = `ALTER TABLE sessions ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
CREATE INDEX sessions_pinned ON sessions (pinned);`

func openSteps(t *testing.T, path string, steps []string) (*DB, error) {
	t.Helper()
	db, err := open(t.Context(), path, steps)
	if err == nil {
		t.Cleanup(func() { db.Close() })
	}
	return db, err
}

func schemaVersion(t *testing.T, db *DB) int {
	t.Helper()
	var v int
	if err := db.sql.QueryRowContext(t.Context(), "PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMigrateEmptyFile(t *testing.T) {
	db := openTest(t)
	if got, want := schemaVersion(t, db), len(migrations()); got != want || want < 1 {
		t.Errorf("schema version %d, want %d", got, want)
	}
	var tables int
	err := db.sql.QueryRowContext(t.Context(), `SELECT count(*) FROM sqlite_schema
		WHERE type = 'table' AND name IN ('sessions', 'messages', 'compactions', 'runs', 'modes', 'leases')`).Scan(&tables)
	if err != nil || tables != 6 {
		t.Errorf("%d of the 6 tables, %v", tables, err)
	}
	var loose string // the tables that are not STRICT
	err = db.sql.QueryRowContext(t.Context(), `SELECT coalesce(group_concat(name, ' '), '') FROM pragma_table_list
		WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' AND NOT strict`).Scan(&loose)
	if err != nil || loose != "" {
		t.Errorf("tables not STRICT: %q, %v", loose, err)
	}
}

func TestMigrateKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe.db")
	v1 := migrations()[:1]
	old, err := openSteps(t, path, v1)
	if err != nil {
		t.Fatal(err)
	}
	createV1Session(t, old, "s1", "/w", day)
	saveV1Message(t, old, "s1", session.Message{Message: provider.Message{Role: "user", Content: "kept"}})
	old.Close()

	steps := append(append([]string{}, migrations()...), addPinned)
	db, err := openSteps(t, path, steps)
	if err != nil {
		t.Fatal(err)
	}
	if got := schemaVersion(t, db); got != len(steps) {
		t.Errorf("schema version %d, want %d", got, len(steps))
	}
	saved, err := db.Load(t.Context(), "s1")
	if err != nil || len(saved.Messages) != 1 || saved.Messages[0].Message.Content != "kept" {
		t.Fatalf("after migrating: %+v, %v", saved.Messages, err)
	}
	var pinned int
	if err := db.sql.QueryRowContext(t.Context(), `SELECT pinned FROM sessions WHERE id = 's1'`).Scan(&pinned); err != nil {
		t.Errorf("the new column: %v", err)
	}
}

func TestMigrateFailureRollsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe.db")
	v1 := migrations()[:1]
	old, err := openSteps(t, path, v1)
	if err != nil {
		t.Fatal(err)
	}
	old.Close()
	broken := append(append([]string{}, v1...), `CREATE TABLE half (a INTEGER); SELEKT 1;`)
	if _, err := openSteps(t, path, broken); err == nil {
		t.Fatal("a broken migration succeeded")
	}
	db, err := openSteps(t, path, v1)
	if err != nil {
		t.Fatal(err)
	}
	if got := schemaVersion(t, db); got != 1 {
		t.Errorf("schema version %d after a failed migration, want 1", got)
	}
	var n int
	db.sql.QueryRowContext(t.Context(), `SELECT count(*) FROM sqlite_schema WHERE name = 'half'`).Scan(&n)
	if n != 0 {
		t.Error("the failed migration's first statement was kept")
	}
}

func TestMigrateRefusesNewer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe.db")
	newer, err := openSteps(t, path, append(append([]string{}, migrations()...), addPinned))
	if err != nil {
		t.Fatal(err)
	}
	newer.Close()
	if _, err := openSteps(t, path, migrations()); !errors.Is(err, ErrNewerSchema) {
		t.Errorf("opening a newer database: %v, want ErrNewerSchema", err)
	}
}

// TestMigrationFilesNumbered: a file's number is its version, so the
// names must be NNNN_name.sql, each number once, and the steps must hold
// each file at its number.
func TestMigrationFilesNumbered(t *testing.T) {
	files, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	steps := migrations()
	last := 0
	for _, f := range files {
		v, ok := migrationVersion(f.Name())
		if !ok || v <= last {
			t.Errorf("migration %s: want NNNN_name.sql numbered after %04d", f.Name(), last)
			continue
		}
		last = v
		b, _ := migrationFiles.ReadFile("migrations/" + f.Name())
		if steps[v-1] != string(b) {
			t.Errorf("step %d is not the file %s", v, f.Name())
		}
	}
	if len(steps) != last {
		t.Errorf("%d steps, want %d", len(steps), last)
	}
	for _, name := range []string{"0001_a.sql", "01_a.sql", "0001a.sql", "0000_a.sql", "0001_a.txt"} {
		if _, ok := migrationVersion(name); ok != (name == "0001_a.sql") {
			t.Errorf("migrationVersion(%q) ok = %v", name, ok)
		}
	}
}

// TestMigrateFromVersion5: a database of version 5 (the last before the
// experiments) is brought to the latest version, keeping its sessions,
// with the experiment tables, whatever versions came between.
func TestMigrateFromVersion5(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe.db")
	old, err := openSteps(t, path, migrations()[:5])
	if err != nil {
		t.Fatal(err)
	}
	createV1Session(t, old, "s1", "/w", day)
	old.Close()
	db, err := openSteps(t, path, migrations())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := schemaVersion(t, db), len(migrations()); got != want || want < 8 {
		t.Errorf("schema version %d, want %d (8 at least)", got, want)
	}
	for _, table := range []string{"experiments", "experiment_models", "experiment_tasks", "attempts"} {
		if !tableExists(t, db, table) {
			t.Errorf("no table %s after migrating from version 5", table)
		}
	}
	if _, err := db.Load(t.Context(), "s1"); err != nil {
		t.Errorf("the session of version 5: %v", err)
	}
}

// TestMigrateGap: a number no file has is a step that changes nothing,
// and the version still counts it.
func TestMigrateGap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe.db")
	steps := append(append([]string{}, migrations()...), "", addPinned)
	db, err := openSteps(t, path, steps)
	if err != nil {
		t.Fatal(err)
	}
	if got := schemaVersion(t, db); got != len(steps) {
		t.Errorf("schema version %d, want %d", got, len(steps))
	}
	var pinned int
	if err := db.sql.QueryRowContext(t.Context(), `SELECT count(pinned) FROM sessions`).Scan(&pinned); err != nil {
		t.Errorf("the step after the gap was not applied: %v", err)
	}
}

// TestConcurrentFirstOpens: lathes started at once on a new file each
// migrate it or find it migrated, once. (Racing connections switching a
// file to WAL fail at once with SQLITE_BUSY: see create.)
func TestConcurrentFirstOpens(t *testing.T) {
	const rounds, opens = 10, 6
	steps := append(append([]string{}, migrations()...), addPinned) // addPinned fails if run twice
	for range rounds {
		path := filepath.Join(t.TempDir(), "lathe.db")
		var wg sync.WaitGroup
		for range opens {
			wg.Go(func() { openAndCheck(t, path, steps) })
		}
		wg.Wait()
	}
}

func openAndCheck(t *testing.T, path string, steps []string) {
	db, err := open(t.Context(), path, steps)
	if err != nil {
		t.Error(err)
		return
	}
	defer db.Close()
	var v int
	if err := db.sql.QueryRowContext(t.Context(), "PRAGMA user_version").Scan(&v); err != nil || v != len(steps) {
		t.Errorf("schema version %d, %v; want %d", v, err, len(steps))
	}
}

// v1Tables are the tables of schema version 1, each with its columns of
// that version: later versions add some.
var v1Tables = []string{"sessions", "messages(session_id, seq, role, content, thinking, tool_calls, tool_name, " +
	"tool_call_id, images, tool_subject, tool_outcome, tool_summary, tool_duration_ns, created_at)", "compactions", "runs"}

// dumpTables is every row of tables, each value with its Go type, so
// that NULL, an empty string and 0 differ.
func dumpTables(t *testing.T, db *DB, tables []string) string {
	t.Helper()
	var b strings.Builder
	for _, table := range tables {
		which := "*"
		if name, list, ok := strings.Cut(table, "("); ok {
			table, which = name, strings.TrimSuffix(list, ")")
		}
		rows, err := db.sql.QueryContext(t.Context(), `SELECT `+which+` FROM `+table+` ORDER BY rowid`)
		if err != nil {
			t.Fatal(err)
		}
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %v\n", table, cols)
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%#v\n", vals)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func tableExists(t *testing.T, db *DB, name string) bool {
	t.Helper()
	var n int
	err := db.sql.QueryRowContext(t.Context(), `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, name).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// seedV1 makes a version 1 database at path (only migration 0001, with
// the write methods version 1 has) holding sessions in two directories,
// messages with tool calls and meta, a compaction, a finished and an
// unfinished run, and returns a dump of its tables.
// createV1Session creates a session as a version 1 database holds it:
// without a lease, which came with version 3.
func createV1Session(t *testing.T, db *DB, id, dir string, created time.Time) {
	t.Helper()
	_, err := db.sql.ExecContext(t.Context(), `INSERT INTO sessions (id, title, dir, model, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?)`, id, "title "+id, dir, "qwen3:8b", stamp(created), stamp(created))
	if err != nil {
		t.Fatal(err)
	}
}

// saveV1Message saves m as a version 1 database holds it: without token
// counts, which came with version 3.
func saveV1Message(t *testing.T, db *DB, id string, m session.Message) {
	t.Helper()
	args, err := messageArgs(m, stamp(m.Created))
	if err != nil {
		t.Fatal(err)
	}
	args = append(args[:12], args[len(args)-1]) // no tool_diff, prompt_tokens, completion_tokens, cut
	args[7] = nil                               // images as base64 strings, inline
	if imgs := m.Message.Images; len(imgs) > 0 {
		inline := make([][]byte, len(imgs))
		for i, img := range imgs {
			inline[i] = img.Data
		}
		args[7] = mustJSON(t, inline)
	}
	_, err = db.sql.ExecContext(t.Context(), `INSERT INTO messages (session_id, seq, role, content, thinking,
		tool_calls, tool_name, tool_call_id, images, tool_subject, tool_outcome, tool_summary, tool_duration_ns,
		created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, append([]any{id}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.ExecContext(t.Context(), `UPDATE sessions SET updated_at = max(updated_at, ?) WHERE id = ?`,
		stamp(m.Created), id); err != nil {
		t.Fatal(err)
	}
}

func seedV1(t *testing.T, path string) string {
	t.Helper()
	ctx := t.Context()
	old, err := openSteps(t, path, migrations()[:1])
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if v := schemaVersion(t, old); v != 1 || tableExists(t, old, "modes") {
		t.Fatalf("the old database: version %d, with modes: %v", v, tableExists(t, old, "modes"))
	}
	createV1Session(t, old, "s1", "/a", day)
	createV1Session(t, old, "s2", "/a", day.Add(time.Minute))
	createV1Session(t, old, "s3", "/b", day.Add(2*time.Minute))
	if err := old.SetTitle(ctx, "s1", "Fix the parser — ünïcode"); err != nil {
		t.Fatal(err)
	}
	for i, c := range messageCases(t) {
		c.m.Seq, c.m.Created = i, day.Add(time.Duration(i)*time.Second)
		saveV1Message(t, old, "s1", c.m)
	}
	saveV1Message(t, old, "s2", session.Message{Message: provider.Message{Role: "user", Content: "later"}, Created: day.Add(time.Hour)})
	if err := old.SaveCompaction(ctx, "s1", session.Compaction{Seq: 4, Summary: "the first four", Created: day.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	run, err := old.StartRun(ctx, session.RunStart{SessionID: "s1", Model: "qwen3:8b",
		Options: map[string]any{"num_ctx": 32768}, Started: day})
	if err != nil {
		t.Fatal(err)
	}
	end := session.RunEnd{StopReason: "error", Failure: "boom", Turns: 2, ToolCalls: 5,
		PromptTokens: 900, CompletionTokens: 90, Completed: day.Add(time.Minute)}
	if err := old.FinishRun(ctx, run, end); err != nil {
		t.Fatal(err)
	}
	if _, err := old.StartRun(ctx, session.RunStart{SessionID: "s2", Started: day.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	return dumpTables(t, old, v1Tables)
}

// TestUpgradeV1: a database made by the first schema is brought to the
// current one on open, keeping every row as it was, and mode records
// then work on its sessions.
func TestUpgradeV1(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "lathe.db")
	before := seedV1(t, path)

	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := schemaVersion(t, db); got != len(migrations()) || got < 2 {
		t.Errorf("schema version %d after the upgrade, want %d (at least 2)", got, len(migrations()))
	}
	if !tableExists(t, db, "modes") {
		t.Fatal("no modes table after the upgrade")
	}
	if after := dumpTables(t, db, v1Tables); after != before {
		t.Errorf("the upgrade changed the data:\nbefore %s\nafter  %s", before, after)
	}
	var integrity string
	var orphans int
	err = db.sql.QueryRowContext(ctx, `SELECT (SELECT group_concat(integrity_check, ' ') FROM pragma_integrity_check),
		(SELECT count(*) FROM pragma_foreign_key_check)`).Scan(&integrity, &orphans)
	if err != nil || integrity != "ok" || orphans != 0 {
		t.Errorf("integrity %q, %d rows without their parent, %v", integrity, orphans, err)
	}

	// The old sessions load as they were written, without modes.
	saved, err := db.Load(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	cases := messageCases(t)
	if saved.Title != "Fix the parser — ünïcode" || len(saved.Messages) != len(cases) || len(saved.Modes) != 0 {
		t.Fatalf("s1: title %q, %d messages, modes %+v", saved.Title, len(saved.Messages), saved.Modes)
	}
	for i, c := range cases {
		for j, img := range c.m.Message.Images {
			c.m.Message.Images[j] = provider.Image{Data: img.Data} // base64 kept no name nor size
		}
		if got, want := mustJSON(t, saved.Messages[i].Message), mustJSON(t, c.m.Message); got != want {
			t.Errorf("message %d: %s, want %s", i, got, want)
		}
	}
	if c := saved.Compaction; c == nil || c.Seq != 4 || c.Summary != "the first four" {
		t.Errorf("s1's compaction %+v", c)
	}
	if r := saved.LastRun; r == nil || r.Ending() != "error" || r.Failure != "boom" {
		t.Errorf("s1's last run %+v", r)
	}
	list, err := db.List(ctx, "/a")
	if err != nil || len(list) != 2 || list[0].ID != "s2" || list[0].LastRun == nil || list[0].LastRun.Ending() != "interrupted" {
		t.Errorf("sessions in /a: %+v, %v", list, err)
	}

	// Mode records work on an old session, and it goes on taking messages.
	mode := session.ModeRecord{Seq: len(cases), Mode: "build", Plan: fullPlan(), Reason: "the plan was approved", Created: day.Add(2 * time.Hour)}
	saveMode(t, db, "s1", mode)
	m := session.Message{Seq: len(cases), Message: provider.Message{Role: "user", Content: "go on"}}
	if err := db.SaveMessage(ctx, "s1", m); err != nil {
		t.Fatal(err)
	}
	if modes := savedModes(t, db, "s1"); len(modes) != 1 || !sameMode(modes[0], mode) {
		t.Errorf("modes after the upgrade: %s", mustJSON(t, modes))
	}
	if err := db.SaveMode(ctx, "nope", mode); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("SaveMode of an unknown session: %v", err)
	}
	db.Close()

	// Opened again, it is up to date: nothing is migrated twice.
	again, err := openSteps(t, path, migrations())
	if err != nil {
		t.Fatal(err)
	}
	if modes := savedModes(t, again, "s1"); len(modes) != 1 || !sameMode(modes[0], mode) {
		t.Errorf("modes after reopening: %s", mustJSON(t, modes))
	}
	checkModesCascade(t, again, "s1")
}

// TestConcurrentUpgrades: lathes started at once on a version 1 file
// each upgrade it or find it upgraded; creating the modes table twice
// would fail.
func TestConcurrentUpgrades(t *testing.T) {
	const rounds, opens = 5, 6
	for range rounds {
		path := filepath.Join(t.TempDir(), "lathe.db")
		before := seedV1(t, path)
		var wg sync.WaitGroup
		for range opens {
			wg.Go(func() { openAndCheck(t, path, migrations()) })
		}
		wg.Wait()
		db, err := openSteps(t, path, migrations())
		if err != nil {
			t.Fatal(err)
		}
		if after := dumpTables(t, db, v1Tables); after != before {
			t.Errorf("the upgrade changed the data:\nbefore %s\nafter  %s", before, after)
		}
		db.Close()
	}
}
