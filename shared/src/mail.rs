//! Outgoing email. With `SMTP_URL` set, mail goes out over SMTP (lettre, rustls); without it
//! (the embedded default) each message is written to `DATA_DIR/mail-outbox/` as an `.eml` file
//! and logged, so sign-up and password reset still work on a laptop with no mail server.

use crate::config::Config;
use lettre::message::header::{ContentType, HeaderName, HeaderValue, MIME_VERSION_1_0};
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
        let url = smtp.url.expose();
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
        let from: lettre::message::Mailbox = from.parse()?;
        // RFC 5322 §3.6.4 (Message-ID, on our own domain: the sender's) and RFC 2045 §4
        // (MIME-Version, a MUST with a Content-Type); lettre adds neither to a plain body.
        let id = format!("<{}@{}>", crate::db::Id::new(), from.email.domain());
        let mut builder = Message::builder()
            .from(from)
            .to(mail.to.parse()?)
            .subject(mail.subject.clone())
            .message_id(Some(id))
            .header(MIME_VERSION_1_0)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The outbox (the embedded default) writes what SMTP would send: both headers included.
    #[tokio::test]
    async fn outbox_mail_has_a_message_id_and_a_mime_version() {
        let dir = tempfile::tempdir().unwrap();
        let mailer = Mailer::Outbox {
            dir: dir.path().to_path_buf(),
            from: "Surf Club <club@coach.example>".into(),
        };
        let mail = Email {
            to: "kai@example.com".into(),
            subject: "Hi".into(),
            text: "Hello".into(),
        };
        mailer.send(mail).await.unwrap();
        let file = std::fs::read_dir(dir.path())
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        let raw = std::fs::read_to_string(file.path()).unwrap();
        assert!(raw.contains("\r\nMIME-Version: 1.0\r\n"), "{raw}");
        let id = raw
            .lines()
            .find_map(|l| l.strip_prefix("Message-ID: "))
            .unwrap_or_else(|| panic!("no Message-ID in {raw}"));
        assert!(
            id.starts_with('<') && id.ends_with("@coach.example>"),
            "{id}"
        );
    }
}
