//! Accounts: sign-up (governed by the signup mode), web and phone sign-in, workspace
//! provisioning, account deletion and the emailed single-use links (verification, reset).
//!
//! Deleting an account (password re-entered) removes the user, their sessions, tokens, provider
//! connections and memberships. Workspaces where they are the only member are deleted with all
//! their data. A workspace where they are the only owner but others are members blocks the
//! deletion (409 `ownership_transfer_required`, listing those workspaces): its members would be
//! left without an owner, so ownership must be transferred first. Workspaces with another owner
//! are simply left. Audit entries are kept (they name ids, not personal data).

use super::{Actor, OWNER_ROLE};
use crate::config::{Config, SignupMode};
use crate::crypto::password;
use crate::db::{Db, Executor, Id, Ts, is_unique_violation};
use crate::error::Validator;
use crate::mail::{Email, Mailer};
use crate::repo::auth_tokens::{self, EmailPurpose, EmailTokenState, TokenPair};
use crate::repo::orgs::{Membership, OrgType};
use crate::repo::users::User;
use crate::repo::{audit, orgs, ratelimit, signup_invites, users, waitlist};
use crate::{Error, Result};
use serde_json::json;

/// A workspace to provision for a user who has none, parsed.
#[derive(Debug, Clone)]
pub struct EnsureOrg {
    pub name: String,
    pub org_type: OrgType,
}

impl EnsureOrg {
    /// The name defaults to "<user's name>'s workspace", the type to coach.
    pub fn parse(user: &User, name: Option<&str>, org_type: Option<&str>) -> Result<Self> {
        let mut v = Validator::new();
        let name = match name {
            Some(n) => v.text("name", n, 100),
            None => format!("{}'s workspace", user.name),
        };
        let org_type = v.choice_of::<OrgType>("type", org_type.unwrap_or("coach"));
        v.finish()?;
        Ok(EnsureOrg {
            name,
            org_type: org_type.unwrap_or(OrgType::Coach),
        })
    }
}

/// Gives a user with no workspace one, as its owner. Idempotent: a user who already belongs
/// to a workspace gets their first one back (`created` false) and nothing is created.
pub async fn ensure_org(db: &Db, actor: Actor, req: EnsureOrg) -> Result<(bool, Membership)> {
    let user = actor.user_id;
    let mut tx = db.begin().await?;
    // Lock the user row first: two concurrent calls for the same user queue here instead of
    // both creating a workspace.
    users::lock(&mut tx, user).await?;
    if let Some(m) = orgs::memberships_of(&mut tx, user)
        .await?
        .into_iter()
        .next()
    {
        return Ok((false, m));
    }
    let org = orgs::create_with_owner(&mut tx, &req.name, req.org_type, user).await?;
    users::set_default_org(&mut tx, user, Some(org.id)).await?;
    audit::record(
        &mut tx,
        actor.audit(
            Some(org.id),
            "org.created",
            "org",
            Some(org.id.to_string()),
            json!({ "via": "ensure-org", "type": req.org_type }),
        ),
    )
    .await?;
    let m = orgs::membership(&mut tx, user, org.id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("membership missing after insert")))?;
    tx.commit().await?;
    Ok((true, m))
}

/// What deleting an account did to its workspaces.
#[derive(Debug, Clone, Default)]
pub struct DeletedAccount {
    pub deleted_workspaces: Vec<Id>,
    pub left_workspaces: Vec<Id>,
}

