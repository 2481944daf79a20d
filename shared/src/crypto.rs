//! Cryptographic primitives: random tokens, token hashing, HMAC signing, encryption at rest and
//! password hashing. Everything that compares a secret does so in constant time.

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

type HmacSha256 = Hmac<Sha256>;

/// `n` random bytes from the OS CSPRNG (via rand's thread RNG, reseeded from the OS).
pub fn random_bytes(n: usize) -> Vec<u8> {
    let mut buf = vec![0u8; n];
    rand::fill(&mut buf[..]);
    buf
}

/// A random (version 4) UUID from the thread's RNG: `Uuid::new_v4` asks the OS (one
/// `getrandom` system call) each time, which showed in the profile of a cheap request.
pub fn random_uuid() -> uuid::Uuid {
    let mut b = [0u8; 16];
    rand::fill(&mut b);
    uuid::Builder::from_random_bytes(b).into_uuid()
}

/// An opaque bearer secret: `prefix` + 32 random bytes, base64url. The prefix makes leaked
/// tokens recognisable (secret scanners) and tells token kinds apart.
pub fn new_token(prefix: &str) -> String {
    format!("{prefix}{}", URL_SAFE_NO_PAD.encode(random_bytes(32)))
}

/// Tokens are stored as SHA-256 hex: they carry 256 bits of entropy, so a slow hash adds
/// nothing, and a database leak does not reveal usable tokens.
pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

pub fn sha256_b64url(data: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(data))
}

pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

/// The service's master secret, from which purpose-specific keys are derived, so one leaked
/// derived key (say, the cookie CSRF key) does not expose the others.
#[derive(Clone)]
pub struct Keys {
    master: Vec<u8>,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys(<redacted>)")
    }
}

impl Keys {
    pub fn new(master: &[u8]) -> Self {
        Keys {
            master: master.to_vec(),
        }
    }

    fn derive(&self, purpose: &str) -> [u8; 32] {
        let mut mac = HmacSha256::new_from_slice(&self.master).expect("hmac takes any key length");
        mac.update(b"surfcoach-key:");
        mac.update(purpose.as_bytes());
        mac.finalize().into_bytes().into()
    }

    /// HMAC-SHA256 of `data` under the key for `purpose`, base64url.
    pub fn sign(&self, purpose: &str, data: &[u8]) -> String {
        let key = self.derive(purpose);
        let mut mac = HmacSha256::new_from_slice(&key).expect("hmac takes any key length");
        mac.update(data);
        URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    }

    pub fn verify(&self, purpose: &str, data: &[u8], signature: &str) -> bool {
        constant_time_eq(self.sign(purpose, data).as_bytes(), signature.as_bytes())
    }

    /// AES-256-GCM with a random 96-bit nonce; output is base64url(nonce || ciphertext+tag).
    /// The purpose is bound as associated data so a ciphertext cannot be moved between columns.
    pub fn encrypt(&self, purpose: &str, plaintext: &[u8]) -> String {
        let cipher = Aes256Gcm::new_from_slice(&self.derive("encryption")).expect("32-byte key");
        let nonce_bytes = random_bytes(12);
        let nonce = Nonce::try_from(&nonce_bytes[..]).expect("12-byte nonce");
        let ct = cipher
            .encrypt(
                &nonce,
                aes_gcm::aead::Payload {
                    msg: plaintext,
                    aad: purpose.as_bytes(),
                },
            )
            .expect("AES-GCM encryption of a bounded message cannot fail");
        let mut out = nonce_bytes;
        out.extend_from_slice(&ct);
        URL_SAFE_NO_PAD.encode(out)
    }

    pub fn decrypt(&self, purpose: &str, encoded: &str) -> Option<Vec<u8>> {
        let raw = URL_SAFE_NO_PAD.decode(encoded).ok()?;
        if raw.len() < 12 + 16 {
            return None;
        }
        let cipher = Aes256Gcm::new_from_slice(&self.derive("encryption")).ok()?;
        let nonce = Nonce::try_from(&raw[..12]).ok()?;
        cipher
            .decrypt(
                &nonce,
                aes_gcm::aead::Payload {
                    msg: &raw[12..],
                    aad: purpose.as_bytes(),
                },
            )
            .ok()
    }
}

/// Password hashing with argon2id at the OWASP-recommended parameters
/// (m = 19 MiB, t = 2, p = 1: argon2's defaults). CPU-heavy: run on the blocking pool.
pub mod password {
    use argon2::{Argon2, PasswordHasher, PasswordVerifier};

    pub fn hash(password: &str) -> String {
        Argon2::default()
            .hash_password(password.as_bytes())
            .expect("argon2 with default parameters cannot fail")
            .to_string()
    }

    pub fn verify(password: &str, hash: &str) -> bool {
        Argon2::default()
            .verify_password(password.as_bytes(), hash)
            .is_ok()
    }

    pub async fn hash_async(password: String) -> String {
        tokio::task::spawn_blocking(move || hash(&password))
            .await
            .expect("hashing task panicked")
    }

    /// Verifies against `hash`, or against a fixed dummy hash when there is none, so an
    /// unknown email costs the same time as a wrong password (no account enumeration by timing).
    pub async fn verify_async(password: String, hash: Option<String>) -> bool {
        tokio::task::spawn_blocking(move || match hash {
            Some(h) => verify(&password, &h),
            None => {
                let _ = verify(&password, dummy_hash());
                false
            }
        })
        .await
        .expect("verification task panicked")
    }

    fn dummy_hash() -> &'static str {
        static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        DUMMY.get_or_init(|| hash("not-a-real-password-just-timing"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encrypt_round_trips_and_binds_purpose() {
        let k = Keys::new(b"0123456789abcdef0123456789abcdef");
        let ct = k.encrypt("oauth", b"secret-token");
        assert_ne!(ct.as_bytes(), b"secret-token");
        assert_eq!(k.decrypt("oauth", &ct).unwrap(), b"secret-token");
        assert!(k.decrypt("other", &ct).is_none());
        let k2 = Keys::new(b"another-key-another-key-another-");
        assert!(k2.decrypt("oauth", &ct).is_none());
    }

    #[test]
    fn signatures_verify_only_with_same_key_and_data() {
        let k = Keys::new(b"k1k1k1k1k1k1k1k1k1k1k1k1k1k1k1k1");
        let s = k.sign("csrf", b"abc");
        assert!(k.verify("csrf", b"abc", &s));
        assert!(!k.verify("csrf", b"abd", &s));
        assert!(!k.verify("other", b"abc", &s));
    }

    #[test]
    fn password_hash_is_argon2id_and_verifies() {
        let h = password::hash("correct horse battery");
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{h}");
        assert!(password::verify("correct horse battery", &h));
        assert!(!password::verify("wrong", &h));
    }
}
