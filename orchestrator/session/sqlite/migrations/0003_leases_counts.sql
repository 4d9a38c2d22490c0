-- Version 3: which process is using a session, and the server's token
-- counts of each reply.
-- Times are INTEGER nanoseconds since the Unix epoch (UTC).

-- A session is used by one lathe process at a time: the one holding its
-- lease. A lease whose process is gone is stale and may be taken over.
CREATE TABLE leases (
	session_id  TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
	pid         INTEGER NOT NULL,
	started     INTEGER NOT NULL,  -- the process's start time as the OS counts it; 0 when unknown
	host        TEXT NOT NULL,
	acquired_at INTEGER NOT NULL
) STRICT;

-- What the server counted for the request an assistant message answered
-- (prompt) and for the message itself (completion); NULL when it did not
-- say.
ALTER TABLE messages ADD COLUMN prompt_tokens INTEGER;
ALTER TABLE messages ADD COLUMN completion_tokens INTEGER;
