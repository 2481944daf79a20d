//! Workspaces: roles, owners, modules, member invites, the audit log, members.

mod audit;
mod invites;
mod members;
mod modules;
mod roles;
