package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// messageColumns are a message's columns but session_id, in the order
// messageArgs and scanMessage use.
const messageColumns = `seq, role, content, thinking, tool_calls, tool_name, tool_call_id, images,
	tool_subject, tool_outcome, tool_summary, tool_duration_ns, tool_diff, prompt_tokens, completion_tokens, cut, created_at`

// SaveMessage commits m at position m.Seq of the session's history,
// replacing a message already there, and moves the session's updated time
// to m.Created (now, when zero) unless it is already later: one
// transaction.
func (db *DB) SaveMessage(ctx context.Context, sessionID string, m session.Message) error {
	err := db.saveMessage(ctx, sessionID, m)
	if err != nil {
		return fmt.Errorf("save message %d of session %s: %w", m.Seq, sessionID, err)
	}
	return nil
}

func (db *DB) saveMessage(ctx context.Context, sessionID string, m session.Message) error {
	at := stamp(m.Created)
	args, err := messageArgs(m, at)
	if err != nil {
		return err
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = max(updated_at, ?) WHERE id = ?`,
			at, sessionID)
		if err != nil {
			return err
		}
		if err := mustAffect(res, session.ErrNotFound); err != nil {
			return err
		}
		if err := saveImages(ctx, tx, m.Message.Images); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO messages (session_id, `+messageColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, append([]any{sessionID}, args...)...)
		return err
	})
}

// storedCall is a tool call as the tool_calls column keeps it, in the shape
// of Ollama's wire form: {"id":…,"function":{"index":…,"name":…,"arguments":{…}}}.
// The arguments are kept as their JSON text, so their keys keep their order.
type storedCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Index     int             `json:"index"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

func storedCalls(calls []provider.ToolCall) []storedCall {
	out := make([]storedCall, len(calls))
	for i, c := range calls {
		out[i].ID = c.ID
		out[i].Function.Index, out[i].Function.Name = c.Index, c.Name
		out[i].Function.Arguments = json.RawMessage(c.Args())
	}
	return out
}

func toolCalls(stored []storedCall) []provider.ToolCall {
	out := make([]provider.ToolCall, len(stored))
	for i, c := range stored {
		out[i] = provider.ToolCall{ID: c.ID, Index: c.Function.Index, Name: c.Function.Name, Arguments: c.Function.Arguments}
	}
	return out
}

// messageArgs are the values of messageColumns for m, created at (as
// stored). Tool calls and images are kept as JSON: a list of calls (see
// storedCall), a list of references to the images table (see imageRef),
// whose rows saveImages writes.
func messageArgs(m session.Message, at int64) ([]any, error) {
	calls, err := jsonOrNull(len(m.Message.ToolCalls), storedCalls(m.Message.ToolCalls))
	if err != nil {
		return nil, fmt.Errorf("encode tool calls: %w", err)
	}
	images, err := imageRefs(m.Message.Images)
	if err != nil {
		return nil, fmt.Errorf("encode images: %w", err)
	}
	msg := m.Message
	args := []any{m.Seq, msg.Role, msg.Content, msg.Thinking, calls, msg.ToolName, msg.ToolCallID, images}
	if t := m.Tool; t != nil {
		var diff any
		if t.Diff != "" {
			diff = t.Diff
		}
		args = append(args, t.Subject, string(t.Outcome), t.Summary, int64(t.Duration), diff)
	} else {
		args = append(args, nil, nil, nil, nil, nil)
	}
	if c := m.Counts; c != nil {
		args = append(args, c.Prompt, c.Completion)
	} else {
		args = append(args, nil, nil)
	}
	return append(args, m.Cut, at), nil
}

// jsonOrNull is v as JSON text, or NULL when it has no elements.
func jsonOrNull(n int, v any) (any, error) {
	if n == 0 {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// scanMessage reads a row of messageColumns; the images column is
// returned as it is, for decodeImages once the rows are read.
func scanMessage(rows *sql.Rows) (session.Message, sql.Null[string], error) {
	var (
		m                        session.Message
		msg                      = &m.Message
		calls, images            sql.Null[string]
		subject, outcome, summry sql.Null[string]
		diff                     sql.Null[string]
		duration                 sql.Null[int64]
		prompt, completion       sql.Null[int64]
		created                  int64
	)
	err := rows.Scan(&m.Seq, &msg.Role, &msg.Content, &msg.Thinking, &calls, &msg.ToolName, &msg.ToolCallID,
		&images, &subject, &outcome, &summry, &duration, &diff, &prompt, &completion, &m.Cut, &created)
	if err != nil {
		return m, images, err
	}
	m.Created = unstamp(created)
	if calls.Valid {
		var stored []storedCall
		if err := json.Unmarshal([]byte(calls.V), &stored); err != nil {
			return m, images, fmt.Errorf("decode tool calls of message %d: %w", m.Seq, err)
		}
		msg.ToolCalls = toolCalls(stored)
	}
	if outcome.Valid {
		m.Tool = &session.ToolMeta{Subject: subject.V, Outcome: outcome.V,
			Summary: summry.V, Duration: time.Duration(duration.V), Diff: diff.V}
	}
	if prompt.Valid {
		m.Counts = &session.Counts{Prompt: int(prompt.V), Completion: int(completion.V)}
	}
	return m, images, nil
}

// SaveCompaction records that requests now replace the messages before
// c.Seq with c.Summary, replacing a compaction already at c.Seq.
func (db *DB) SaveCompaction(ctx context.Context, sessionID string, c session.Compaction) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO compactions (session_id, seq, summary, created_at)
			VALUES (?, ?, ?, ?)`, sessionID, c.Seq, c.Summary, stamp(c.Created))
		return sessionMissing(err)
	})
	if err != nil {
		return fmt.Errorf("save compaction at %d of session %s: %w", c.Seq, sessionID, err)
	}
	return nil
}
