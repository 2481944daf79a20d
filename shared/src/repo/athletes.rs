//! Athletes and what hangs off them: coach assignments, invites (hashed, single-use, expiring),
//! guardians and their consents, provider links and club self-enrollment (staged CSV imports: `import_uploads`).

use crate::crypto::hash_token;
use crate::db::{Executor, Id, Ts};
pub use crate::model::athletes::{
    AthleteSource, AthleteStatus, CoachRole, ConsentMethod, Level, Relationship, Stance,
};
use crate::{execute, sql};
use chrono::NaiveDate;
use sqlx::FromRow;

#[derive(Debug, Clone, FromRow)]
pub struct Athlete {
    pub id: Id,
    pub org_id: Id,
    pub first_name: String,
    pub last_name: String,
    pub email: Option<String>,
    pub birth_date: Option<NaiveDate>,
    pub stance: Option<Stance>,
    pub level: Option<Level>,
    pub notes: Option<String>,
    pub status: AthleteStatus,
    pub name_key: String,
    pub user_id: Option<Id>,
    pub published: bool,
    pub public_slug: Option<String>,
    pub public_bio: Option<String>,
    pub source: AthleteSource,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

const COLUMNS: &str = "id, org_id, first_name, last_name, email, birth_date, stance, level, notes, status, name_key, user_id, published, public_slug, public_bio, source, created_by, created_at, updated_at";

/// The duplicate key of an athlete without an email: names (case-folded, trimmed) and birth date.
pub fn name_key(first: &str, last: &str, birth: Option<NaiveDate>) -> String {
    format!(
        "{}|{}|{}",
        first.trim().to_lowercase(),
        last.trim().to_lowercase(),
        birth.map(|d| d.to_string()).unwrap_or_default()
    )
}

/// The fields a new athlete row is made of (`domain::athletes::AthleteFields::into_new`).
#[derive(Debug, Clone)]
pub struct NewAthlete {
    pub first_name: String,
    pub last_name: String,
    pub email: Option<String>,
    pub birth_date: Option<NaiveDate>,
    pub stance: Option<Stance>,
    pub level: Option<Level>,
    pub notes: Option<String>,
    pub status: AthleteStatus,
    pub source: AthleteSource,
}

pub async fn insert(
    x: &mut impl Executor,
    org: Id,
    a: &NewAthlete,
    by: Option<Id>,
) -> Result<Athlete, sqlx::Error> {
    let now = Ts::now();
    let row = Athlete {
        id: Id::new(),
        org_id: org,
        first_name: a.first_name.clone(),
        last_name: a.last_name.clone(),
        email: a.email.clone(),
        birth_date: a.birth_date,
        stance: a.stance,
        level: a.level,
        notes: a.notes.clone(),
        status: a.status,
        name_key: name_key(&a.first_name, &a.last_name, a.birth_date),
        user_id: None,
        published: false,
        public_slug: None,
        public_bio: None,
        source: a.source,
        created_by: by,
        created_at: now,
        updated_at: now,
    };
    execute!(x, sqlx::query(
        "INSERT INTO athletes (id, org_id, first_name, last_name, email, birth_date, stance, level, notes, status, name_key,
            user_id, published, public_slug, public_bio, source, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL, FALSE, NULL, NULL, $12, $13, $14, $14)")
        .bind(row.id).bind(org).bind(&row.first_name).bind(&row.last_name).bind(&row.email)
        .bind(row.birth_date).bind(row.stance).bind(row.level).bind(&row.notes).bind(row.status)
        .bind(&row.name_key).bind(row.source).bind(by).bind(now))?;
    Ok(row)
}

/// Inserts many athletes with multi-row statements (the CSV import). Run in a transaction.
pub async fn insert_many(
    x: &mut impl Executor,
    org: Id,
    rows: &[NewAthlete],
    by: Option<Id>,
) -> Result<Vec<Id>, sqlx::Error> {
    // 14 binds per row. SQLite looks bind parameters up by name in a list (cost quadratic in
    // the statement's parameters), so its statements stay small; PostgreSQL gains from fewer
    // round trips.
    let chunk_rows = match x.conn() {
        crate::db::DbConn::Sqlite(_) => 16,
        crate::db::DbConn::Pg(_) => 500,
    };
    let now = Ts::now();
    let mut ids = Vec::with_capacity(rows.len());
    for chunk in rows.chunks(chunk_rows) {
        let mut q = String::from(
            "INSERT INTO athletes (id, org_id, first_name, last_name, email, birth_date, stance, level, notes, status, name_key,
                user_id, published, public_slug, public_bio, source, created_by, created_at, updated_at) VALUES ",
        );
        for i in 0..chunk.len() {
            let b = i * 14;
            if i > 0 {
                q.push(',');
            }
            q.push_str(&format!(
                "(${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, NULL, FALSE, NULL, NULL, ${}, ${}, ${}, ${})",
                b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 8, b + 9, b + 10, b + 11, b + 12, b + 13, b + 14, b + 14
            ));
        }
        let chunk_ids: Vec<Id> = chunk.iter().map(|_| Id::new()).collect();
        sql!(x, c => {
            let mut query = sqlx::query(sqlx::AssertSqlSafe(q.clone()));
            for (a, id) in chunk.iter().zip(&chunk_ids) {
                query = query
                    .bind(*id).bind(org).bind(&a.first_name).bind(&a.last_name).bind(&a.email)
                    .bind(a.birth_date).bind(a.stance).bind(a.level).bind(&a.notes).bind(a.status)
                    .bind(name_key(&a.first_name, &a.last_name, a.birth_date)).bind(a.source).bind(by).bind(now);
            }
            query.execute(&mut *c).await.map(|_| ())
        })?;
        ids.extend(chunk_ids);
    }
    Ok(ids)
}

