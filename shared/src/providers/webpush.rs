//! Web Push: delivery to a browser's push service (RFC 8030), the payload encrypted to the
//! subscription's keys (RFC 8291, `aes128gcm` of RFC 8188), and the sender identified by a
//! VAPID ES256 JWT (RFC 8292).
//!
//! - [`encrypt`]: a fresh P-256 key pair and a random 16-byte salt per message; ECDH with the
//!   browser's `p256dh`; `IKM = HKDF(auth, ecdh, "WebPush: info\0" ‖ ua_public ‖ as_public, 32)`;
//!   `CEK = HKDF(salt, IKM, "Content-Encoding: aes128gcm\0", 16)`, `NONCE = HKDF(salt, IKM,
//!   "Content-Encoding: nonce\0", 12)`; one record, the plaintext followed by the delimiter
//!   `0x02`, sealed with AES-128-GCM; the body is `salt ‖ rs (4096) ‖ idlen (65) ‖ as_public ‖
//!   ciphertext`. The RFC's Appendix A vector is a unit test below.
//! - [`VapidKeys`]: the application server's P-256 key; `Authorization: vapid t=<JWT>, k=<public
//!   key>` with `aud` the endpoint's origin, `exp` 12 hours ahead (RFC 8292 allows 24), `sub` a
//!   `mailto:` or `https:` contact.
//! - [`send`]: `POST` the endpoint with `TTL`, `Urgency`, optionally `Topic`. 201 (or any 2xx)
//!   delivered; 404 and 410 mean the subscription is gone (the caller deletes it); 429 and 5xx
//!   are retried here up to 3 times with backoff, honouring `Retry-After` up to
//!   [`super::retry::MAX_WAIT`], then transient; any other 4xx is permanent.
//!
//! Endpoints come from browsers, so the server must not post to any URL it is given:
//! [`endpoint_allowed`] admits only the push services configured (`WEB_PUSH_ENDPOINT_HOSTS`).

use super::http::{ProviderError, retry_after};
use aws_lc_rs::aead::{AES_128_GCM, Aad, LessSafeKey, Nonce, UnboundKey};
use aws_lc_rs::agreement::{self, ECDH_P256, UnparsedPublicKey};
use aws_lc_rs::encoding::{AsBigEndian, EcPrivateKeyBin};
use aws_lc_rs::hkdf::{HKDF_SHA256, KeyType, Salt};
use aws_lc_rs::rand::{SecureRandom, SystemRandom};
use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use url::Url;

pub const PROVIDER: &str = "web push";

/// The record size written in the header; one record carries the whole message.
const RS: u32 = 4096;
/// Header (86 bytes), tag (16) and delimiter (1) leave this much of a 4096-byte body for the
/// plaintext: every push service must accept it (RFC 8291 §4).
pub const MAX_PLAINTEXT: usize = 3993;

/// Decodes base64url with or without padding (browsers send it unpadded; some libraries pad).
pub fn b64url_decode(s: &str) -> Option<Vec<u8>> {
    let s = s
        .trim()
        .trim_end_matches('=')
        .replace('+', "-")
        .replace('/', "_");
    URL_SAFE_NO_PAD.decode(s).ok()
}

