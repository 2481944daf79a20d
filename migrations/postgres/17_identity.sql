-- Cross-source identity and dedup (issue 16; docs/competition.md, "Identity and dedup").
-- PostgreSQL twin of sqlite/17_identity.sql.

-- A provider profile a member said is not this athlete (`POST /api/identity/links` with
-- decision reject): never suggested for the athlete again until the rejection is removed
-- (`DELETE /api/identity/links`). `name` is the candidate's name as it was shown, a label only;
-- `score` what it scored then. A merge moves the merged-away athlete's rejections.
CREATE TABLE identity_rejections (
    id UUID PRIMARY KEY,
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    athlete_id UUID NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    external_id TEXT NOT NULL,
    name TEXT,
    score DOUBLE PRECISION,
    created_by UUID,
    created_at TIMESTAMPTZ NOT NULL,
    UNIQUE (athlete_id, provider, external_id)
);
CREATE INDEX identity_rejections_org ON identity_rejections (org_id, created_at, id);

-- A duplicate suggestion a member dismissed (`DELETE /api/dedup/suggestions`): the pair is
-- not suggested again. Stored once per pair, the smaller id first. A merge moves the
-- merged-away athlete's dismissals to the athlete that stays.
CREATE TABLE dedup_dismissals (
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    athlete_a UUID NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    athlete_b UUID NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
    created_by UUID,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (athlete_a, athlete_b),
    CHECK (athlete_a < athlete_b)
);
CREATE INDEX dedup_dismissals_org ON dedup_dismissals (org_id);
CREATE INDEX dedup_dismissals_b ON dedup_dismissals (athlete_b);

-- The workspace's links, newest first (`GET /api/identity/links`).
CREATE INDEX athlete_provider_links_org_created ON athlete_provider_links (org_id, created_at, id);
