-- Foundation: accounts, workspaces, roles, members, sessions, tokens, audit, settings.
-- SQLite twin of postgres/1_foundation.sql: ids are hyphenated TEXT, times fixed-width RFC 3339 TEXT
-- (see shared/src/db/types.rs), JSON is TEXT, booleans are 0/1.
CREATE TABLE users (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    name TEXT NOT NULL,
    email_verified_at TEXT,
    is_platform_admin BOOLEAN NOT NULL DEFAULT FALSE,
    default_org_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE orgs (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    plan TEXT NOT NULL,
    seat_cap BIGINT,
    disabled_modules TEXT NOT NULL,
    country TEXT,
    created_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE roles (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    name TEXT NOT NULL,
    permissions TEXT NOT NULL,
    builtin BOOLEAN NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (org_id, key)
);

CREATE TABLE members (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role_id TEXT NOT NULL REFERENCES roles(id),
    created_at TEXT NOT NULL,
    UNIQUE (org_id, user_id)
);
CREATE INDEX members_user ON members (user_id);

CREATE TABLE web_sessions (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    user_agent TEXT,
    ip TEXT
);
CREATE INDEX web_sessions_user ON web_sessions (user_id);

CREATE TABLE api_tokens (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    family_id TEXT NOT NULL,
    client_name TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT,
    revoked_at TEXT
);
CREATE INDEX api_tokens_family ON api_tokens (family_id);
CREATE INDEX api_tokens_user ON api_tokens (user_id);

CREATE TABLE email_tokens (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    purpose TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
);
CREATE INDEX email_tokens_user ON email_tokens (user_id, purpose);

CREATE TABLE signup_invites (
    id TEXT PRIMARY KEY,
    code_hash TEXT NOT NULL UNIQUE,
    email TEXT,
    created_by TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    used_at TEXT,
    used_by TEXT
);

CREATE TABLE waitlist (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    name TEXT,
    note TEXT,
    created_at TEXT NOT NULL,
    invited_at TEXT
);

CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE audit_log (
    id TEXT PRIMARY KEY,
    org_id TEXT,
    actor_user_id TEXT,
    impersonator_user_id TEXT,
    action TEXT NOT NULL,
    target_type TEXT NOT NULL,
    target_id TEXT,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX audit_log_org_time ON audit_log (org_id, created_at);
CREATE INDEX audit_log_time ON audit_log (created_at);

CREATE TABLE rate_limits (
    key TEXT PRIMARY KEY,
    window_start TEXT NOT NULL,
    count BIGINT NOT NULL
);

CREATE TABLE oauth_states (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    session_ref TEXT NOT NULL,
    provider TEXT NOT NULL,
    state_hash TEXT NOT NULL UNIQUE,
    pkce_verifier_enc TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
);

CREATE TABLE provider_connections (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    access_token_enc TEXT NOT NULL,
    scope TEXT NOT NULL,
    account TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (user_id, provider)
);
