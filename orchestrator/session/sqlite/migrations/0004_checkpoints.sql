-- Version 4: checkpoints, to undo what a prompt's run changed in the
-- files, and the part of a history an undo took back.
-- Times are INTEGER nanoseconds since the Unix epoch (UTC).

-- File contents, by the SHA-256 of their bytes (hex), compressed: the
-- same content is kept once however many checkpoints hold it.
CREATE TABLE blobs (
	hash   TEXT PRIMARY KEY,
	size   INTEGER NOT NULL,  -- the content's length
	stored INTEGER NOT NULL,  -- length(data)
	data   BLOB NOT NULL      -- DEFLATE-compressed content
) STRICT;

-- One checkpoint per prompt's run.
CREATE TABLE checkpoints (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,  -- the position of the run's prompt in the history
	created_at INTEGER NOT NULL,
	undone_at  INTEGER            -- NULL unless undone (and not redone since)
) STRICT;

CREATE INDEX checkpoints_by_session ON checkpoints (session_id, id);

-- The files a run changed: what each was before the run's first change
-- and what the run left.
CREATE TABLE checkpoint_files (
	checkpoint_id INTEGER NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
	path          TEXT NOT NULL,  -- relative to the session's directory, with slashes
	before_hash   TEXT,           -- NULL: the file did not exist
	before_mode   INTEGER NOT NULL,
	before_size   INTEGER NOT NULL,
	after_hash    TEXT,           -- NULL: the run removed it (or left it unknown, see problem)
	after_mode    INTEGER NOT NULL,
	after_size    INTEGER NOT NULL,
	by            TEXT NOT NULL,  -- "tool" or "command"
	problem       TEXT NOT NULL,  -- why undo cannot restore it; '' when it can
	PRIMARY KEY (checkpoint_id, path)
) STRICT;

-- A history's messages an undo took back from what the model sees, kept
-- with the checkpoint that did it; a redo puts them back.
CREATE TABLE undone_messages (
	checkpoint_id    INTEGER NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
	seq              INTEGER NOT NULL,
	role             TEXT NOT NULL,
	content          TEXT NOT NULL,
	thinking         TEXT NOT NULL,
	tool_calls       TEXT,
	tool_name        TEXT NOT NULL,
	tool_call_id     TEXT NOT NULL,
	images           TEXT,
	tool_subject     TEXT,
	tool_outcome     TEXT,
	tool_summary     TEXT,
	tool_duration_ns INTEGER,
	prompt_tokens    INTEGER,
	completion_tokens INTEGER,
	created_at       INTEGER NOT NULL,
	PRIMARY KEY (checkpoint_id, seq)
) STRICT;

CREATE TABLE undone_compactions (
	checkpoint_id INTEGER NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
	seq           INTEGER NOT NULL,
	summary       TEXT NOT NULL,
	created_at    INTEGER NOT NULL,
	PRIMARY KEY (checkpoint_id, seq)
) STRICT;

CREATE TABLE undone_modes (
	checkpoint_id INTEGER NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
	seq           INTEGER NOT NULL,
	mode          TEXT NOT NULL,
	plan          TEXT,
	reason        TEXT NOT NULL,
	created_at    INTEGER NOT NULL,
	PRIMARY KEY (checkpoint_id, seq)
) STRICT;
