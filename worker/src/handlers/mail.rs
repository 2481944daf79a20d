//! Scheduled mail.

use super::Ctx;
use jobs::JobError;
use serde_json::{Value, json};
use shared::db::Ts;
use shared::mail::Email;
use shared::repo::{settings, users, waitlist};

/// Mails every platform admin the waitlist entries created since the previous digest.
pub async fn waitlist_digest(ctx: &Ctx) -> Result<Value, JobError> {
    let mut c = ctx.deps.db.acquire().await?;
    let since: Ts = settings::get(&mut c, "waitlist_digest_sent_until")
        .await?
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or(Ts(chrono::DateTime::UNIX_EPOCH));
    let until = Ts::now();
    let entries = waitlist::created_between(&mut c, since, until).await?;
    let admins = users::platform_admin_emails(&mut c).await?;
    if !entries.is_empty() && !admins.is_empty() {
        let mut text = format!("{} new waitlist request(s):\n\n", entries.len());
        for e in &entries {
            text.push_str(&format!(
                "- {} {} {}\n",
                e.email,
                e.name.as_deref().unwrap_or(""),
                e.note
                    .as_deref()
                    .map(|n| format!("({n})"))
                    .unwrap_or_default()
            ));
        }
        for admin in &admins {
            ctx.deps
                .mailer
                .send(Email {
                    to: admin.clone(),
                    subject: "New waitlist requests".into(),
                    text: text.clone(),
                })
                .await
                .map_err(|e| JobError::Transient(format!("mail: {e}")))?;
        }
    }
    // Only after every mail went out: a retry re-sends the same digest, never skips entries.
    settings::set(&mut c, "waitlist_digest_sent_until", &json!(until)).await?;
    Ok(json!({ "entries": entries.len(), "admins": admins.len() }))
}

/// One reminder to accounts created 48–72 hours ago and still unverified (the task runs daily,
/// so each account falls in exactly one window).
pub async fn verification_reminders(ctx: &Ctx) -> Result<Value, JobError> {
    let now = Ts::now();
    let mut c = ctx.deps.db.acquire().await?;
    let unverified = users::unverified_created_between(
        &mut c,
        now.minus(chrono::Duration::hours(72)),
        now.minus(chrono::Duration::hours(48)),
    )
    .await?;
    let mut sent = 0;
    for users::User {
        id, email, name, ..
    } in unverified
    {
        let token = shared::repo::auth_tokens::create_email_token(
            &mut c,
            id,
            shared::repo::auth_tokens::EmailPurpose::VerifyEmail,
        )
        .await?;
        let link = ctx
            .deps
            .cfg
            .public_url(&format!("/auth/callback?type=verify_email&token={token}"));
        ctx.deps
            .mailer
            .send(Email {
                to: email,
                subject: "Please confirm your email address".into(),
                text: format!("Hello {name},\n\nyour account is not confirmed yet. Open this link to confirm it:\n\n{link}\n"),
            })
            .await
            .map_err(|e| JobError::Transient(format!("mail: {e}")))?;
        sent += 1;
    }
    Ok(json!({ "sent": sent }))
}
