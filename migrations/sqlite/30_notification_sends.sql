-- SQLite twin of postgres/30_notification_sends.sql (ids and times as TEXT).
-- Issue 41 remainders: the sender sees how their notifications went out, and a delivery whose
-- worker died is taken over at once by its own job's next attempt.

-- One send by a person (a message, or the internal send route on someone's behalf) to one or
-- more recipients: what the sender's view lists. A notification of a send points back to it.
CREATE TABLE notification_sends (
    id TEXT PRIMARY KEY,
    sender_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    recipients BIGINT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX notification_sends_sender ON notification_sends (sender_id, org_id, created_at);
ALTER TABLE notifications ADD COLUMN send_id TEXT REFERENCES notification_sends(id) ON DELETE SET NULL;
CREATE INDEX notifications_send ON notifications (send_id) WHERE send_id IS NOT NULL;

-- Why a delivery was skipped, as a code the sender's counts group by (the text stays in
-- last_error): preference, opted_out, no_device, deleted.
ALTER TABLE notification_deliveries ADD COLUMN skip_reason TEXT;
-- Which job run holds a `sending` claim: that job's next attempt (the run died) takes it over
-- without waiting for locked_until.
ALTER TABLE notification_deliveries ADD COLUMN claimed_job TEXT;
ALTER TABLE notification_deliveries ADD COLUMN claimed_attempt BIGINT;
