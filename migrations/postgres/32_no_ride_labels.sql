-- A coach's "no rides in this session" mark (issue 40): a label row spanning the session that
-- says it was watched and holds no ride, so that the accuracy counts its detected windows as
-- false rides instead of leaving the session out as unlabelled.
ALTER TABLE wearable_labels ADD COLUMN no_rides BOOLEAN NOT NULL DEFAULT FALSE;
