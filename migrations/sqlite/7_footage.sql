-- Footage: clips of a footage session, their analysis, coach-corrected maneuver labels,
-- resumable (tus) uploads and spreadsheet batch uploads. Clip statuses and the transitions
-- between them: shared/src/domain/footage/status.rs and docs/footage.md.

CREATE TABLE batch_upload_jobs (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    -- SHA-256 of the manifest's normalized rows: the same manifest is the same batch.
    manifest_sha256 TEXT NOT NULL,
    file_name TEXT NOT NULL,
    format TEXT NOT NULL,
    manifest TEXT NOT NULL,
    row_count BIGINT NOT NULL,
    created_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (org_id, manifest_sha256)
);

CREATE TABLE clips (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL REFERENCES footage_sessions(id) ON DELETE CASCADE,
    athlete_id TEXT REFERENCES athletes(id) ON DELETE SET NULL,
    file_name TEXT NOT NULL,
    status TEXT NOT NULL,
    -- Why the clip failed or was cancelled (a stable code and a message), null otherwise.
    status_code TEXT,
    status_message TEXT,
    progress BIGINT NOT NULL DEFAULT 0,
    -- The uploaded original in raw-uploads, or an allow-listed external URL.
    raw_key TEXT,
    source_url TEXT,
    size_bytes BIGINT,
    content_type TEXT,
    probe TEXT,
    -- The analysis backend's job: our client request token (clip id and generation) and its id.
    analysis_generation BIGINT NOT NULL DEFAULT 0,
    analysis_id TEXT,
    analysis_result TEXT,
    -- The job working on the clip now (probe, submit, poll, store): what clients poll.
    job_id TEXT,
    stats TEXT,
    video_key TEXT,
    video_size BIGINT,
    overlay_key TEXT,
    overlay_size BIGINT,
    batch_id TEXT REFERENCES batch_upload_jobs(id) ON DELETE SET NULL,
    batch_row BIGINT,
    recorded_at TEXT,
    created_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    status_changed_at TEXT NOT NULL,
    UNIQUE (batch_id, batch_row)
);
CREATE INDEX clips_session ON clips (session_id, created_at);
CREATE INDEX clips_org_status ON clips (org_id, status);
CREATE INDEX clips_analysis ON clips (analysis_id);

-- Maneuver labels: a coach's verdict on a predicted maneuver (kept beside the prediction,
-- which stays in clips.stats) or a maneuver the model missed.
CREATE TABLE clip_labels (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    clip_id TEXT NOT NULL REFERENCES clips(id) ON DELETE CASCADE,
    -- Index into the clip's predicted maneuvers; null for an added maneuver.
    prediction_index BIGINT,
    predicted_type TEXT,
    predicted_confidence REAL,
    verdict TEXT NOT NULL,
    corrected_type TEXT,
    start_ms BIGINT NOT NULL,
    end_ms BIGINT NOT NULL,
    note TEXT,
    labelled_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (clip_id, prediction_index)
);
CREATE INDEX clip_labels_org ON clip_labels (org_id, updated_at);

-- tus uploads in progress: each PATCH's bytes are one part object in raw-uploads under
-- `tus/<id>/<offset>`; the completed upload is joined into the clip's raw object.
CREATE TABLE clip_uploads (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL,
    client_upload_id TEXT,
    session_id TEXT NOT NULL REFERENCES footage_sessions(id) ON DELETE CASCADE,
    clip_id TEXT REFERENCES clips(id) ON DELETE CASCADE,
    length BIGINT NOT NULL,
    upload_offset BIGINT NOT NULL DEFAULT 0,
    parts BIGINT NOT NULL DEFAULT 0,
    metadata TEXT NOT NULL,
    status TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (org_id, user_id, client_upload_id)
);
CREATE INDEX clip_uploads_expiry ON clip_uploads (status, expires_at);
