use crate::authz::{BUILTIN_ROLES, default_disabled_modules};
use crate::db::{AuthChange, Executor, Id, Ts};
use crate::repo::subscriptions::COUNTING;
use crate::{execute, sql};
use sqlx::FromRow;
use sqlx::types::Json;

crate::text_enum! {
    /// What kind of organisation a workspace is (it sets the default modules).
    pub enum OrgType {
        Coach = "coach",
        Club = "club",
        School = "school",
        Federation = "federation",
    }
}

// Tests read rows and compare them with the spelling.
impl PartialEq<&str> for OrgType {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[derive(Debug, Clone, FromRow)]
pub struct Org {
    pub id: Id,
    pub name: String,
    #[sqlx(rename = "type")]
    pub org_type: OrgType,
    pub plan: String,
    pub seat_cap: Option<i64>,
    pub disabled_modules: Json<Vec<String>>,
    pub country: Option<String>,
    pub created_by: Option<Id>,
    pub created_at: Ts,
    pub updated_at: Ts,
}

#[derive(Debug, Clone, FromRow)]
pub struct Role {
    pub id: Id,
    pub org_id: Id,
    pub key: String,
    pub name: String,
    pub permissions: Json<Vec<String>>,
    pub builtin: bool,
    pub created_at: Ts,
    pub updated_at: Ts,
}

/// A user's membership of one workspace with what the authorization check needs.
#[derive(Debug, Clone, FromRow)]
pub struct Membership {
    pub member_id: Id,
    pub org_id: Id,
    pub org_name: String,
    pub org_type: OrgType,
    pub role_id: Id,
    pub role_key: String,
    pub role_name: String,
    pub permissions: Json<Vec<String>>,
    pub disabled_modules: Json<Vec<String>>,
}

const ORG_COLUMNS: &str =
    "id, name, type, plan, seat_cap, disabled_modules, country, created_by, created_at, updated_at";
const MEMBERSHIP_SELECT: &str =
    "SELECT m.id AS member_id, o.id AS org_id, o.name AS org_name, o.type AS org_type,
        r.id AS role_id, r.key AS role_key, r.name AS role_name, r.permissions, o.disabled_modules
     FROM members m JOIN orgs o ON o.id = m.org_id JOIN roles r ON r.id = m.role_id";

/// Creates a workspace with its built-in roles and `owner_user` as owner. Run in a transaction.
pub async fn create_with_owner(
    x: &mut impl Executor,
    name: &str,
    org_type: OrgType,
    owner_user: Id,
) -> Result<Org, sqlx::Error> {
    let now = Ts::now();
    let org = Org {
        id: Id::new(),
        name: name.to_string(),
        org_type,
        plan: "free".into(),
        seat_cap: None,
        disabled_modules: Json(
            default_disabled_modules(org_type.as_str())
                .into_iter()
                .map(String::from)
                .collect(),
        ),
        country: None,
        created_by: Some(owner_user),
        created_at: now,
        updated_at: now,
    };
    execute!(x, sqlx::query(
        "INSERT INTO orgs (id, name, type, plan, seat_cap, disabled_modules, country, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, NULL, $5, NULL, $6, $7, $7)")
        .bind(org.id).bind(&org.name).bind(org.org_type).bind(&org.plan)
        .bind(&org.disabled_modules).bind(owner_user).bind(now))?;
    let mut owner_role = None;
    for r in BUILTIN_ROLES {
        let id = Id::new();
        let perms: Vec<String> = (r.permissions)().into_iter().map(String::from).collect();
        execute!(x, sqlx::query(
            "INSERT INTO roles (id, org_id, key, name, permissions, builtin, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, TRUE, $6, $6)")
            .bind(id).bind(org.id).bind(r.key).bind(r.name).bind(Json(perms)).bind(now))?;
        if r.key == "owner" {
            owner_role = Some(id);
        }
    }
    let owner_role = owner_role.expect("builtin roles include owner");
    execute!(x, sqlx::query(
        "INSERT INTO members (id, org_id, user_id, role_id, created_at) VALUES ($1, $2, $3, $4, $5)")
        .bind(Id::new()).bind(org.id).bind(owner_user).bind(owner_role).bind(now))?;
    x.auth_changed(AuthChange::User(owner_user));
    Ok(org)
}

pub async fn by_id(x: &mut impl Executor, id: Id) -> Result<Option<Org>, sqlx::Error> {
    let q = format!("SELECT {ORG_COLUMNS} FROM orgs WHERE id = $1");
    sql!(x, c => sqlx::query_as::<_, Org>(sqlx::AssertSqlSafe(q)).bind(id).fetch_optional(&mut *c).await)
}

pub async fn update(x: &mut impl Executor, org: &Org) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query(
        "UPDATE orgs SET name = $2, type = $3, country = $4, disabled_modules = $5, updated_at = $6 WHERE id = $1")
        .bind(org.id).bind(&org.name).bind(org.org_type).bind(&org.country)
        .bind(&org.disabled_modules).bind(Ts::now()))?;
    x.auth_changed(AuthChange::All);
    Ok(())
}

