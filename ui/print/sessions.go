package print

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"lathe/orchestrator/session"
	"lathe/prompts/human"
)

// Sessions writes the sessions as a table: id, age, model, messages,
// how the last run ended, title; with dirs, the directory of each too.
func Sessions(w io.Writer, list []session.Summary, now time.Time, dirs bool) error {
	t := newTable(w, dirs)
	t.row("DIR", "ID", "AGE", "MODEL", "MESSAGES", "LAST RUN", "TITLE")
	for _, s := range list {
		last := "-"
		if s.LastRun != nil {
			last = s.LastRun.Ending()
		}
		if s.Undone > 0 {
			last += fmt.Sprintf(", %d undone", s.Undone)
		}
		t.row(s.Dir, session.ShortID(s.ID), human.Ago(now.Sub(s.Updated)), s.Model, strconv.Itoa(s.Messages), last, s.Title)
	}
	return t.flush()
}

// sessionJSON is a session as lathe sessions --json lists it.
type sessionJSON struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Dir      string    `json:"dir"`
	Model    string    `json:"model"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	Messages int       `json:"messages"`
	// LastRun is how the last run ended: its stop reason, or
	// "interrupted" when the process died; null before any run.
	LastRun *string `json:"last_run"`
	// Undone counts the runs taken back (lathe undo, /undo, /rewind).
	Undone int `json:"undone"`
}

// SessionsJSON writes the sessions as one JSON array ([] for none), times
// in UTC.
func SessionsJSON(w io.Writer, list []session.Summary) error {
	out := make([]sessionJSON, 0, len(list))
	for _, s := range list {
		j := sessionJSON{ID: s.ID, Title: s.Title, Dir: s.Dir, Model: s.Model,
			Created: s.Created.UTC(), Updated: s.Updated.UTC(), Messages: s.Messages, Undone: s.Undone}
		if s.LastRun != nil {
			ending := s.LastRun.Ending()
			j.LastRun = &ending
		}
		out = append(out, j)
	}
	return writeIndented(w, out)
}
