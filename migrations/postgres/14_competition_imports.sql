-- Competition imports (issue 15, second slice; docs/competition.md). PostgreSQL twin of
-- sqlite/14_competition_imports.sql.

-- A provider link keeps the profile as last read, so a resync can tell what changed.
ALTER TABLE athlete_provider_links ADD COLUMN data JSONB;
ALTER TABLE athlete_provider_links ADD COLUMN synced_at TIMESTAMPTZ;

-- The tour index's directory (`tourindex-sync`, `POST /api/tourindex/scrape`): provider data,
-- global like `provider_cache`; `/api/discover` reads it. `avatar_key` is the headshot copied
-- into object storage by `tourindex-avatars`, from `avatar_from` (the image URL it was copied
-- from: a changed URL is copied again).
CREATE TABLE tourindex_athletes (
    provider_id TEXT PRIMARY KEY,
    tour TEXT NOT NULL,
    name TEXT NOT NULL,
    country TEXT,
    image_url TEXT,
    avatar_key TEXT,
    avatar_from TEXT,
    data JSONB NOT NULL,
    synced_at TIMESTAMPTZ NOT NULL,
    changed_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX tourindex_athletes_tour_name ON tourindex_athletes (tour, name, provider_id);
CREATE INDEX tourindex_athletes_name ON tourindex_athletes (name, provider_id);

-- The tour index's events with their results, same change rule as heatsource_events.
CREATE TABLE tourindex_events (
    provider_id TEXT PRIMARY KEY,
    tour TEXT NOT NULL,
    name TEXT NOT NULL,
    date TEXT,
    data JSONB NOT NULL,
    synced_at TIMESTAMPTZ NOT NULL,
    changed_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX tourindex_events_tour ON tourindex_events (tour, date);

-- A workspace's circuit: a provider series it follows (heatsource series id), created by the
-- first import of its rankings. Its events, rankings and enrolled athletes hang off it.
CREATE TABLE circuits (
    id UUID PRIMARY KEY,
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    external_id TEXT NOT NULL,
    name TEXT NOT NULL,
    created_by UUID,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    UNIQUE (org_id, provider, external_id)
);
CREATE INDEX circuits_org_name ON circuits (org_id, name, id);

CREATE TABLE circuit_athletes (
    circuit_id UUID NOT NULL REFERENCES circuits(id) ON DELETE CASCADE,
    athlete_id UUID NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    org_id UUID NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (circuit_id, athlete_id)
);
CREATE INDEX circuit_athletes_athlete ON circuit_athletes (athlete_id);

-- Events, keyed by the provider's id within the circuit; `data` is the event as read. The
-- name, date and status columns are the provider's (or a manual event's own).
CREATE TABLE circuit_events (
    id UUID PRIMARY KEY,
    org_id UUID NOT NULL,
    circuit_id UUID NOT NULL REFERENCES circuits(id) ON DELETE CASCADE,
    external_id TEXT NOT NULL,
    name TEXT NOT NULL,
    date TEXT,
    status TEXT,
    data JSONB NOT NULL,
    synced_at TIMESTAMPTZ NOT NULL,
    changed_at TIMESTAMPTZ NOT NULL,
    -- provider (synced) or manual (added by a member: external_id is `manual:{id}`)
    origin TEXT NOT NULL DEFAULT 'provider',
    -- A member's overrides of the provider's fields ({name?, date?, status?}): they win over
    -- every later sync until cleared.
    manual JSONB NOT NULL DEFAULT '{}',
    -- A provider event a member deleted: kept as a tombstone so the next sync does not bring
    -- it back.
    deleted_at TIMESTAMPTZ,
    UNIQUE (circuit_id, external_id)
);

-- A division's ranking, one row per ranked athlete (the provider's athlete id).
CREATE TABLE circuit_rankings (
    circuit_id UUID NOT NULL REFERENCES circuits(id) ON DELETE CASCADE,
    division_id TEXT NOT NULL,
    athlete_external_id TEXT NOT NULL,
    org_id UUID NOT NULL,
    division_name TEXT NOT NULL,
    athlete_name TEXT NOT NULL,
    place BIGINT,
    points DOUBLE PRECISION,
    synced_at TIMESTAMPTZ NOT NULL,
    changed_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (circuit_id, division_id, athlete_external_id)
);

-- A roster athlete's results as a provider reports them (resync, import-results, standings),
-- keyed by provider, event and division; an event without a provider id is keyed by
-- `name:{event name}|{date}`.
CREATE TABLE competition_results (
    id UUID PRIMARY KEY,
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    athlete_id UUID NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    event_key TEXT NOT NULL,
    division TEXT NOT NULL,
    event_name TEXT NOT NULL,
    event_date TEXT,
    place BIGINT,
    points DOUBLE PRECISION,
    synced_at TIMESTAMPTZ NOT NULL,
    changed_at TIMESTAMPTZ NOT NULL,
    UNIQUE (athlete_id, provider, event_key, division)
);

-- Surf spots as the spot provider (spotsource) knows them, and which spot a training session's
-- spot name (or location) is: `backfill-spots` resolves each distinct name once (`outcome`
-- matched, no_match or ambiguous; unmatched names are asked again after 30 days).
CREATE TABLE spots (
    slug TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    region TEXT,
    country TEXT,
    latitude DOUBLE PRECISION,
    longitude DOUBLE PRECISION,
    synced_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE spot_names (
    name_key TEXT PRIMARY KEY,
    slug TEXT REFERENCES spots(slug),
    outcome TEXT NOT NULL,
    checked_at TIMESTAMPTZ NOT NULL
);