/// Deletes the actor's account; the password was checked by the caller. See the module
/// documentation for what happens to the workspaces.
pub async fn delete_account(db: &Db, actor: Actor) -> Result<DeletedAccount> {
    let user = actor.user_id;
    let mut tx = db.begin().await?;
    let mut out = DeletedAccount::default();
    let mut blocked = vec![];
    for m in orgs::memberships_of(&mut tx, user).await? {
        let members = orgs::count_members(&mut tx, m.org_id).await?;
        let owners = orgs::count_owners(&mut tx, m.org_id).await?;
        if members == 1 {
            out.deleted_workspaces.push(m.org_id);
        } else if m.role_key == OWNER_ROLE && owners == 1 {
            blocked.push(json!({ "id": m.org_id, "name": m.org_name }));
        } else {
            out.left_workspaces.push(m.org_id);
        }
    }
    if !blocked.is_empty() {
        return Err(Error::conflict(
            "ownership_transfer_required",
            "you are the only owner of workspaces with other members; transfer ownership first",
        )
        .with_details(json!({ "workspaces": blocked })));
    }
    for org in &out.deleted_workspaces {
        orgs::delete(&mut tx, *org).await?;
    }
    for org in &out.left_workspaces {
        audit::record(
            &mut tx,
            actor.audit(
                Some(*org),
                "member.left",
                "user",
                Some(user.to_string()),
                json!({ "reason": "account_deleted" }),
            ),
        )
        .await?;
    }
    audit::record(
        &mut tx,
        actor.audit(
            None,
            "account.deleted",
            "user",
            Some(user.to_string()),
            json!({ "deletedWorkspaces": out.deleted_workspaces, "leftWorkspaces": out.left_workspaces }),
        ),
    )
    .await?;
    users::delete(&mut tx, user).await?;
    tx.commit().await?;
    Ok(out)
}

/// Emails a single-use link for `purpose`; true if the mail went out. Failures are logged, not
/// raised: the user's action (sign-up, a reset request) has succeeded and they can ask for
/// another link.
pub async fn send_link(
    db: &Db,
    cfg: &Config,
    mailer: &Mailer,
    user: &User,
    purpose: EmailPurpose,
) -> bool {
    let token = async {
        let mut c = db.acquire().await?;
        auth_tokens::create_email_token(&mut c, user.id, purpose).await
    };
    let token = match token.await {
        Ok(t) => t,
        Err(e) => {
            tracing::error!(error = %e, "could not create an email token");
            return false;
        }
    };
    let link = cfg.public_url(&format!(
        "/auth/callback?type={}&token={token}",
        purpose.as_str()
    ));
    let (subject, text) = match purpose {
        EmailPurpose::VerifyEmail => (
            "Confirm your email address",
            format!(
                "Hello {},\n\nconfirm your email address by opening this link:\n\n{link}\n\nThe link works once and expires in 3 days.\n",
                user.name
            ),
        ),
        EmailPurpose::ResetPassword => (
            "Reset your password",
            format!(
                "Hello {},\n\nsomeone asked to reset the password of this account. If it was you, open:\n\n{link}\n\nThe link works once and expires in 1 hour. If it was not you, ignore this mail.\n",
                user.name
            ),
        ),
    };
    let mail = Email {
        to: user.email.clone(),
        subject: subject.into(),
        text,
    };
    match mailer.send(mail).await {
        Ok(()) => true,
        Err(e) => {
            tracing::error!(error = %e, purpose = purpose.as_str(), "sending mail failed");
            false
        }
    }
}

// ---- sign-in ----

/// Where a sign-in comes from (for rate limits and the session list).
#[derive(Debug, Clone, Default)]
pub struct Client {
    pub ip: String,
    pub user_agent: Option<String>,
}

/// Opens a web session for `user`; returns its secret token (the cookie's value).
pub async fn open_session(x: &mut impl Executor, user: Id, client: &Client) -> Result<String> {
    let (_, token) =
        auth_tokens::create_session(x, user, client.user_agent.as_deref(), Some(&client.ip))
            .await?;
    Ok(token)
}

