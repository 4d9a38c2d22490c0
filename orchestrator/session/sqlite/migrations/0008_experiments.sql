-- Version 8: experiments (lathe eval): the tasks of a suite run against
-- models, one row per attempt, the attempts whose process died included.
-- Nothing here refers to the tables of versions 6 and 7.
-- Times are INTEGER nanoseconds since the Unix epoch (UTC).

CREATE TABLE experiments (
	id           INTEGER PRIMARY KEY,
	suite        TEXT NOT NULL,     -- the suite's directory, absolute, or "builtin"
	repeat       INTEGER NOT NULL,  -- attempts per task and model
	jobs         INTEGER NOT NULL,  -- attempts run at once
	sandbox      TEXT NOT NULL,     -- the sandbox mode commands ran in
	version      TEXT NOT NULL,     -- lathe's version line
	created_at   INTEGER NOT NULL,
	completed_at INTEGER            -- NULL until every attempt has ended
) STRICT;

-- The models an experiment runs, in order, as the server described them.
CREATE TABLE experiment_models (
	experiment_id  INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
	position       INTEGER NOT NULL,
	model          TEXT NOT NULL,
	parameter_size TEXT NOT NULL,
	quantization   TEXT NOT NULL,
	num_ctx        INTEGER NOT NULL,
	load_ns        INTEGER NOT NULL DEFAULT 0,  -- loading it before its tasks
	PRIMARY KEY (experiment_id, model)
) STRICT;

-- The tasks of its suite, as read when it began.
CREATE TABLE experiment_tasks (
	experiment_id INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
	position      INTEGER NOT NULL,
	name          TEXT NOT NULL,
	spec          TEXT NOT NULL,  -- JSON: prompt, mode, limits, check, tags
	digest        TEXT NOT NULL,  -- SHA-256 of the task's files
	skipped       TEXT NOT NULL,  -- why it is not run; '' when it is
	PRIMARY KEY (experiment_id, name)
) STRICT;

-- One row per try of each (model, task, repetition). state goes
-- created -> running -> finished or failed; a running attempt whose
-- process died keeps completed_at NULL for good.
CREATE TABLE attempts (
	id                INTEGER PRIMARY KEY,
	experiment_id     INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
	model             TEXT NOT NULL,
	task              TEXT NOT NULL,
	rep               INTEGER NOT NULL,  -- 1 to repeat
	try               INTEGER NOT NULL,  -- 1, and one more each time it is run again
	state             TEXT NOT NULL CHECK (state IN ('created', 'running', 'finished', 'failed')),
	goal_met          INTEGER,           -- NULL until the check ran
	stop_reason       TEXT NOT NULL DEFAULT '',
	failure_reason    TEXT NOT NULL DEFAULT '',
	failure           TEXT NOT NULL DEFAULT '',
	session_id        TEXT NOT NULL DEFAULT '',
	options           TEXT,              -- JSON object of the model options sent; NULL when unknown
	turns             INTEGER NOT NULL DEFAULT 0,
	tool_calls        INTEGER NOT NULL DEFAULT 0,
	prompt_tokens     INTEGER NOT NULL DEFAULT 0,
	completion_tokens INTEGER NOT NULL DEFAULT 0,
	recoveries        INTEGER NOT NULL DEFAULT 0,
	wall_ns           INTEGER NOT NULL DEFAULT 0,
	load_ns           INTEGER NOT NULL DEFAULT 0,
	prefill_ns        INTEGER NOT NULL DEFAULT 0,
	decode_ns         INTEGER NOT NULL DEFAULT 0,
	prefill_tps       REAL NOT NULL DEFAULT 0,
	decode_tps        REAL NOT NULL DEFAULT 0,
	check_exit        INTEGER,           -- NULL when the check did not run or was killed
	check_output      TEXT NOT NULL DEFAULT '',
	pid               INTEGER NOT NULL DEFAULT 0,  -- the runner's process, while running
	pid_started       INTEGER NOT NULL DEFAULT 0,
	host              TEXT NOT NULL DEFAULT '',
	created_at        INTEGER NOT NULL,
	started_at        INTEGER,
	active_at         INTEGER,           -- the runner's last sign of life
	completed_at      INTEGER,
	UNIQUE (experiment_id, model, task, rep, try)
) STRICT;
