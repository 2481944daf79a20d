-- Wearable (watch) data: sessions, their samples (compressed chunks, see
-- shared/src/domain/wearable/codec.rs), detected rides (per detector version), ground-truth
-- labels and clip-to-watch alignments. docs/wearable.md.

CREATE TABLE wearable_sessions (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    -- The wearer, and their login when they sent it themselves.
    athlete_id TEXT REFERENCES athletes(id) ON DELETE SET NULL,
    wearer_user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
    -- The session's coach: with a workspace admin, the only one who may delete it.
    coach_user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
    training_session_id TEXT REFERENCES training_sessions(id) ON DELETE SET NULL,
    -- upload (samples in the body), file (a bulk sample file), gpx, live
    source TEXT NOT NULL,
    -- awaiting_upload, live, processing, ready, failed
    status TEXT NOT NULL,
    status_message TEXT,
    device TEXT,
    client_session_id TEXT,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    last_seen_at TEXT,
    gps_count BIGINT NOT NULL DEFAULT 0,
    hr_count BIGINT NOT NULL DEFAULT 0,
    imu_count BIGINT NOT NULL DEFAULT 0,
    stored_bytes BIGINT NOT NULL DEFAULT 0,
    -- The bulk sample file in raw-uploads while it waits to be read, and its format.
    upload_key TEXT,
    upload_format TEXT,
    detector_version TEXT,
    derived_at TEXT,
    summary TEXT,
    job_id TEXT,
    created_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (org_id, client_session_id)
);
CREATE INDEX wearable_sessions_org ON wearable_sessions (org_id, started_at);
CREATE INDEX wearable_sessions_status ON wearable_sessions (org_id, status, last_seen_at);

-- Samples: up to 900 GPS or heart-rate samples or 6,000 IMU samples per chunk.
CREATE TABLE wearable_chunks (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES wearable_sessions(id) ON DELETE CASCADE,
    stream TEXT NOT NULL,
    start_ms BIGINT NOT NULL,
    end_ms BIGINT NOT NULL,
    sample_count BIGINT NOT NULL,
    data BLOB NOT NULL
);
CREATE INDEX wearable_chunks_session ON wearable_chunks (session_id, stream, start_ms);

-- Ride windows (watch clock, Unix ms), each with the detector version that made it.
CREATE TABLE wearable_rides (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL REFERENCES wearable_sessions(id) ON DELETE CASCADE,
    detector_version TEXT NOT NULL,
    idx BIGINT NOT NULL,
    start_ms BIGINT NOT NULL,
    end_ms BIGINT NOT NULL,
    distance_m DOUBLE PRECISION NOT NULL,
    top_speed_kmh DOUBLE PRECISION NOT NULL,
    mean_speed_kmh DOUBLE PRECISION NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (session_id, detector_version, idx)
);

-- Ground truth: rides a coach marked.
CREATE TABLE wearable_labels (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL REFERENCES wearable_sessions(id) ON DELETE CASCADE,
    start_ms BIGINT NOT NULL,
    end_ms BIGINT NOT NULL,
    note TEXT,
    created_by TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX wearable_labels_session ON wearable_labels (session_id, start_ms);
CREATE INDEX wearable_labels_org ON wearable_labels (org_id, session_id);

-- Clip-to-watch alignment: watch time = camera time + offset_ms.
CREATE TABLE wearable_syncs (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    clip_id TEXT NOT NULL UNIQUE REFERENCES clips(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL REFERENCES wearable_sessions(id) ON DELETE CASCADE,
    offset_ms BIGINT NOT NULL,
    -- clock, rides, manual
    method TEXT NOT NULL,
    confidence DOUBLE PRECISION NOT NULL,
    details TEXT NOT NULL,
    created_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX wearable_syncs_session ON wearable_syncs (session_id);
