package prompts

import "strings"

// RecallHit is a message of an earlier session as recall shows it.
type RecallHit struct {
	Session string // the session's id
	Date    string // when the message was saved: 2026-11-20
	Title   string
	Role    string
	Snippet string // the words around what was found, on one line
}

// RecallFound is recall's result: the messages found.
func RecallFound(hits []RecallHit) string { return note("recall_found", hits) }

// RecallNone is recall's result when nothing matches query.
func RecallNone(query string) string { return note("recall_none", query) }

// Remembered is remember's result once the fact is kept.
func Remembered() string { return note("remembered", nil) }

// CodeHit is a chunk search_code found.
type CodeHit struct {
	Where   string // path:start-end
	Symbol  string
	Changed bool   // the file changed since it was indexed
	Excerpt string // its first lines, indented
}

// CodeFound is search_code's result: the chunks found, and a note on the
// index (it is being built, say) when there is one.
func CodeFound(hits []CodeHit, note string) string {
	return renderNote("code_found", struct {
		Results []CodeHit
		Note    string
	}{hits, note})
}

// CodeNone is search_code's result when nothing matches, with a note on
// the index when there is one.
func CodeNone(note string) string { return renderNote("code_none", note) }

// CodeNoIndex is search_code's result in a project not indexed yet; why
// says what is under way ("indexing: 120 of 800 files"), when known.
func CodeNoIndex(why string) string { return renderNote("code_no_index", why) }

func renderNote(name string, data any) string { return strings.TrimSpace(note(name, data)) }