pub fn b64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Why a message could not be encrypted: the subscription's keys are unusable.
#[derive(Debug, thiserror::Error)]
#[error("web push subscription keys are unusable: {0}")]
pub struct KeyError(pub &'static str);

struct Len(usize);
impl KeyType for Len {
    fn len(&self) -> usize {
        self.0
    }
}

fn hkdf(salt: &[u8], ikm: &[u8], info: &[u8], len: usize) -> Vec<u8> {
    let prk = Salt::new(HKDF_SHA256, salt).extract(ikm);
    let mut out = vec![0u8; len];
    prk.expand(&[info], Len(len))
        .and_then(|okm| okm.fill(&mut out))
        .expect("HKDF-SHA256 output of at most 255 blocks");
    out
}

/// Checks a subscription's keys: `p256dh` an uncompressed P-256 point, `auth` 16 bytes.
pub fn check_keys(p256dh: &str, auth: &str) -> Result<(Vec<u8>, Vec<u8>), KeyError> {
    let ua = b64url_decode(p256dh).ok_or(KeyError("p256dh is not base64url"))?;
    if ua.len() != 65 || ua[0] != 4 {
        return Err(KeyError(
            "p256dh must be an uncompressed P-256 point (65 bytes)",
        ));
    }
    let probe = agreement::PrivateKey::generate(&ECDH_P256).map_err(|_| KeyError("rng"))?;
    agreement::agree(
        &probe,
        UnparsedPublicKey::new(&ECDH_P256, &ua),
        KeyError("p256dh is not a point on P-256"),
        |_| Ok(()),
    )?;
    let auth = b64url_decode(auth).ok_or(KeyError("auth is not base64url"))?;
    if auth.len() != 16 {
        return Err(KeyError("auth must be 16 bytes"));
    }
    Ok((ua, auth))
}

/// Encrypts `plaintext` (at most [`MAX_PLAINTEXT`] bytes) to a subscription's keys.
pub fn encrypt(plaintext: &[u8], p256dh: &str, auth: &str) -> Result<Vec<u8>, KeyError> {
    let (ua, auth) = check_keys(p256dh, auth)?;
    let as_key = agreement::PrivateKey::generate(&ECDH_P256).map_err(|_| KeyError("rng"))?;
    let mut salt = [0u8; 16];
    SystemRandom::new()
        .fill(&mut salt)
        .map_err(|_| KeyError("rng"))?;
    encrypt_with(plaintext, &ua, &auth, &as_key, &salt)
}

/// [`encrypt`] with a given sender key and salt (the RFC's vector fixes both).
fn encrypt_with(
    plaintext: &[u8],
    ua_public: &[u8],
    auth: &[u8],
    as_key: &agreement::PrivateKey,
    salt: &[u8; 16],
) -> Result<Vec<u8>, KeyError> {
    assert!(
        plaintext.len() <= MAX_PLAINTEXT,
        "one record of at most 4096 bytes"
    );
    let as_public = as_key
        .compute_public_key()
        .map_err(|_| KeyError("sender key"))?;
    let as_public = as_public.as_ref().to_vec();
    let ecdh = agreement::agree(
        as_key,
        UnparsedPublicKey::new(&ECDH_P256, ua_public),
        KeyError("p256dh is not a point on P-256"),
        |s| Ok(s.to_vec()),
    )?;
    let mut key_info = b"WebPush: info\0".to_vec();
    key_info.extend_from_slice(ua_public);
    key_info.extend_from_slice(&as_public);
    let ikm = hkdf(auth, &ecdh, &key_info, 32);
    let cek = hkdf(salt, &ikm, b"Content-Encoding: aes128gcm\0", 16);
    let nonce = hkdf(salt, &ikm, b"Content-Encoding: nonce\0", 12);
    let key = LessSafeKey::new(UnboundKey::new(&AES_128_GCM, &cek).expect("16-byte key"));
    let mut record = plaintext.to_vec();
    record.push(2); // the last (and only) record's delimiter, no padding
    let nonce = Nonce::try_assume_unique_for_key(&nonce).expect("12-byte nonce");
    key.seal_in_place_append_tag(nonce, Aad::empty(), &mut record)
        .map_err(|_| KeyError("seal"))?;
    let mut body = Vec::with_capacity(86 + record.len());
    body.extend_from_slice(salt);
    body.extend_from_slice(&RS.to_be_bytes());
    body.push(as_public.len() as u8);
    body.extend_from_slice(&as_public);
    body.extend_from_slice(&record);
    Ok(body)
}

/// The application server's VAPID key pair (P-256). `Debug` shows the public key only.
pub struct VapidKeys {
    private: Vec<u8>,
    public: Vec<u8>,
    signer: EcdsaKeyPair,
}

impl std::fmt::Debug for VapidKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VapidKeys({})", self.public_key())
    }
}

impl Clone for VapidKeys {
    fn clone(&self) -> Self {
        VapidKeys::from_private(&self.private).expect("a key that loaded once loads again")
    }
}

impl VapidKeys {
    /// A new random key pair.
    pub fn generate() -> VapidKeys {
        let k = agreement::PrivateKey::generate(&ECDH_P256).expect("rng");
        let raw: EcPrivateKeyBin = k.as_be_bytes().expect("P-256 scalar");
        VapidKeys::from_private(raw.as_ref()).expect("a fresh key loads")
    }

