-- A claim writes only its task row (issue 14). The attempt a claim starts is counted on the task:
-- `claims` (how many times it was claimed) over `base_attempts` (the job's attempts when the task
-- was pushed), so a crash between claim and outcome still counts its attempt, as before. The
-- progress row is written when the attempt ends, or when it has run for a moment
-- (`worker::execute`), not by the claim: one row write less per job.
ALTER TABLE job_queue
    ADD COLUMN claims BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN base_attempts BIGINT NOT NULL DEFAULT 0;
-- Live tasks of the old claim: a locked one's attempt is already in its progress row.
UPDATE job_queue q
SET base_attempts = p.attempts - CASE WHEN q.locked_by IS NULL THEN 0 ELSE 1 END,
    claims = CASE WHEN q.locked_by IS NULL THEN 0 ELSE 1 END
FROM job_progress p
WHERE p.id = q.job_id;
