package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"lathe/orchestrator/session"
)

// Experiments (lathe eval): an experiment, its models and tasks are
// written once when it begins, with a row per attempt in state created;
// each attempt then goes through its lifecycle (session.AttemptState),
// every change a transaction that checks the state it leaves, so that a
// change the lifecycle does not allow is refused (session.ErrTransition).

// CreateExperiment records a new experiment (at now, when e.Created is
// zero) with its models and tasks, and an attempt in state created for
// each slot; it returns the experiment's id.
func (db *DB) CreateExperiment(ctx context.Context, e session.Experiment, slots []session.Slot) (int64, error) {
	var id int64
	err := db.write(ctx, func(tx *sql.Tx) error {
		at := stamp(e.Created)
		res, err := tx.ExecContext(ctx, `INSERT INTO experiments (suite, repeat, jobs, sandbox, version, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, e.Suite, e.Repeat, e.Jobs, e.Sandbox, e.Version, at)
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		for i, m := range e.Models {
			if _, err := tx.ExecContext(ctx, `INSERT INTO experiment_models (experiment_id, position, model,
				parameter_size, quantization, num_ctx) VALUES (?, ?, ?, ?, ?, ?)`,
				id, i, m.Name, m.ParameterSize, m.Quantization, m.NumCtx); err != nil {
				return err
			}
		}
		for i, t := range e.Tasks {
			if _, err := tx.ExecContext(ctx, `INSERT INTO experiment_tasks (experiment_id, position, name, spec,
				digest, skipped) VALUES (?, ?, ?, ?, ?, ?)`, id, i, t.Name, t.Spec, t.Digest, t.Skipped); err != nil {
				return err
			}
		}
		for _, s := range slots {
			if err := insertAttempt(ctx, tx, id, s, 1, at); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("create experiment: %w", err)
	}
	return id, nil
}

func insertAttempt(ctx context.Context, tx *sql.Tx, experiment int64, s session.Slot, try int, at int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO attempts (experiment_id, model, task, rep, try, state, created_at)
		VALUES (?, ?, ?, ?, ?, 'created', ?)`, experiment, s.Model, s.Task, s.Rep, try, at)
	return err
}

// RetryAttempt adds the next try of slot s of experiment id, in state
// created, and returns its id. The try it replaces, if it was still
// running (its process died), is marked failed and abandoned, its
// completed time left empty: it never completed.
func (db *DB) RetryAttempt(ctx context.Context, id int64, s session.Slot) (int64, error) {
	var attempt int64
	err := db.write(ctx, func(tx *sql.Tx) error {
		var last int
		err := tx.QueryRowContext(ctx, `SELECT coalesce(max(try), 0) FROM attempts
			WHERE experiment_id = ? AND model = ? AND task = ? AND rep = ?`, id, s.Model, s.Task, s.Rep).Scan(&last)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE attempts SET state = 'failed', failure_reason = ?,
			failure = 'the process running it died', pid = 0, pid_started = 0, host = ''
			WHERE experiment_id = ? AND model = ? AND task = ? AND rep = ? AND try = ? AND state = 'running'`,
			session.FailAbandoned, id, s.Model, s.Task, s.Rep, last); err != nil {
			return err
		}
		at := stamp(time.Time{})
		if _, err := tx.ExecContext(ctx, `UPDATE experiments SET completed_at = NULL WHERE id = ?`, id); err != nil {
			return err
		}
		if err := insertAttempt(ctx, tx, id, s, last+1, at); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT last_insert_rowid()`).Scan(&attempt)
	})
	if err != nil {
		return 0, fmt.Errorf("retry attempt of experiment %d: %w", id, err)
	}
	return attempt, nil
}

// StartAttempt moves attempt id from created to running (at now, when at
// is zero), this process running it.
func (db *DB) StartAttempt(ctx context.Context, id int64, at time.Time) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		now := stamp(at)
		res, err := tx.ExecContext(ctx, `UPDATE attempts SET state = 'running', started_at = ?, active_at = ?,
			pid = ?, pid_started = ?, host = ? WHERE id = ? AND state = 'created'`,
			now, now, self().pid, self().started, self().host, id)
		if err != nil {
			return err
		}
		return mustAffect(res, session.ErrTransition)
	})
	if err != nil {
		return fmt.Errorf("start attempt %d: %w", id, err)
	}
	return nil
}

