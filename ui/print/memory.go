package print

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"lathe/orchestrator/session"
	"lathe/prompts/human"
)

// Hits writes the messages a search found, best first: the session's id,
// the message's age and role and the session's title (with dirs, its
// directory first), then, indented, the words around what was found, the
// words found between brackets.
func Hits(w io.Writer, hits []session.Hit, now time.Time, dirs bool) error {
	for _, h := range hits {
		head := fmt.Sprintf("%s  %s  %s  ", session.ShortID(h.SessionID), human.Ago(now.Sub(h.Created)), h.Role)
		if dirs {
			head += h.Dir + "  "
		}
		if _, err := fmt.Fprintf(w, "%s%s\n    %s\n", head, h.Title, h.SnippetWith("[", "]")); err != nil {
			return err
		}
	}
	return nil
}

// hitJSON is a message found as lathe sessions search --json lists it.
type hitJSON struct {
	SessionID string    `json:"session_id"`
	Title     string    `json:"title"`
	Dir       string    `json:"dir"`
	Seq       int       `json:"seq"`
	Role      string    `json:"role"`
	Created   time.Time `json:"created"`
	Snippet   string    `json:"snippet"`
}

// HitsJSON writes the messages found as one JSON array ([] for none),
// best first, times in UTC, snippets as plain text.
func HitsJSON(w io.Writer, hits []session.Hit) error {
	out := make([]hitJSON, 0, len(hits))
	for _, h := range hits {
		out = append(out, hitJSON{SessionID: h.SessionID, Title: h.Title, Dir: h.Dir, Seq: h.Seq, Role: h.Role,
			Created: h.Created.UTC(), Snippet: h.SnippetWith("", "")})
	}
	return writeIndented(w, out)
}

// Facts writes the facts remembered, oldest first: id, when it was
// remembered, (with dirs, the project,) and the fact.
func Facts(w io.Writer, facts []session.Fact, dirs bool) error {
	t := newTable(w, dirs)
	for _, f := range facts {
		t.row(f.Dir, strconv.FormatInt(f.ID, 10), f.Created.Local().Format("2006-01-02"), f.Text)
	}
	return t.flush()
}

// factJSON is a fact as lathe memory list --json lists it.
type factJSON struct {
	ID      int64     `json:"id"`
	Dir     string    `json:"dir"`
	Text    string    `json:"text"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

// FactsJSON writes the facts as one JSON array ([] for none), times in
// UTC.
func FactsJSON(w io.Writer, facts []session.Fact) error {
	out := make([]factJSON, 0, len(facts))
	for _, f := range facts {
		out = append(out, factJSON{ID: f.ID, Dir: f.Dir, Text: f.Text, Created: f.Created.UTC(), Updated: f.Updated.UTC()})
	}
	return writeIndented(w, out)
}

// writeIndented writes v as the --json lists of sessions, hits and facts
// are written: indented, with <, > and & as they are.
func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
