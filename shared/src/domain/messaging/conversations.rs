//! Conversations: the caller's list, opening one (or finding the existing one), and who the
//! caller may open one with.

use super::{Scope, Side, check_coach, module_enabled, unsupported_kind};
use crate::db::{Db, Id};
use crate::domain::Actor;
use crate::domain::athletes::AthleteStatus;
use crate::error::{Error, Result, Validator};
use crate::repo::messaging::{self, ConversationKind, ConversationRow, Recipient};
use crate::repo::{athletes, audit, orgs};
use serde_json::json;

/// The caller's side in a listed conversation.
pub fn side_of(r: &ConversationRow, me: Id) -> Side {
    if r.conv.coach_user_id == me {
        Side::Coach
    } else if r.athlete_user_id == Some(me) {
        Side::Athlete
    } else {
        Side::Guardian
    }
}

/// Messages from the other side since the caller last read: 0 for a guardian, who reads
/// along (the read marks are the participants').
pub fn unread_for(r: &ConversationRow, side: Side) -> i64 {
    if side == Side::Guardian { 0 } else { r.unread }
}

/// The spec allows coach–athlete conversations only; a client asking for another kind
/// (`group`, `direct`, …) is refused with 400, on listing and on creation alike.
fn check_kind(kind: Option<&str>) -> Result<()> {
    match kind {
        None => Ok(()),
        Some(k) if ConversationKind::parse(k) == Ok(ConversationKind::CoachAthlete) => Ok(()),
        Some(k) => Err(unsupported_kind(&format!(
            "conversations are between a coach and an athlete (kind coach_athlete); {k:?} is not supported"
        ))),
    }
}

/// Which of the caller's conversations to list.
#[derive(Clone, Copy, Debug, Default)]
pub struct ListFilter {
    /// Only this workspace's (404 when the caller has no messaging there).
    pub org: Option<Id>,
}

impl ListFilter {
    /// `kind`, when given, must be coach_athlete.
    pub fn parse(kind: Option<&str>, org: Option<Id>) -> Result<ListFilter> {
        check_kind(kind)?;
        Ok(ListFilter { org })
    }
}

/// The caller's conversations (as coach, athlete and guardian), most recent first.
pub async fn list(
    actor: &Actor,
    db: &Db,
    f: ListFilter,
    limit: i64,
    offset: i64,
) -> Result<Vec<ConversationRow>> {
    let me = actor.user_id;
    let mut c = db.acquire().await?;
    let scope = Scope::of(&mut c, me).await?.only(f.org)?;
    Ok(messaging::list_mine(
        &mut c,
        me,
        &scope.coach_orgs,
        &scope.athlete_orgs,
        &scope.guardian_orgs,
        limit,
        offset,
    )
    .await?)
}

/// A conversation to open, as it arrives.
#[derive(Clone, Copy, Debug, Default)]
pub struct RawConversation<'a> {
    pub kind: Option<&'a str>,
    pub athlete_id: Option<Id>,
    pub coach_id: Option<Id>,
}

/// A conversation to open: the athlete, and the coach when an athlete calls.
#[derive(Clone, Copy, Debug)]
pub struct NewConversation {
    pub athlete_id: Id,
    pub coach_id: Option<Id>,
}

impl NewConversation {
    pub fn parse(raw: &RawConversation) -> Result<NewConversation> {
        check_kind(raw.kind)?;
        let mut v = Validator::new();
        v.check(
            raw.athlete_id.is_some(),
            "athleteId",
            "required",
            "the athlete of the conversation",
        );
        v.finish()?;
        Ok(NewConversation {
            athlete_id: raw.athlete_id.unwrap_or_default(),
            coach_id: raw.coach_id,
        })
    }
}

/// A conversation opened: the caller's row of it, and whether it is new.
pub struct Opened {
    pub row: ConversationRow,
    pub created: bool,
}