pub async fn get(x: &mut impl Executor, org: Id, id: Id) -> Result<Option<Athlete>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM athletes WHERE id = $1 AND org_id = $2");
    sql!(x, c => sqlx::query_as::<_, Athlete>(sqlx::AssertSqlSafe(q)).bind(id).bind(org).fetch_optional(&mut *c).await)
}

pub async fn by_id_any_org(x: &mut impl Executor, id: Id) -> Result<Option<Athlete>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM athletes WHERE id = $1");
    sql!(x, c => sqlx::query_as::<_, Athlete>(sqlx::AssertSqlSafe(q)).bind(id).fetch_optional(&mut *c).await)
}

pub async fn by_slug(x: &mut impl Executor, slug: &str) -> Result<Option<Athlete>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM athletes WHERE public_slug = $1 AND published = TRUE");
    sql!(x, c => sqlx::query_as::<_, Athlete>(sqlx::AssertSqlSafe(q)).bind(slug).fetch_optional(&mut *c).await)
}

/// Takes the athlete's row lock (PostgreSQL) so concurrent writers of this athlete queue up;
/// SQLite write transactions are already serialised. False when absent.
pub async fn lock(x: &mut impl Executor, org: Id, id: Id) -> Result<bool, sqlx::Error> {
    let n = execute!(
        x,
        sqlx::query("UPDATE athletes SET updated_at = updated_at WHERE id = $1 AND org_id = $2")
            .bind(id)
            .bind(org)
    )?;
    Ok(n == 1)
}

/// Which statuses a list shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StatusFilter {
    /// Active and pending: everything but archived.
    #[default]
    NotArchived,
    All,
    Only(AthleteStatus),
}

/// List filters; `None` means no filter.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub q: Option<String>,
    pub status: StatusFilter,
    pub level: Option<Level>,
    pub coach: Option<Id>,
    pub published: Option<bool>,
}

