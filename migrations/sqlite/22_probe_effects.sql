-- The diagnostics probe's side effect. SQLite twin of postgres/22_probe_effects.sql.
CREATE TABLE probe_effect_keys (
    effect_key TEXT PRIMARY KEY,
    job_id TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE probe_effects (
    id TEXT PRIMARY KEY,
    effect_key TEXT NOT NULL,
    job_id TEXT NOT NULL,
    attempt BIGINT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX probe_effects_key ON probe_effects (effect_key);
