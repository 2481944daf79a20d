-- A ride's direction (issue 40): its bearing and its angle to the shoreward direction (0 straight
-- in, positive to the surfer's right facing the shore); null for rides of older detectors.
ALTER TABLE wearable_rides ADD COLUMN heading_deg DOUBLE PRECISION;
ALTER TABLE wearable_rides ADD COLUMN shore_angle_deg DOUBLE PRECISION;