pub async fn list(
    x: &mut impl Executor,
    org: Id,
    f: &Filter,
    limit: i64,
    offset: i64,
) -> Result<Vec<Athlete>, sqlx::Error> {
    let mut q = format!("SELECT {COLUMNS} FROM athletes a WHERE a.org_id = $1");
    // Fixed placeholders; an absent filter binds NULL and the clause is true.
    q.push_str(
        " AND ($2 IS NULL OR LOWER(a.first_name) LIKE $2 OR LOWER(a.last_name) LIKE $2 OR LOWER(a.email) LIKE $2
              OR LOWER(a.first_name || ' ' || a.last_name) LIKE $2)",
    );
    let status = match f.status {
        StatusFilter::NotArchived => {
            q.push_str(" AND a.status <> $3");
            Some(AthleteStatus::Archived)
        }
        StatusFilter::All => {
            q.push_str(" AND ($3 IS NULL OR TRUE)");
            None
        }
        StatusFilter::Only(s) => {
            q.push_str(" AND a.status = $3");
            Some(s)
        }
    };
    q.push_str(" AND ($4 IS NULL OR a.level = $4)");
    q.push_str(" AND ($5 IS NULL OR EXISTS (SELECT 1 FROM athlete_coaches ac WHERE ac.athlete_id = a.id AND ac.user_id = $5))");
    q.push_str(" AND ($6 IS NULL OR a.published = $6)");
    q.push_str(" ORDER BY a.last_name, a.first_name, a.id LIMIT $7 OFFSET $8");
    let pattern =
        f.q.as_deref()
            .map(|s| format!("%{}%", s.trim().to_lowercase().replace(['%', '_'], "")));
    sql!(x, c => sqlx::query_as::<_, Athlete>(sqlx::AssertSqlSafe(q))
        .bind(org).bind(pattern).bind(status).bind(f.level).bind(f.coach).bind(f.published)
        .bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// An athlete a coach should look at, with the reasons (the desk's dashboard).
#[derive(Debug, Clone, FromRow)]
pub struct Attention {
    pub id: Id,
    pub first_name: String,
    pub last_name: String,
    pub birth_date: Option<NaiveDate>,
    /// An invite was made, is still valid and unused, and the athlete has no login yet.
    pub invite_unclaimed: bool,
    /// A guardian's consent is on record and not withdrawn.
    pub consent: bool,
    /// A guardian with a login looks after the athlete.
    pub guardian: bool,
}

/// The org's athletes (not archived) with an unclaimed invite, or born after `adult_cutoff`
/// (or of unknown birth date: treated as minors) without consent or without a guardian; by
/// name, at most `limit`.
pub async fn needing_attention(
    x: &mut impl Executor,
    org: Id,
    now: Ts,
    adult_cutoff: NaiveDate,
    limit: i64,
) -> Result<Vec<Attention>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Attention>(
        "SELECT * FROM (
            SELECT a.id, a.first_name, a.last_name, a.birth_date,
              (a.user_id IS NULL AND EXISTS (SELECT 1 FROM athlete_invites i
                 WHERE i.athlete_id = a.id AND i.used_at IS NULL AND i.expires_at > $2)) AS invite_unclaimed,
              EXISTS (SELECT 1 FROM guardian_consents g
                 WHERE g.athlete_id = a.id AND g.withdrawn_at IS NULL) AS consent,
              EXISTS (SELECT 1 FROM athlete_guardians g WHERE g.athlete_id = a.id) AS guardian,
              (a.birth_date IS NULL OR a.birth_date > $3) AS minor
            FROM athletes a WHERE a.org_id = $1 AND a.status <> 'archived'
         ) t
         WHERE t.invite_unclaimed OR (t.minor AND (NOT t.consent OR NOT t.guardian))
         ORDER BY t.last_name, t.first_name, t.id LIMIT $4")
        .bind(org).bind(now).bind(adult_cutoff).bind(limit).fetch_all(&mut *c).await)
}

/// An athlete a user is linked to: their own athlete record (`relationship` null) or one they
/// look after as a guardian, with the workspace's name.
#[derive(Debug, Clone, FromRow)]
pub struct Linked {
    #[sqlx(flatten)]
    pub athlete: Athlete,
    pub org_name: String,
    pub relationship: Option<Relationship>,
}

/// The athletes `user` is (their own login) or looks after (guardian), not archived, in
/// every workspace; by workspace, then name.
pub async fn linked_to_user(x: &mut impl Executor, user: Id) -> Result<Vec<Linked>, sqlx::Error> {
    let cols = COLUMNS
        .split(", ")
        .map(|c| format!("a.{c}"))
        .collect::<Vec<_>>()
        .join(", ");
    let q = format!(
        "SELECT * FROM (
           SELECT {cols}, o.name AS org_name, CAST(NULL AS TEXT) AS relationship
             FROM athletes a JOIN orgs o ON o.id = a.org_id
            WHERE a.user_id = $1 AND a.status <> 'archived'
           UNION ALL
           SELECT {cols}, o.name AS org_name, g.relationship
             FROM athlete_guardians g JOIN athletes a ON a.id = g.athlete_id JOIN orgs o ON o.id = a.org_id
            WHERE g.user_id = $1 AND a.status <> 'archived'
         ) t ORDER BY t.org_name, t.last_name, t.first_name, t.id"
    );
    sql!(x, c => sqlx::query_as::<_, Linked>(sqlx::AssertSqlSafe(q)).bind(user).fetch_all(&mut *c).await)
}

/// Every athlete of the org, oldest first (the CSV export).
pub async fn all_of_org(x: &mut impl Executor, org: Id) -> Result<Vec<Athlete>, sqlx::Error> {
    let q = format!("SELECT {COLUMNS} FROM athletes WHERE org_id = $1 ORDER BY created_at, id");
    sql!(x, c => sqlx::query_as::<_, Athlete>(sqlx::AssertSqlSafe(q)).bind(org).fetch_all(&mut *c).await)
}

