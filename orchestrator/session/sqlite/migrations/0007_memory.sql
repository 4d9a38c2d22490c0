-- Version 7: what lathe remembers of a project: the words of its saved
-- messages, searchable (messages_fts); the facts the user approved
-- (facts); and the semantic index of its code (code_*).
-- Times are INTEGER nanoseconds since the Unix epoch (UTC).
--
-- Nothing here reads or changes what version 6 made: the two are
-- independent, and apply in either order of their making.

-- Every saved message's content, indexed for full-text search (FTS5,
-- words stemmed). The text itself stays in messages: the index refers to
-- a message by its rowid. lathe never runs VACUUM, which may renumber
-- those rowids; after one, INSERT INTO messages_fts(messages_fts)
-- VALUES ('rebuild') makes the index whole again.
CREATE VIRTUAL TABLE messages_fts USING fts5(
	content,
	content = 'messages',
	content_rowid = 'rowid',
	tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Kept current as messages are saved, replaced (SaveMessage's INSERT OR
-- REPLACE, which deletes the old row without firing delete triggers),
-- taken back by an undo and put back by a redo, and removed with their
-- session.
CREATE TRIGGER messages_fts_replaced BEFORE INSERT ON messages BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, content)
		SELECT 'delete', rowid, content FROM messages WHERE session_id = new.session_id AND seq = new.seq;
END;

CREATE TRIGGER messages_fts_inserted AFTER INSERT ON messages BEGIN
	INSERT INTO messages_fts (rowid, content) VALUES (new.rowid, new.content);
END;

CREATE TRIGGER messages_fts_deleted AFTER DELETE ON messages BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
END;

CREATE TRIGGER messages_fts_updated AFTER UPDATE OF content ON messages BEGIN
	INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
	INSERT INTO messages_fts (rowid, content) VALUES (new.rowid, new.content);
END;

-- The messages saved before this version.
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');

-- Facts about a project or the user's ways that the user approved, for
-- the system prompt of the project's sessions.
CREATE TABLE facts (
	id         INTEGER PRIMARY KEY,
	dir        TEXT NOT NULL,    -- the project's directory, absolute
	text       TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL  -- the last edit
) STRICT;

CREATE INDEX facts_by_dir ON facts (dir, id);

-- A project's semantic code index: the embedding model its vectors come
-- from (vectors of two models cannot be compared).
CREATE TABLE code_indexes (
	dir        TEXT PRIMARY KEY,
	model      TEXT NOT NULL,
	dims       INTEGER NOT NULL,  -- the vectors' length; 0 until the first is stored
	updated_at INTEGER NOT NULL
) STRICT;

-- The files indexed, by the SHA-256 of their content (hex): a file whose
-- hash is unchanged is not read by the model again.
CREATE TABLE code_files (
	dir        TEXT NOT NULL REFERENCES code_indexes (dir) ON DELETE CASCADE,
	path       TEXT NOT NULL,     -- relative to dir, with slashes
	hash       TEXT NOT NULL,
	size       INTEGER NOT NULL,
	mtime      INTEGER NOT NULL,  -- as last seen: an unchanged size and mtime skip hashing
	indexed_at INTEGER NOT NULL,
	PRIMARY KEY (dir, path)
) STRICT;

-- A file's chunks: a Go declaration, or a block of lines, with its
-- embedding (little-endian float32s, of unit length). Ids are never
-- reused (AUTOINCREMENT): a search keeps the vectors it read by id.
CREATE TABLE code_chunks (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	dir        TEXT NOT NULL,
	path       TEXT NOT NULL,
	start_line INTEGER NOT NULL,  -- from 1
	end_line   INTEGER NOT NULL,
	symbol     TEXT NOT NULL,     -- the declaration's name; '' for a block
	text       TEXT NOT NULL,
	embedding  BLOB NOT NULL,
	FOREIGN KEY (dir, path) REFERENCES code_files (dir, path) ON DELETE CASCADE
) STRICT;

CREATE INDEX code_chunks_by_file ON code_chunks (dir, path);

-- The words of each chunk (identifiers split at case changes and
-- underscores), for the keyword half of a search. Contentless: the words
-- are written by lathe, under the chunk's id. Not stemmed: identifiers
-- are not English, and the vocabulary below then holds the words as a
-- query names them.
CREATE VIRTUAL TABLE code_fts USING fts5(
	words,
	content = '',
	contentless_delete = 1,
	tokenize = 'unicode61 remove_diacritics 2'
);

-- How many chunks hold each word: a search leaves out the words most
-- chunks hold, which tell little and cost the most to rank.
CREATE VIRTUAL TABLE code_fts_vocab USING fts5vocab(code_fts, 'row');

CREATE TRIGGER code_fts_deleted AFTER DELETE ON code_chunks BEGIN
	DELETE FROM code_fts WHERE rowid = old.id;
END;
