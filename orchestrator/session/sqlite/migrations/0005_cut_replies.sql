-- Version 5: which replies ended before they completed (interrupted, or
-- their stream broke): what came of them is kept, and shown as cut.

ALTER TABLE messages ADD COLUMN cut INTEGER NOT NULL DEFAULT 0;
ALTER TABLE undone_messages ADD COLUMN cut INTEGER NOT NULL DEFAULT 0;
