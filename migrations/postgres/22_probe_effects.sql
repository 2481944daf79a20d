-- The diagnostics probe's side effect (`jobs::kinds::Probe::effect`, `jobs::diagnostics`): how
-- the chaos tests count that an effect lands once however often its job is re-run.
-- `probe_effects` is an append-only ledger with no unique key, so an effect applied twice
-- would show as two rows; `probe_effect_keys` is the "already applied" mark the job claims in
-- the same transaction as it appends to the ledger.
CREATE TABLE probe_effect_keys (
    effect_key TEXT PRIMARY KEY,
    job_id UUID NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE probe_effects (
    id UUID PRIMARY KEY,
    effect_key TEXT NOT NULL,
    job_id UUID NOT NULL,
    attempt BIGINT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX probe_effects_key ON probe_effects (effect_key);
