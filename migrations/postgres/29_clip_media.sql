-- A clip's media for the web (issue 38): the H.264 web rendition (and a lower one for long
-- videos), the poster frame and the scrub strip, made by the media queue's render job from the
-- original (or, for a clip with only an external source, from the stored processed video).
-- One row per clip; its life: shared/src/domain/footage/media.rs.
CREATE TABLE clip_media (
    clip_id UUID PRIMARY KEY REFERENCES clips(id) ON DELETE CASCADE,
    org_id UUID NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    -- Why it failed (a stable code and a message), null otherwise.
    status_code TEXT,
    status_message TEXT,
    -- The render job working on it now: what clients poll for progress.
    job_id UUID,
    -- The poster frame (media::Image), cut from the source first so a page shows it while the
    -- rendition is made.
    poster JSONB,
    -- What was made: keys, sizes and dimensions (media::Manifest), null until ready.
    manifest JSONB,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
