//! Platform moderation of message reports. Admins see the reported message's text even after
//! removal: that is what they judge.

use crate::db::{Db, Id};
use crate::domain::Actor;
use crate::error::{Error, Result, Validator};
use crate::repo::audit;
use crate::repo::messaging::{self, RemovedReason, ReportOutcome, ReportRow, ReportStatus};
use serde_json::json;

/// The moderation queue's filters.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReportFilter {
    pub status: Option<ReportStatus>,
    pub org: Option<Id>,
}

impl ReportFilter {
    pub fn parse(status: Option<&str>, org: Option<Id>) -> Result<ReportFilter> {
        let mut v = Validator::new();
        let status = status.and_then(|s| v.choice_of::<ReportStatus>("status", s));
        v.finish()?;
        Ok(ReportFilter { status, org })
    }
}

/// The moderation queue, newest first.
pub async fn list(db: &Db, f: ReportFilter, limit: i64, offset: i64) -> Result<Vec<ReportRow>> {
    let mut c = db.acquire().await?;
    Ok(messaging::list_reports(&mut c, f.status, f.org, limit, offset).await?)
}

/// A moderator's decision on an open report.
#[derive(Clone, Debug)]
pub struct Decision {
    pub outcome: ReportOutcome,
    /// At most 1000 characters, kept with the report and in the audit log.
    pub note: Option<String>,
    /// Remove the message (only when resolving); other open reports of it are resolved too.
    pub remove_message: bool,
}

impl Decision {
    pub fn parse(status: &str, note: Option<&str>, remove_message: bool) -> Result<Decision> {
        let mut v = Validator::new();
        let outcome = v.choice_of::<ReportOutcome>("status", status);
        let note = note.map(str::trim).filter(|n| !n.is_empty());
        v.check(
            note.is_none_or(|n| n.chars().count() <= 1000),
            "note",
            "too_long",
            "must be at most 1000 characters",
        );
        v.check(
            !(remove_message && outcome == Some(ReportOutcome::Dismissed)),
            "removeMessage",
            "invalid",
            "a dismissed report removes nothing",
        );
        v.finish()?;
        Ok(Decision {
            outcome: outcome.expect("validated"),
            note: note.map(str::to_string),
            remove_message,
        })
    }
}

/// Resolves (optionally removing the message) or dismisses an open report (409
/// `report_not_open` otherwise); audited.
pub async fn decide(actor: &Actor, db: &Db, id: Id, d: Decision) -> Result<ReportRow> {
    let mut tx = db.begin().await?;
    let r = messaging::report(&mut tx, id)
        .await?
        .ok_or_else(|| Error::not_found("message report"))?;
    let admin = actor.user_id;
    let note = d.note.as_deref();
    if !messaging::close_report(&mut tx, id, d.outcome, admin, note, d.remove_message).await? {
        return Err(Error::conflict(
            "report_not_open",
            format!("this report is already {}", r.status),
        ));
    }
    let mut others = 0;
    if d.remove_message {
        messaging::remove_message(&mut tx, r.message_id, admin, RemovedReason::Moderation).await?;
        others = messaging::resolve_other_reports(&mut tx, r.message_id, admin).await?;
    }
    let action = if d.outcome == ReportOutcome::Resolved {
        "admin.message_report_resolved"
    } else {
        "admin.message_report_dismissed"
    };
    audit::record(
        &mut tx,
        actor.audit(
            Some(r.org_id),
            action,
            "message_report",
            Some(id.to_string()),
            json!({ "messageId": r.message_id, "messageRemoved": d.remove_message,
                    "otherReportsResolved": others, "note": note }),
        ),
    )
    .await?;
    let row = messaging::report_row(&mut tx, id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("report vanished")))?;
    tx.commit().await?;
    Ok(row)
}
