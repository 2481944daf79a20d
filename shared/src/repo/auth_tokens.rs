//! Web sessions, phone access/refresh tokens and single-use emailed tokens. Only SHA-256 hashes
//! of the secrets are stored.

use crate::crypto::{hash_token, new_token};
use crate::db::{AuthChange, Executor, Id, Ts};
use crate::{execute, sql};
use chrono::Duration;
use sqlx::FromRow;

crate::text_enum! {
    /// Which half of a sign-in's token pair a token is (`api_tokens.kind`).
    pub enum TokenKind { Access = "access", Refresh = "refresh" }
}

pub const SESSION_TTL: Duration = Duration::days(30);
pub const ACCESS_TTL: Duration = Duration::hours(1);
pub const REFRESH_TTL: Duration = Duration::days(60);

#[derive(Debug, Clone, FromRow)]
pub struct WebSession {
    pub id: Id,
    pub user_id: Id,
    pub created_at: Ts,
    pub expires_at: Ts,
    pub last_seen_at: Ts,
}

/// Creates a web session and returns its secret (sent once, as the cookie value).
pub async fn create_session(
    x: &mut impl Executor,
    user: Id,
    user_agent: Option<&str>,
    ip: Option<&str>,
) -> Result<(WebSession, String), sqlx::Error> {
    let token = new_token("scs_");
    let now = Ts::now();
    let s = WebSession {
        id: Id::new(),
        user_id: user,
        created_at: now,
        expires_at: now.plus(SESSION_TTL),
        last_seen_at: now,
    };
    execute!(x, sqlx::query(
        "INSERT INTO web_sessions (id, user_id, token_hash, created_at, expires_at, last_seen_at, user_agent, ip)
         VALUES ($1, $2, $3, $4, $5, $4, $6, $7)")
        .bind(s.id).bind(user).bind(hash_token(&token)).bind(now).bind(s.expires_at)
        .bind(user_agent.map(|u| u.chars().take(300).collect::<String>())).bind(ip))?;
    Ok((s, token))
}

pub async fn session_by_token(
    x: &mut impl Executor,
    token: &str,
) -> Result<Option<WebSession>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, WebSession>(
        "SELECT id, user_id, created_at, expires_at, last_seen_at FROM web_sessions WHERE token_hash = $1 AND expires_at > $2")
        .bind(hash_token(token)).bind(Ts::now()).fetch_optional(&mut *c).await)
}

pub async fn delete_session(x: &mut impl Executor, id: Id) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM web_sessions WHERE id = $1").bind(id)
    )?;
    x.auth_changed(AuthChange::SignIn(id));
    Ok(())
}

/// Signs the user out everywhere (password reset, account deletion).
pub async fn revoke_all_for_user(x: &mut impl Executor, user: Id) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query("DELETE FROM web_sessions WHERE user_id = $1").bind(user)
    )?;
    execute!(
        x,
        sqlx::query(
            "UPDATE api_tokens SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL"
        )
        .bind(user)
        .bind(Ts::now())
    )?;
    x.auth_changed(AuthChange::User(user));
    Ok(())
}

#[derive(Debug, Clone, FromRow)]
pub struct ApiToken {
    pub id: Id,
    pub user_id: Id,
    pub kind: TokenKind,
    pub family_id: Id,
    pub expires_at: Ts,
    pub used_at: Option<Ts>,
    pub revoked_at: Option<Ts>,
}

pub struct TokenPair {
    pub access_token: String,
    pub refresh_token: String,
    pub access_expires_at: Ts,
    pub refresh_expires_at: Ts,
}

/// Issues an access + refresh pair in `family` (a sign-in on one device; refreshes stay in it).
pub async fn issue_pair(
    x: &mut impl Executor,
    user: Id,
    family: Id,
    client_name: Option<&str>,
) -> Result<TokenPair, sqlx::Error> {
    let now = Ts::now();
    let pair = TokenPair {
        access_token: new_token("sca_"),
        refresh_token: new_token("scr_"),
        access_expires_at: now.plus(ACCESS_TTL),
        refresh_expires_at: now.plus(REFRESH_TTL),
    };
    for (kind, token, exp) in [
        (
            TokenKind::Access,
            &pair.access_token,
            pair.access_expires_at,
        ),
        (
            TokenKind::Refresh,
            &pair.refresh_token,
            pair.refresh_expires_at,
        ),
    ] {
        execute!(x, sqlx::query(
            "INSERT INTO api_tokens (id, user_id, kind, token_hash, family_id, client_name, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)")
            .bind(Id::new()).bind(user).bind(kind).bind(hash_token(token)).bind(family)
            .bind(client_name).bind(now).bind(exp))?;
    }
    Ok(pair)
}

pub async fn token_by_secret(
    x: &mut impl Executor,
    token: &str,
) -> Result<Option<ApiToken>, sqlx::Error> {
    sql!(x, c => sqlx::query_as::<_, ApiToken>(
        "SELECT id, user_id, kind, family_id, expires_at, used_at, revoked_at FROM api_tokens WHERE token_hash = $1")
        .bind(hash_token(token)).fetch_optional(&mut *c).await)
}

/// A token read together with its user (see [`token_with_user`]).
#[derive(FromRow)]
struct TokenUserRow {
    t_id: Id,
    t_kind: TokenKind,
    t_family_id: Id,
    t_expires_at: Ts,
    t_used_at: Option<Ts>,
    t_revoked_at: Option<Ts>,
    #[sqlx(flatten)]
    user: crate::repo::users::User,
}

