-- Strategy (issue 16). SQLite twin of postgres/15_strategy.sql (ids and times TEXT, JSON as
-- TEXT).

ALTER TABLE circuits ADD COLUMN rules TEXT NOT NULL DEFAULT '{}';

CREATE TABLE strategy_goals (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    athlete_id TEXT NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    circuit_id TEXT NOT NULL REFERENCES circuits(id) ON DELETE CASCADE,
    division_id TEXT,
    target_rank INTEGER,
    note TEXT,
    created_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (athlete_id, circuit_id)
);
CREATE INDEX strategy_goals_org ON strategy_goals (org_id);