/// Checks email and password under the sign-in rate limits (per email and per client
/// address); the user on success, 401 `invalid_credentials` otherwise.
pub async fn check_credentials(
    db: &Db,
    cfg: &Config,
    client: &Client,
    email: &str,
    password_given: &str,
) -> Result<User> {
    let mut v = Validator::new();
    let email = v.email("email", email);
    v.check(
        !password_given.is_empty(),
        "password",
        "required",
        "must not be empty",
    );
    v.finish()?;
    let max = cfg.login_max_failures;
    let window =
        chrono::Duration::from_std(cfg.login_window).unwrap_or(chrono::Duration::minutes(15));
    let keys = [
        format!("login:email:{email}"),
        format!("login:ip:{}", client.ip),
    ];
    // Each attempt is counted before its password is checked (one atomic upsert), so at most
    // `max` are ever evaluated in a window, however many race; a success gives its count back.
    let mut c = db.acquire().await?;
    for (i, k) in keys.iter().enumerate() {
        if let Err(retry) = ratelimit::hit(&mut c, k, max, window).await? {
            for counted in &keys[..i] {
                ratelimit::release(&mut c, counted).await?;
            }
            return Err(Error::too_many_requests(retry));
        }
    }
    let user = users::by_email(&mut c, &email).await?;
    let hash = user.as_ref().and_then(|u| u.password_hash.clone());
    if password::verify_async(password_given.to_string(), hash).await
        && let Some(user) = user
    {
        ratelimit::clear(&mut c, &keys[0]).await?;
        ratelimit::release(&mut c, &keys[1]).await?;
        return Ok(user);
    }
    Err(Error::unauthorized(
        "invalid_credentials",
        "the email or password is wrong",
    ))
}

/// Signs in on the web: the user and their new session's token.
pub async fn sign_in(
    db: &Db,
    cfg: &Config,
    client: &Client,
    email: &str,
    password: &str,
) -> Result<(User, String)> {
    let user = check_credentials(db, cfg, client, email, password).await?;
    let mut c = db.acquire().await?;
    let token = open_session(&mut c, user.id, client).await?;
    Ok((user, token))
}

/// Ends one web session.
pub async fn end_session(db: &Db, session: Id) -> Result<()> {
    let mut c = db.acquire().await?;
    Ok(auth_tokens::delete_session(&mut c, session).await?)
}

/// Revokes every token of one phone sign-in (a token family).
pub async fn end_token_family(db: &Db, family: Id) -> Result<()> {
    let mut c = db.acquire().await?;
    Ok(auth_tokens::revoke_family(&mut c, family).await?)
}

/// The user's workspaces and the one used when a request names none: their default if they
/// still belong to it, else their first.
pub async fn workspaces_of(db: &Db, user: &User) -> Result<(Vec<Membership>, Option<Id>)> {
    let mut c = db.acquire().await?;
    let ms = orgs::memberships_of(&mut c, user.id).await?;
    let default = default_workspace(user, &ms);
    Ok((ms, default))
}

/// The workspace used when a request names none, among the user's memberships `ms`: their
/// default if they still belong to it, else their first.
pub fn default_workspace(user: &User, ms: &[Membership]) -> Option<Id> {
    user.default_org_id
        .filter(|d| ms.iter().any(|m| m.org_id == *d))
        .or_else(|| ms.first().map(|m| m.org_id))
}

/// Phone sign-in: a new token family for `user`; `client_name` is raw (trimmed, cut at 100).
pub async fn issue_tokens(db: &Db, user: Id, client_name: Option<&str>) -> Result<TokenPair> {
    let client = client_name.map(|n| n.trim().chars().take(100).collect::<String>());
    let mut tx = db.begin().await?;
    let pair = auth_tokens::issue_pair(&mut tx, user, Id::new(), client.as_deref()).await?;
    tx.commit().await?;
    Ok(pair)
}

/// Rotates a refresh token. Presenting a used one again revokes the whole sign-in (401
/// `token_reused`): token theft is the likely cause.
pub async fn refresh_tokens(db: &Db, refresh_token: &str) -> Result<(TokenPair, User)> {
    let invalid = || {
        Error::unauthorized(
            "invalid_token",
            "the refresh token is not valid or has expired",
        )
    };
    let mut tx = db.begin().await?;
    let t = auth_tokens::token_by_secret(&mut tx, refresh_token)
        .await?
        .filter(|t| {
            t.kind == auth_tokens::TokenKind::Refresh
                && t.revoked_at.is_none()
                && t.expires_at > Ts::now()
        })
        .ok_or_else(invalid)?;
    if !auth_tokens::mark_used(&mut tx, t.id).await? {
        auth_tokens::revoke_family(&mut tx, t.family_id).await?;
        tx.commit().await?;
        return Err(Error::unauthorized(
            "token_reused",
            "this refresh token was already used; the sign-in is revoked, sign in again",
        ));
    }
    let user = users::by_id(&mut tx, t.user_id)
        .await?
        .ok_or_else(invalid)?;
    let pair = auth_tokens::issue_pair(&mut tx, user.id, t.family_id, None).await?;
    tx.commit().await?;
    Ok((pair, user))
}