/// The token behind a secret and its user, in one round trip: the guard's lookup on every
/// bearer request (two statements, each a round trip to the database, cost more than the
/// rest of `GET /api/auth/me`; `scripts/bench-load`). The caller checks kind, expiry and
/// revocation, as with [`token_by_secret`].
pub async fn token_with_user(
    x: &mut impl Executor,
    token: &str,
) -> Result<Option<(ApiToken, crate::repo::users::User)>, sqlx::Error> {
    let row = sql!(x, c => sqlx::query_as::<_, TokenUserRow>(
        "SELECT t.id AS t_id, t.kind AS t_kind, t.family_id AS t_family_id, t.expires_at AS t_expires_at,
                t.used_at AS t_used_at, t.revoked_at AS t_revoked_at,
                u.id, u.email, u.password_hash, u.name, u.email_verified_at, u.is_platform_admin,
                u.default_org_id, u.created_at, u.updated_at
         FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1")
        .bind(hash_token(token)).fetch_optional(&mut *c).await)?;
    Ok(row.map(|r| {
        (
            ApiToken {
                id: r.t_id,
                user_id: r.user.id,
                kind: r.t_kind,
                family_id: r.t_family_id,
                expires_at: r.t_expires_at,
                used_at: r.t_used_at,
                revoked_at: r.t_revoked_at,
            },
            r.user,
        )
    }))
}

/// Marks a refresh token used; false if it was already used (a replay).
pub async fn mark_used(x: &mut impl Executor, id: Id) -> Result<bool, sqlx::Error> {
    let n = execute!(
        x,
        sqlx::query("UPDATE api_tokens SET used_at = $2 WHERE id = $1 AND used_at IS NULL")
            .bind(id)
            .bind(Ts::now())
    )?;
    Ok(n == 1)
}

pub async fn revoke_family(x: &mut impl Executor, family: Id) -> Result<(), sqlx::Error> {
    execute!(
        x,
        sqlx::query(
            "UPDATE api_tokens SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL"
        )
        .bind(family)
        .bind(Ts::now())
    )?;
    x.auth_changed(AuthChange::SignIn(family));
    Ok(())
}

crate::text_enum! {
    /// What an emailed token is for (also the `type` of the link that carries it).
    pub enum EmailPurpose {
        VerifyEmail = "verify_email",
        ResetPassword = "reset_password",
    }
}

impl EmailPurpose {
    pub fn ttl(self) -> Duration {
        match self {
            EmailPurpose::VerifyEmail => Duration::days(3),
            EmailPurpose::ResetPassword => Duration::hours(1),
        }
    }
}

/// Creates a single-use emailed token; earlier unused tokens of the same purpose are voided so
/// only the newest link works.
pub async fn create_email_token(
    x: &mut impl Executor,
    user: Id,
    purpose: EmailPurpose,
) -> Result<String, sqlx::Error> {
    let token = new_token("sce_");
    let now = Ts::now();
    execute!(x, sqlx::query("UPDATE email_tokens SET used_at = $3 WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL")
        .bind(user).bind(purpose.as_str()).bind(now))?;
    execute!(x, sqlx::query(
        "INSERT INTO email_tokens (id, user_id, purpose, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)")
        .bind(Id::new()).bind(user).bind(purpose.as_str()).bind(hash_token(&token)).bind(now)
        .bind(now.plus(purpose.ttl())))?;
    Ok(token)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmailTokenState {
    Valid(Id),
    Expired,
    Used,
    Unknown,
}

/// Looks a token up without using it.
pub async fn check_email_token(
    x: &mut impl Executor,
    token: &str,
    purpose: EmailPurpose,
) -> Result<EmailTokenState, sqlx::Error> {
    #[derive(FromRow)]
    struct Row {
        user_id: Id,
        expires_at: Ts,
        used_at: Option<Ts>,
    }
    let row = sql!(x, c => sqlx::query_as::<_, Row>(
        "SELECT user_id, expires_at, used_at FROM email_tokens WHERE token_hash = $1 AND purpose = $2")
        .bind(hash_token(token)).bind(purpose.as_str()).fetch_optional(&mut *c).await)?;
    Ok(match row {
        None => EmailTokenState::Unknown,
        Some(r) if r.used_at.is_some() => EmailTokenState::Used,
        Some(r) if r.expires_at <= Ts::now() => EmailTokenState::Expired,
        Some(r) => EmailTokenState::Valid(r.user_id),
    })
}

/// Uses a token atomically: of two concurrent requests with the same token, one wins.
pub async fn consume_email_token(
    x: &mut impl Executor,
    token: &str,
    purpose: EmailPurpose,
) -> Result<EmailTokenState, sqlx::Error> {
    let state = check_email_token(x, token, purpose).await?;
    let EmailTokenState::Valid(user) = state else {
        return Ok(state);
    };
    let n = execute!(x, sqlx::query(
        "UPDATE email_tokens SET used_at = $3 WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL")
        .bind(hash_token(token)).bind(purpose.as_str()).bind(Ts::now()))?;
    Ok(if n == 1 {
        EmailTokenState::Valid(user)
    } else {
        EmailTokenState::Used
    })
}
