-- Strategy (issue 16, docs/competition.md "Strategy"): a circuit's scoring rules and the
-- athletes' qualification goals.

-- The rules the standings are counted under ({resultsToCount?, qualificationPlace?,
-- pointsTable?}); a field left out takes the documented default.
ALTER TABLE circuits ADD COLUMN rules JSONB NOT NULL DEFAULT '{}';

-- One goal per athlete and circuit: reach `target_rank` (or, when null, the circuit's
-- qualification place) in `division_id` (or the athlete's division).
CREATE TABLE strategy_goals (
    id UUID PRIMARY KEY,
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    athlete_id UUID NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    circuit_id UUID NOT NULL REFERENCES circuits(id) ON DELETE CASCADE,
    division_id TEXT,
    target_rank INTEGER,
    note TEXT,
    created_by UUID,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    UNIQUE (athlete_id, circuit_id)
);
CREATE INDEX strategy_goals_org ON strategy_goals (org_id);
