-- Version 11: the change a write or edit made, as the unified diff its
-- card showed (NULL when it showed none), so that a resumed session's
-- card shows it again; kept too with the messages an undo took back.

ALTER TABLE messages ADD COLUMN tool_diff TEXT;
ALTER TABLE undone_messages ADD COLUMN tool_diff TEXT;