/// The duplicate keys of the org's athletes: (lower-case email, name key, id).
pub async fn dedup_keys(
    x: &mut impl Executor,
    org: Id,
) -> Result<Vec<(Option<String>, String, Id)>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, (Option<String>, String, Id)>(
        "SELECT LOWER(email), name_key, id FROM athletes WHERE org_id = $1")
        .bind(org).fetch_all(&mut *c).await)
}

pub async fn by_email(
    x: &mut impl Executor,
    org: Id,
    email: &str,
) -> Result<Option<Athlete>, sqlx::Error> {
    let q = format!(
        "SELECT {COLUMNS} FROM athletes WHERE org_id = $1 AND LOWER(email) = LOWER($2) ORDER BY created_at, id LIMIT 1"
    );
    sql!(x, c => sqlx::query_as::<_, Athlete>(sqlx::AssertSqlSafe(q)).bind(org).bind(email).fetch_optional(&mut *c).await)
}

/// Writes every editable field of `a` back.
pub async fn update(x: &mut impl Executor, a: &Athlete) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE athletes SET first_name = $3, last_name = $4, email = $5, birth_date = $6, stance = $7, level = $8,
            notes = $9, status = $10, name_key = $11, user_id = $12, published = $13, public_slug = $14, public_bio = $15,
            updated_at = $16
         WHERE id = $1 AND org_id = $2")
        .bind(a.id).bind(a.org_id).bind(&a.first_name).bind(&a.last_name).bind(&a.email).bind(a.birth_date)
        .bind(a.stance).bind(a.level).bind(&a.notes).bind(a.status)
        .bind(name_key(&a.first_name, &a.last_name, a.birth_date)).bind(a.user_id).bind(a.published)
        .bind(&a.public_slug).bind(&a.public_bio).bind(Ts::now()))?;
    Ok(())
}

pub async fn delete(x: &mut impl Executor, org: Id, id: Id) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM athletes WHERE id = $1 AND org_id = $2")
            .bind(id)
            .bind(org)
    )
}

pub async fn count(x: &mut impl Executor, org: Id) -> Result<i64, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM athletes WHERE org_id = $1")
        .bind(org).fetch_one(&mut *c).await)
}

// ---- coach assignments ----

#[derive(Debug, Clone, FromRow)]
pub struct Assignment {
    pub id: Id,
    pub athlete_id: Id,
    pub user_id: Id,
    pub role: CoachRole,
    pub name: String,
    pub email: String,
    pub created_at: Ts,
}

pub async fn assignments(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
) -> Result<Vec<Assignment>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Assignment>(
        "SELECT ac.id, ac.athlete_id, ac.user_id, ac.role, u.name, u.email, ac.created_at
         FROM athlete_coaches ac JOIN users u ON u.id = ac.user_id
         WHERE ac.org_id = $1 AND ac.athlete_id = $2 ORDER BY ac.created_at, ac.id")
        .bind(org).bind(athlete).fetch_all(&mut *c).await)
}

/// Assigns a coach; `None` when already assigned.
pub async fn assign(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
    user: Id,
    role: CoachRole,
    by: Id,
) -> Result<Option<Id>, sqlx::Error> {
    let id = Id::new();
    let n = execute!(x, sqlx::query(
        "INSERT INTO athlete_coaches (id, org_id, athlete_id, user_id, role, created_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (athlete_id, user_id) DO NOTHING")
        .bind(id).bind(org).bind(athlete).bind(user).bind(role).bind(by).bind(Ts::now()))?;
    Ok((n == 1).then_some(id))
}

pub async fn unassign(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
    sc: Id,
) -> Result<u64, sqlx::Error> {
    execute!(
        x,
        sqlx::query(
            "DELETE FROM athlete_coaches WHERE id = $1 AND org_id = $2 AND athlete_id = $3"
        )
        .bind(sc)
        .bind(org)
        .bind(athlete)
    )
}

// ---- invites ----

pub const INVITE_TTL: chrono::Duration = chrono::Duration::days(14);

#[derive(Debug, Clone, FromRow)]
pub struct Invite {
    pub id: Id,
    pub org_id: Id,
    pub athlete_id: Id,
    pub email: Option<String>,
    pub created_at: Ts,
    pub expires_at: Ts,
    pub used_at: Option<Ts>,
}

/// The athlete's newest invite, if any was made.
pub async fn latest_invite(
    x: &mut impl Executor,
    athlete: Id,
) -> Result<Option<Invite>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Invite>(
        "SELECT id, org_id, athlete_id, email, created_at, expires_at, used_at FROM athlete_invites
         WHERE athlete_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1")
        .bind(athlete).fetch_optional(&mut *c).await)
}

