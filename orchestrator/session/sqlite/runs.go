package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"lathe/orchestrator/session"
)

// errRunNotFound is FinishRun's error for a run StartRun did not return.
var errRunNotFound = errors.New("run not found")

// StartRun records the start of a run (at now, when r.Started is zero)
// and returns its id, which is never 0.
func (db *DB) StartRun(ctx context.Context, r session.RunStart) (int64, error) {
	var id int64
	err := db.write(ctx, func(tx *sql.Tx) error {
		opts, err := jsonOrNull(len(r.Options), r.Options)
		if err != nil {
			return fmt.Errorf("encode options: %w", err)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO runs (session_id, model, options, started_at)
			VALUES (?, ?, ?, ?)`, r.SessionID, r.Model, opts, stamp(r.Started))
		if err != nil {
			return sessionMissing(err)
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("start run of session %s: %w", r.SessionID, err)
	}
	return id, nil
}

// FinishRun records how a run ended (at now, when end.Completed is zero).
func (db *DB) FinishRun(ctx context.Context, runID int64, end session.RunEnd) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE runs SET completed_at = ?, stop_reason = ?, failure = ?,
			turns = ?, tool_calls = ?, prompt_tokens = ?, completion_tokens = ? WHERE id = ?`,
			stamp(end.Completed), string(end.StopReason), end.Failure, end.Turns, end.ToolCalls,
			end.PromptTokens, end.CompletionTokens, runID)
		if err != nil {
			return err
		}
		return mustAffect(res, errRunNotFound)
	})
	if err != nil {
		return fmt.Errorf("finish run %d: %w", runID, err)
	}
	return nil
}

// runSummaryColumns are the columns scanRunSummary reads, from table r.
const runSummaryColumns = `r.started_at, r.completed_at, r.stop_reason, r.failure`

// nullRun is a run summary that a LEFT JOIN may leave NULL.
type nullRun struct {
	started, completed *int64
	reason, failure    sql.Null[string]
}

func (n *nullRun) dest() []any { return []any{&n.started, &n.completed, &n.reason, &n.failure} }

// summary is the run, or nil when there was none.
func (n *nullRun) summary() *session.RunSummary {
	if n.started == nil {
		return nil
	}
	return &session.RunSummary{
		Started:    unstamp(*n.started),
		Completed:  unstampNull(n.completed),
		StopReason: n.reason.V,
		Failure:    n.failure.V,
	}
}
