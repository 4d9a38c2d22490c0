-- Version 10: the signs of each chunk's embedding, a bit a number
-- (codeindex.EncodeSigns), apart from the chunk: what a search keeps in
-- memory, read at its start in a few pages for a thousand chunks rather
-- than a page or two a chunk. The chunks of an index made before have
-- none: their vectors are read whole, as before.

CREATE TABLE code_signs (
	id    INTEGER PRIMARY KEY REFERENCES code_chunks (id) ON DELETE CASCADE,
	dir   TEXT NOT NULL,
	dims  INTEGER NOT NULL, -- the embedding's numbers
	signs BLOB NOT NULL
) STRICT;
