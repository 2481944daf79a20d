//! Coaches' notes on opponents and members' watchlists (migration 18). Reads go through the
//! workspace (and, for a watchlist, the member); no rules here.

use crate::db::{Executor, Id, Ts};
use crate::model::competition::{Source, WatchKind, WatchSource};
use crate::{execute, sql};
use sqlx::FromRow;
use sqlx::types::Json;

// ---- opponent notes ----

/// A note as stored; a roster opponent's name is read live from the roster.
#[derive(Debug, Clone, FromRow)]
pub struct NoteRow {
    pub id: Id,
    pub org_id: Id,
    pub athlete_id: Option<Id>,
    pub opponent_athlete_id: Option<Id>,
    pub opponent_provider: Option<Source>,
    pub opponent_external_id: Option<String>,
    pub opponent_name: String,
    pub body: String,
    pub strengths: Json<Vec<String>>,
    pub weaknesses: Json<Vec<String>>,
    pub tags: Json<Vec<String>>,
    pub created_by: Option<Id>,
    pub updated_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const NOTE: &str = "n.id, n.org_id, n.athlete_id, n.opponent_athlete_id, n.opponent_provider,
    n.opponent_external_id, COALESCE(o.first_name || ' ' || o.last_name, n.opponent_name) AS opponent_name,
    n.body, n.strengths, n.weaknesses, n.tags, n.created_by, n.updated_by, n.created_at, n.updated_at
    FROM opponent_notes n LEFT JOIN athletes o ON o.id = n.opponent_athlete_id";

pub async fn insert_note(x: &mut impl Executor, n: &NoteRow) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO opponent_notes (id, org_id, athlete_id, opponent_athlete_id, opponent_provider,
            opponent_external_id, opponent_name, body, strengths, weaknesses, tags, created_by, updated_by,
            created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)")
        .bind(n.id).bind(n.org_id).bind(n.athlete_id).bind(n.opponent_athlete_id).bind(n.opponent_provider)
        .bind(&n.opponent_external_id).bind(&n.opponent_name).bind(&n.body).bind(&n.strengths)
        .bind(&n.weaknesses).bind(&n.tags).bind(n.created_by).bind(n.updated_by).bind(n.created_at)
        .bind(n.updated_at))?;
    Ok(())
}

/// Writes the fields a change may touch.
pub async fn update_note(x: &mut impl Executor, n: &NoteRow) -> Result<u64, sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE opponent_notes SET athlete_id = $1, body = $2, strengths = $3, weaknesses = $4, tags = $5,
            updated_by = $6, updated_at = $7
         WHERE id = $8 AND org_id = $9")
        .bind(n.athlete_id).bind(&n.body).bind(&n.strengths).bind(&n.weaknesses).bind(&n.tags)
        .bind(n.updated_by).bind(n.updated_at).bind(n.id).bind(n.org_id))
}

pub async fn note(x: &mut impl Executor, org: Id, id: Id) -> Result<Option<NoteRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, NoteRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {NOTE} WHERE n.org_id = $1 AND n.id = $2")))
        .bind(org).bind(id).fetch_optional(&mut *c).await)
}

pub async fn delete_note(x: &mut impl Executor, org: Id, id: Id) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM opponent_notes WHERE org_id = $1 AND id = $2")
            .bind(org)
            .bind(id)
    )
}

/// Which notes a list shows: all of them, or those for one athlete and/or on one opponent.
#[derive(Debug, Clone, Default)]
pub struct NoteFilter {
    pub athlete_id: Option<Id>,
    pub opponent_athlete_id: Option<Id>,
    pub provider: Option<Source>,
    pub external_id: Option<String>,
}

