//! Outgoing mail (`SMTP_URL`); unset, mail goes to the outbox folder.

use super::env::{Env, err, parse_url};
use super::{ConfigError, Secret};
use url::Url;

#[derive(Clone, Debug)]
pub struct SmtpConfig {
    /// `smtp://host:port` (plain, for a local relay or tests), `smtp+starttls://…` or `smtps://…`,
    /// with optional `user:password@` (hence a secret).
    pub url: Secret<Url>,
}

impl SmtpConfig {
    pub(crate) fn from_env(env: &Env) -> Result<Option<Self>, ConfigError> {
        let Some(v) = env.get("SMTP_URL") else {
            return Ok(None);
        };
        let url = parse_url("SMTP_URL", &v)?;
        match url.scheme() {
            "smtp" | "smtps" | "smtp+starttls" => Ok(Some(SmtpConfig {
                url: Secret::new(url),
            })),
            _ => Err(err(
                "SMTP_URL",
                "scheme must be smtp, smtp+starttls or smtps",
            )),
        }
    }
}
