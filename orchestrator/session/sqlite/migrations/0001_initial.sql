-- Version 1: sessions, their messages, compactions and runs.
-- Times are INTEGER nanoseconds since the Unix epoch (UTC).

CREATE TABLE sessions (
	id         TEXT PRIMARY KEY,
	title      TEXT NOT NULL,
	dir        TEXT NOT NULL,    -- the working directory, absolute
	model      TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL  -- the last message saved
) STRICT;

-- LatestSession and ListSessions: a directory's sessions by last update.
CREATE INDEX sessions_by_dir ON sessions (dir, updated_at);

CREATE TABLE messages (
	session_id       TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq              INTEGER NOT NULL,  -- 0 is the first message after the system prompt
	role             TEXT NOT NULL,
	content          TEXT NOT NULL,
	thinking         TEXT NOT NULL,
	tool_calls       TEXT,              -- JSON array of api.ToolCall; NULL when none
	tool_name        TEXT NOT NULL,
	tool_call_id     TEXT NOT NULL,
	images           TEXT,              -- JSON array of base64 strings; NULL when none
	tool_subject     TEXT,              -- tool meta: NULL when the message has none
	tool_outcome     TEXT,
	tool_summary     TEXT,
	tool_duration_ns INTEGER,
	created_at       INTEGER NOT NULL,
	PRIMARY KEY (session_id, seq)
) STRICT;

CREATE TABLE compactions (
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,  -- the messages before seq are replaced by summary
	summary    TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (session_id, seq)
) STRICT;

CREATE TABLE runs (
	id                INTEGER PRIMARY KEY,
	session_id        TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	model             TEXT NOT NULL,
	options           TEXT,             -- JSON object of the Ollama options; NULL when none
	started_at        INTEGER NOT NULL,
	completed_at      INTEGER,          -- NULL until finished: NULL for good if the process died
	stop_reason       TEXT NOT NULL DEFAULT '',
	failure           TEXT NOT NULL DEFAULT '',
	turns             INTEGER NOT NULL DEFAULT 0,
	tool_calls        INTEGER NOT NULL DEFAULT 0,
	prompt_tokens     INTEGER NOT NULL DEFAULT 0,
	completion_tokens INTEGER NOT NULL DEFAULT 0
) STRICT;

-- A session's last run.
CREATE INDEX runs_by_session ON runs (session_id, started_at);
