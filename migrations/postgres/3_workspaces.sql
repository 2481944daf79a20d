-- Workspaces: member invites, TV devices, impersonation, client activity, subscriptions (issue 4).

CREATE TABLE member_invites (
    id UUID PRIMARY KEY,
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    email TEXT NOT NULL,
    role_id UUID NOT NULL REFERENCES roles(id),
    token_hash TEXT NOT NULL UNIQUE,
    invited_by UUID,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    accepted_at TIMESTAMPTZ,
    accepted_by UUID,
    revoked_at TIMESTAMPTZ
);
CREATE INDEX member_invites_org ON member_invites (org_id, created_at);

-- A TV signs in with a device code (RFC 8628 shape). org_id is set when a user claims it.
CREATE TABLE tv_devices (
    id UUID PRIMARY KEY,
    org_id UUID REFERENCES orgs(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    device_code_hash TEXT NOT NULL UNIQUE,
    user_code_hash TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL,
    interval_secs BIGINT NOT NULL,
    last_poll_at TIMESTAMPTZ,
    expires_at TIMESTAMPTZ NOT NULL,
    claimed_by UUID,
    claimed_at TIMESTAMPTZ,
    token_hash TEXT UNIQUE,
    token_delivered BOOLEAN NOT NULL,
    revoked_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX tv_devices_org ON tv_devices (org_id);

-- An admin acting as a user from one sign-in (session or token family).
CREATE TABLE impersonations (
    id UUID PRIMARY KEY,
    admin_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    target_user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    sign_in_ref TEXT NOT NULL,
    reason TEXT NOT NULL,
    started_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    ended_at TIMESTAMPTZ
);
CREATE INDEX impersonations_ref ON impersonations (sign_in_ref, ended_at);

CREATE TABLE activity_events (
    id UUID PRIMARY KEY,
    user_id UUID,
    org_id UUID,
    kind TEXT NOT NULL,
    path TEXT,
    data JSONB NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX activity_events_time ON activity_events (created_at);
CREATE INDEX activity_events_user ON activity_events (user_id, created_at);

-- Platform subscriptions (the workspace pays) and admin grants; the payment flows fill it later.
CREATE TABLE subscriptions (
    id UUID PRIMARY KEY,
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    plan TEXT NOT NULL,
    seats BIGINT NOT NULL,
    provider_customer_id TEXT,
    provider_subscription_id TEXT,
    current_period_end TIMESTAMPTZ,
    granted_by UUID,
    grant_reason TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX subscriptions_org ON subscriptions (org_id, status);
