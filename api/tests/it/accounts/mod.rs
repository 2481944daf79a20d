//! Accounts: sign-up, sign-in (web and phone), emailed links, workspace provisioning, deletion.

mod auth_cache;
mod deletion;
mod email_links;
mod sessions;
mod signup;
mod workspace;
