//! The athletes area: the roster, coach assignments, invites and the logins they lead to,
//! guardians and their consents, merges and the public profile.

pub mod fields;
pub mod values;

pub use fields::{AthleteFields, AthletePatch, Naming, RawAthlete, RawPatch};
pub use values::*;