pub async fn delete(x: &mut impl Executor, id: Id) -> Result<(), sqlx::Error> {
    execute!(x, sqlx::query("DELETE FROM orgs WHERE id = $1").bind(id))?;
    x.auth_changed(AuthChange::All);
    Ok(())
}

pub async fn memberships_of(
    x: &mut impl Executor,
    user: Id,
) -> Result<Vec<Membership>, sqlx::Error> {
    let q = format!("{MEMBERSHIP_SELECT} WHERE m.user_id = $1 ORDER BY m.created_at, o.id");
    sql!(x, c => sqlx::query_as::<_, Membership>(sqlx::AssertSqlSafe(q)).bind(user).fetch_all(&mut *c).await)
}

pub async fn membership(
    x: &mut impl Executor,
    user: Id,
    org: Id,
) -> Result<Option<Membership>, sqlx::Error> {
    let q = format!("{MEMBERSHIP_SELECT} WHERE m.user_id = $1 AND m.org_id = $2");
    sql!(x, c => sqlx::query_as::<_, Membership>(sqlx::AssertSqlSafe(q)).bind(user).bind(org).fetch_optional(&mut *c).await)
}

pub async fn count_members(x: &mut impl Executor, org: Id) -> Result<i64, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM members WHERE org_id = $1")
        .bind(org).fetch_one(&mut *c).await)
}

pub async fn count_owners(x: &mut impl Executor, org: Id) -> Result<i64, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar::<_, i64>(
        "SELECT COUNT(*) FROM members m JOIN roles r ON r.id = m.role_id WHERE m.org_id = $1 AND r.key = 'owner'")
        .bind(org).fetch_one(&mut *c).await)
}

pub async fn remove_member(x: &mut impl Executor, org: Id, user: Id) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM members WHERE org_id = $1 AND user_id = $2")
            .bind(org)
            .bind(user)
    )?;
    x.auth_changed(AuthChange::User(user));
    Ok(())
}

/// A page of a user's members in one workspace, for listing.
#[derive(Debug, Clone, FromRow)]
pub struct MemberRow {
    pub member_id: Id,
    pub user_id: Id,
    pub email: String,
    pub name: String,
    pub role_key: String,
    pub role_name: String,
    pub joined_at: Ts,
}

pub async fn list_members(
    x: &mut impl Executor,
    org: Id,
    limit: i64,
    offset: i64,
) -> Result<Vec<MemberRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, MemberRow>(
        "SELECT m.id AS member_id, u.id AS user_id, u.email, u.name, r.key AS role_key, r.name AS role_name, m.created_at AS joined_at
         FROM members m JOIN users u ON u.id = m.user_id JOIN roles r ON r.id = m.role_id
         WHERE m.org_id = $1 ORDER BY m.created_at, m.id LIMIT $2 OFFSET $3")
        .bind(org).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

/// Seats included in the free plan (members plus pending invites).
pub const FREE_PLAN_SEATS: i64 = 3;

/// The workspace's seat cap: an explicit override, else the largest counting subscription or
/// grant (`subscriptions::COUNTING`), else the free plan's.
pub async fn seat_cap(x: &mut impl Executor, org: &Org) -> Result<i64, sqlx::Error> {
    if let Some(cap) = org.seat_cap {
        return Ok(cap);
    }
    // A provider subscription counts by its status alone (the provider renews it and says so
    // by webhook); a grant until its end.
    let subs: Option<i64> = sql!(x, c => sqlx::query_scalar(
        "SELECT MAX(seats) FROM subscriptions WHERE org_id = $1 AND status IN ($3, $4, $5, $6)
           AND (provider_subscription_id IS NOT NULL OR current_period_end IS NULL OR current_period_end > $2)")
        .bind(org.id).bind(Ts::now())
        .bind(COUNTING[0]).bind(COUNTING[1]).bind(COUNTING[2]).bind(COUNTING[3]).fetch_one(&mut *c).await)?;
    Ok(subs.unwrap_or(FREE_PLAN_SEATS).max(FREE_PLAN_SEATS))
}

/// A member of `org` by member id, with role.
pub async fn member(
    x: &mut impl Executor,
    org: Id,
    member_id: Id,
) -> Result<Option<MemberRow>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, MemberRow>(
        "SELECT m.id AS member_id, u.id AS user_id, u.email, u.name, r.key AS role_key, r.name AS role_name, m.created_at AS joined_at
         FROM members m JOIN users u ON u.id = m.user_id JOIN roles r ON r.id = m.role_id
         WHERE m.org_id = $1 AND m.id = $2")
        .bind(org).bind(member_id).fetch_optional(&mut *c).await)
}

pub async fn set_member_role(
    x: &mut impl Executor,
    org: Id,
    member_id: Id,
    role: Id,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE members SET role_id = $3 WHERE org_id = $1 AND id = $2")
            .bind(org)
            .bind(member_id)
            .bind(role)
    )?;
    x.auth_changed(AuthChange::All);
    Ok(())
}

