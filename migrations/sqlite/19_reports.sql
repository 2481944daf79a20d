-- Season reports (issue 16). SQLite twin of postgres/19_reports.sql.
CREATE TABLE season_reports (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    athlete_id TEXT NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    label TEXT NOT NULL,
    period_from TEXT NOT NULL,
    period_to TEXT NOT NULL,
    json_key TEXT NOT NULL,
    html_key TEXT NOT NULL,
    html_bytes BIGINT NOT NULL,
    summary TEXT NOT NULL,
    created_by TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX season_reports_athlete ON season_reports (athlete_id, created_at);