// ---- sign-up ----

/// Sign-ups per client address and hour.
const SIGNUPS_PER_HOUR_PER_ADDRESS: u32 = 20;
/// Waitlist requests per client address and hour.
const WAITLIST_PER_HOUR_PER_ADDRESS: u32 = 30;

/// A sign-up, parsed.
#[derive(Debug, Clone)]
pub struct NewSignup {
    pub email: String,
    /// Checked against the password policy; hashed by [`signup`].
    pub password: String,
    pub name: String,
    pub workspace_name: String,
    pub workspace_type: OrgType,
    /// A platform invite code (non-empty).
    pub invite: Option<String>,
}

impl NewSignup {
    /// The workspace name defaults to "<name>'s workspace", its type to coach.
    pub fn parse(
        email: &str,
        password: &str,
        name: &str,
        workspace_name: Option<&str>,
        workspace_type: Option<&str>,
        invite: Option<&str>,
    ) -> Result<Self> {
        let mut v = Validator::new();
        let email = v.email("email", email);
        v.password("password", password);
        let name = v.text("name", name, 100);
        let workspace_name = match workspace_name {
            Some(n) => v.text("workspaceName", n, 100),
            None => format!("{name}'s workspace"),
        };
        let workspace_type =
            v.choice_of::<OrgType>("workspaceType", workspace_type.unwrap_or("coach"));
        v.finish()?;
        Ok(NewSignup {
            email,
            password: password.to_string(),
            name,
            workspace_name,
            workspace_type: workspace_type.unwrap_or(OrgType::Coach),
            invite: invite.filter(|s| !s.is_empty()).map(String::from),
        })
    }
}

/// A new account: the user, their workspace membership, their web session's token and
/// whether the verification mail went out.
#[derive(Debug, Clone)]
pub struct SignedUp {
    pub user: User,
    pub membership: Membership,
    pub session_token: String,
    pub verification_email_sent: bool,
}

/// The signup mode and whether an invite code is usable (`None` when none was given).
pub async fn signup_mode(
    db: &Db,
    cfg: &Config,
    invite: Option<&str>,
) -> Result<(SignupMode, Option<bool>)> {
    let mut c = db.acquire().await?;
    let mode = super::admin::signup_mode(&mut c, cfg.signup_mode_default).await?;
    let invite_valid = match invite.filter(|s| !s.is_empty()) {
        Some(code) => Some(signup_invites::is_valid(&mut c, code, None).await?),
        None => None,
    };
    Ok((mode, invite_valid))
}

