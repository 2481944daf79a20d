-- The job queue (issue 14): our own table, read by our own apalis backend
-- (worker/src/queue_backend.rs), replacing apalis-sqlite's `Jobs`. See the PostgreSQL twin for
-- the design; times are the service's fixed-width text times (they compare as text).
CREATE TABLE job_queue (
    id INTEGER PRIMARY KEY,
    queue TEXT NOT NULL,
    job_id TEXT NOT NULL,
    run_at TEXT NOT NULL,
    locked_by TEXT,
    locked_at TEXT
);
CREATE INDEX job_queue_due ON job_queue (queue, run_at) WHERE locked_by IS NULL;

CREATE TABLE job_workers (
    name TEXT PRIMARY KEY,
    queue TEXT NOT NULL,
    last_seen TEXT NOT NULL
);

INSERT INTO job_queue (queue, job_id, run_at)
    SELECT queue, id, run_after FROM job_progress WHERE status IN ('queued', 'running');
DROP TABLE IF EXISTS Jobs;
DROP TABLE IF EXISTS Workers;
DROP TABLE IF EXISTS _sqlx_migrations;

-- Fixed planner statistics for the queue (never measured: a queue's size swings from empty to
-- a large backlog, and statistics sampled at either end mislead the planner at the other).
-- They say "large table, few tasks per (queue, run_at)", so the claim always walks the due
-- index. `ANALYZE sqlite_schema` only creates the statistics table; nothing is sampled. The
-- same rows are written again after each `PRAGMA optimize` (shared::repo::housekeeping).
ANALYZE sqlite_schema;
DELETE FROM sqlite_stat1 WHERE tbl IN ('job_queue', 'job_workers');
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('job_queue', NULL, '100000'),
    ('job_queue', 'job_queue_due', '100000 25000 2'),
    ('job_workers', 'sqlite_autoindex_job_workers_1', '16 1');
