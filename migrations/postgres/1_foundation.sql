-- Foundation: accounts, workspaces, roles, members, sessions, tokens, audit, settings.
-- Ids are UUID (v7, written by the service), times TIMESTAMPTZ written by the service, JSON is JSONB.

CREATE TABLE users (
    id UUID PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    name TEXT NOT NULL,
    email_verified_at TIMESTAMPTZ,
    is_platform_admin BOOLEAN NOT NULL DEFAULT FALSE,
    default_org_id UUID,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE orgs (
    id UUID PRIMARY KEY,
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    plan TEXT NOT NULL,
    seat_cap BIGINT,
    disabled_modules JSONB NOT NULL,
    country TEXT,
    created_by UUID,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE roles (
    id UUID PRIMARY KEY,
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    name TEXT NOT NULL,
    permissions JSONB NOT NULL,
    builtin BOOLEAN NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    UNIQUE (org_id, key)
);

CREATE TABLE members (
    id UUID PRIMARY KEY,
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role_id UUID NOT NULL REFERENCES roles(id),
    created_at TIMESTAMPTZ NOT NULL,
    UNIQUE (org_id, user_id)
);
CREATE INDEX members_user ON members (user_id);

CREATE TABLE web_sessions (
    id UUID PRIMARY KEY,
    user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    last_seen_at TIMESTAMPTZ NOT NULL,
    user_agent TEXT,
    ip TEXT
);
CREATE INDEX web_sessions_user ON web_sessions (user_id);

CREATE TABLE api_tokens (
    id UUID PRIMARY KEY,
    user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    family_id UUID NOT NULL,
    client_name TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at TIMESTAMPTZ,
    revoked_at TIMESTAMPTZ
);
CREATE INDEX api_tokens_family ON api_tokens (family_id);
CREATE INDEX api_tokens_user ON api_tokens (user_id);

CREATE TABLE email_tokens (
    id UUID PRIMARY KEY,
    user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    purpose TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at TIMESTAMPTZ
);
CREATE INDEX email_tokens_user ON email_tokens (user_id, purpose);

CREATE TABLE signup_invites (
    id UUID PRIMARY KEY,
    code_hash TEXT NOT NULL UNIQUE,
    email TEXT,
    created_by UUID,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ,
    used_at TIMESTAMPTZ,
    used_by UUID
);

CREATE TABLE waitlist (
    id UUID PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    name TEXT,
    note TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    invited_at TIMESTAMPTZ
);

CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value JSONB NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE audit_log (
    id UUID PRIMARY KEY,
    org_id UUID,
    actor_user_id UUID,
    impersonator_user_id UUID,
    action TEXT NOT NULL,
    target_type TEXT NOT NULL,
    target_id TEXT,
    data JSONB NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX audit_log_org_time ON audit_log (org_id, created_at);
CREATE INDEX audit_log_time ON audit_log (created_at);

CREATE TABLE rate_limits (
    key TEXT PRIMARY KEY,
    window_start TIMESTAMPTZ NOT NULL,
    count BIGINT NOT NULL
);

CREATE TABLE oauth_states (
    id UUID PRIMARY KEY,
    user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    session_ref TEXT NOT NULL,
    provider TEXT NOT NULL,
    state_hash TEXT NOT NULL UNIQUE,
    pkce_verifier_enc TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at TIMESTAMPTZ
);

CREATE TABLE provider_connections (
    id UUID PRIMARY KEY,
    user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    access_token_enc TEXT NOT NULL,
    scope TEXT NOT NULL,
    account JSONB NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    UNIQUE (user_id, provider)
);
