-- SQLite twin of postgres/5_messaging.sql (ids and times TEXT, JSON TEXT; see 1_foundation.sql).
-- Messaging and notifications: coach–athlete conversations, messages with private photo
-- attachments, message reports for moderation, notifications with per-channel deliveries,
-- app push tokens and unsubscribe state.
-- Every conversation, message and report carries its workspace (org_id) so tenancy is
-- checked on the row itself; notifications belong to a user (org_id is optional context).

-- A conversation is between one coach (a workspace member) and one athlete of the same
-- workspace; `kind` is kept so other kinds can be refused explicitly (only coach_athlete).
CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    coach_user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    athlete_id TEXT NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    created_by TEXT,
    created_at TEXT NOT NULL,
    -- ordering of "my conversations"; equal to created_at until the first message
    last_message_at TEXT NOT NULL,
    coach_read_at TEXT,
    athlete_read_at TEXT,
    UNIQUE (org_id, coach_user_id, athlete_id)
);
CREATE INDEX conversations_coach ON conversations (coach_user_id, last_message_at);
CREATE INDEX conversations_athlete ON conversations (athlete_id, last_message_at);

-- Messages are never hard-deleted by the service: removal keeps the row (for reports and the
-- audit trail) and hides the body and attachment from participants.
CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    sender_user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
    body TEXT NOT NULL,
    -- object key in the raw-uploads store (messages/<org>/<conversation>/…); private
    attachment_key TEXT,
    created_at TEXT NOT NULL,
    removed_at TEXT,
    removed_by TEXT,
    -- sender (deleted by its author) or moderation (removed by a platform admin)
    removed_reason TEXT
);
CREATE INDEX messages_conversation ON messages (conversation_id, created_at, id);

-- A participant reports a message; admins resolve (optionally removing it) or dismiss.
CREATE TABLE message_reports (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    reporter_user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
    -- spam, harassment, inappropriate, safety, other
    reason TEXT NOT NULL,
    details TEXT,
    -- open, resolved, dismissed
    status TEXT NOT NULL,
    resolved_by TEXT,
    resolution_note TEXT,
    message_removed BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TEXT NOT NULL,
    resolved_at TEXT
);
-- One open report per reporter per message.
CREATE UNIQUE INDEX message_reports_open_once ON message_reports (message_id, reporter_user_id)
    WHERE status = 'open';
CREATE INDEX message_reports_status ON message_reports (status, created_at);

-- A notification for one user; its deliveries say how it went out on each channel.
CREATE TABLE notifications (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    org_id TEXT REFERENCES orgs(id) ON DELETE CASCADE,
    -- e.g. message.new, announcement, or a caller's own kind
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    data TEXT NOT NULL,
    -- the sender's deduplication key: one notification per (user, key)
    dedupe_key TEXT,
    created_at TEXT NOT NULL,
    read_at TEXT
);
CREATE INDEX notifications_user ON notifications (user_id, created_at);
CREATE INDEX notifications_created ON notifications (created_at);
CREATE UNIQUE INDEX notifications_dedupe ON notifications (user_id, dedupe_key)
    WHERE dedupe_key IS NOT NULL;

CREATE TABLE notification_deliveries (
    id TEXT PRIMARY KEY,
    notification_id TEXT NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
    -- email, push, sms
    channel TEXT NOT NULL,
    -- pending, sending (claimed by a worker until locked_until), sent, failed, skipped
    status TEXT NOT NULL,
    attempts BIGINT NOT NULL,
    last_error TEXT,
    next_attempt_at TEXT NOT NULL,
    locked_until TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    sent_at TEXT,
    UNIQUE (notification_id, channel)
);
CREATE INDEX notification_deliveries_due ON notification_deliveries (status, next_attempt_at);

-- App push tokens (Expo or FCM). A token belongs to one account: registering it again from
-- another account moves it.
CREATE TABLE push_tokens (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    token TEXT NOT NULL UNIQUE,
    platform TEXT NOT NULL,
    device_name TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX push_tokens_user ON push_tokens (user_id);

-- Opt-outs per user, channel and category (a notification kind's first segment, or `all`).
CREATE TABLE notification_unsubscribes (
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    channel TEXT NOT NULL,
    category TEXT NOT NULL,
    source TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (user_id, channel, category)
);
