//! The wearable area's value types: a session's source and status, how a clip was synced to
//! the watch, the sample streams, and what the queries store as given: an encoded sample chunk
//! (made by `domain::wearable::codec`) and a detected ride (made by `domain::wearable::detect`).

crate::text_enum! {
    /// How a session arrived: samples in the request (`upload`), a bulk sample file through a
    /// signed URL (`file`), a GPX or FIT file (`gpx`, `fit`) or reported while it happened
    /// (`live`).
    pub enum SessionSource as WatchSessionSource { Upload = "upload", File = "file", Gpx = "gpx", Fit = "fit", Live = "live" }
}

crate::text_enum! {
    /// `awaiting_upload` (a signed URL was given, the file is not read yet), `live` (reporting),
    /// `processing` (a job reads or derives it), `ready`, `failed` (the file could not be read).
    pub enum SessionStatus as WatchSessionStatus {
        AwaitingUpload = "awaiting_upload",
        Live = "live",
        Processing = "processing",
        Ready = "ready",
        Failed = "failed",
    }
}

crate::text_enum! {
    /// How a clip's offset to the watch was found: the two devices' `/api/time` measurements
    /// (`clock`), matching ride windows (`rides`), or set by a coach (`manual`).
    pub enum SyncMethod { Clock = "clock", Rides = "rides", Manual = "manual" }
}

crate::text_enum! {
    /// A sample stream of a wearable session.
    pub enum Stream { Gps = "gps", Hr = "hr", Imu = "imu" }
}

/// One encoded chunk, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    pub stream: Stream,
    pub start_ms: i64,
    pub end_ms: i64,
    pub count: i64,
    pub data: Vec<u8>,
}

/// One detected ride.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Ride {
    pub start_ms: i64,
    pub end_ms: i64,
    pub distance_m: f64,
    pub top_speed_kmh: f64,
    pub mean_speed_kmh: f64,
    /// The ride's overall direction, degrees clockwise from north.
    #[serde(default)]
    pub heading_deg: Option<f64>,
    /// Its direction relative to the shore: 0 straight in, positive to the surfer's right
    /// (facing the shore), negative to the left; none when the shore side is unknown.
    #[serde(default)]
    pub shore_angle_deg: Option<f64>,
}
