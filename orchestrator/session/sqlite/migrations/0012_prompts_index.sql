-- Version 12: the prompts of each session by seq, so that a resume reads
-- the prompts before a compaction (what it keeps of those messages) and
-- not every message.

CREATE INDEX prompts_by_session ON messages (session_id, seq) WHERE role = 'user';