/// Creates an invite and returns it with its secret (shown once). Earlier unused invites of the
/// athlete are voided, so only the newest link works.
pub async fn create_invite(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
    email: Option<&str>,
    by: Id,
) -> Result<(Invite, String), sqlx::Error> {
    let token = crate::crypto::new_token("sai_");
    let now = Ts::now();
    execute!(
        x,
        sqlx::query(
            "UPDATE athlete_invites SET used_at = $2 WHERE athlete_id = $1 AND used_at IS NULL"
        )
        .bind(athlete)
        .bind(now)
    )?;
    let inv = Invite {
        id: Id::new(),
        org_id: org,
        athlete_id: athlete,
        email: email.map(String::from),
        created_at: now,
        expires_at: now.plus(INVITE_TTL),
        used_at: None,
    };
    execute!(x, sqlx::query(
        "INSERT INTO athlete_invites (id, org_id, athlete_id, token_hash, email, created_by, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)")
        .bind(inv.id).bind(org).bind(athlete).bind(hash_token(&token)).bind(&inv.email).bind(by)
        .bind(now).bind(inv.expires_at))?;
    Ok((inv, token))
}

#[derive(Debug, Clone)]
pub enum InviteState {
    Valid(Invite),
    Expired,
    Used,
    Unknown,
}

pub async fn check_invite(x: &mut impl Executor, token: &str) -> Result<InviteState, sqlx::Error> {
    let row = sql!(x, c => sqlx::query_as::<_, Invite>(
        "SELECT id, org_id, athlete_id, email, created_at, expires_at, used_at FROM athlete_invites WHERE token_hash = $1")
        .bind(hash_token(token)).fetch_optional(&mut *c).await)?;
    Ok(match row {
        None => InviteState::Unknown,
        Some(r) if r.used_at.is_some() => InviteState::Used,
        Some(r) if r.expires_at <= Ts::now() => InviteState::Expired,
        Some(r) => InviteState::Valid(r),
    })
}

/// Uses an invite atomically: of two concurrent claims with one token, one wins.
pub async fn consume_invite(
    x: &mut impl Executor,
    token: &str,
    user: Id,
) -> Result<InviteState, sqlx::Error> {
    let state = check_invite(x, token).await?;
    let InviteState::Valid(inv) = state else {
        return Ok(state);
    };
    let n = execute!(x, sqlx::query(
        "UPDATE athlete_invites SET used_at = $2, used_by = $3 WHERE id = $1 AND used_at IS NULL")
        .bind(inv.id).bind(Ts::now()).bind(user))?;
    Ok(if n == 1 {
        InviteState::Valid(inv)
    } else {
        InviteState::Used
    })
}

/// Test and maintenance helper: moves an invite's expiry.
pub async fn set_invite_expiry(x: &mut impl Executor, id: Id, at: Ts) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE athlete_invites SET expires_at = $2 WHERE id = $1")
            .bind(id)
            .bind(at)
    )?;
    Ok(())
}

// ---- guardians and consent ----

pub async fn add_guardian(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
    user: Id,
    relationship: Relationship,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO athlete_guardians (id, org_id, athlete_id, user_id, relationship, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (athlete_id, user_id) DO NOTHING")
        .bind(Id::new()).bind(org).bind(athlete).bind(user).bind(relationship).bind(Ts::now()))?;
    Ok(())
}

#[derive(Debug, Clone, FromRow)]
pub struct Guardian {
    pub user_id: Id,
    pub name: String,
    pub email: String,
    pub relationship: Relationship,
}

pub async fn guardians(x: &mut impl Executor, athlete: Id) -> Result<Vec<Guardian>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Guardian>(
        "SELECT g.user_id, u.name, u.email, g.relationship FROM athlete_guardians g JOIN users u ON u.id = g.user_id
         WHERE g.athlete_id = $1 ORDER BY g.created_at, g.id")
        .bind(athlete).fetch_all(&mut *c).await)
}

#[derive(Debug, Clone, FromRow)]
pub struct Consent {
    pub id: Id,
    pub athlete_id: Id,
    pub guardian_user_id: Option<Id>,
    pub guardian_name: String,
    pub guardian_email: Option<String>,
    pub relationship: Relationship,
    pub method: ConsentMethod,
    pub note: Option<String>,
    pub recorded_by: Option<Id>,
    pub consented_at: Ts,
    pub created_at: Ts,
    pub withdrawn_at: Option<Ts>,
}