/// Opens the coach–athlete conversation, or returns the existing one. A coach opens one with
/// an athlete of their workspace; an athlete with one of their assigned coaches who may use
/// messaging. Archived athletes are not messaged (409 `athlete_archived`).
pub async fn create(actor: &Actor, db: &Db, req: NewConversation) -> Result<Opened> {
    let me = actor.user_id;
    let mut tx = db.begin().await?;
    let athlete = athletes::by_id_any_org(&mut tx, req.athlete_id)
        .await?
        .ok_or_else(|| Error::not_found("athlete"))?;
    let org = athlete.org_id;
    let coach = if athlete.user_id == Some(me) {
        // The athlete opens a conversation with one of their coaches.
        module_enabled(&mut tx, org, "athlete").await?;
        let Some(coach) = req.coach_id else {
            return Err(Error::field(
                "coachId",
                "required",
                "an athlete names the coach to write to",
            ));
        };
        let not_theirs = || {
            unsupported_kind("an athlete's conversations are with one of their assigned coaches")
        };
        if coach == me || !messaging::is_assigned_coach(&mut tx, athlete.id, coach).await? {
            return Err(not_theirs());
        }
        let m = orgs::membership(&mut tx, coach, org)
            .await?
            .ok_or_else(not_theirs)?;
        check_coach(&m).map_err(|_| not_theirs())?;
        coach
    } else {
        // A coach opens a conversation with an athlete of their workspace.
        let m = orgs::membership(&mut tx, me, org)
            .await?
            .ok_or_else(|| Error::not_found("athlete"))?;
        check_coach(&m)?;
        if req.coach_id.is_some_and(|c| c != me) {
            return Err(unsupported_kind(
                "a coach opens conversations between themself and an athlete",
            ));
        }
        me
    };
    if athlete.status == AthleteStatus::Archived {
        return Err(Error::conflict(
            "athlete_archived",
            "archived athletes cannot be messaged",
        ));
    }
    let (conv, created) = messaging::create_or_get(&mut tx, org, coach, athlete.id, me).await?;
    if created {
        audit::record(
            &mut tx,
            actor.audit(
                Some(org),
                "conversation.created",
                "conversation",
                Some(conv.id.to_string()),
                json!({ "coachId": coach, "athleteId": athlete.id }),
            ),
        )
        .await?;
    }
    let row = messaging::row(&mut tx, me, conv.id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("conversation vanished")))?;
    tx.commit().await?;
    Ok(Opened { row, created })
}

/// Whom to search for among the caller's possible recipients.
#[derive(Clone, Debug, Default)]
pub struct RecipientSearch {
    /// A name fragment (trimmed, at most 100 characters).
    pub q: Option<String>,
    pub org: Option<Id>,
}

impl RecipientSearch {
    pub fn parse(q: Option<&str>, org: Option<Id>) -> Result<RecipientSearch> {
        let q = q.map(str::trim).filter(|s| !s.is_empty());
        let mut v = Validator::new();
        v.check(
            q.is_none_or(|s| s.chars().count() <= 100),
            "q",
            "too_long",
            "must be at most 100 characters",
        );
        v.finish()?;
        Ok(RecipientSearch {
            q: q.map(str::to_string),
            org,
        })
    }
}

/// Who the caller may open a conversation with: as a coach, the active athletes of the
/// workspaces where they may message; as an athlete, their assigned coaches.
pub async fn recipients(
    actor: &Actor,
    db: &Db,
    s: &RecipientSearch,
    limit: i64,
    offset: i64,
) -> Result<Vec<Recipient>> {
    let me = actor.user_id;
    let mut c = db.acquire().await?;
    let scope = Scope::of(&mut c, me).await?.only(s.org)?;
    Ok(messaging::recipients(
        &mut c,
        me,
        &scope.coach_orgs,
        &scope.athlete_orgs,
        s.q.as_deref(),
        limit,
        offset,
    )
    .await?)
}
