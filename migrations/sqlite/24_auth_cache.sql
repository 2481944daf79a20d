-- The PostgreSQL twin adds the auth cache's change notices (triggers and LISTEN/NOTIFY); SQLite
-- has no channel between processes, so its api processes bound staleness by the cache's TTL
-- (api/src/auth/cache.rs). Same number on both databases: one schema version.

-- The athletes list filters one workspace and sorts by name (`repo::athletes::list`): walking
-- this index in order stops after the page instead of sorting every athlete of the workspace.
CREATE INDEX athletes_org_sort ON athletes (org_id, last_name, first_name, id);
