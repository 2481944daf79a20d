//! Web Push (`VAPID_PRIVATE_KEY`, `VAPID_PUBLIC_KEY`, `VAPID_SUBJECT`, `WEB_PUSH_ENDPOINT_HOSTS`).
//!
//! Without `VAPID_PRIVATE_KEY` a key pair is generated once into `DATA_DIR/vapid.key` (mode
//! 0600), like the secret key: the embedded default needs no set-up. Several processes share
//! the file (created exclusively, so two starting at once agree on one key); a deployment on
//! several hosts sets the variable. Changing the key orphans every browser subscription.

use super::env::{Env, err};
use super::{ConfigError, Secret};
use crate::providers::webpush::VapidKeys;
use std::path::{Path, PathBuf};

/// The push services browsers use (Chrome, Firefox, Edge, Safari); `WEB_PUSH_ENDPOINT_HOSTS`
/// replaces the list.
pub const DEFAULT_ENDPOINT_HOSTS: &[&str] = &[
    "fcm.googleapis.com",
    "*.push.services.mozilla.com",
    "*.notify.windows.com",
    "web.push.apple.com",
    "*.push.apple.com",
];

#[derive(Clone, Debug)]
pub struct WebPushConfig {
    /// The configured private key (base64url of the 32-byte scalar); `None`: the data
    /// directory's.
    pub vapid_private_key: Option<Secret>,
    /// `mailto:` or `https:` contact sent in every VAPID JWT (`sub`).
    pub subject: String,
    /// Where browsers' endpoints may point (`host`, `*.suffix`, or `http://host:port`).
    pub endpoint_hosts: Vec<String>,
    pub data_dir: PathBuf,
}

impl WebPushConfig {
    pub(crate) fn from_env(
        env: &Env,
        data_dir: &Path,
        mail_from: &str,
    ) -> Result<Self, ConfigError> {
        let vapid_private_key = env.secret("VAPID_PRIVATE_KEY");
        if let Some(k) = &vapid_private_key {
            let keys =
                VapidKeys::from_private_b64(k.expose()).map_err(|m| err("VAPID_PRIVATE_KEY", m))?;
            if let Some(public) = env.get("VAPID_PUBLIC_KEY")
                && public.trim_end_matches('=') != keys.public_key()
            {
                return Err(err(
                    "VAPID_PUBLIC_KEY",
                    "does not belong to VAPID_PRIVATE_KEY (leave it unset: it is derived)",
                ));
            }
        }
        let subject = match env.get("VAPID_SUBJECT") {
            Some(s) if s.starts_with("mailto:") || s.starts_with("https:") => s,
            Some(_) => return Err(err("VAPID_SUBJECT", "must be a mailto: or https: URL")),
            None => {
                let addr = mail_from
                    .rsplit_once('<')
                    .map(|(_, a)| a.trim_end_matches('>'))
                    .unwrap_or(mail_from)
                    .trim();
                format!("mailto:{addr}")
            }
        };
        let mut endpoint_hosts = env.list("WEB_PUSH_ENDPOINT_HOSTS");
        if endpoint_hosts.is_empty() {
            endpoint_hosts = DEFAULT_ENDPOINT_HOSTS
                .iter()
                .map(|h| h.to_string())
                .collect();
        }
        Ok(WebPushConfig {
            vapid_private_key,
            subject,
            endpoint_hosts,
            data_dir: data_dir.to_path_buf(),
        })
    }

    /// The VAPID key pair: the configured one, or the data directory's (generated on first
    /// use), loaded once per process.
    pub fn vapid(&self) -> std::io::Result<VapidKeys> {
        if let Some(k) = &self.vapid_private_key {
            return VapidKeys::from_private_b64(k.expose())
                .map_err(|m| std::io::Error::new(std::io::ErrorKind::InvalidData, m));
        }
        static LOADED: std::sync::Mutex<Vec<(PathBuf, String)>> = std::sync::Mutex::new(Vec::new());
        let path = self.data_dir.join("vapid.key");
        let mut loaded = LOADED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, k)) = loaded.iter().find(|(p, _)| *p == path) {
            return VapidKeys::from_private_b64(k)
                .map_err(|m| std::io::Error::new(std::io::ErrorKind::InvalidData, m));
        }
        let read = |path: &Path| -> std::io::Result<VapidKeys> {
            let text = std::fs::read_to_string(path)?;
            VapidKeys::from_private_b64(text.trim()).map_err(|m| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{}: {m}", path.display()),
                )
            })
        };
        let keys = match read(&path) {
            Ok(k) => k,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(&self.data_dir)?;
                let fresh = VapidKeys::generate();
                match super::write_new_private(&path, fresh.private_b64().as_bytes()) {
                    Ok(()) => fresh,
                    // Another process wrote it first: theirs is the key.
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => read(&path)?,
                    Err(e) => return Err(e),
                }
            }
            Err(e) => return Err(e),
        };
        loaded.push((path, keys.private_b64()));
        Ok(keys)
    }
}