#[derive(Debug, Clone)]
pub struct NewConsent {
    pub guardian_user_id: Option<Id>,
    pub guardian_name: String,
    pub guardian_email: Option<String>,
    pub relationship: Relationship,
    pub method: ConsentMethod,
    pub note: Option<String>,
    pub recorded_by: Option<Id>,
    pub consented_at: Ts,
}

pub async fn record_consent(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
    c: &NewConsent,
) -> Result<Id, sqlx::Error> {
    let id = Id::new();
    execute!(x, sqlx::query(
        "INSERT INTO guardian_consents (id, org_id, athlete_id, guardian_user_id, guardian_name, guardian_email, relationship,
            method, note, recorded_by, consented_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)")
        .bind(id).bind(org).bind(athlete).bind(c.guardian_user_id).bind(&c.guardian_name).bind(&c.guardian_email)
        .bind(c.relationship).bind(c.method).bind(&c.note).bind(c.recorded_by).bind(c.consented_at).bind(Ts::now()))?;
    Ok(id)
}

pub async fn consents(x: &mut impl Executor, athlete: Id) -> Result<Vec<Consent>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, Consent>(
        "SELECT id, athlete_id, guardian_user_id, guardian_name, guardian_email, relationship, method, note, recorded_by,
            consented_at, created_at, withdrawn_at
         FROM guardian_consents WHERE athlete_id = $1 ORDER BY consented_at, id")
        .bind(athlete).fetch_all(&mut *c).await)
}

pub async fn has_active_consent(x: &mut impl Executor, athlete: Id) -> Result<bool, sqlx::Error> {
    let n = sql!(x, c => sqlx::query_scalar::<_, i64>(
        "SELECT COUNT(*) FROM guardian_consents WHERE athlete_id = $1 AND withdrawn_at IS NULL")
        .bind(athlete).fetch_one(&mut *c).await)?;
    Ok(n > 0)
}

pub async fn withdraw_consents(x: &mut impl Executor, athlete: Id) -> Result<u64, sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE guardian_consents SET withdrawn_at = $2 WHERE athlete_id = $1 AND withdrawn_at IS NULL")
        .bind(athlete).bind(Ts::now()))
}

// ---- provider links ----

#[derive(Debug, Clone, FromRow)]
pub struct ProviderLink {
    pub id: Id,
    pub provider: String,
    pub external_id: String,
}

pub async fn add_provider_link(
    x: &mut impl Executor,
    org: Id,
    athlete: Id,
    provider: &str,
    external_id: &str,
) -> Result<Id, sqlx::Error> {
    let id = Id::new();
    execute!(x, sqlx::query(
        "INSERT INTO athlete_provider_links (id, org_id, athlete_id, provider, external_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)")
        .bind(id).bind(org).bind(athlete).bind(provider).bind(external_id).bind(Ts::now()))?;
    Ok(id)
}

/// Roster athletes (not archived) whose "first last" name contains `q` (case-insensitive),
/// by name: `(id, first, last)`.
pub async fn search_names(
    x: &mut impl Executor,
    org: Id,
    q: &str,
    limit: i64,
) -> Result<Vec<(Id, String, String)>, sqlx::Error> {
    let like = format!(
        "%{}%",
        q.to_lowercase()
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_")
    );
    sql!(x, c => sqlx::query_as(
        "SELECT id, first_name, last_name FROM athletes WHERE org_id = $1 AND status <> 'archived'
           AND lower(first_name || ' ' || last_name) LIKE $2 ESCAPE '\\'
         ORDER BY first_name, last_name, id LIMIT $3")
        .bind(org).bind(like).bind(limit).fetch_all(&mut *c).await)
}

/// Roster athletes (not archived) named exactly so (case-insensitive) with no link to
/// `provider`: the candidates an import may link instead of creating a duplicate.
pub async fn unlinked_by_name(
    x: &mut impl Executor,
    org: Id,
    first: &str,
    last: &str,
    provider: &str,
) -> Result<Vec<Id>, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar(
        "SELECT a.id FROM athletes a WHERE a.org_id = $1 AND lower(a.first_name) = lower($2)
           AND lower(a.last_name) = lower($3) AND a.status <> 'archived'
           AND NOT EXISTS (SELECT 1 FROM athlete_provider_links l WHERE l.athlete_id = a.id AND l.provider = $4)
         ORDER BY a.created_at, a.id LIMIT 10")
        .bind(org).bind(first.trim()).bind(last.trim()).bind(provider).fetch_all(&mut *c).await)
}

