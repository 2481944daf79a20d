-- Job progress rows (one per job, written by the worker, read by the api) and scheduler ticks.
-- The queue itself (what a worker fetches) is apalis's storage; these rows are the source of
-- truth for status, progress, result, error and deduplication.

CREATE TABLE job_progress (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    queue TEXT NOT NULL,
    org_id TEXT,
    created_by TEXT,
    idempotency_key TEXT,
    status TEXT NOT NULL,
    attempts BIGINT NOT NULL,
    max_attempts BIGINT NOT NULL,
    percent BIGINT,
    message TEXT,
    payload TEXT NOT NULL,
    result TEXT,
    last_error TEXT,
    cancel_requested BOOLEAN NOT NULL,
    run_after TEXT NOT NULL,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    updated_at TEXT NOT NULL
);
-- At most one live job per (kind, idempotency key): enqueueing a duplicate returns the live one.
CREATE UNIQUE INDEX job_progress_live_key ON job_progress (kind, idempotency_key)
    WHERE idempotency_key IS NOT NULL AND status IN ('queued', 'running');
CREATE INDEX job_progress_org ON job_progress (org_id, created_at);
CREATE INDEX job_progress_status ON job_progress (status, run_after);

-- One row per (schedule, tick): the first worker to insert it enqueues the tick's job, so a tick
-- fires exactly once however many workers run the scheduler.
CREATE TABLE cron_ticks (
    schedule TEXT NOT NULL,
    tick TEXT NOT NULL,
    job_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (schedule, tick)
);
