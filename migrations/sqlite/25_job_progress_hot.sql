-- The twin of PostgreSQL's migration 25 (same number: one schema version): the live-key and
-- failure indexes move onto generated columns, and the status index goes. SQLite rewrites only
-- the indexes whose columns an update changes, so here this saves the status index's entry
-- per claim and per success. VIRTUAL: SQLite adds no STORED column to an existing table.
DROP INDEX job_progress_status;
DROP INDEX job_progress_live_key;
ALTER TABLE job_progress ADD COLUMN live_key TEXT
    GENERATED ALWAYS AS (CASE WHEN status IN ('queued', 'running') THEN idempotency_key END) VIRTUAL;
ALTER TABLE job_progress ADD COLUMN failed_at TEXT
    GENERATED ALWAYS AS (CASE WHEN status = 'failed' THEN finished_at END) VIRTUAL;
CREATE UNIQUE INDEX job_progress_live_key ON job_progress (kind, live_key) WHERE live_key IS NOT NULL;
CREATE INDEX job_progress_failed ON job_progress (failed_at) WHERE failed_at IS NOT NULL;