    /// From the raw 32-byte private scalar (as `web-push` libraries write it, base64url).
    pub fn from_private(raw: &[u8]) -> Result<VapidKeys, &'static str> {
        let k = agreement::PrivateKey::from_private_key(&ECDH_P256, raw)
            .map_err(|_| "not a P-256 private key (32 bytes, base64url)")?;
        let public = k
            .compute_public_key()
            .map_err(|_| "not a P-256 private key")?
            .as_ref()
            .to_vec();
        let signer = EcdsaKeyPair::from_private_key_and_public_key(
            &ECDSA_P256_SHA256_FIXED_SIGNING,
            raw,
            &public,
        )
        .map_err(|_| "not a P-256 private key")?;
        Ok(VapidKeys {
            private: raw.to_vec(),
            public,
            signer,
        })
    }

    pub fn from_private_b64(s: &str) -> Result<VapidKeys, &'static str> {
        VapidKeys::from_private(&b64url_decode(s).ok_or("not base64url")?)
    }

    /// The private scalar, base64url (what `DATA_DIR/vapid.key` holds).
    pub fn private_b64(&self) -> String {
        b64url(&self.private)
    }

    /// The uncompressed public key, base64url: the page's `applicationServerKey`.
    pub fn public_key(&self) -> String {
        b64url(&self.public)
    }

    /// An ES256 JWT for the push service at `aud` (an origin), valid until `exp` (Unix time).
    pub fn jwt(&self, aud: &str, sub: &str, exp: i64) -> String {
        let header = b64url(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = b64url(
            serde_json::json!({ "aud": aud, "exp": exp, "sub": sub })
                .to_string()
                .as_bytes(),
        );
        let input = format!("{header}.{claims}");
        let sig = self
            .signer
            .sign(&SystemRandom::new(), input.as_bytes())
            .expect("ECDSA signing");
        format!("{input}.{}", b64url(sig.as_ref()))
    }

    /// The `Authorization` header for a request to `endpoint` (RFC 8292 §3).
    pub fn authorization(&self, endpoint: &Url, sub: &str) -> String {
        let aud = endpoint.origin().ascii_serialization();
        let exp = chrono::Utc::now().timestamp() + 12 * 3600;
        format!(
            "vapid t={}, k={}",
            self.jwt(&aud, sub, exp),
            self.public_key()
        )
    }
}

/// Whether the server may post to `endpoint`: an `https` URL whose host is one of `allowed`
/// (`host`, or `*.suffix` for any subdomain), or an `http` URL whose `http://host[:port]` is
/// listed as such (a test's push service on loopback).
pub fn endpoint_allowed(endpoint: &Url, allowed: &[String]) -> bool {
    let Some(host) = endpoint.host_str() else {
        return false;
    };
    allowed.iter().any(|rule| {
        if let Some(plain) = rule.strip_prefix("http://") {
            let here = match endpoint.port() {
                Some(p) => format!("{host}:{p}"),
                None => host.to_string(),
            };
            return endpoint.scheme() == "http" && plain.trim_end_matches('/') == here;
        }
        if endpoint.scheme() != "https" {
            return false;
        }
        match rule.strip_prefix("*.") {
            Some(suffix) => host.len() > suffix.len() && host.ends_with(&format!(".{suffix}")),
            None => host.eq_ignore_ascii_case(rule),
        }
    })
}

crate::text_enum! {
    /// How soon the browser should be woken (RFC 8030 §5.3).
    pub enum Urgency { VeryLow = "very-low", Low = "low", Normal = "normal", High = "high" }
}

/// One message to one subscription.
pub struct WebPushMessage<'a> {
    pub endpoint: &'a str,
    pub p256dh: &'a str,
    pub auth: &'a str,
    pub payload: &'a [u8],
    /// Seconds the push service keeps an undelivered message.
    pub ttl: u32,
    pub urgency: Urgency,
    /// Replaces an undelivered message with the same topic (at most 32 base64url characters).
    pub topic: Option<&'a str>,
}

/// What the push service said.
#[derive(Debug, PartialEq, Eq)]
pub enum Pushed {
    Accepted,
    /// 404 or 410: the subscription expired or was revoked; delete it.
    Gone(u16),
}

