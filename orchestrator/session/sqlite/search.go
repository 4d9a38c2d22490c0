package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"lathe/orchestrator/session"
)

var _ interface {
	Search(context.Context, session.SearchQuery) ([]session.Hit, error)
} = (*DB)(nil)

// snippetTokens is how many words a hit's snippet holds at most.
const snippetTokens = 16

// Search finds the saved messages that hold the query's words, best match
// first (FTS5's bm25): every word when some message holds them all, else
// any of them; when more than rankedMessages hold them, the most recent
// first. lathe's own notes (see Options.NotePrefix) are not
// searched.
func (db *DB) Search(ctx context.Context, q session.SearchQuery) ([]session.Hit, error) {
	words := queryWords(q.Text)
	if len(words) == 0 {
		return nil, session.ErrNoWords
	}
	if q.Limit <= 0 {
		q.Limit = 20
	}
	var hits []session.Hit
	err := db.read(ctx, func(tx *sql.Tx) error {
		var err error
		hits, err = searchMessages(ctx, tx, q, ftsQuery(words, " "), db.opts.NotePrefix)
		if some := meaningful(words); err == nil && len(hits) == 0 && len(words) > 1 && len(some) > 0 {
			hits, err = searchMessages(ctx, tx, q, ftsQuery(some, " OR "), db.opts.NotePrefix)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("search messages: %w", err)
	}
	return hits, nil
}

// rankedMessages is how many of the messages holding a query's words
// are ranked at most: when more hold them, the most recent come first.
// Ranking by bm25 reads where each word is in each message holding it,
// about 10 µs a message of a few KB: words most messages hold would cost
// seconds for each million saved.
const rankedMessages = 2_000

func searchMessages(ctx context.Context, tx *sql.Tx, q session.SearchQuery, match, notes string) ([]session.Hit, error) {
	order := "bm25(messages_fts), m.created_at DESC"
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM messages_fts WHERE messages_fts MATCH ? LIMIT 1 OFFSET ?`,
		match, rankedMessages).Scan(&one)
	switch {
	case err == nil:
		order = "f.rowid DESC" // rowids grow as messages are saved
	case !errors.Is(err, sql.ErrNoRows):
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT f.rowid, m.session_id, s.title, s.dir, m.seq, m.role, m.created_at
		FROM messages_fts f
		JOIN messages m ON m.rowid = f.rowid
		JOIN sessions s ON s.id = m.session_id
		WHERE messages_fts MATCH ? AND (? = '' OR s.dir = ?) AND m.session_id <> ?
			AND NOT (m.role = 'user' AND ? <> '' AND substr(m.content, 1, ?) = ?)
		ORDER BY `+order+`
		LIMIT ?`,
		match, q.Dir, q.Dir, q.Exclude, notes, len(notes), notes, q.Limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []session.Hit
	var rowids []int64
	for rows.Next() {
		var h session.Hit
		var rowid, at int64
		if err := rows.Scan(&rowid, &h.SessionID, &h.Title, &h.Dir, &h.Seq, &h.Role, &at); err != nil {
			return nil, err
		}
		h.Created = unstamp(at)
		hits, rowids = append(hits, h), append(rowids, rowid)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	// The snippets of the hits alone: making one for every message
	// ranked would cost more than the ranking.
	for i, rowid := range rowids {
		err := tx.QueryRowContext(ctx, `SELECT snippet(messages_fts, 0, ?, ?, '…', ?) FROM messages_fts
			WHERE messages_fts MATCH ? AND rowid = ?`,
			session.HitOpen, session.HitClose, snippetTokens, match, rowid).Scan(&hits[i].Snippet)
		if err != nil {
			return nil, err
		}
		hits[i].Snippet = oneLine(hits[i].Snippet)
	}
	return hits, nil
}

// queryWords are the words of a query as FTS5 would tokenize them:
// letters, digits and underscores; the rest separates them. At most 32
// are kept.
func queryWords(text string) []string {
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
	return words[:min(len(words), 32)]
}

// meaningful are the words that may find a message alone: not the short
// and common ones ("it", "the", "how"), which any message holds.
func meaningful(words []string) []string {
	var out []string
	for _, w := range words {
		if len(w) > 2 && !stopWords[strings.ToLower(w)] {
			out = append(out, w)
		}
	}
	return out
}

var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "how": true, "what": true, "why": true, "who": true,
	"was": true, "were": true, "are": true, "does": true, "did": true, "this": true, "that": true, "you": true,
	"not": true, "from": true, "but": true, "can": true, "all": true, "any": true, "has": true, "have": true,
	"its": true, "our": true, "out": true, "into": true, "when": true, "where": true, "which": true, "about": true,
}

// ftsQuery is an FTS5 query for words, each a quoted string (so that none
// is read as an operator: AND, NOT, NEAR), joined by sep: " " for all of
// them, " OR " for any.
func ftsQuery(words []string, sep string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	return strings.Join(quoted, sep)
}

// oneLine puts text on one line: every run of whitespace a single space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
