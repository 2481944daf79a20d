//! The routes of jobs: a caller polls or cancels theirs; the admin's job and queue views.

use super::{GET, POST};
use crate::areas::jobs;
use crate::auth::Auth;
use crate::registry::{RouteDef, route};

#[rustfmt::skip]
pub(super) fn routes() -> Vec<RouteDef> {
    vec![
        route(GET, "/api/jobs/{id}", jobs::get)
            .auth(Auth::User).mobile()
            .area("jobs").summary("A job's status, progress, result and error (poll this)")
            .ok::<jobs::JobView>(200),
        route(POST, "/api/jobs/{id}/cancel", jobs::cancel)
            .auth(Auth::User).mobile()
            .area("jobs").summary("Cancel a job (kinds that allow it)")
            .ok::<jobs::JobView>(200),
        route(POST, "/api/admin/jobs/{id}/retry", jobs::retry)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Re-queue a failed or cancelled job with fresh attempts")
            .ok::<jobs::JobAccepted>(202),
        route(GET, "/api/admin/jobs", jobs::admin_list)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Every job, newest first (filters: status, kind, queue, orgId, userId, from, to; limit, offset)")
            .query_of::<jobs::AdminJobsQuery>().paginated()
            .ok::<jobs::AdminJobPage>(200),
        route(GET, "/api/admin/queues", jobs::admin_queues)
            .auth(Auth::Admin).mobile()
            .area("admin").summary("Per queue: waiting (depth), delayed, running, failed in the last hour, oldest waiting")
            .ok::<jobs::QueuesView>(200),
    ]
}
