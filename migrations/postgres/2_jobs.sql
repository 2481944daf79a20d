-- Job progress rows (one per job, written by the worker, read by the api) and scheduler ticks.
-- The queue itself (what a worker fetches) is apalis's storage; these rows are the source of
-- truth for status, progress, result, error and deduplication.

CREATE TABLE job_progress (
    id UUID PRIMARY KEY,
    kind TEXT NOT NULL,
    queue TEXT NOT NULL,
    org_id UUID,
    created_by UUID,
    idempotency_key TEXT,
    status TEXT NOT NULL,
    attempts BIGINT NOT NULL,
    max_attempts BIGINT NOT NULL,
    percent BIGINT,
    message TEXT,
    payload JSONB NOT NULL,
    result JSONB,
    last_error TEXT,
    cancel_requested BOOLEAN NOT NULL,
    run_after TIMESTAMPTZ NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    started_at TIMESTAMPTZ,
    finished_at TIMESTAMPTZ,
    updated_at TIMESTAMPTZ NOT NULL
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
    tick TIMESTAMPTZ NOT NULL,
    job_id UUID NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (schedule, tick)
);
