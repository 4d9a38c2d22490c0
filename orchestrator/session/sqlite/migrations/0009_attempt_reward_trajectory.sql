-- Version 9: what an attempt of a task from elsewhere adds to its record:
-- the reward its check wrote (Harbor's reward.txt or reward.json, partial
-- rewards as they are; NULL when it wrote none) and where the run's ATIF
-- trajectory is kept ('' when none is).

ALTER TABLE attempts ADD COLUMN reward REAL;
ALTER TABLE attempts ADD COLUMN trajectory TEXT NOT NULL DEFAULT '';
