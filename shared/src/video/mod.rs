//! Video delivery (issue 10, "Video"): the signed stream token ([`token`]), the rules for
//! external origins ([`ssrf`]) and reading them ([`origin`]), and telling a video file by its
//! first bytes ([`sniff`]). The HTTP side (range semantics,
//! the routes) is in the api (`api/src/http/ranged.rs`, `api/src/areas/video.rs`).

pub mod origin;
pub mod sniff;
pub mod ssrf;
pub mod token;
