-- Reviews: a coach's review of a footage session for its athlete, built from the clips'
-- measured ride windows (keypoints), voice notes (transcribed by a job when a model is
-- configured), read on the phone with receipts and replies. Coaching feedback generated from
-- stats and keypoints, every version kept. Statuses: shared/src/domain/reviews/status.rs.

CREATE TABLE reviews (
    id UUID PRIMARY KEY,
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    session_id UUID NOT NULL REFERENCES footage_sessions(id) ON DELETE CASCADE,
    athlete_id UUID REFERENCES athletes(id) ON DELETE SET NULL,
    title TEXT NOT NULL,
    summary TEXT,
    status TEXT NOT NULL,
    -- The build job now or last working on it.
    job_id UUID,
    built_at TIMESTAMPTZ,
    published_at TIMESTAMPTZ,
    published_by UUID,
    created_by UUID,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX reviews_session ON reviews (session_id, created_at);
CREATE INDEX reviews_org ON reviews (org_id, created_at);
CREATE INDEX reviews_athlete ON reviews (athlete_id, status);

-- Timed annotations on a clip. A suggested keypoint carries the key of the measurement it came
-- from (a ride window or a maneuver), so suggesting again adds nothing twice.
CREATE TABLE review_keypoints (
    id UUID PRIMARY KEY,
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    review_id UUID NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
    clip_id UUID NOT NULL REFERENCES clips(id) ON DELETE CASCADE,
    at_ms BIGINT NOT NULL,
    end_ms BIGINT,
    body TEXT NOT NULL,
    drawing JSONB,
    maneuver_type TEXT,
    origin TEXT NOT NULL,
    suggestion_key TEXT,
    -- A suggested keypoint the coach deleted: kept hidden so suggesting again does not bring it back.
    dismissed_at TIMESTAMPTZ,
    created_by UUID,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    UNIQUE (review_id, suggestion_key)
);
CREATE INDEX review_keypoints_review ON review_keypoints (review_id, clip_id, at_ms);

CREATE TABLE review_voice_notes (
    id UUID PRIMARY KEY,
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    review_id UUID NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
    keypoint_id UUID REFERENCES review_keypoints(id) ON DELETE SET NULL,
    object_key TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size_bytes BIGINT NOT NULL,
    transcript TEXT,
    -- pending, done, skipped (no model configured) or failed; the reason says why.
    transcript_status TEXT NOT NULL,
    transcript_reason TEXT,
    transcript_model TEXT,
    created_by UUID,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX review_voice_notes_review ON review_voice_notes (review_id, created_at);

-- Delivered and opened, once per reader and device.
CREATE TABLE review_receipts (
    review_id UUID NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
    user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    device_id TEXT NOT NULL,
    delivered_at TIMESTAMPTZ NOT NULL,
    opened_at TIMESTAMPTZ,
    PRIMARY KEY (review_id, user_id, device_id)
);

CREATE TABLE review_replies (
    id UUID PRIMARY KEY,
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    review_id UUID NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
    author_user_id UUID REFERENCES users(id) ON DELETE SET NULL,
    kind TEXT NOT NULL,
    body TEXT,
    object_key TEXT,
    content_type TEXT,
    size_bytes BIGINT,
    client_reply_id TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    UNIQUE (review_id, author_user_id, client_reply_id)
);
CREATE INDEX review_replies_review ON review_replies (review_id, created_at);

-- Generated coaching feedback: per clip, per batch of clips, or an athlete's progress across
-- sessions; with its inputs, the model and its version. Regenerating adds a version.
CREATE TABLE coaching_feedback (
    id UUID PRIMARY KEY,
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    subject TEXT NOT NULL,
    version BIGINT NOT NULL,
    session_id UUID REFERENCES footage_sessions(id) ON DELETE CASCADE,
    clip_id UUID REFERENCES clips(id) ON DELETE CASCADE,
    athlete_id UUID REFERENCES athletes(id) ON DELETE CASCADE,
    input JSONB NOT NULL,
    output JSONB,
    model TEXT,
    model_version TEXT,
    job_id UUID,
    created_by UUID,
    created_at TIMESTAMPTZ NOT NULL,
    UNIQUE (org_id, subject, version)
);
CREATE INDEX coaching_feedback_session ON coaching_feedback (session_id, created_at);