/// A page of the workspace's notes, last changed first.
pub async fn list_notes(
    x: &mut impl Executor,
    org: Id,
    f: &NoteFilter,
    limit: i64,
    offset: i64,
) -> Result<Vec<NoteRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, NoteRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {NOTE} WHERE n.org_id = $1 AND ($2 IS NULL OR n.athlete_id = $2)
            AND ($3 IS NULL OR n.opponent_athlete_id = $3)
            AND ($4 IS NULL OR n.opponent_provider = $4) AND ($5 IS NULL OR n.opponent_external_id = $5)
         ORDER BY n.updated_at DESC, n.id DESC LIMIT $6 OFFSET $7")))
        .bind(org).bind(f.athlete_id).bind(f.opponent_athlete_id).bind(f.provider).bind(&f.external_id)
        .bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// How many notes the workspace has on each provider opponent (for suggestions).
pub async fn note_counts(
    x: &mut impl Executor,
    org: Id,
    provider: Source,
) -> Result<Vec<(String, i64)>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, (String, i64)>(
        "SELECT opponent_external_id, COUNT(*) FROM opponent_notes
         WHERE org_id = $1 AND opponent_provider = $2 GROUP BY opponent_external_id")
        .bind(org).bind(provider).fetch_all(&mut *c).await)
}

/// Every ranking line of the workspace's circuits (for suggestions).
pub async fn org_rankings(
    x: &mut impl Executor,
    org: Id,
) -> Result<Vec<crate::repo::competition::RankingRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, crate::repo::competition::RankingRow>(
        "SELECT division_id, division_name, athlete_external_id, athlete_name, place, points FROM circuit_rankings
         WHERE org_id = $1 ORDER BY circuit_id, division_id, athlete_external_id")
        .bind(org).fetch_all(&mut *c).await)
}

// ---- watchlists ----

/// A watched athlete or event as stored, with what the roster and the circuits say of its
/// target now (a roster athlete's name; a circuit event's name, overrides and circuit).
#[derive(Debug, Clone, FromRow)]
pub struct WatchRow {
    pub id: Id,
    pub org_id: Id,
    pub user_id: Id,
    pub kind: WatchKind,
    pub source: WatchSource,
    pub target: String,
    pub athlete_id: Option<Id>,
    pub circuit_event_id: Option<Id>,
    pub name: Option<String>,
    pub note: Option<String>,
    pub created_at: Ts,
    pub updated_at: Ts,
    #[sqlx(default)]
    pub athlete_name: Option<String>,
    #[sqlx(default)]
    pub circuit_id: Option<Id>,
    #[sqlx(default)]
    pub event_name: Option<String>,
    #[sqlx(default)]
    pub event_date: Option<String>,
    #[sqlx(default)]
    pub event_manual: Option<Json<serde_json::Value>>,
}

const WATCH: &str =
    "w.id, w.org_id, w.user_id, w.kind, w.source, w.target, w.athlete_id, w.circuit_event_id,
    w.name, w.note, w.created_at, w.updated_at, a.first_name || ' ' || a.last_name AS athlete_name,
    e.circuit_id, e.name AS event_name, e.date AS event_date, e.manual AS event_manual
    FROM watchlist_items w LEFT JOIN athletes a ON a.id = w.athlete_id
    LEFT JOIN circuit_events e ON e.id = w.circuit_event_id";

/// Adds the item unless the member watches its target already; the stored item either way and
/// whether it was added.
pub async fn insert_watch(
    x: &mut impl Executor,
    w: &WatchRow,
) -> Result<(WatchRow, bool), sqlx::Error> {
    let added = execute!(x, sqlx::query(
        "INSERT INTO watchlist_items (id, org_id, user_id, kind, source, target, athlete_id, circuit_event_id,
            name, note, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
         ON CONFLICT (org_id, user_id, kind, source, target) DO NOTHING")
        .bind(w.id).bind(w.org_id).bind(w.user_id).bind(w.kind).bind(w.source).bind(&w.target)
        .bind(w.athlete_id).bind(w.circuit_event_id).bind(&w.name).bind(&w.note).bind(w.created_at))?;
    let row: WatchRow = sql!(x, c => sqlx::query_as::<_, WatchRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {WATCH}
         WHERE w.org_id = $1 AND w.user_id = $2 AND w.kind = $3 AND w.source = $4 AND w.target = $5")))
        .bind(w.org_id).bind(w.user_id).bind(w.kind).bind(w.source).bind(&w.target)
        .fetch_one(&mut *c).await)?;
    Ok((row, added == 1))
}

/// A circuit event of the workspace (not deleted): its id, for a watchlist target.
pub async fn circuit_event_in_org(
    x: &mut impl Executor,
    org: Id,
    id: Id,
) -> Result<Option<Id>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar(
        "SELECT id FROM circuit_events WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL")
        .bind(org).bind(id).fetch_optional(&mut *c).await)
}