pub async fn add_member(
    x: &mut impl Executor,
    org: Id,
    user: Id,
    role: Id,
) -> Result<Id, sqlx::Error> {
    let id = Id::new();
    execute!(x, sqlx::query("INSERT INTO members (id, org_id, user_id, role_id, created_at) VALUES ($1, $2, $3, $4, $5)")
        .bind(id).bind(org).bind(user).bind(role).bind(Ts::now()))?;
    x.auth_changed(AuthChange::User(user));
    Ok(id)
}

/// Locks the workspace row for the rest of the transaction (PostgreSQL; SQLite's write lock is
/// already exclusive), so seat counts and owner counts cannot change underneath a check.
pub async fn lock(x: &mut impl Executor, org: Id) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE orgs SET updated_at = updated_at WHERE id = $1").bind(org)
    )?;
    Ok(())
}

#[derive(Debug, Clone, FromRow)]
pub struct OrgSummary {
    pub id: Id,
    pub name: String,
    #[sqlx(rename = "type")]
    pub org_type: OrgType,
    pub plan: String,
    pub members: i64,
    pub created_at: Ts,
}

/// Workspaces whose name contains `q`, with member counts, newest first (platform admin).
pub async fn search(
    x: &mut impl Executor,
    q: Option<&str>,
    limit: i64,
    offset: i64,
) -> Result<Vec<OrgSummary>, sqlx::Error> {
    let pattern = q.map(|q| format!("%{}%", q.to_lowercase().replace(['%', '_'], "")));
    sql!(x, c => sqlx::query_as::<_, OrgSummary>(
        "SELECT o.id, o.name, o.type, o.plan, (SELECT COUNT(*) FROM members m WHERE m.org_id = o.id) AS members, o.created_at
         FROM orgs o WHERE ($1 IS NULL OR LOWER(o.name) LIKE $1) ORDER BY o.created_at DESC, o.id DESC LIMIT $2 OFFSET $3")
        .bind(&pattern).bind(limit).bind(offset).fetch_all(&mut *c).await)
}

pub async fn set_seat_cap(
    x: &mut impl Executor,
    org: Id,
    cap: Option<i64>,
) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("UPDATE orgs SET seat_cap = $2, updated_at = $3 WHERE id = $1")
            .bind(org)
            .bind(cap)
            .bind(Ts::now())
    )?;
    Ok(())
}

/// When the member joined the workspace.
pub async fn member_joined_at(x: &mut impl Executor, member_id: Id) -> Result<Ts, sqlx::Error> {
    sql!(x, c => sqlx::query_scalar("SELECT created_at FROM members WHERE id = $1").bind(member_id).fetch_one(&mut *c).await)
}

/// A member's user id, name and role (key and stored permissions), by name: for the coach
/// directory, which keeps those whose effective permissions allow coaching.
#[derive(Debug, Clone, FromRow)]
pub struct MemberRole {
    pub user_id: Id,
    pub name: String,
    pub role_key: String,
    pub permissions: Json<Vec<String>>,
}

pub async fn member_roles(x: &mut impl Executor, org: Id) -> Result<Vec<MemberRole>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, MemberRole>(
        "SELECT u.id AS user_id, u.name, r.key AS role_key, r.permissions FROM members m JOIN users u ON u.id = m.user_id JOIN roles r ON r.id = m.role_id
         WHERE m.org_id = $1 ORDER BY u.name, u.id")
        .bind(org).fetch_all(&mut *c).await)
}
