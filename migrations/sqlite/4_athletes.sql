-- Athletes, athlete invites, guardians, training sessions (issue 5).
-- SQLite twin of postgres/4_athletes.sql (ids and times TEXT, see 1_foundation.sql).
-- Athletes carry minors' data: birth dates, guardians and consents live here and are only ever
-- exposed through access-checked routes (the public profile is an allow-list).
CREATE TABLE athletes (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    email TEXT,
    birth_date TEXT,
    stance TEXT,
    level TEXT,
    notes TEXT,
    -- active, pending (self-enrolled, awaiting a coach) or archived
    status TEXT NOT NULL,
    -- lower(first)|lower(last)|birth date: the import's duplicate key when there is no email
    name_key TEXT NOT NULL,
    user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
    published BOOLEAN NOT NULL DEFAULT FALSE,
    public_slug TEXT UNIQUE,
    public_bio TEXT,
    source TEXT NOT NULL,
    created_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX athletes_org_email ON athletes (org_id, email);
CREATE INDEX athletes_org_name_key ON athletes (org_id, name_key);
CREATE INDEX athletes_org_created ON athletes (org_id, created_at, id);
CREATE INDEX athletes_user ON athletes (user_id);

-- Multi-coach assignments; the id is the spec's `scId`.
CREATE TABLE athlete_coaches (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    athlete_id TEXT NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    created_by TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (athlete_id, user_id)
);
CREATE INDEX athlete_coaches_user ON athlete_coaches (org_id, user_id);

-- Single-use, expiring invite tokens, stored as SHA-256 hashes.
CREATE TABLE athlete_invites (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    athlete_id TEXT NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    email TEXT,
    created_by TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT,
    used_by TEXT
);
CREATE INDEX athlete_invites_athlete ON athlete_invites (athlete_id);

-- Guardians with a login (created through POST /api/invite/guardian).
CREATE TABLE athlete_guardians (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    athlete_id TEXT NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    relationship TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (athlete_id, user_id)
);
CREATE INDEX athlete_guardians_user ON athlete_guardians (user_id);

-- Guardian consent: who, when, how. Withdrawn consents are kept (withdrawn_at set).
CREATE TABLE guardian_consents (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    athlete_id TEXT NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    guardian_user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
    guardian_name TEXT NOT NULL,
    guardian_email TEXT,
    relationship TEXT NOT NULL,
    method TEXT NOT NULL,
    note TEXT,
    recorded_by TEXT,
    consented_at TEXT NOT NULL,
    created_at TEXT NOT NULL,
    withdrawn_at TEXT
);
CREATE INDEX guardian_consents_athlete ON guardian_consents (athlete_id);

-- Links to external providers (competition area); resync re-imports through them.
CREATE TABLE athlete_provider_links (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    athlete_id TEXT NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    external_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (org_id, provider, external_id)
);
CREATE INDEX athlete_provider_links_athlete ON athlete_provider_links (athlete_id);

-- Public club self-enrollment, switched on per workspace.
CREATE TABLE club_enrollment (
    org_id TEXT PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
    enabled BOOLEAN NOT NULL,
    updated_by TEXT,
    updated_at TEXT NOT NULL
);

-- Large CSV imports are staged here for their job, deleted when the job finishes.
CREATE TABLE import_uploads (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    content TEXT NOT NULL,
    created_by TEXT,
    created_at TEXT NOT NULL
);

CREATE TABLE training_sessions (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    starts_at TEXT NOT NULL,
    ends_at TEXT NOT NULL,
    location TEXT,
    spot TEXT,
    coach_user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
    capacity BIGINT,
    notes TEXT,
    source TEXT NOT NULL,
    created_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX training_sessions_org_time ON training_sessions (org_id, starts_at);

-- Roster: registered, waitlisted, attended, no_show. `position` orders the waitlist.
CREATE TABLE training_participants (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL REFERENCES training_sessions(id) ON DELETE CASCADE,
    athlete_id TEXT NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    position BIGINT NOT NULL,
    added_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (session_id, athlete_id)
);
CREATE INDEX training_participants_athlete ON training_participants (athlete_id);

-- Footage sessions (the footage area extends this table): one per training session at most.
CREATE TABLE footage_sessions (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    training_session_id TEXT UNIQUE REFERENCES training_sessions(id) ON DELETE SET NULL,
    athlete_id TEXT REFERENCES athletes(id) ON DELETE SET NULL,
    title TEXT NOT NULL,
    status TEXT NOT NULL,
    created_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX footage_sessions_org ON footage_sessions (org_id, created_at);
