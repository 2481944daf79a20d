-- Billing (issue 13): the platform subscription a workspace pays, the marketplace where a
-- student (or a minor's guardian) pays a coach, and the payment webhook's events
-- (docs/billing.md).

-- Platform subscriptions from the payment provider sit beside admin grants in `subscriptions`
-- (migration 3): one row per provider subscription, found again by its id.
ALTER TABLE subscriptions ADD COLUMN price_id TEXT;
CREATE UNIQUE INDEX subscriptions_provider ON subscriptions (provider_subscription_id);

-- The provider's customer of a workspace (platform billing) or of a user (a payer in the
-- marketplace): created once, reused by every checkout and portal session.
CREATE TABLE billing_customers (
    id TEXT PRIMARY KEY,
    org_id TEXT REFERENCES orgs(id) ON DELETE CASCADE,
    user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
    provider_customer_id TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    CHECK ((org_id IS NULL) <> (user_id IS NULL))
);
CREATE UNIQUE INDEX billing_customers_org ON billing_customers (org_id);
CREATE UNIQUE INDEX billing_customers_user ON billing_customers (user_id);

-- A coach's connected payout account (Connect), one per coach and workspace.
CREATE TABLE payout_accounts (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    provider_account_id TEXT NOT NULL UNIQUE,
    charges_enabled BOOLEAN NOT NULL,
    payouts_enabled BOOLEAN NOT NULL,
    details_submitted BOOLEAN NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (org_id, user_id)
);

-- What a coach sells: one-off or monthly, in minor units of one currency.
CREATE TABLE offerings (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    coach_user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    amount BIGINT NOT NULL,
    currency TEXT NOT NULL,
    billing_interval TEXT NOT NULL,
    active BOOLEAN NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX offerings_org ON offerings (org_id, coach_user_id);

-- A student's access to an offering, granted and ended by the webhook's events only: by the
-- provider subscription (monthly) or the paid checkout session (one-off).
CREATE TABLE offering_access (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    offering_id TEXT NOT NULL REFERENCES offerings(id) ON DELETE CASCADE,
    athlete_id TEXT NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    payer_user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
    status TEXT NOT NULL,
    provider_ref TEXT NOT NULL UNIQUE,
    current_period_end TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX offering_access_athlete ON offering_access (athlete_id, offering_id, status);

-- Every verified webhook event, once (the provider's id is the key, so a duplicate delivery,
-- even a concurrent one, inserts nothing and enqueues nothing).
CREATE TABLE payment_events (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    object_type TEXT NOT NULL,
    object_id TEXT NOT NULL,
    livemode BOOLEAN NOT NULL,
    provider_created BIGINT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    note TEXT,
    received_at TEXT NOT NULL,
    processed_at TEXT
);
CREATE INDEX payment_events_status ON payment_events (status, received_at);

-- Per provider object (subscription, checkout session, account): tickets that order the
-- re-reads of concurrent event jobs; a re-read is applied only if no later one was.
CREATE TABLE payment_objects (
    object_id TEXT PRIMARY KEY,
    ticket BIGINT NOT NULL,
    applied_ticket BIGINT NOT NULL,
    updated_at TEXT NOT NULL
);
