//! The competition module's people, reports and forecasts pages (issue 39, `docs/web.md`):
//! sub-pages of `/w/{ws}/competition/…`. The permissions are the JSON routes'
//! (`routes/competition.rs`): reading is `competition.read`, changing a note, an identity link,
//! the achievements is `competition.manage`; the watchlist is each member's own, so
//! `competition.read` changes it, as `POST /api/watchlist` does.

use super::{GET, POST};
use crate::areas::desk::competition_b::{
    achievements, forecasts, identity, opponents, reports, watchlist,
};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};
use shared::authz::{Module, Perm};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    let read = Auth::desk(Perm::CompetitionRead).in_module(Module::Competition);
    let manage = Auth::desk(Perm::CompetitionManage).in_module(Module::Competition);
    vec![
        route(GET, "/w/{ws}/competition/opponents", opponents::show)
            .auth(read).area("web").summary("Opponents: notes on opponents (athlete, 25 a page, offset), each with the head-to-head record of the athlete it is for; the chosen athlete's suggested opponents with their records; the form to write a note"),
        route(POST, "/w/{ws}/competition/opponents", opponents::create)
            .auth(manage).area("web").summary("Write a note on an opponent, a roster or provider athlete (as POST /api/opponents)"),
        route(POST, "/w/{ws}/competition/opponents/{id}/delete", opponents::remove)
            .auth(manage).area("web").summary("Delete a note on an opponent (as DELETE /api/opponents/{id})"),
        route(GET, "/w/{ws}/competition/watchlist", watchlist::show)
            .auth(read).area("web").summary("Watchlist: the member's own followed athletes and events (kind, 25 a page, offset), the form to watch a roster athlete, a circuit event or a provider's"),
        route(POST, "/w/{ws}/competition/watchlist", watchlist::add)
            .auth(read).area("web").summary("Watch an athlete or event (as POST /api/watchlist); already watched says so"),
        route(POST, "/w/{ws}/competition/watchlist/{id}/remove", watchlist::remove)
            .auth(read).area("web").summary("Stop watching (as DELETE /api/watchlist/{id})"),
        route(GET, "/w/{ws}/competition/identity", identity::show)
            .auth(read).area("web").summary("Identity: an athlete's scored provider candidates with what matched and each provider's state (athlete), the links and rejections (25 a page, offset), duplicate roster athletes with their merge page (with athletes.read)"),
        route(POST, "/w/{ws}/competition/identity/links", identity::decide)
            .auth(manage).area("web").summary("Confirm or reject a candidate profile for an athlete (as POST /api/identity/links)"),
        route(POST, "/w/{ws}/competition/identity/links/remove", identity::remove)
            .auth(manage).area("web").summary("Remove an athlete's link to a profile or its rejection (as DELETE /api/identity/links)"),
        route(POST, "/w/{ws}/competition/identity/dismiss", identity::dismiss)
            .auth(manage).area("web").summary("Dismiss a suggested duplicate pair (as DELETE /api/dedup/suggestions)"),
        route(GET, "/w/{ws}/competition/achievements", achievements::show)
            .auth(read).area("web").summary("Achievements: the workspace's definitions, an athlete's awards (athlete, 25 a page, offset)"),
        route(POST, "/w/{ws}/competition/achievements/seed", achievements::seed)
            .auth(manage).area("web").summary("Add the default achievement definitions the workspace lacks (as POST /api/achievements/seed)"),
        route(POST, "/w/{ws}/competition/achievements/check", achievements::check)
            .auth(manage).area("web").summary("Check one athlete now (athleteId), or every athlete as a job: its progress page, then back (as POST /api/achievements/check)"),
        route(GET, "/w/{ws}/competition/reports", reports::show)
            .auth(read).area("web").summary("Season reports: an athlete's reports (athlete, 25 a page, offset) with their headline figures, view and download links; the form to make one"),
        route(POST, "/w/{ws}/competition/reports", reports::generate)
            .auth(read).area("web").summary("Make a season report (athleteId; season, or from and to) as a job: its progress page, then back (as POST /api/reports/season/{athleteId})"),
        route(GET, "/w/{ws}/competition/reports/{athleteId}/{reportId}", reports::view)
            .auth(read).area("web").summary("One season report on the page, read from its stored document"),
        route(GET, "/w/{ws}/competition/reports/{athleteId}/{reportId}/download", reports::download)
            .auth(read).area("web").summary("A season report's printable HTML as a download (as GET /api/reports/season/{athleteId}/{reportId}/html)"),
        route(GET, "/w/{ws}/competition/forecasts", forecasts::show)
            .auth(read).area("web").summary("Surf forecasts: the club's spots (the training sessions' spot names), a spot search (q), one spot's forecast (spot) every 3 hours with its sessions this fortnight and the swell and wind beside each ride (as GET /api/surf/forecast); a provider not configured is explained"),
    ]
}
