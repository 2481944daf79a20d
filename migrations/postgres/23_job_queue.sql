-- The job queue (issue 14): our own table, read by our own apalis backend
-- (worker/src/queue_backend.rs), replacing apalis-postgres's `apalis.jobs`.
--
-- A row is a task: "run job `job_id` (a `job_progress` row) on `queue` from `run_at`". A worker
-- claims a batch in one statement (locked_by/locked_at), and deletes each row once the job's
-- outcome is in its progress row, so the table holds only live tasks. Workers heartbeat into
-- `job_workers`; the tasks of a worker not seen for its lease go back to the queue.
CREATE TABLE job_queue (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    queue TEXT NOT NULL,
    job_id UUID NOT NULL,
    run_at TIMESTAMPTZ NOT NULL,
    locked_by TEXT,
    locked_at TIMESTAMPTZ
);
-- The claim's only index: due tasks per queue in order. Partial, so a claimed or deleted task
-- leaves it, and it stays as small as the backlog.
CREATE INDEX job_queue_due ON job_queue (queue, run_at, id) WHERE locked_by IS NULL;

CREATE TABLE job_workers (
    name TEXT PRIMARY KEY,
    queue TEXT NOT NULL,
    last_seen TIMESTAMPTZ NOT NULL
);

-- Wakes the queue's listening workers (LISTEN job_queue_<queue>). Identical notifications of one
-- transaction are delivered once, so a batch of inserts wakes each worker once, at commit.
CREATE FUNCTION job_queue_notify() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('job_queue_' || NEW.queue, '');
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER job_queue_inserted AFTER INSERT ON job_queue
    FOR EACH ROW EXECUTE FUNCTION job_queue_notify();

-- Tasks of jobs queued or running under the apalis queue carry over (a running one was cut off
-- by the deploy's stop and runs again, as after any crash); apalis's tables go.
INSERT INTO job_queue (queue, job_id, run_at)
    SELECT queue, id, run_after FROM job_progress WHERE status IN ('queued', 'running');
DROP SCHEMA IF EXISTS apalis CASCADE;
DROP TABLE IF EXISTS public._sqlx_migrations;
