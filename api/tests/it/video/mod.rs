//! Video delivery: the stream token, range semantics over stored objects and external
//! origins, the SSRF rules (through `/api/video/check`, the stream route and the origin
//! policy itself, with an injected resolver).

mod check;
mod kernel_sent;
mod ranges;
mod ssrf;
mod tokens;
