//! Every route of the service, with its auth policy: one row per route, in one function per
//! area (`routes/<area>.rs`); `registry()` lists the areas. Reading these files answers "who may
//! call what". Public routes say why they are public. Routes are added here and nowhere else (a
//! test fails on a route the OpenAPI document lacks, or on an anonymous call that is not
//! refused). The tables are `#[rustfmt::skip]`: a row keeps its policy and summary on lines of
//! their own.

mod accounts;
mod admin;
mod athletes;
mod billing;
mod competition;
mod console;
mod cron;
mod desk;
mod desk_billing;
mod desk_competition;
mod desk_competition_b;
mod footage;
mod jobs;
mod messaging;
mod pages;
mod reviews;
mod training;
mod tv;
mod wearable;
mod workspaces;

use crate::registry::Registry;
use axum::http::Method;

const GET: Method = Method::GET;
const POST: Method = Method::POST;
const PATCH: Method = Method::PATCH;
const PUT: Method = Method::PUT;
const DELETE: Method = Method::DELETE;
const OPTIONS: Method = Method::OPTIONS;

/// Every route, area by area. The order is the router's and the OpenAPI document's.
pub fn registry() -> Registry {
    let areas = [
        accounts::routes(),
        workspaces::routes(),
        billing::routes(),
        admin::routes(),
        tv::routes(),
        athletes::routes(),
        training::routes(),
        messaging::routes(),
        jobs::routes(),
        footage::routes(),
        reviews::routes(),
        wearable::routes(),
        competition::routes(),
        pages::routes(),
        desk::routes(),
        desk_billing::routes(),
        desk_competition::routes(),
        desk_competition_b::routes(),
        console::routes(),
        cron::routes(),
    ];
    Registry::new(areas.into_iter().flatten().collect())
}