// TouchAttempt records a sign of life of running attempt id.
func (db *DB) TouchAttempt(ctx context.Context, id int64, at time.Time) error {
	err := db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE attempts SET active_at = ? WHERE id = ? AND state = 'running'`,
			stamp(at), id)
		if err != nil {
			return err
		}
		return mustAffect(res, session.ErrTransition)
	})
	if err != nil {
		return fmt.Errorf("touch attempt %d: %w", id, err)
	}
	return nil
}

// EndAttempt moves running attempt id to end.State, finished or failed,
// with what it counted; when it was the experiment's last attempt still
// to end, the experiment is completed too.
func (db *DB) EndAttempt(ctx context.Context, id int64, end session.AttemptEnd) error {
	if !session.AttemptRunning.Next(end.State) {
		return fmt.Errorf("end attempt %d as %q: %w", id, end.State, session.ErrTransition)
	}
	err := db.write(ctx, func(tx *sql.Tx) error {
		opts, err := jsonOrNull(len(end.Options), end.Options)
		if err != nil {
			return fmt.Errorf("encode options: %w", err)
		}
		r, at := end.Result, stamp(end.Completed)
		res, err := tx.ExecContext(ctx, `UPDATE attempts SET state = ?, goal_met = ?, stop_reason = ?,
			failure_reason = ?, failure = ?, session_id = ?, options = ?, turns = ?, tool_calls = ?,
			prompt_tokens = ?, completion_tokens = ?, recoveries = ?, wall_ns = ?, load_ns = ?, prefill_ns = ?,
			decode_ns = ?, prefill_tps = ?, decode_tps = ?, check_exit = ?, check_output = ?, reward = ?,
			trajectory = ?, completed_at = ?, active_at = ?, pid = 0, pid_started = 0, host = ''
			WHERE id = ? AND state = 'running'`,
			string(end.State), end.GoalMet, end.StopReason, end.FailureReason, end.Failure, end.SessionID, opts,
			r.Turns, r.ToolCalls, r.PromptTokens, r.CompletionTokens, r.Recoveries, int64(r.Wall), int64(r.Load),
			int64(r.Prefill), int64(r.Decode), r.PrefillRate, r.DecodeRate, end.CheckExit, end.CheckOutput,
			end.Reward, end.Trajectory, at, at, id)
		if err != nil {
			return err
		}
		if err := mustAffect(res, session.ErrTransition); err != nil {
			return err
		}
		return completeExperiment(ctx, tx, id, at)
	})
	if err != nil {
		return fmt.Errorf("end attempt %d: %w", id, err)
	}
	return nil
}

// completeExperiment marks the experiment of attempt id completed at at
// when every latest try of its attempts has ended.
func completeExperiment(ctx context.Context, tx *sql.Tx, attempt, at int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE experiments SET completed_at = ?
		WHERE id = (SELECT experiment_id FROM attempts WHERE id = ?) AND completed_at IS NULL
		AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.experiment_id = experiments.id
			AND a.state IN ('created', 'running')
			AND a.try = (SELECT max(b.try) FROM attempts b WHERE b.experiment_id = a.experiment_id
				AND b.model = a.model AND b.task = a.task AND b.rep = a.rep))`, at, attempt)
	return err
}

