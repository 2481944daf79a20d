-- Competition (issue 15): answers of the competition providers, cached with a TTL in the
-- database so every api process shares one copy (docs/competition.md). Keyed by provider and
-- query key (e.g. `event:200`); the value is our typed reading of the answer, so a row that is
-- served is one that parsed. Expired rows are refetched on read and purged by housekeeping.
CREATE TABLE provider_cache (
    provider TEXT NOT NULL,
    key TEXT NOT NULL,
    value JSONB NOT NULL,
    fetched_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (provider, key)
);
CREATE INDEX provider_cache_expires ON provider_cache (expires_at);

-- The heatsource organisations the syncs follow (HEATSOURCE_ORGANISATIONS), keyed by the
-- provider's id: `heatsource-orgs-sync` upserts them, `heatsource-sync` reads their events.
-- `data` is the organisation as read; `changed_at` moves only when `data` changed, so a re-run
-- that finds nothing new changes nothing but `synced_at`.
CREATE TABLE heatsource_organisations (
    provider_id TEXT PRIMARY KEY,
    short_name TEXT NOT NULL,
    name TEXT NOT NULL,
    data JSONB NOT NULL,
    synced_at TIMESTAMPTZ NOT NULL,
    changed_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX heatsource_organisations_short_name ON heatsource_organisations (short_name);

-- The events of the followed organisations with their divisions, heats and results, keyed by
-- the provider's id (`heatsource-sync`); same change rule as above.
CREATE TABLE heatsource_events (
    provider_id TEXT PRIMARY KEY,
    organisation_id TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT,
    data JSONB NOT NULL,
    synced_at TIMESTAMPTZ NOT NULL,
    changed_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX heatsource_events_organisation ON heatsource_events (organisation_id);