pub async fn provider_links(
    x: &mut impl Executor,
    athlete: Id,
) -> Result<Vec<ProviderLink>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, ProviderLink>(
        "SELECT id, provider, external_id FROM athlete_provider_links WHERE athlete_id = $1 ORDER BY created_at, id")
        .bind(athlete).fetch_all(&mut *c).await)
}

// ---- merge ----

/// Counts of what a merge moved.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Moved {
    pub coaches: u64,
    pub invites: u64,
    pub guardians: u64,
    pub consents: u64,
    pub training_sessions: u64,
    pub footage_sessions: u64,
    pub provider_links: u64,
    pub conversations: u64,
    pub circuits: u64,
    pub results: u64,
}

/// Moves every reference from `from` to `into` (both in `org`). Rows that would collide
/// (the same coach, guardian or training session on both) keep `into`'s and drop `from`'s;
/// a conversation with a coach who also talks to `into` hands its messages to that one.
/// Run in a transaction, before deleting `from`.
pub async fn move_references(
    x: &mut impl Executor,
    org: Id,
    from: Id,
    into: Id,
) -> Result<Moved, sqlx::Error> {
    let mut m = Moved::default();
    execute!(x, sqlx::query(
        "DELETE FROM athlete_coaches WHERE athlete_id = $1 AND user_id IN (SELECT user_id FROM athlete_coaches WHERE athlete_id = $2)")
        .bind(from).bind(into))?;
    m.coaches = execute!(
        x,
        sqlx::query(
            "UPDATE athlete_coaches SET athlete_id = $2 WHERE athlete_id = $1 AND org_id = $3"
        )
        .bind(from)
        .bind(into)
        .bind(org)
    )?;
    m.invites = execute!(
        x,
        sqlx::query(
            "UPDATE athlete_invites SET athlete_id = $2 WHERE athlete_id = $1 AND org_id = $3"
        )
        .bind(from)
        .bind(into)
        .bind(org)
    )?;
    execute!(x, sqlx::query(
        "DELETE FROM athlete_guardians WHERE athlete_id = $1 AND user_id IN (SELECT user_id FROM athlete_guardians WHERE athlete_id = $2)")
        .bind(from).bind(into))?;
    m.guardians = execute!(
        x,
        sqlx::query(
            "UPDATE athlete_guardians SET athlete_id = $2 WHERE athlete_id = $1 AND org_id = $3"
        )
        .bind(from)
        .bind(into)
        .bind(org)
    )?;
    m.consents = execute!(
        x,
        sqlx::query(
            "UPDATE guardian_consents SET athlete_id = $2 WHERE athlete_id = $1 AND org_id = $3"
        )
        .bind(from)
        .bind(into)
        .bind(org)
    )?;
    execute!(x, sqlx::query(
        "DELETE FROM training_participants WHERE athlete_id = $1 AND session_id IN (SELECT session_id FROM training_participants WHERE athlete_id = $2)")
        .bind(from).bind(into))?;
    m.training_sessions = execute!(
        x,
        sqlx::query(
            "UPDATE training_participants SET athlete_id = $2 WHERE athlete_id = $1 AND org_id = $3"
        )
        .bind(from)
        .bind(into)
        .bind(org)
    )?;
    m.footage_sessions = execute!(
        x,
        sqlx::query(
            "UPDATE footage_sessions SET athlete_id = $2 WHERE athlete_id = $1 AND org_id = $3"
        )
        .bind(from)
        .bind(into)
        .bind(org)
    )?;
    m.provider_links = execute!(x, sqlx::query("UPDATE athlete_provider_links SET athlete_id = $2 WHERE athlete_id = $1 AND org_id = $3")
        .bind(from).bind(into).bind(org))?;
    m.conversations = move_conversations(x, org, from, into).await?;
    execute!(x, sqlx::query(
        "DELETE FROM circuit_athletes WHERE athlete_id = $1 AND circuit_id IN (SELECT circuit_id FROM circuit_athletes WHERE athlete_id = $2)")
        .bind(from).bind(into))?;
    m.circuits = execute!(
        x,
        sqlx::query(
            "UPDATE circuit_athletes SET athlete_id = $2 WHERE athlete_id = $1 AND org_id = $3"
        )
        .bind(from)
        .bind(into)
        .bind(org)
    )?;
    // The same result on both (one person linked twice): `into`'s stays.
    execute!(x, sqlx::query(
        "DELETE FROM competition_results WHERE athlete_id = $1 AND EXISTS (SELECT 1 FROM competition_results k
           WHERE k.athlete_id = $2 AND k.provider = competition_results.provider
             AND k.event_key = competition_results.event_key AND k.division = competition_results.division)")
        .bind(from).bind(into))?;
    m.results = execute!(
        x,
        sqlx::query(
            "UPDATE competition_results SET athlete_id = $2 WHERE athlete_id = $1 AND org_id = $3"
        )
        .bind(from)
        .bind(into)
        .bind(org)
    )?;
    crate::repo::opponents::move_athlete(x, org, from, into).await?;
    // One goal per circuit: where both have one, `into`'s stays.
    execute!(x, sqlx::query(
        "DELETE FROM strategy_goals WHERE athlete_id = $1 AND circuit_id IN (SELECT circuit_id FROM strategy_goals WHERE athlete_id = $2)")
        .bind(from).bind(into))?;
    for table in ["strategy_goals", "season_reports"] {
        execute!(
            x,
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "UPDATE {table} SET athlete_id = $2 WHERE athlete_id = $1 AND org_id = $3"
            )))
            .bind(from)
            .bind(into)
            .bind(org)
        )?;
    }
    Ok(m)
}

