package sqlite

import (
	"errors"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/session"
)

func factTexts(t *testing.T, db *DB, dir string) []string {
	t.Helper()
	facts, err := db.Facts(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range facts {
		out = append(out, f.Text)
	}
	return out
}

func TestFacts(t *testing.T) {
	ctx := t.Context()
	db := openTest(t)
	a, err := db.AddFact(ctx, "/p", "tests run with\n\t`make check`", day)
	if err != nil {
		t.Fatal(err)
	}
	if a.Text != "tests run with `make check`" || a.Dir != "/p" || !a.Created.Equal(day) || a.ID == 0 {
		t.Errorf("added %+v", a)
	}
	if _, err := db.AddFact(ctx, "/q", "another project's fact", day); err != nil {
		t.Fatal(err)
	}
	b, err := db.AddFact(ctx, "/p", "never edit generated/", day.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	again, err := db.AddFact(ctx, "/p", "tests run with `make check`", day.Add(2*time.Hour))
	if err != nil || again.ID != a.ID || !again.Created.Equal(day) {
		t.Errorf("the same fact again: %+v, %v; want the first one", again, err)
	}
	if got := strings.Join(factTexts(t, db, "/p"), " | "); got != "tests run with `make check` | never edit generated/" {
		t.Errorf("facts of /p: %s", got)
	}
	if got := len(factTexts(t, db, "")); got != 3 {
		t.Errorf("%d facts in all, want 3", got)
	}

	if err := db.EditFact(ctx, "/p", b.ID, "never edit gen/", day.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := db.EditFact(ctx, "/q", b.ID, "from elsewhere", day); !errors.Is(err, session.ErrFactNotFound) {
		t.Errorf("editing another project's fact: %v", err)
	}
	if err := db.DeleteFact(ctx, "/q", a.ID); !errors.Is(err, session.ErrFactNotFound) {
		t.Errorf("deleting another project's fact: %v", err)
	}
	if err := db.DeleteFact(ctx, "/p", a.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteFact(ctx, "/p", a.ID); !errors.Is(err, session.ErrFactNotFound) {
		t.Errorf("deleting it twice: %v", err)
	}
	if got := strings.Join(factTexts(t, db, "/p"), " | "); got != "never edit gen/" {
		t.Errorf("facts of /p after the edit and the deletion: %s", got)
	}
}

func TestFactRefused(t *testing.T) {
	db := openTest(t)
	for _, text := range []string{"", " \n\t", "\x1b\x07", strings.Repeat("long ", 100)} {
		if _, err := db.AddFact(t.Context(), "/p", text, day); err == nil {
			t.Errorf("fact %q was kept", text)
		}
	}
	if got := factTexts(t, db, "/p"); got != nil {
		t.Errorf("facts kept: %q", got)
	}
}
