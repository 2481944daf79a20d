-- SQLite twin of postgres/27_notification_channels.sql (ids, times and JSON as TEXT).
-- Issue 41: notifications reach every device (FCM, Web Push, Expo receipts, SMS) and each person
-- chooses their channels.

-- A browser's Web Push subscription (RFC 8030): the push service's endpoint and the keys the
-- payload is encrypted to (RFC 8291: p256dh, the browser's P-256 public key, and the 16-byte
-- auth secret, both base64url). An endpoint belongs to one account, as a push token does.
CREATE TABLE web_push_subscriptions (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    endpoint TEXT NOT NULL UNIQUE,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    device_name TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX web_push_subscriptions_user ON web_push_subscriptions (user_id);

-- Expo push tickets whose receipts are not fetched yet (the `push-receipts` task).
CREATE TABLE push_tickets (
    ticket_id TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    delivery_id TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX push_tickets_created ON push_tickets (created_at);

-- What happened on each device of a push delivery: [{platform, device, status, error}].
ALTER TABLE notification_deliveries ADD COLUMN devices TEXT;

-- Each person's choice per category (a kind's first segment, or `all`) and channel. A row is an
-- explicit choice; without one, email and push are on and SMS is off. The one-click
-- unsubscribe writes here too (enabled = false), so its effect shows in the same settings.
CREATE TABLE notification_choices (
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    channel TEXT NOT NULL,
    category TEXT NOT NULL,
    enabled BOOLEAN NOT NULL,
    source TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (user_id, channel, category)
);
INSERT INTO notification_choices (user_id, channel, category, enabled, source, updated_at)
SELECT user_id, channel, category, FALSE, source, created_at FROM notification_unsubscribes;
DROP TABLE notification_unsubscribes;

-- Quiet hours (push and SMS wait until they end) in the person's IANA time zone.
CREATE TABLE notification_settings (
    user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    time_zone TEXT NOT NULL,
    -- HH:MM local times; both set or both null; start > end spans midnight
    quiet_start TEXT,
    quiet_end TEXT,
    updated_at TEXT NOT NULL
);