// SetModelLoad records how long loading model took before its tasks.
func (db *DB) SetModelLoad(ctx context.Context, id int64, model string, load time.Duration) error {
	return db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE experiment_models SET load_ns = ? WHERE experiment_id = ? AND model = ?`,
			int64(load), id, model)
		return err
	})
}

// LatestExperiment is the id of the experiment created last.
func (db *DB) LatestExperiment(ctx context.Context) (int64, error) {
	var id int64
	err := db.sql.QueryRowContext(ctx, `SELECT id FROM experiments ORDER BY id DESC LIMIT 1`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, session.ErrNoExperiment
	}
	return id, err
}

// Experiment loads experiment id, with its models, tasks and every
// attempt.
func (db *DB) Experiment(ctx context.Context, id int64) (session.Experiment, error) {
	var e session.Experiment
	err := db.read(ctx, func(tx *sql.Tx) error {
		var created int64
		var completed *int64
		err := tx.QueryRowContext(ctx, `SELECT id, suite, repeat, jobs, sandbox, version, created_at, completed_at
			FROM experiments WHERE id = ?`, id).
			Scan(&e.ID, &e.Suite, &e.Repeat, &e.Jobs, &e.Sandbox, &e.Version, &created, &completed)
		if errors.Is(err, sql.ErrNoRows) {
			return session.ErrNoExperiment
		}
		if err != nil {
			return err
		}
		e.Created, e.Completed = unstamp(created), unstampNull(completed)
		if e.Models, err = experimentModels(ctx, tx, id); err != nil {
			return err
		}
		if e.Tasks, err = experimentTasks(ctx, tx, id); err != nil {
			return err
		}
		e.Attempts, err = attempts(ctx, tx, id)
		return err
	})
	if err != nil {
		return session.Experiment{}, fmt.Errorf("load experiment %d: %w", id, err)
	}
	return e, nil
}

func experimentModels(ctx context.Context, tx *sql.Tx, id int64) ([]session.ExperimentModel, error) {
	rows, err := tx.QueryContext(ctx, `SELECT model, parameter_size, quantization, num_ctx, load_ns
		FROM experiment_models WHERE experiment_id = ? ORDER BY position`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []session.ExperimentModel
	for rows.Next() {
		var m session.ExperimentModel
		var load int64
		if err := rows.Scan(&m.Name, &m.ParameterSize, &m.Quantization, &m.NumCtx, &load); err != nil {
			return nil, err
		}
		m.Load = time.Duration(load)
		out = append(out, m)
	}
	return out, rows.Err()
}

func experimentTasks(ctx context.Context, tx *sql.Tx, id int64) ([]session.ExperimentTask, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name, spec, digest, skipped FROM experiment_tasks
		WHERE experiment_id = ? ORDER BY position`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []session.ExperimentTask
	for rows.Next() {
		var t session.ExperimentTask
		if err := rows.Scan(&t.Name, &t.Spec, &t.Digest, &t.Skipped); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

const attemptColumns = `id, model, task, rep, try, state, goal_met, stop_reason, failure_reason, failure, session_id,
	options, turns, tool_calls, prompt_tokens, completion_tokens, recoveries, wall_ns, load_ns, prefill_ns, decode_ns,
	prefill_tps, decode_tps, check_exit, check_output, reward, trajectory, pid, pid_started, host, created_at,
	started_at, active_at, completed_at`

func attempts(ctx context.Context, tx *sql.Tx, id int64) ([]session.Attempt, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+attemptColumns+` FROM attempts WHERE experiment_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []session.Attempt
	for rows.Next() {
		a, err := scanAttempt(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

func scanAttempt(rows *sql.Rows) (session.Attempt, error) {
	var (
		a                                 session.Attempt
		state                             string
		options                           sql.Null[string]
		wall, load, prefill, decode       int64
		runner                            process
		created                           int64
		started, active, completed, check *int64
	)
	r := &a.Result
	err := rows.Scan(&a.ID, &a.Model, &a.Task, &a.Rep, &a.Try, &state, &a.GoalMet, &a.StopReason, &a.FailureReason,
		&a.Failure, &a.SessionID, &options, &r.Turns, &r.ToolCalls, &r.PromptTokens, &r.CompletionTokens,
		&r.Recoveries, &wall, &load, &prefill, &decode, &r.PrefillRate, &r.DecodeRate, &check, &a.CheckOutput,
		&a.Reward, &a.Trajectory, &runner.pid, &runner.started, &runner.host, &created, &started, &active, &completed)
	if err != nil {
		return a, err
	}
	a.State = session.AttemptState(state)
	r.Wall, r.Load, r.Prefill, r.Decode = time.Duration(wall), time.Duration(load), time.Duration(prefill),
		time.Duration(decode)
	if check != nil {
		c := int(*check)
		a.CheckExit = &c
	}
	if options.Valid {
		if err := json.Unmarshal([]byte(options.V), &a.Options); err != nil {
			return a, fmt.Errorf("attempt %d: options: %w", a.ID, err)
		}
	}
	a.Created, a.Started, a.Active, a.Completed = unstamp(created), unstampNull(started), unstampNull(active),
		unstampNull(completed)
	if a.State == session.AttemptRunning && runner.pid != 0 {
		a.RunnerGone = !runner.alive(a.Started)
	}
	return a, nil
}

// RunOptions returns the model options of the last run of session id, as
// its run recorded them; nil when it recorded none.
func (db *DB) RunOptions(ctx context.Context, id string) (map[string]any, error) {
	var raw sql.Null[string]
	err := db.sql.QueryRowContext(ctx, `SELECT options FROM runs WHERE session_id = ?
		ORDER BY started_at DESC, id DESC LIMIT 1`, id).Scan(&raw)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, session.ErrNotFound
	case err != nil || !raw.Valid:
		return nil, err
	}
	var opts map[string]any
	if err := json.Unmarshal([]byte(raw.V), &opts); err != nil {
		return nil, fmt.Errorf("options of session %s: %w", id, err)
	}
	return opts, nil
}
