//! The cron routes: one per scheduled task, GET (what cron services send) and POST.

use super::{GET, POST};
use crate::areas::{cron, jobs};
use crate::auth::Auth;
use crate::registry::{RouteDef, route};

pub(super) fn routes() -> Vec<RouteDef> {
    let mut rows = vec![];
    for &task in shared::job::scheduled::CronTask::ALL {
        let path = format!("/api/cron/{task}");
        for method in [GET, POST] {
            rows.push(
                route(method, &path, cron::run)
                    .auth(Auth::Cron)
                    .area("cron")
                    .summary(task.info().summary)
                    .ok::<jobs::JobAccepted>(202),
            );
        }
    }
    rows
}
