-- Coaching feedback (table in 9_reviews.sql): the lookups its routes and jobs make.
-- A job reads back what it stored (a second run of the same job stores nothing twice).
CREATE INDEX coaching_feedback_job ON coaching_feedback (job_id);
-- Lists and exports by athlete or clip, and "the newest version of each subject".
CREATE INDEX coaching_feedback_athlete ON coaching_feedback (athlete_id, created_at);
CREATE INDEX coaching_feedback_clip ON coaching_feedback (clip_id, created_at);
CREATE INDEX coaching_feedback_org ON coaching_feedback (org_id, created_at);
