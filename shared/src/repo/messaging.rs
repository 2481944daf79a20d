//! Coach–athlete conversations, their messages and message reports. Every row carries its
//! workspace; callers check who may see a conversation (`shared::domain::messaging::open`).

use crate::db::{Executor, Id, Ts};
use crate::model::athletes::AthleteStatus;
use crate::{execute, sql};
use sqlx::FromRow;

crate::text_enum! {
    /// What a conversation is between; the only kind: one coach (a member) and one athlete of
    /// the same workspace.
    pub enum ConversationKind {
        CoachAthlete = "coach_athlete",
    }
}

crate::text_enum! {
    /// Why someone reported a message.
    pub enum ReportReason {
        Spam = "spam",
        Harassment = "harassment",
        Inappropriate = "inappropriate",
        Safety = "safety",
        Other = "other",
    }
}

// `insert_report` takes the reason as `AsRef<str>` so fixtures can name it by its spelling.
impl AsRef<str> for ReportReason {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

crate::text_enum! {
    /// Where a message report stands.
    pub enum ReportStatus {
        Open = "open",
        Resolved = "resolved",
        Dismissed = "dismissed",
    }
}

crate::text_enum! {
    /// How a moderator closes a report.
    pub enum ReportOutcome {
        Resolved = "resolved",
        Dismissed = "dismissed",
    }
}

impl From<ReportOutcome> for ReportStatus {
    fn from(o: ReportOutcome) -> Self {
        match o {
            ReportOutcome::Resolved => ReportStatus::Resolved,
            ReportOutcome::Dismissed => ReportStatus::Dismissed,
        }
    }
}

crate::text_enum! {
    /// Who removed a message: its sender, or a moderator on a report.
    pub enum RemovedReason {
        Sender = "sender",
        Moderation = "moderation",
    }
}

crate::text_enum! {
    /// Which side a recipient is on: an athlete the caller coaches, or a coach of the caller.
    pub enum RecipientKind {
        Athlete = "athlete",
        Coach = "coach",
    }
}

#[derive(Debug, Clone, FromRow)]
pub struct Conversation {
    pub id: Id,
    pub org_id: Id,
    pub kind: ConversationKind,
    pub coach_user_id: Id,
    pub athlete_id: Id,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub last_message_at: Ts,
    pub coach_read_at: Option<Ts>,
    pub athlete_read_at: Option<Ts>,
}

const CONV_COLUMNS: &str = "c.id, c.org_id, c.kind, c.coach_user_id, c.athlete_id, c.created_by, c.created_at, c.last_message_at, c.coach_read_at, c.athlete_read_at";

/// `$start, $start+1, …` for a dynamic `IN (…)` list; `NULL` (matches nothing) when empty.
fn placeholders(start: usize, n: usize) -> String {
    if n == 0 {
        return "NULL".into();
    }
    (start..start + n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub async fn get(x: &mut impl Executor, id: Id) -> Result<Option<Conversation>, sqlx::Error> {
    let q = format!("SELECT {CONV_COLUMNS} FROM conversations c WHERE c.id = $1");
    sql!(x, c => sqlx::query_as::<_, Conversation>(sqlx::AssertSqlSafe(q)).bind(id).fetch_optional(&mut *c).await)
}

/// Creates the coach–athlete conversation, or returns the existing one (`true`: created).
/// Safe under concurrent calls: the unique key decides and the loser reads the winner's row.
pub async fn create_or_get(
    x: &mut impl Executor,
    org: Id,
    coach: Id,
    athlete: Id,
    created_by: Id,
) -> Result<(Conversation, bool), sqlx::Error> {
    let now = Ts::now();
    let n = execute!(x, sqlx::query(
        "INSERT INTO conversations (id, org_id, kind, coach_user_id, athlete_id, created_by, created_at, last_message_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7) ON CONFLICT (org_id, coach_user_id, athlete_id) DO NOTHING")
        .bind(Id::new()).bind(org).bind(ConversationKind::CoachAthlete).bind(coach).bind(athlete).bind(created_by).bind(now))?;
    let q = format!(
        "SELECT {CONV_COLUMNS} FROM conversations c WHERE c.org_id = $1 AND c.coach_user_id = $2 AND c.athlete_id = $3"
    );
    let conv = sql!(x, c => sqlx::query_as::<_, Conversation>(sqlx::AssertSqlSafe(q)).bind(org).bind(coach).bind(athlete).fetch_one(&mut *c).await)?;
    Ok((conv, n == 1))
}

/// A conversation as its participants list it.
#[derive(Debug, Clone, FromRow)]
pub struct ConversationRow {
    #[sqlx(flatten)]
    pub conv: Conversation,
    pub athlete_first_name: String,
    pub athlete_last_name: String,
    pub athlete_user_id: Option<Id>,
    pub coach_name: String,
    pub unread: i64,
}

const ROW_SELECT: &str = "SELECT c.id, c.org_id, c.kind, c.coach_user_id, c.athlete_id, c.created_by, c.created_at,
        c.last_message_at, c.coach_read_at, c.athlete_read_at,
        a.first_name AS athlete_first_name, a.last_name AS athlete_last_name, a.user_id AS athlete_user_id,
        u.name AS coach_name,
        (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id AND m.removed_at IS NULL
            AND (m.sender_user_id IS NULL OR m.sender_user_id <> $1)
            AND m.created_at > COALESCE(CASE WHEN c.coach_user_id = $1 THEN c.coach_read_at ELSE c.athlete_read_at END, $2)) AS unread
     FROM conversations c JOIN athletes a ON a.id = c.athlete_id JOIN users u ON u.id = c.coach_user_id";

/// The conversations of `me`: as coach in `coach_orgs`, as athlete login in `athlete_orgs`,
/// as a guardian of the (not archived) athlete in `guardian_orgs` (the workspaces where that
/// side may use messaging), most recent first.
pub async fn list_mine(
    x: &mut impl Executor,
    me: Id,
    coach_orgs: &[Id],
    athlete_orgs: &[Id],
    guardian_orgs: &[Id],
    limit: i64,
    offset: i64,
) -> Result<Vec<ConversationRow>, sqlx::Error> {
    let epoch = Ts(chrono::DateTime::UNIX_EPOCH);
    let g_start = 5 + coach_orgs.len() + athlete_orgs.len();
    let archived = g_start + guardian_orgs.len();
    let q = format!(
        "{ROW_SELECT} WHERE ((c.coach_user_id = $1 AND c.org_id IN ({})) OR (a.user_id = $1 AND c.org_id IN ({}))
            OR (a.status <> ${archived} AND c.org_id IN ({}) AND EXISTS (SELECT 1 FROM athlete_guardians g
                WHERE g.athlete_id = c.athlete_id AND g.user_id = $1)))
         ORDER BY c.last_message_at DESC, c.id DESC LIMIT $3 OFFSET $4",
        placeholders(5, coach_orgs.len()),
        placeholders(5 + coach_orgs.len(), athlete_orgs.len()),
        placeholders(g_start, guardian_orgs.len())
    );
    sql!(x, c => {
        let mut query = sqlx::query_as::<_, ConversationRow>(sqlx::AssertSqlSafe(q))
            .bind(me).bind(epoch).bind(limit).bind(offset);
        for o in coach_orgs.iter().chain(athlete_orgs).chain(guardian_orgs) {
            query = query.bind(*o);
        }
        query.bind(AthleteStatus::Archived).fetch_all(&mut *c).await
    })
}

/// One conversation's list row, seen by `me`.
pub async fn row(
    x: &mut impl Executor,
    me: Id,
    id: Id,
) -> Result<Option<ConversationRow>, sqlx::Error> {
    let epoch = Ts(chrono::DateTime::UNIX_EPOCH);
    let q = format!("{ROW_SELECT} WHERE c.id = $3");
    sql!(x, c => sqlx::query_as::<_, ConversationRow>(sqlx::AssertSqlSafe(q)).bind(me).bind(epoch).bind(id).fetch_optional(&mut *c).await)
}

/// Marks the conversation read up to `at` for one side.
pub async fn mark_read(
    x: &mut impl Executor,
    id: Id,
    as_coach: bool,
    at: Ts,
) -> Result<(), sqlx::Error> {
    let q = if as_coach {
        "UPDATE conversations SET coach_read_at = $2 WHERE id = $1"
    } else {
        "UPDATE conversations SET athlete_read_at = $2 WHERE id = $1"
    };
    execute!(x, sqlx::query(q).bind(id).bind(at))?;
    Ok(())
}

// ---- recipients ----

/// Someone the caller may open a conversation with.
#[derive(Debug, Clone, FromRow)]
pub struct Recipient {
    pub kind: RecipientKind,
    pub org_id: Id,
    pub athlete_id: Id,
    pub user_id: Option<Id>,
    pub name: String,
}

/// Active athletes of `coach_orgs` (for a coach), and the assigned coaches, still members, of
/// the caller's own athlete rows in `athlete_orgs`. Sorted by name.
pub async fn recipients(
    x: &mut impl Executor,
    me: Id,
    coach_orgs: &[Id],
    athlete_orgs: &[Id],
    q: Option<&str>,
    limit: i64,
    offset: i64,
) -> Result<Vec<Recipient>, sqlx::Error> {
    let pattern = q.map(|s| format!("%{}%", s.to_lowercase()));
    let active = 5 + coach_orgs.len() + athlete_orgs.len();
    let archived = active + 1;
    let sql = format!(
        "SELECT * FROM (
            SELECT 'athlete' AS kind, a.org_id, a.id AS athlete_id, a.user_id, a.first_name || ' ' || a.last_name AS name
            FROM athletes a
            WHERE a.org_id IN ({}) AND a.status = ${active} AND (a.user_id IS NULL OR a.user_id <> $1)
            UNION ALL
            SELECT 'coach' AS kind, a.org_id, a.id AS athlete_id, u.id AS user_id, u.name AS name
            FROM athletes a JOIN athlete_coaches ac ON ac.athlete_id = a.id
                JOIN users u ON u.id = ac.user_id
                JOIN members m ON m.org_id = a.org_id AND m.user_id = u.id
            WHERE a.user_id = $1 AND a.org_id IN ({}) AND a.status <> ${archived} AND u.id <> $1
         ) r WHERE ($2 IS NULL OR LOWER(r.name) LIKE $2)
         ORDER BY r.name, r.athlete_id, r.kind LIMIT $3 OFFSET $4",
        placeholders(5, coach_orgs.len()),
        placeholders(5 + coach_orgs.len(), athlete_orgs.len())
    );
    sql!(x, c => {
        let mut query = sqlx::query_as::<_, Recipient>(sqlx::AssertSqlSafe(sql))
            .bind(me).bind(&pattern).bind(limit).bind(offset);
        for o in coach_orgs.iter().chain(athlete_orgs) {
            query = query.bind(*o);
        }
        query.bind(AthleteStatus::Active).bind(AthleteStatus::Archived).fetch_all(&mut *c).await
    })
}

/// Whether `coach` is assigned to `athlete`.
pub async fn is_assigned_coach(
    x: &mut impl Executor,
    athlete: Id,
    coach: Id,
) -> Result<bool, sqlx::Error> {
    let n: i64 = sql!(x, c => sqlx::query_scalar("SELECT COUNT(*) FROM athlete_coaches WHERE athlete_id = $1 AND user_id = $2")
        .bind(athlete).bind(coach).fetch_one(&mut *c).await)?;
    Ok(n > 0)
}

// ---- messages ----

#[derive(Debug, Clone, FromRow)]
pub struct Message {
    pub id: Id,
    pub org_id: Id,
    pub conversation_id: Id,
    pub sender_user_id: Option<Id>,
    pub body: String,
    pub attachment_key: Option<String>,
    pub created_at: Ts,
    pub removed_at: Option<Ts>,
    pub removed_by: Option<Id>,
    pub removed_reason: Option<RemovedReason>,
}

const MSG_COLUMNS: &str = "id, org_id, conversation_id, sender_user_id, body, attachment_key, created_at, removed_at, removed_by, removed_reason";

/// Adds a message and moves the conversation to the top of both participants' lists.
pub async fn insert_message(
    x: &mut impl Executor,
    conv: &Conversation,
    sender: Id,
    body: &str,
    attachment_key: Option<&str>,
) -> Result<Message, sqlx::Error> {
    let m = Message {
        id: Id::new(),
        org_id: conv.org_id,
        conversation_id: conv.id,
        sender_user_id: Some(sender),
        body: body.to_string(),
        attachment_key: attachment_key.map(String::from),
        created_at: Ts::now(),
        removed_at: None,
        removed_by: None,
        removed_reason: None,
    };
    execute!(x, sqlx::query(
        "INSERT INTO messages (id, org_id, conversation_id, sender_user_id, body, attachment_key, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)")
        .bind(m.id).bind(m.org_id).bind(m.conversation_id).bind(sender).bind(&m.body)
        .bind(&m.attachment_key).bind(m.created_at))?;
    execute!(
        x,
        sqlx::query("UPDATE conversations SET last_message_at = $2 WHERE id = $1")
            .bind(conv.id)
            .bind(m.created_at)
    )?;
    Ok(m)
}

/// A conversation's messages, newest first.
pub async fn list_messages(
    x: &mut impl Executor,
    conv: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<Message>, sqlx::Error> {
    let q = format!(
        "SELECT {MSG_COLUMNS} FROM messages WHERE conversation_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"
    );
    sql!(x, c => sqlx::query_as::<_, Message>(sqlx::AssertSqlSafe(q)).bind(conv).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

pub async fn message(x: &mut impl Executor, id: Id) -> Result<Option<Message>, sqlx::Error> {
    let q = format!("SELECT {MSG_COLUMNS} FROM messages WHERE id = $1");
    sql!(x, c => sqlx::query_as::<_, Message>(sqlx::AssertSqlSafe(q)).bind(id).fetch_optional(&mut *c).await)
}

/// Hides a message (the row stays for reports and audit). False when already removed.
pub async fn remove_message(
    x: &mut impl Executor,
    id: Id,
    by: Id,
    reason: RemovedReason,
) -> Result<bool, sqlx::Error> {
    let n = execute!(x, sqlx::query(
        "UPDATE messages SET removed_at = $2, removed_by = $3, removed_reason = $4 WHERE id = $1 AND removed_at IS NULL")
        .bind(id).bind(Ts::now()).bind(by).bind(reason))?;
    Ok(n == 1)
}

// ---- reports ----

#[derive(Debug, Clone, FromRow)]
pub struct Report {
    pub id: Id,
    pub org_id: Id,
    pub message_id: Id,
    pub conversation_id: Id,
    pub reporter_user_id: Option<Id>,
    pub reason: ReportReason,
    pub details: Option<String>,
    pub status: ReportStatus,
    pub resolved_by: Option<Id>,
    pub resolution_note: Option<String>,
    pub message_removed: bool,
    pub created_at: Ts,
    pub resolved_at: Option<Ts>,
}

const REPORT_COLUMNS: &str = "r.id, r.org_id, r.message_id, r.conversation_id, r.reporter_user_id, r.reason, r.details, r.status, r.resolved_by, r.resolution_note, r.message_removed, r.created_at, r.resolved_at";

/// Files a report (`reason`: a [`ReportReason`]); `None` when the reporter already has an open report on this message.
pub async fn insert_report(
    x: &mut impl Executor,
    msg: &Message,
    reporter: Id,
    reason: impl AsRef<str>,
    details: Option<&str>,
) -> Result<Option<Id>, sqlx::Error> {
    let id = Id::new();
    let r = execute!(x, sqlx::query(
        "INSERT INTO message_reports (id, org_id, message_id, conversation_id, reporter_user_id, reason, details, status, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $9, $8)")
        .bind(id).bind(msg.org_id).bind(msg.id).bind(msg.conversation_id).bind(reporter)
        .bind(reason.as_ref()).bind(details).bind(Ts::now()).bind(ReportStatus::Open));
    match r {
        Ok(_) => Ok(Some(id)),
        Err(e) if crate::db::is_unique_violation(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

pub async fn report(x: &mut impl Executor, id: Id) -> Result<Option<Report>, sqlx::Error> {
    let q = format!("SELECT {REPORT_COLUMNS} FROM message_reports r WHERE r.id = $1");
    sql!(x, c => sqlx::query_as::<_, Report>(sqlx::AssertSqlSafe(q)).bind(id).fetch_optional(&mut *c).await)
}

/// A report with the message and conversation it is about (the moderation queue).
#[derive(Debug, Clone, FromRow)]
pub struct ReportRow {
    #[sqlx(flatten)]
    pub report: Report,
    pub reporter_name: Option<String>,
    pub message_body: String,
    pub message_attachment_key: Option<String>,
    pub message_sender_user_id: Option<Id>,
    pub message_sender_name: Option<String>,
    pub message_created_at: Ts,
    pub message_removed_at: Option<Ts>,
    pub coach_user_id: Id,
    pub coach_name: String,
    pub athlete_id: Id,
    pub athlete_first_name: String,
    pub athlete_last_name: String,
    pub org_name: String,
}

const REPORT_ROW_SELECT: &str = "SELECT r.id, r.org_id, r.message_id, r.conversation_id, r.reporter_user_id, r.reason, r.details,
        r.status, r.resolved_by, r.resolution_note, r.message_removed, r.created_at, r.resolved_at,
        ru.name AS reporter_name, m.body AS message_body, m.attachment_key AS message_attachment_key,
        m.sender_user_id AS message_sender_user_id, su.name AS message_sender_name,
        m.created_at AS message_created_at, m.removed_at AS message_removed_at,
        c.coach_user_id, cu.name AS coach_name, c.athlete_id, a.first_name AS athlete_first_name,
        a.last_name AS athlete_last_name, o.name AS org_name
     FROM message_reports r
        JOIN messages m ON m.id = r.message_id
        JOIN conversations c ON c.id = r.conversation_id
        JOIN athletes a ON a.id = c.athlete_id
        JOIN users cu ON cu.id = c.coach_user_id
        JOIN orgs o ON o.id = r.org_id
        LEFT JOIN users ru ON ru.id = r.reporter_user_id
        LEFT JOIN users su ON su.id = m.sender_user_id";

/// The moderation queue, newest first (filters: status, workspace).
pub async fn list_reports(
    x: &mut impl Executor,
    status: Option<ReportStatus>,
    org: Option<Id>,
    limit: i64,
    offset: i64,
) -> Result<Vec<ReportRow>, sqlx::Error> {
    let q = format!(
        "{REPORT_ROW_SELECT} WHERE ($1 IS NULL OR r.status = $1) AND ($2 IS NULL OR r.org_id = $2)
         ORDER BY r.created_at DESC, r.id DESC LIMIT $3 OFFSET $4"
    );
    sql!(x, c => sqlx::query_as::<_, ReportRow>(sqlx::AssertSqlSafe(q))
        .bind(status).bind(org).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

pub async fn report_row(x: &mut impl Executor, id: Id) -> Result<Option<ReportRow>, sqlx::Error> {
    let q = format!("{REPORT_ROW_SELECT} WHERE r.id = $1");
    sql!(x, c => sqlx::query_as::<_, ReportRow>(sqlx::AssertSqlSafe(q)).bind(id).fetch_optional(&mut *c).await)
}

/// Closes an open report (resolved or dismissed). False when it was no longer open.
pub async fn close_report(
    x: &mut impl Executor,
    id: Id,
    outcome: ReportOutcome,
    by: Id,
    note: Option<&str>,
    message_removed: bool,
) -> Result<bool, sqlx::Error> {
    let n = execute!(x, sqlx::query(
        "UPDATE message_reports SET status = $2, resolved_by = $3, resolution_note = $4, message_removed = $5, resolved_at = $6
         WHERE id = $1 AND status = $7")
        .bind(id).bind(ReportStatus::from(outcome)).bind(by).bind(note).bind(message_removed).bind(Ts::now())
        .bind(ReportStatus::Open))?;
    Ok(n == 1)
}

/// When a message is removed, the other open reports about it are resolved with it.
pub async fn resolve_other_reports(
    x: &mut impl Executor,
    message: Id,
    by: Id,
) -> Result<u64, sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE message_reports SET status = $4, resolved_by = $2, resolution_note = 'message removed on another report', message_removed = TRUE, resolved_at = $3
         WHERE message_id = $1 AND status = $5")
        .bind(message).bind(by).bind(Ts::now()).bind(ReportStatus::Resolved).bind(ReportStatus::Open))
}

/// The caller's athlete logins: (athlete, workspace, the workspace's disabled modules), not
/// archived.
pub async fn athlete_logins(
    x: &mut impl Executor,
    user: Id,
) -> Result<Vec<(Id, Id, sqlx::types::Json<Vec<String>>)>, sqlx::Error> {
    sql!(x, c => sqlx::query_as(
        "SELECT a.id, a.org_id, o.disabled_modules FROM athletes a JOIN orgs o ON o.id = a.org_id
         WHERE a.user_id = $1 AND a.status <> $2 ORDER BY a.created_at, a.id")
        .bind(user).bind(AthleteStatus::Archived).fetch_all(&mut *c).await)
}

/// The workspaces (with their disabled modules) where `user` is the guardian of an athlete
/// who is not archived: (athlete, workspace, disabled modules).
pub async fn guardian_links(
    x: &mut impl Executor,
    user: Id,
) -> Result<Vec<(Id, Id, sqlx::types::Json<Vec<String>>)>, sqlx::Error> {
    sql!(x, c => sqlx::query_as(
        "SELECT a.id, a.org_id, o.disabled_modules FROM athlete_guardians g
         JOIN athletes a ON a.id = g.athlete_id JOIN orgs o ON o.id = a.org_id
         WHERE g.user_id = $1 AND a.status <> $2 ORDER BY a.created_at, a.id")
        .bind(user).bind(AthleteStatus::Archived).fetch_all(&mut *c).await)
}

/// Whether `user` is a guardian of `athlete`.
pub async fn is_guardian(
    x: &mut impl Executor,
    user: Id,
    athlete: Id,
) -> Result<bool, sqlx::Error> {
    let n: i64 = sql!(x, c => sqlx::query_scalar(
        "SELECT COUNT(*) FROM athlete_guardians WHERE user_id = $1 AND athlete_id = $2")
        .bind(user).bind(athlete).fetch_one(&mut *c).await)?;
    Ok(n > 0)
}
