-- Forecasts (issue 16; docs/forecasts.md). SQLite twin of postgres/16_forecasts.sql.

-- The forecast grid cells members asked about, so `forecasts-refresh` keeps them warm: one row
-- per cell (0.1 degree, keyed `{lat index}:{lon index}`), with the point the last request asked
-- for (a spot's coordinates and slug, or the coordinates asked) and when. Provider data like
-- `provider_cache`: it names no workspace and no member, so nothing in it belongs to one.
-- `requested_at` moves at most once an hour per cell (a read does not write every time).
CREATE TABLE forecast_cells (
    cell TEXT PRIMARY KEY,
    latitude DOUBLE PRECISION NOT NULL,
    longitude DOUBLE PRECISION NOT NULL,
    spot_slug TEXT,
    requested_at TEXT NOT NULL
);
CREATE INDEX forecast_cells_requested ON forecast_cells (requested_at);
CREATE INDEX spots_position ON spots (latitude, longitude);
CREATE INDEX training_sessions_starts ON training_sessions (starts_at);
