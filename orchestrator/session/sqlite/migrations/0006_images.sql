-- Version 6: the images attached to messages, kept once by the SHA-256 of
-- their bytes (hex), however many messages refer to them. A message's
-- images column (and an undone message's) now holds a JSON array of
-- references, [{"hash":…,"name":…,"width":…,"height":…}]; rows written
-- before hold base64 strings, which are still read.

CREATE TABLE images (
	hash TEXT PRIMARY KEY,
	size INTEGER NOT NULL,  -- length(data)
	data BLOB NOT NULL      -- the bytes as sent to the model
) STRICT;
