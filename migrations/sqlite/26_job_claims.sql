-- A claim writes only its task row (issue 14): see the PostgreSQL twin.
ALTER TABLE job_queue ADD COLUMN claims INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_queue ADD COLUMN base_attempts INTEGER NOT NULL DEFAULT 0;
UPDATE job_queue
SET base_attempts = (SELECT p.attempts FROM job_progress p WHERE p.id = job_queue.job_id)
        - (locked_by IS NOT NULL),
    claims = (locked_by IS NOT NULL)
WHERE EXISTS (SELECT 1 FROM job_progress p WHERE p.id = job_queue.job_id);
