//! Outgoing email. With `SMTP_URL` set, mail goes out over SMTP (lettre, rustls); without it
//! (the embedded default) each message is written to `DATA_DIR/mail-outbox/` as an `.eml` file
//! and logged, so sign-up and password reset still work on a laptop with no mail server.

use crate::config::Config;
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::path::PathBuf;

#[derive(Clone)]
pub enum Mailer {
    Smtp {
        transport: AsyncSmtpTransport<Tokio1Executor>,
        from: String,
    },
    Outbox {
        dir: PathBuf,
        from: String,
    },
}

pub struct Email {
    pub to: String,
    pub subject: String,
    pub text: String,
}

impl Mailer {
    pub fn from_config(cfg: &Config) -> anyhow::Result<Mailer> {
        let from = cfg.mail_from.clone();
        from.parse::<lettre::message::Mailbox>()
            .map_err(|e| anyhow::anyhow!("MAIL_FROM is not a mailbox: {e}"))?;
        let Some(smtp) = &cfg.smtp else {
            return Ok(Mailer::Outbox {
                dir: cfg.data_dir.join("mail-outbox"),
                from,
            });
        };
        let url = &smtp.url;
        let host = url.host_str().unwrap_or("localhost");
        let mut builder = match url.scheme() {
            "smtps" => AsyncSmtpTransport::<Tokio1Executor>::relay(host)?,
            "smtp+starttls" => AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(host)?,
            // Plain SMTP: a local relay on the same host or network, or the test sink.
            _ => AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host),
        };
        if let Some(port) = url.port() {
            builder = builder.port(port);
        }
        if !url.username().is_empty() {
            let user = percent_decode(url.username());
            let pass = percent_decode(url.password().unwrap_or(""));
            builder = builder.credentials(Credentials::new(user, pass));
        }
        Ok(Mailer::Smtp {
            transport: builder.build(),
            from,
        })
    }

    pub async fn send(&self, mail: Email) -> anyhow::Result<()> {
        self.send_with_headers(mail, &[]).await
    }

    /// Sends with extra header fields (e.g. RFC 8058 `List-Unsubscribe` on notification mail).
    pub async fn send_with_headers(
        &self,
        mail: Email,
        headers: &[(&'static str, String)],
    ) -> anyhow::Result<()> {
        let from = match self {
            Mailer::Smtp { from, .. } | Mailer::Outbox { from, .. } => from,
        };
        let mut builder = Message::builder()
            .from(from.parse()?)
            .to(mail.to.parse()?)
            .subject(mail.subject.clone())
            .header(ContentType::TEXT_PLAIN);
        for (name, value) in headers {
            builder = builder.raw_header(HeaderValue::new(
                HeaderName::new_from_ascii_str(name),
                value.clone(),
            ));
        }
        let message = builder.body(mail.text)?;
        match self {
            Mailer::Smtp { transport, .. } => {
                transport.send(message).await?;
            }
            Mailer::Outbox { dir, .. } => {
                tokio::fs::create_dir_all(dir).await?;
                let name = format!("{}.eml", crate::db::Id::new());
                tokio::fs::write(dir.join(&name), message.formatted()).await?;
                tracing::info!(to = %mail.to, subject = %mail.subject, file = %name, "mail written to outbox (SMTP_URL not set)");
            }
        }
        Ok(())
    }
}

fn percent_decode(s: &str) -> String {
    url::form_urlencoded::parse(format!("x={s}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}
