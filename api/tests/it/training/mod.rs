//! The training area: sessions, their rosters and waitlists, imports, and route permissions.

mod import;
mod permissions;
mod roster;
mod sessions;
