-- Competition (issue 15): answers of the competition providers, cached with a TTL in the
-- database so every api process shares one copy (docs/competition.md). Keyed by provider and
-- query key (e.g. `event:200`); the value is our typed reading of the answer, so a row that is
-- served is one that parsed. Expired rows are refetched on read and purged by housekeeping.
CREATE TABLE provider_cache (
    provider TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    fetched_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (provider, key)
);
CREATE INDEX provider_cache_expires ON provider_cache (expires_at);
