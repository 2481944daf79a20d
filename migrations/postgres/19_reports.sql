-- Season reports (issue 16, docs/competition.md "Season reports"): one row per generated
-- report. The id is the generating job's id, so a retried job writes the same report; the
-- JSON and the printable HTML are objects in the sidecars store (`json_key`, `html_key`).
CREATE TABLE season_reports (
    id UUID PRIMARY KEY,
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    athlete_id UUID NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    label TEXT NOT NULL,
    period_from TEXT NOT NULL,
    period_to TEXT NOT NULL,
    json_key TEXT NOT NULL,
    html_key TEXT NOT NULL,
    html_bytes BIGINT NOT NULL,
    -- The headline figures, for lists without reading the objects.
    summary JSONB NOT NULL,
    created_by UUID,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX season_reports_athlete ON season_reports (athlete_id, created_at);
