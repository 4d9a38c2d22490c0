package session

import (
	"errors"
	"strings"
	"time"
	"unicode"
)

// ErrNoWords is returned by a search whose query holds no word to look
// for (only punctuation, or nothing).
var ErrNoWords = errors.New("the query has no words to search for")

// ErrFactNotFound is returned for a fact id that names no fact.
var ErrFactNotFound = errors.New("no such fact")

// SearchQuery is a full-text search of saved messages.
type SearchQuery struct {
	// Text is what to look for: its words, in any order (stemmed: "tests"
	// finds "testing"). Punctuation separates words and is otherwise
	// ignored.
	Text string
	// Dir limits the search to the sessions of a directory; "" searches
	// every one.
	Dir string
	// Exclude leaves out one session (the one asking); "" leaves out none.
	Exclude string
	// Limit is the most hits returned; 0 means 20.
	Limit int
}

// Hit is one message a search found, best first.
type Hit struct {
	SessionID string
	Title     string // the session's
	Dir       string // the session's
	Seq       int    // the message's position in its session's history
	Role      string
	Created   time.Time // when the message was saved
	// Snippet is the part of the message around the words found, on one
	// line, the words found between HitOpen and HitClose.
	Snippet string
}

// The marks around the words a search found, in Hit.Snippet.
const (
	HitOpen  = "\x02"
	HitClose = "\x03"
)

// SnippetWith returns the snippet with the words found between open and
// close ("" and "" for plain text).
func (h Hit) SnippetWith(open, close string) string {
	return strings.NewReplacer(HitOpen, open, HitClose, close).Replace(h.Snippet)
}

// Fact is something about a project, or about how the user works in it,
// that the user approved for lathe to remember: it goes into the system
// prompt of the project's sessions.
type Fact struct {
	ID      int64
	Dir     string // the project's directory, absolute
	Text    string
	Created time.Time
	Updated time.Time
}

// MaxFactBytes is the longest a fact may be: facts are one or two
// sentences.
const MaxFactBytes = 300

// CleanFact is text as a fact is kept: its whitespace runs as single
// spaces, without control characters. An empty result, or one longer than
// MaxFactBytes, is refused with a reason.
func CleanFact(text string) (string, error) {
	text = strings.Join(strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
	switch {
	case text == "":
		return "", errors.New("the fact is empty")
	case len(text) > MaxFactBytes:
		return "", errors.New("the fact is too long: keep it to a sentence or two (at most 300 bytes)")
	}
	return text, nil
}
