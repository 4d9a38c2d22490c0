-- Version 2: a session's modes (ask, plan, build), each holding from a
-- position of its history on, with build mode's plan.
-- Times are INTEGER nanoseconds since the Unix epoch (UTC).

CREATE TABLE modes (
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,  -- the mode holds from message seq on
	mode       TEXT NOT NULL,     -- "ask", "plan" or "build"
	plan       TEXT,              -- JSON object of orchestrator.Plan; NULL when none
	reason     TEXT NOT NULL,     -- what changed it
	created_at INTEGER NOT NULL,
	PRIMARY KEY (session_id, seq)
) STRICT;
