-- Resumable (tus) uploads, second step: each PATCH's bytes are one part object in raw-uploads,
-- recorded here in the transaction that moves the upload's offset (so two PATCHes racing for
-- the same offset leave exactly one part); the join job reads them in order.
CREATE TABLE clip_upload_parts (
    upload_id TEXT NOT NULL REFERENCES clip_uploads(id) ON DELETE CASCADE,
    part_offset BIGINT NOT NULL,
    size BIGINT NOT NULL,
    object_key TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (upload_id, part_offset)
);

-- What the first bytes say the file is, the job joining the parts, and why an upload failed.
ALTER TABLE clip_uploads ADD COLUMN content_type TEXT;
ALTER TABLE clip_uploads ADD COLUMN job_id TEXT;
ALTER TABLE clip_uploads ADD COLUMN failure TEXT;