/// Creates the account, its workspace and the owner membership in one transaction, governed
/// by the signup mode, opens a web session and mails an email-verification link.
pub async fn signup(
    db: &Db,
    cfg: &Config,
    mailer: &Mailer,
    client: &Client,
    new: NewSignup,
) -> Result<SignedUp> {
    {
        let mut c = db.acquire().await?;
        ratelimit::hit(
            &mut c,
            &format!("signup:ip:{}", client.ip),
            SIGNUPS_PER_HOUR_PER_ADDRESS,
            chrono::Duration::hours(1),
        )
        .await?
        .map_err(Error::too_many_requests)?;
    }
    let hash = password::hash_async(new.password.clone()).await;
    let mut tx = db.begin().await?;
    let mode = super::admin::signup_mode(&mut tx, cfg.signup_mode_default).await?;
    let invite = new.invite.as_deref();
    let invite_ok = match invite {
        Some(code) => signup_invites::is_valid(&mut tx, code, Some(&new.email)).await?,
        None => false,
    };
    match mode {
        SignupMode::Open => {}
        SignupMode::InviteLocked if !invite_ok => {
            return Err(Error::forbidden(
                if invite.is_some() {
                    "invite_invalid"
                } else {
                    "invite_required"
                },
                "sign-up needs a valid invite code right now",
            ));
        }
        SignupMode::Waitlist if !invite_ok => {
            return Err(Error::forbidden(
                "signup_waitlist_only",
                "sign-up is by invitation: join the waitlist with POST /api/waitlist",
            ));
        }
        _ => {}
    }
    let user = match users::insert(&mut tx, &new.email, &new.name, &hash).await {
        Ok(u) => u,
        Err(e) if is_unique_violation(&e) => {
            return Err(Error::conflict(
                "email_taken",
                "an account with this email exists; sign in or reset the password",
            ));
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(code) = invite
        && invite_ok
        && !signup_invites::consume(&mut tx, code, user.id).await?
    {
        return Err(Error::conflict(
            "invite_invalid",
            "the invite code was used by another sign-up",
        ));
    }
    let org =
        orgs::create_with_owner(&mut tx, &new.workspace_name, new.workspace_type, user.id).await?;
    users::set_default_org(&mut tx, user.id, Some(org.id)).await?;
    let me = Actor {
        user_id: user.id,
        impersonator: None,
    };
    audit::record(
        &mut tx,
        me.audit(
            Some(org.id),
            "account.signup",
            "user",
            Some(user.id.to_string()),
            json!({ "workspaceId": org.id, "mode": mode, "invited": invite_ok }),
        ),
    )
    .await?;
    let membership = orgs::membership(&mut tx, user.id, org.id)
        .await?
        .ok_or_else(|| Error::internal(anyhow::anyhow!("owner membership missing after insert")))?;
    let session_token = open_session(&mut tx, user.id, client).await?;
    tx.commit().await?;
    let sent = send_link(db, cfg, mailer, &user, EmailPurpose::VerifyEmail).await;
    Ok(SignedUp {
        user,
        membership,
        session_token,
        verification_email_sent: sent,
    })
}

/// A request for access, parsed.
#[derive(Debug, Clone)]
pub struct WaitlistRequest {
    pub email: String,
    pub name: Option<String>,
    pub note: Option<String>,
}

impl WaitlistRequest {
    pub fn parse(email: &str, name: Option<&str>, note: Option<&str>) -> Result<Self> {
        let mut v = Validator::new();
        let email = v.email("email", email);
        let name = name.map(|n| v.text("name", n, 100));
        let note = note.map(|n| v.text("note", n, 2000));
        v.finish()?;
        Ok(WaitlistRequest { email, name, note })
    }
}

/// Records a request for access (rate-limited per client address). Repeats keep the first
/// entry; the caller answers the same either way so the list cannot be probed.
pub async fn join_waitlist(db: &Db, client: &Client, req: WaitlistRequest) -> Result<()> {
    let mut c = db.acquire().await?;
    ratelimit::hit(
        &mut c,
        &format!("waitlist:ip:{}", client.ip),
        WAITLIST_PER_HOUR_PER_ADDRESS,
        chrono::Duration::hours(1),
    )
    .await?
    .map_err(Error::too_many_requests)?;
    waitlist::add(&mut c, &req.email, req.name.as_deref(), req.note.as_deref()).await?;
    Ok(())
}

// ---- emailed links ----

fn token_error(state: EmailTokenState) -> Error {
    match state {
        EmailTokenState::Expired => {
            Error::unauthorized("token_expired", "this link has expired; ask for a new one")
        }
        EmailTokenState::Used => Error::unauthorized(
            "token_used",
            "this link was already used; ask for a new one",
        ),
        _ => Error::unauthorized("invalid_token", "this link is not valid"),
    }
}

/// Uses a verification token: the address is verified.
pub async fn verify_email(db: &Db, token: &str) -> Result<()> {
    let mut tx = db.begin().await?;
    match auth_tokens::consume_email_token(&mut tx, token, EmailPurpose::VerifyEmail).await? {
        EmailTokenState::Valid(user) => {
            users::mark_email_verified(&mut tx, user).await?;
            tx.commit().await?;
            Ok(())
        }
        other => Err(token_error(other)),
    }
}

/// Checks a reset token without using it (mail scanners fetch links).
pub async fn check_reset_token(db: &Db, token: &str) -> Result<()> {
    let mut c = db.acquire().await?;
    match auth_tokens::check_email_token(&mut c, token, EmailPurpose::ResetPassword).await? {
        EmailTokenState::Valid(_) => Ok(()),
        other => Err(token_error(other)),
    }
}

/// Sends a fresh verification link (at most 5 an hour; 409 `already_verified`).
pub async fn resend_verification(
    db: &Db,
    cfg: &Config,
    mailer: &Mailer,
    user: &User,
) -> Result<()> {
    if user.email_verified_at.is_some() {
        return Err(Error::conflict(
            "already_verified",
            "this email address is already verified",
        ));
    }
    {
        let mut c = db.acquire().await?;
        ratelimit::hit(
            &mut c,
            &format!("verify-mail:{}", user.id),
            5,
            chrono::Duration::hours(1),
        )
        .await?
        .map_err(Error::too_many_requests)?;
    }
    send_link(db, cfg, mailer, user, EmailPurpose::VerifyEmail).await;
    Ok(())
}

/// Mails a reset link if an account has the (raw) `email`; says nothing about whether it does.
pub async fn forgot_password(
    db: &Db,
    cfg: &Config,
    mailer: &Mailer,
    client: &Client,
    email: &str,
) -> Result<()> {
    let mut v = Validator::new();
    let email = v.email("email", email);
    v.finish()?;
    let user = {
        let mut c = db.acquire().await?;
        for (key, max) in [
            (format!("reset:email:{email}"), 5),
            (format!("reset:ip:{}", client.ip), 30),
        ] {
            ratelimit::hit(&mut c, &key, max, chrono::Duration::hours(1))
                .await?
                .map_err(Error::too_many_requests)?;
        }
        users::by_email(&mut c, &email).await?
    };
    if let Some(user) = user {
        send_link(db, cfg, mailer, &user, EmailPurpose::ResetPassword).await;
    }
    Ok(())
}

/// Sets a new password with an emailed token (checked before the password), signs the account
/// out everywhere, and marks the email verified (the link proved the mailbox).
pub async fn reset_password(db: &Db, token: &str, new_password: &str) -> Result<()> {
    if token.is_empty() {
        return Err(Error::unauthorized("invalid_token", "the token is missing"));
    }
    let mut v = Validator::new();
    v.password("password", new_password);
    v.finish()?;
    let hash = password::hash_async(new_password.to_string()).await;
    let mut tx = db.begin().await?;
    let user = match auth_tokens::consume_email_token(&mut tx, token, EmailPurpose::ResetPassword)
        .await?
    {
        EmailTokenState::Valid(u) => u,
        other => return Err(token_error(other)),
    };
    users::set_password(&mut tx, user, &hash).await?;
    users::mark_email_verified(&mut tx, user).await?;
    auth_tokens::revoke_all_for_user(&mut tx, user).await?;
    let me = Actor {
        user_id: user,
        impersonator: None,
    };
    audit::record(
        &mut tx,
        me.audit(
            None,
            "account.password_reset",
            "user",
            Some(user.to_string()),
            json!({}),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Makes the account with this email a platform admin (`api grant-admin EMAIL`, the way to
/// the first one: no route makes an admin), or takes it away; audited. 404 when no account
/// has the address. Another running process sees it within its auth cache's lifetime.
pub async fn set_platform_admin(db: &Db, email: &str, on: bool) -> Result<Id> {
    let mut v = Validator::new();
    let email = v.email("email", email);
    v.finish()?;
    let mut tx = db.begin().await?;
    let user = users::by_email(&mut tx, &email)
        .await?
        .ok_or_else(|| Error::not_found("user"))?;
    users::set_platform_admin(&mut tx, &email, on).await?;
    audit::record(
        &mut tx,
        audit::Entry {
            org_id: None,
            actor: None,
            impersonator: None,
            action: if on { "admin.granted" } else { "admin.revoked" },
            target_type: "user",
            target_id: Some(user.id.to_string()),
            data: serde_json::json!({ "via": "command line" }),
        },
    )
    .await?;
    tx.commit().await?;
    Ok(user.id)
}
