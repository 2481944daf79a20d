-- The same column on both databases (sqlite/31_delivery_send_marks.sql).
-- Issue 41: each delivery attempted once. The claimed attempt that began sending a delivery
-- (set, under its claim, right before a provider request; cleared when the delivery is closed
-- or put back): a run that takes the claim over and finds it set knows a request may have
-- reached the provider and does not send again.
ALTER TABLE notification_deliveries ADD COLUMN send_attempt BIGINT;
