//! What every area's tests share, taken with `use crate::support::*;`: the harness (`app`:
//! the app built in-process on a fresh database, requests, responses) and the fixtures, each
//! defined once (`accounts`: coaches, members, admins; `athletes`: athletes, logins, guardians; `billing`: the fake payment processor, webhook deliveries;
//! `competition`: the fake competition providers, hand-built synced events and rankings, results, attended sessions and wearable rides; `messaging`, `notifications`, `pages`: reading HTML pages and their forms, `process`: the `api` binary as a child process, `queue`, `training`, `video`: stream tokens, stored videos, a
//! loopback video origin; `wearable`: generated labelled watch sessions). A test file takes its set-up from here, never
//! from another test module; a set-up two files need becomes a fixture here.

mod accounts;
mod app;
mod athletes;
mod billing;
mod competition;
mod footage;
mod messaging;
mod notifications;
mod pages;
mod process;
mod queue;
mod training;
mod video;
mod wearable;

pub use accounts::*;
pub use app::*;
pub use athletes::*;
pub use billing::*;
pub use competition::*;
pub use footage::*;
pub use messaging::*;
pub use notifications::*;
pub use pages::*;
pub use process::*;
pub use queue::*;
pub use training::*;
pub use video::*;
pub use wearable::*;
