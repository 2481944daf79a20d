-- Opponents, watchlists and achievements (issue 16; docs/competition.md, "Opponents, watchlist
-- and achievements"). SQLite twin of postgres/18_opponents.sql (ids and times TEXT, JSON as
-- TEXT).

-- A coach's notes on an opponent: a roster athlete (opponent_athlete_id) or a provider athlete
-- (provider + external id, with the name it had), optionally for one roster athlete (the one
-- who will face them). Lists of strengths, weaknesses and tags are JSON arrays of strings.
CREATE TABLE opponent_notes (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    athlete_id TEXT REFERENCES athletes(id) ON DELETE SET NULL,
    opponent_athlete_id TEXT REFERENCES athletes(id) ON DELETE CASCADE,
    opponent_provider TEXT,
    opponent_external_id TEXT,
    opponent_name TEXT NOT NULL,
    body TEXT NOT NULL,
    strengths TEXT NOT NULL,
    weaknesses TEXT NOT NULL,
    tags TEXT NOT NULL,
    created_by TEXT,
    updated_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    CHECK ((opponent_athlete_id IS NULL) <> (opponent_external_id IS NULL)),
    CHECK ((opponent_provider IS NULL) = (opponent_external_id IS NULL))
);
CREATE INDEX opponent_notes_org ON opponent_notes (org_id, updated_at, id);
CREATE INDEX opponent_notes_athlete ON opponent_notes (athlete_id);
CREATE INDEX opponent_notes_opponent ON opponent_notes (org_id, opponent_provider, opponent_external_id);
CREATE INDEX opponent_notes_opponent_athlete ON opponent_notes (opponent_athlete_id);

-- A member's personal watchlist: athletes (a roster athlete, or a provider athlete) and events
-- (a circuit event, or a provider event). `target` is the watched thing's id as text (a roster
-- athlete's or circuit event's id, or the provider's id), unique per member and workspace.
CREATE TABLE watchlist_items (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- athlete, event
    kind TEXT NOT NULL,
    -- roster, circuit, heatsource, tourindex
    source TEXT NOT NULL,
    target TEXT NOT NULL,
    athlete_id TEXT REFERENCES athletes(id) ON DELETE CASCADE,
    circuit_event_id TEXT REFERENCES circuit_events(id) ON DELETE CASCADE,
    -- A provider target's name as given.
    name TEXT,
    note TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (org_id, user_id, kind, source, target)
);
CREATE INDEX watchlist_items_user ON watchlist_items (org_id, user_id, created_at, id);
CREATE INDEX watchlist_items_athlete ON watchlist_items (athlete_id);

-- Achievement definitions, seeded per workspace (`POST /api/achievements/seed`, idempotent by
-- code): a rule is a metric reaching a threshold.
CREATE TABLE achievement_definitions (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    code TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    -- podiums, wins, sessions, rides, waves_in_session
    metric TEXT NOT NULL,
    threshold BIGINT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (org_id, code)
);

-- An achievement an athlete earned: once per athlete and achievement.
CREATE TABLE achievement_awards (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    achievement_id TEXT NOT NULL REFERENCES achievement_definitions(id) ON DELETE CASCADE,
    athlete_id TEXT NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    -- The metric's value when it was earned.
    value BIGINT NOT NULL,
    awarded_at TEXT NOT NULL,
    UNIQUE (athlete_id, achievement_id)
);
CREATE INDEX achievement_awards_org ON achievement_awards (org_id, awarded_at);
