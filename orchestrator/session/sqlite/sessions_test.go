package sqlite

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

func TestFindSession(t *testing.T) {
	db := openTest(t)
	for _, id := range []string{"abcd1234", "abcd5678", "abce9999", "ffff", "ffff0001", "9876abcd"} {
		createSession(t, db, id, "/w", day)
	}
	cases := []struct {
		prefix, want string
		err          error
	}{
		{"abcd1234", "abcd1234", nil}, // exact
		{"ffff", "ffff", nil},         // exact, though it starts another id
		{"abcd1", "abcd1234", nil},    // unique prefix
		{"abce", "abce9999", nil},     // unique prefix of MinPrefix characters
		{"abcd", "", session.ErrAmbiguousID},
		{"abc", "", session.ErrAmbiguousID}, // too short, though it matches
		{"abe", "", session.ErrNotFound},
		{"fff", "", session.ErrAmbiguousID},
		{"98", "", session.ErrAmbiguousID}, // too short, though it is unique
		{"0000", "", session.ErrNotFound},
		{"abcd12345", "", session.ErrNotFound}, // longer than the id
		{"ABCD1234", "", session.ErrNotFound},  // ids are case-sensitive
		{"", "", session.ErrAmbiguousID},
		{"abcd%", "", session.ErrNotFound}, // no LIKE patterns
	}
	for _, c := range cases {
		t.Run(c.prefix, func(t *testing.T) {
			got, err := db.Find(t.Context(), c.prefix)
			if got != c.want || !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
				t.Errorf("FindSession(%q) = %q, %v; want %q, %v", c.prefix, got, err, c.want, c.err)
			}
		})
	}
}

func TestFindSessionEmptyStore(t *testing.T) {
	db := openTest(t)
	if _, err := db.Find(t.Context(), ""); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("err = %v, want ErrSessionNotFound", err)
	}
}

// seedDirs makes sessions in two directories, updated in an order unlike
// their creation: in /a, s3 then s1 then s2 by last update.
func seedDirs(t *testing.T, db *DB) {
	t.Helper()
	sessions := []struct {
		id, dir string
		created time.Time
		msgs    int
		updated time.Time
	}{
		{"s1", "/a", day, 2, day.Add(2 * time.Hour)},
		{"s2", "/a", day.Add(time.Minute), 0, time.Time{}},
		{"s3", "/a", day.Add(2 * time.Minute), 1, day.Add(3 * time.Hour)},
		{"s4", "/b", day.Add(3 * time.Minute), 3, day.Add(time.Hour)},
	}
	for _, s := range sessions {
		createSession(t, db, s.id, s.dir, s.created)
		for i := range s.msgs {
			m := session.Message{Seq: i, Message: provider.Message{Role: "user"}, Created: s.updated}
			if err := db.SaveMessage(t.Context(), s.id, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	run, err := db.StartRun(t.Context(), session.RunStart{SessionID: "s1", Started: day.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	end := session.RunEnd{StopReason: "done", Completed: day.Add(2 * time.Hour)}
	if err := db.FinishRun(t.Context(), run, end); err != nil {
		t.Fatal(err)
	}
	if _, err := db.StartRun(t.Context(), session.RunStart{SessionID: "s3", Started: day.Add(3 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
}

func TestLatestSession(t *testing.T) {
	db := openTest(t)
	seedDirs(t, db)
	cases := []struct {
		dir, want string
		err       error
	}{
		{"/a", "s3", nil},
		{"/b", "s4", nil},
		{"/c", "", session.ErrNotFound},
		{"/a/", "", session.ErrNotFound}, // directories are compared exactly
	}
	for _, c := range cases {
		got, err := db.Latest(t.Context(), c.dir)
		if got != c.want || !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
			t.Errorf("LatestSession(%q) = %q, %v; want %q, %v", c.dir, got, err, c.want, c.err)
		}
	}
	// A message saved to s2 makes it the latest.
	m := session.Message{Message: provider.Message{Role: "user"}, Created: day.Add(4 * time.Hour)}
	if err := db.SaveMessage(t.Context(), "s2", m); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Latest(t.Context(), "/a"); got != "s2" || err != nil {
		t.Errorf("after a message to s2: LatestSession = %q, %v; want s2", got, err)
	}
}

func TestListSessions(t *testing.T) {
	db := openTest(t)
	seedDirs(t, db)
	cases := []struct {
		dir  string
		want string // id:messages:last run ending, most recent first
	}{
		{"/a", "s3:1:interrupted s1:2:done s2:0:-"},
		{"/b", "s4:3:-"},
		{"/c", ""},
		{"", "s3:1:interrupted s1:2:done s4:3:- s2:0:-"}, // every directory
	}
	for _, c := range cases {
		list, err := db.List(t.Context(), c.dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range list {
			ending := "-"
			if s.LastRun != nil {
				ending = string(s.LastRun.Ending())
			}
			if (c.dir != "" && s.Dir != c.dir) || s.Title != "title "+s.ID || s.Model != "qwen3:8b" {
				t.Errorf("%s: record %+v", s.ID, s.Record)
			}
			got = append(got, s.ID+":"+strconv.Itoa(s.Messages)+":"+ending)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("ListSessions(%q) = %q, want %q", c.dir, strings.Join(got, " "), c.want)
		}
	}
}

func TestListSessionsTimes(t *testing.T) {
	db := openTest(t)
	seedDirs(t, db)
	list, err := db.List(t.Context(), "/a")
	if err != nil {
		t.Fatal(err)
	}
	s1 := list[1]
	if !s1.Created.Equal(day) || !s1.Updated.Equal(day.Add(2*time.Hour)) {
		t.Errorf("s1 created %v updated %v", s1.Created, s1.Updated)
	}
	if r := s1.LastRun; !r.Started.Equal(day.Add(time.Hour)) || !r.Completed.Equal(day.Add(2*time.Hour)) {
		t.Errorf("s1 last run %+v", r)
	}
	if s2 := list[2]; !s2.Updated.Equal(s2.Created) {
		t.Errorf("s2 without messages: updated %v, want its creation %v", s2.Updated, s2.Created)
	}
}

func TestSetTitle(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/w", day)
	if err := db.SetTitle(t.Context(), "s1", "Fix the parser"); err != nil {
		t.Fatal(err)
	}
	saved, err := db.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if saved.Title != "Fix the parser" || !saved.Updated.Equal(day) {
		t.Errorf("title %q updated %v; want the new title and no update", saved.Title, saved.Updated)
	}
	if err := db.SetTitle(t.Context(), "nope", "x"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("SetTitle of an unknown session: %v, want ErrSessionNotFound", err)
	}
}

func TestCreateSessionTwice(t *testing.T) {
	db := openTest(t)
	createSession(t, db, "s1", "/w", day)
	err := db.CreateSession(t.Context(), session.Record{ID: "s1", Dir: "/other"})
	if err == nil {
		t.Fatal("a second session with the same id was created")
	}
	if _, err := db.Load(t.Context(), "nope"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("LoadSession of an unknown session: %v, want ErrSessionNotFound", err)
	}
}
