//! Video delivery (issue 10, "Video"): the signed stream token ([`token`]), the rules for
//! external origins ([`ssrf`]) and reading them ([`origin`]), and telling a video file by its
//! first bytes ([`sniff`]). The HTTP side (range semantics,
//! the routes) is in the api (`api/src/http/ranged.rs`, `api/src/areas/video.rs`).

/// hyper's read buffer on every upstream connection the video proxy streams from (S3, an
/// external origin): what one proxied stream holds while its player reads slowly. hyper's
/// default (about 408 KiB, fixed in the S3 SDK's and reqwest's clients) made it about 1.2 MiB
/// per stream (`scripts/bench-video`).
pub const UPSTREAM_READ_BUFFER: usize = 32 * 1024;

pub mod origin;
pub mod plain;
pub mod sniff;
pub mod ssrf;
pub mod token;