/// The member's item.
pub async fn watch(
    x: &mut impl Executor,
    org: Id,
    user: Id,
    id: Id,
) -> Result<Option<WatchRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, WatchRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {WATCH} WHERE w.org_id = $1 AND w.user_id = $2 AND w.id = $3")))
        .bind(org).bind(user).bind(id).fetch_optional(&mut *c).await)
}

/// A page of the member's watchlist (one kind or both), newest first.
pub async fn list_watch(
    x: &mut impl Executor,
    org: Id,
    user: Id,
    kind: Option<WatchKind>,
    limit: i64,
    offset: i64,
) -> Result<Vec<WatchRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, WatchRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {WATCH} WHERE w.org_id = $1 AND w.user_id = $2 AND ($3 IS NULL OR w.kind = $3)
         ORDER BY w.created_at DESC, w.id DESC LIMIT $4 OFFSET $5")))
        .bind(org).bind(user).bind(kind).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

pub async fn update_watch(x: &mut impl Executor, w: &WatchRow) -> Result<u64, sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE watchlist_items SET name = $1, note = $2, updated_at = $3 WHERE id = $4 AND org_id = $5 AND user_id = $6")
        .bind(&w.name).bind(&w.note).bind(w.updated_at).bind(w.id).bind(w.org_id).bind(w.user_id))
}

pub async fn delete_watch(
    x: &mut impl Executor,
    org: Id,
    user: Id,
    id: Id,
) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM watchlist_items WHERE org_id = $1 AND user_id = $2 AND id = $3")
            .bind(org)
            .bind(user)
            .bind(id)
    )
}

// ---- merges ----

/// Moves notes, watchlist items and achievement awards from athlete `from` to `into` (both in
/// `org`; inside the merge's transaction, before `from` is deleted). A member watching both
/// keeps one item; an achievement both earned stays once (`into`'s).
pub async fn move_athlete(
    x: &mut impl Executor,
    org: Id,
    from: Id,
    into: Id,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query(
            "UPDATE opponent_notes SET athlete_id = $2 WHERE athlete_id = $1 AND org_id = $3"
        )
        .bind(from)
        .bind(into)
        .bind(org)
    )?;
    execute!(x, sqlx::query(
        "UPDATE opponent_notes SET opponent_athlete_id = $2 WHERE opponent_athlete_id = $1 AND org_id = $3")
        .bind(from).bind(into).bind(org))?;
    execute!(x, sqlx::query(
        "DELETE FROM watchlist_items WHERE athlete_id = $1 AND EXISTS (SELECT 1 FROM watchlist_items k
           WHERE k.athlete_id = $2 AND k.user_id = watchlist_items.user_id AND k.org_id = watchlist_items.org_id)")
        .bind(from).bind(into))?;
    execute!(x, sqlx::query(
        "UPDATE watchlist_items SET athlete_id = $2, target = $3 WHERE athlete_id = $1 AND org_id = $4")
        .bind(from).bind(into).bind(into.to_string()).bind(org))?;
    execute!(
        x,
        sqlx::query(
            "DELETE FROM achievement_awards WHERE athlete_id = $1 AND achievement_id IN
           (SELECT achievement_id FROM achievement_awards WHERE athlete_id = $2)"
        )
        .bind(from)
        .bind(into)
    )?;
    execute!(
        x,
        sqlx::query(
            "UPDATE achievement_awards SET athlete_id = $2 WHERE athlete_id = $1 AND org_id = $3"
        )
        .bind(from)
        .bind(into)
        .bind(org)
    )?;
    Ok(())
}