/// Encrypts and posts one message (see the module doc for the answers).
pub async fn send(
    http: &reqwest::Client,
    vapid: &VapidKeys,
    subject: &str,
    m: &WebPushMessage<'_>,
) -> Result<Pushed, ProviderError> {
    let url = Url::parse(m.endpoint).map_err(|_| ProviderError::Rejected {
        provider: PROVIDER,
        status: 400,
        message: "the endpoint is not a URL".into(),
    })?;
    let body = encrypt(m.payload, m.p256dh, m.auth).map_err(|e| ProviderError::Rejected {
        provider: PROVIDER,
        status: 400,
        message: e.to_string(),
    })?;
    let (url, body) = (&url, &body);
    super::retry::with_backoff(PROVIDER, move || async move {
        let mut r = http
            .post(url.clone())
            .header("TTL", m.ttl.to_string())
            .header("Urgency", m.urgency.as_str())
            .header("Content-Encoding", "aes128gcm")
            .header("Content-Type", "application/octet-stream")
            .header("Authorization", vapid.authorization(url, subject))
            .body(body.clone());
        if let Some(t) = m.topic {
            r = r.header("Topic", t);
        }
        let resp = r
            .send()
            .await
            .map_err(|e| ProviderError::from_reqwest(PROVIDER, e))?;
        let status = resp.status().as_u16();
        let wait = retry_after(resp.headers());
        let text: String = resp
            .text()
            .await
            .unwrap_or_default()
            .chars()
            .take(300)
            .collect();
        match status {
            200..=299 => Ok(Pushed::Accepted),
            404 | 410 => Ok(Pushed::Gone(status)),
            429 => Err(ProviderError::RateLimited {
                provider: PROVIDER,
                retry_after: wait,
            }),
            500..=599 => Err(ProviderError::Unavailable {
                provider: PROVIDER,
                message: format!("status {status}: {text}"),
            }),
            _ => Err(ProviderError::Rejected {
                provider: PROVIDER,
                status,
                message: text,
            }),
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 8291 Appendix A.
    const PLAINTEXT: &str = "When I grow up, I want to be a watermelon";
    const AS_PRIVATE: &str = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
    const AS_PUBLIC: &str =
        "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
    const UA_PUBLIC: &str =
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
    const SALT: &str = "DGv6ra1nlYgDCS1FRnbzlw";
    const AUTH: &str = "BTBZMqHH6r4Tts7J_aSIgg";
    const BODY: &str = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN";

    #[test]
    fn encrypts_the_rfc_8291_appendix_a_message_byte_for_byte() {
        let d = |s| b64url_decode(s).unwrap();
        let as_key = agreement::PrivateKey::from_private_key(&ECDH_P256, &d(AS_PRIVATE)).unwrap();
        assert_eq!(
            as_key.compute_public_key().unwrap().as_ref(),
            d(AS_PUBLIC).as_slice()
        );
        let salt: [u8; 16] = d(SALT).try_into().unwrap();
        let body = encrypt_with(
            PLAINTEXT.as_bytes(),
            &d(UA_PUBLIC),
            &d(AUTH),
            &as_key,
            &salt,
        )
        .unwrap();
        assert_eq!(b64url(&body), BODY);
    }

    #[test]
    fn fresh_messages_differ_and_bad_keys_are_refused() {
        let a = encrypt(b"hi", UA_PUBLIC, AUTH).unwrap();
        let b = encrypt(b"hi", UA_PUBLIC, AUTH).unwrap();
        assert_ne!(a, b, "a new salt and key per message");
        assert_eq!(a.len(), 86 + 2 + 1 + 16);
        assert!(encrypt(b"hi", "BAAA", AUTH).is_err());
        assert!(encrypt(b"hi", UA_PUBLIC, "c2hvcnQ").is_err());
        let mut off_curve = b64url_decode(UA_PUBLIC).unwrap();
        off_curve[64] ^= 1;
        assert!(encrypt(b"hi", &b64url(&off_curve), AUTH).is_err());
    }

    #[test]
    fn vapid_jwt_verifies_with_the_public_key() {
        let k = VapidKeys::generate();
        let again = VapidKeys::from_private_b64(&k.private_b64()).unwrap();
        assert_eq!(again.public_key(), k.public_key());
        let url = Url::parse("https://push.example.net:8443/wpush/v2/abc").unwrap();
        let h = k.authorization(&url, "mailto:ops@example.com");
        let (t, key) = h
            .strip_prefix("vapid t=")
            .unwrap()
            .split_once(", k=")
            .unwrap();
        assert_eq!(key, k.public_key());
        let (input, sig) = t.rsplit_once('.').unwrap();
        aws_lc_rs::signature::UnparsedPublicKey::new(
            &aws_lc_rs::signature::ECDSA_P256_SHA256_FIXED,
            b64url_decode(key).unwrap(),
        )
        .verify(input.as_bytes(), &b64url_decode(sig).unwrap())
        .unwrap();
        let claims: serde_json::Value =
            serde_json::from_slice(&b64url_decode(input.split('.').nth(1).unwrap()).unwrap())
                .unwrap();
        assert_eq!(claims["aud"], "https://push.example.net:8443");
        assert_eq!(claims["sub"], "mailto:ops@example.com");
    }

    #[test]
    fn only_configured_push_services_are_endpoints() {
        let allowed: Vec<String> = [
            "fcm.googleapis.com",
            "*.push.services.mozilla.com",
            "http://127.0.0.1:9000",
        ]
        .map(String::from)
        .to_vec();
        let ok = |u: &str| endpoint_allowed(&Url::parse(u).unwrap(), &allowed);
        assert!(ok("https://fcm.googleapis.com/fcm/send/x"));
        assert!(ok("https://updates.push.services.mozilla.com/wpush/v2/x"));
        assert!(ok("http://127.0.0.1:9000/push/1"));
        assert!(!ok("http://fcm.googleapis.com/fcm/send/x"), "https only");
        assert!(!ok("https://push.services.mozilla.com.evil.test/x"));
        assert!(!ok("https://evil.test/x"));
        assert!(!ok("http://127.0.0.1:9001/push/1"));
        assert!(!ok("https://127.0.0.1:9000/push/1"));
    }
}
