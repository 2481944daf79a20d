-- Reviews: a coach's review of a footage session for its athlete, built from the clips'
-- measured ride windows (keypoints), voice notes (transcribed by a job when a model is
-- configured), read on the phone with receipts and replies. Coaching feedback generated from
-- stats and keypoints, every version kept. Statuses: shared/src/domain/reviews/status.rs.

CREATE TABLE reviews (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL REFERENCES footage_sessions(id) ON DELETE CASCADE,
    athlete_id TEXT REFERENCES athletes(id) ON DELETE SET NULL,
    title TEXT NOT NULL,
    summary TEXT,
    status TEXT NOT NULL,
    -- The build job now or last working on it.
    job_id TEXT,
    built_at TEXT,
    published_at TEXT,
    published_by TEXT,
    created_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX reviews_session ON reviews (session_id, created_at);
CREATE INDEX reviews_org ON reviews (org_id, created_at);
CREATE INDEX reviews_athlete ON reviews (athlete_id, status);

-- Timed annotations on a clip. A suggested keypoint carries the key of the measurement it came
-- from (a ride window or a maneuver), so suggesting again adds nothing twice.
CREATE TABLE review_keypoints (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    review_id TEXT NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
    clip_id TEXT NOT NULL REFERENCES clips(id) ON DELETE CASCADE,
    at_ms BIGINT NOT NULL,
    end_ms BIGINT,
    body TEXT NOT NULL,
    drawing TEXT,
    maneuver_type TEXT,
    origin TEXT NOT NULL,
    suggestion_key TEXT,
    -- A suggested keypoint the coach deleted: kept hidden so suggesting again does not bring it back.
    dismissed_at TEXT,
    created_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (review_id, suggestion_key)
);
CREATE INDEX review_keypoints_review ON review_keypoints (review_id, clip_id, at_ms);

CREATE TABLE review_voice_notes (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    review_id TEXT NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
    keypoint_id TEXT REFERENCES review_keypoints(id) ON DELETE SET NULL,
    object_key TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size_bytes BIGINT NOT NULL,
    transcript TEXT,
    -- pending, done, skipped (no model configured) or failed; the reason says why.
    transcript_status TEXT NOT NULL,
    transcript_reason TEXT,
    transcript_model TEXT,
    created_by TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX review_voice_notes_review ON review_voice_notes (review_id, created_at);

-- Delivered and opened, once per reader and device.
CREATE TABLE review_receipts (
    review_id TEXT NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    device_id TEXT NOT NULL,
    delivered_at TEXT NOT NULL,
    opened_at TEXT,
    PRIMARY KEY (review_id, user_id, device_id)
);

CREATE TABLE review_replies (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    review_id TEXT NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
    author_user_id TEXT REFERENCES users(id) ON DELETE SET NULL,
    kind TEXT NOT NULL,
    body TEXT,
    object_key TEXT,
    content_type TEXT,
    size_bytes BIGINT,
    client_reply_id TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (review_id, author_user_id, client_reply_id)
);
CREATE INDEX review_replies_review ON review_replies (review_id, created_at);

-- Generated coaching feedback: per clip, per batch of clips, or an athlete's progress across
-- sessions; with its inputs, the model and its version. Regenerating adds a version.
CREATE TABLE coaching_feedback (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    subject TEXT NOT NULL,
    version BIGINT NOT NULL,
    session_id TEXT REFERENCES footage_sessions(id) ON DELETE CASCADE,
    clip_id TEXT REFERENCES clips(id) ON DELETE CASCADE,
    athlete_id TEXT REFERENCES athletes(id) ON DELETE CASCADE,
    input TEXT NOT NULL,
    output TEXT,
    model TEXT,
    model_version TEXT,
    job_id TEXT,
    created_by TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (org_id, subject, version)
);
CREATE INDEX coaching_feedback_session ON coaching_feedback (session_id, created_at);