/// Conversations of `from` become `into`'s. Where the same coach already talks to `into`
/// (one conversation per coach and athlete), the messages join that conversation and the
/// empty one goes. Attachments keep their keys: they are resolved by message, not by prefix.
async fn move_conversations(
    x: &mut impl Executor,
    org: Id,
    from: Id,
    into: Id,
) -> Result<u64, sqlx::Error> {
    const TWIN: &str = "SELECT t.id FROM conversations t
         WHERE t.org_id = f.org_id AND t.athlete_id = $2 AND t.coach_user_id = f.coach_user_id";
    let moved_messages = execute!(x, sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE messages SET conversation_id = (SELECT t.id FROM conversations t JOIN conversations f
             ON t.org_id = f.org_id AND t.coach_user_id = f.coach_user_id
           WHERE f.id = messages.conversation_id AND t.athlete_id = $2)
         WHERE org_id = $3 AND conversation_id IN
           (SELECT f.id FROM conversations f WHERE f.athlete_id = $1 AND f.org_id = $3 AND EXISTS ({TWIN}))")))
        .bind(from).bind(into).bind(org))?;
    // Reports name their conversation too (and would go with it): follow the messages.
    execute!(x, sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE message_reports SET conversation_id =
           (SELECT m.conversation_id FROM messages m WHERE m.id = message_reports.message_id)
         WHERE org_id = $3 AND conversation_id IN
           (SELECT f.id FROM conversations f WHERE f.athlete_id = $1 AND f.org_id = $3 AND EXISTS ({TWIN}))")))
        .bind(from).bind(into).bind(org))?;
    if moved_messages > 0 {
        execute!(x, sqlx::query(
            "UPDATE conversations SET last_message_at =
               (SELECT MAX(m.created_at) FROM messages m WHERE m.conversation_id = conversations.id)
             WHERE athlete_id = $1 AND org_id = $2 AND EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = conversations.id)")
            .bind(into).bind(org))?;
    }
    let merged = execute!(x, sqlx::query(sqlx::AssertSqlSafe(format!(
        "DELETE FROM conversations WHERE id IN
           (SELECT f.id FROM conversations f WHERE f.athlete_id = $1 AND f.org_id = $3 AND EXISTS ({TWIN}))")))
        .bind(from).bind(into).bind(org))?;
    let moved = execute!(
        x,
        sqlx::query(
            "UPDATE conversations SET athlete_id = $2 WHERE athlete_id = $1 AND org_id = $3"
        )
        .bind(from)
        .bind(into)
        .bind(org)
    )?;
    Ok(merged + moved)
}

// ---- club self-enrollment ----

pub async fn enrollment_enabled(x: &mut impl Executor, org: Id) -> Result<bool, sqlx::Error> {
    Ok(sql!(x, c => sqlx::query_scalar::<_, bool>("SELECT enabled FROM club_enrollment WHERE org_id = $1")
        .bind(org).fetch_optional(&mut *c).await)?
    .unwrap_or(false))
}

pub async fn set_enrollment(
    x: &mut impl Executor,
    org: Id,
    enabled: bool,
    by: Id,
) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "INSERT INTO club_enrollment (org_id, enabled, updated_by, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (org_id) DO UPDATE SET enabled = excluded.enabled, updated_by = excluded.updated_by, updated_at = excluded.updated_at")
        .bind(org).bind(enabled).bind(by).bind(Ts::now()))?;
    Ok(())
}
