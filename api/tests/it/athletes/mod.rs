//! The athletes area: the roster, coaches, invites and claims, guardians' consent, the public
//! profile, imports, merges, club enrollment and provider links.

mod claim;
mod coaches;
mod consent;
mod crud;
mod enrollment;
mod import;
mod invites;
mod merge;
mod provider;
mod public_profile;
