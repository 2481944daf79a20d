-- A clip's media for the web (issue 38): the H.264 web rendition (and a lower one for long
-- videos), the poster frame and the scrub strip, made by the media queue's render job from the
-- original (or, for a clip with only an external source, from the stored processed video).
-- One row per clip; its life: shared/src/domain/footage/media.rs.
CREATE TABLE clip_media (
    clip_id TEXT PRIMARY KEY REFERENCES clips(id) ON DELETE CASCADE,
    org_id TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    -- Why it failed (a stable code and a message), null otherwise.
    status_code TEXT,
    status_message TEXT,
    -- The render job working on it now: what clients poll for progress.
    job_id TEXT,
    -- The poster frame (media::Image), cut from the source first so a page shows it while the
    -- rendition is made.
    poster TEXT,
    -- What was made: keys, sizes and dimensions (media::Manifest), null until ready.
    manifest TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
