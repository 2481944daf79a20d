//! Which external video origins the stream proxy may fetch, and how it connects to them.
//!
//! A URL is fetchable when its scheme is http or https, it carries no credentials, its host is
//! on the allow-list (`VIDEO_ALLOWED_HOSTS`, exact host match after WHATWG normalisation, an
//! entry with a port allows only that port), and every address its host resolves to is public.
//! The host is resolved **once** ([`OriginPolicy::check`]); the request then goes through a
//! client (hyper's, with a bounded read buffer) whose resolver answers only that host, only
//! with those addresses
//! ([`Checked::client`]), so a second DNS answer (rebinding) never reaches a socket, and an
//! IP-literal URL is checked as its address. Redirects are never followed (the caller refuses
//! a 3xx), and system proxies are ignored (a proxy would make the check meaningless).
//!
//! Refused addresses: loopback, private (10/8, 172.16/12, 192.168/16), shared/CGNAT
//! (100.64/10), link-local (169.254/16, fe80::/10), unspecified ("this network" 0/8, `::`),
//! multicast, broadcast and the reserved or documentation ranges, unique-local (fc00::/7),
//! site-local (fec0::/10), and IPv6 forms that embed an IPv4 address (mapped `::ffff:a.b.c.d`,
//! compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) by the embedded address.
//! A host on `VIDEO_ALLOWED_PRIVATE_HOSTS` (an origin inside the deployment's own network, or
//! a test server on loopback) is allowed and may resolve to private addresses; unspecified,
//! multicast and broadcast addresses stay refused for every host.
//!
//! Numeric host spellings need no special case: the `url` crate parses the host of an http(s)
//! URL as WHATWG does, so `2130706433`, `0177.0.0.1`, `0x7f.1` and `127.1` all become the IPv4
//! address 127.0.0.1 before the allow-list or the address check sees them.

use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::future::BoxFuture;
use http_body_util::Empty;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::connect::dns::Name;
use hyper_util::rt::TokioExecutor;
use url::{Host, Url};

use crate::error::{Error, ErrorKind};

/// How long connecting to an origin may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long an origin may stay silent in the middle of a response.
pub const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// Host name resolution, injectable so tests can give answers that change between lookups.
pub trait Resolve: Send + Sync + 'static {
    /// The addresses of `host` (a domain name, never an IP literal) with `port` set.
    fn lookup<'a>(&'a self, host: &'a str, port: u16)
    -> BoxFuture<'a, io::Result<Vec<SocketAddr>>>;
}

/// The system resolver through `tokio::net::lookup_host`.
#[derive(Clone, Copy, Debug, Default)]
pub struct TokioResolver;

impl Resolve for TokioResolver {
    fn lookup<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> BoxFuture<'a, io::Result<Vec<SocketAddr>>> {
        Box::pin(async move { Ok(tokio::net::lookup_host((host, port)).await?.collect()) })
    }
}

/// One allow-list entry: a normalised host (`example.com`, `127.0.0.1`, `[::1]`) and an
/// optional port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostRule {
    pub host: String,
    pub port: Option<u16>,
}

impl HostRule {
    /// Parses `host` or `host:port` (IPv6 in brackets), normalised as a URL host would be.
    pub fn parse(entry: &str) -> Result<HostRule, String> {
        let entry = entry.trim();
        let bad = || format!("{entry:?} is not a host name or host:port");
        if entry.is_empty() || entry.contains(['/', '?', '#', '@', '\\', ' ']) {
            return Err(bad());
        }
        let u = Url::parse(&format!("http://{entry}/")).map_err(|_| bad())?;
        let host = u.host().ok_or_else(bad)?;
        Ok(HostRule {
            host: host_key(&host),
            port: u.port(),
        })
    }

    /// The entry as configured, normalised (`host` or `host:port`).
    pub fn to_entry(&self) -> String {
        match self.port {
            Some(p) => format!("{}:{p}", self.host),
            None => self.host.clone(),
        }
    }

    fn matches(&self, host: &str, port: u16) -> bool {
        self.host == host && self.port.is_none_or(|p| p == port)
    }
}

/// Parses a comma-separated list of host rules (a configuration value).
pub fn parse_host_list(value: &str) -> Result<Vec<HostRule>, String> {
    value
        .split(',')
        .filter(|e| !e.trim().is_empty())
        .map(HostRule::parse)
        .collect()
}

/// The comparable form of a URL host: lowercase domain without a trailing dot, dotted IPv4,
/// bracketed IPv6.
fn host_key(host: &Host<&str>) -> String {
    match host {
        Host::Domain(d) => d.trim_end_matches('.').to_ascii_lowercase(),
        Host::Ipv4(a) => a.to_string(),
        Host::Ipv6(a) => format!("[{a}]"),
    }
}

/// Why an address is not public.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddrClass {
    Loopback,
    Private,
    SharedCgnat,
    LinkLocal,
    Unspecified,
    Multicast,
    Broadcast,
    Reserved,
}

impl AddrClass {
    pub fn as_str(self) -> &'static str {
        match self {
            AddrClass::Loopback => "loopback",
            AddrClass::Private => "private",
            AddrClass::SharedCgnat => "shared (CGNAT)",
            AddrClass::LinkLocal => "link-local",
            AddrClass::Unspecified => "unspecified",
            AddrClass::Multicast => "multicast",
            AddrClass::Broadcast => "broadcast",
            AddrClass::Reserved => "reserved",
        }
    }

    /// Never a usable origin, whatever the configuration says.
    fn always_refused(self) -> bool {
        matches!(
            self,
            AddrClass::Unspecified | AddrClass::Multicast | AddrClass::Broadcast
        )
    }
}

impl fmt::Display for AddrClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The class of a non-public address, or `None` for a public one.
pub fn classify(ip: IpAddr) -> Option<AddrClass> {
    match ip {
        IpAddr::V4(a) => classify_v4(a),
        IpAddr::V6(a) => classify_v6(a),
    }
}

fn classify_v4(a: Ipv4Addr) -> Option<AddrClass> {
    let [o0, o1, o2, _] = a.octets();
    Some(match (o0, o1, o2) {
        // "This network": 0.0.0.0 reaches the local host on Linux.
        (0, _, _) => AddrClass::Unspecified,
        (127, _, _) => AddrClass::Loopback,
        (10, _, _) | (172, 16..=31, _) | (192, 168, _) => AddrClass::Private,
        (100, 64..=127, _) => AddrClass::SharedCgnat,
        (169, 254, _) => AddrClass::LinkLocal,
        (224..=239, _, _) => AddrClass::Multicast,
        (255, 255, 255) if a == Ipv4Addr::BROADCAST => AddrClass::Broadcast,
        // Future use (240/4), IETF assignments, documentation and benchmarking ranges.
        (240..=255, _, _)
        | (192, 0, 0)
        | (192, 0, 2)
        | (198, 51, 100)
        | (203, 0, 113)
        | (198, 18..=19, _) => AddrClass::Reserved,
        _ => return None,
    })
}

fn classify_v6(a: Ipv6Addr) -> Option<AddrClass> {
    let s = a.segments();
    let embedded =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    if a.is_unspecified() {
        return Some(AddrClass::Unspecified);
    }
    if a.is_loopback() {
        return Some(AddrClass::Loopback);
    }
    // IPv4-mapped ::ffff:a.b.c.d and (deprecated) IPv4-compatible ::a.b.c.d.
    if s[..5] == [0; 5] && (s[5] == 0xffff || s[5] == 0) {
        return classify_v4(embedded(s[6], s[7]));
    }
    // NAT64 well-known prefix 64:ff9b::/96 reaches the embedded IPv4 address.
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return classify_v4(embedded(s[6], s[7]));
    }
    // 6to4 2002:AABB:CCDD::/48 tunnels to AA.BB.CC.DD.
    if s[0] == 0x2002 {
        return classify_v4(embedded(s[1], s[2]));
    }
    Some(match s[0] {
        0xff00..=0xffff => AddrClass::Multicast,
        0xfe80..=0xfebf => AddrClass::LinkLocal,
        // Site-local (deprecated) and unique-local.
        0xfec0..=0xfeff | 0xfc00..=0xfdff => AddrClass::Private,
        // Local-use NAT64 (64:ff9b:1::/48): translates into a private network.
        0x64 if s[1] == 0xff9b && s[2] == 1 => AddrClass::Private,
        // Teredo (2001::/32, the IPv4 end is obfuscated) and documentation (2001:db8::/32).
        0x2001 if s[1] == 0 || s[1] == 0xdb8 => AddrClass::Reserved,
        // Discard-only 100::/64.
        0x100 if s[1..4] == [0, 0, 0] => AddrClass::Reserved,
        _ => return None,
    })
}

/// The rules for external video origins.
#[derive(Clone)]
pub struct OriginPolicy {
    allowed: Vec<HostRule>,
    private: Vec<HostRule>,
    resolver: Arc<dyn Resolve>,
    pub connect_timeout: Duration,
    pub read_timeout: Duration,
}

impl fmt::Debug for OriginPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OriginPolicy")
            .field("allowed", &self.allowed)
            .field("private", &self.private)
            .finish_non_exhaustive()
    }
}

/// A URL that passed the checks, with the addresses its host resolved to (all public, or the
/// host is a private origin). Requests built from it go only to these addresses.
#[derive(Clone, Debug)]
pub struct Checked {
    pub url: Url,
    /// The URL's host as reqwest will look it up (a domain), `None` for an IP literal.
    pub domain: Option<String>,
    pub addrs: Vec<SocketAddr>,
}

fn refused(code: &'static str, message: impl Into<String>) -> Error {
    Error::forbidden(code, message)
}

/// The origin could not be reached (DNS, connect, TLS, timeout): 502 `video_unreachable`.
pub fn unreachable(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::ProviderFailed, "video_unreachable", message)
}

impl OriginPolicy {
    /// A policy over the system resolver. Hosts on `private` are allowed too.
    pub fn new(allowed: Vec<HostRule>, private: Vec<HostRule>) -> Self {
        OriginPolicy {
            allowed,
            private,
            resolver: Arc::new(TokioResolver),
            connect_timeout: CONNECT_TIMEOUT,
            read_timeout: READ_TIMEOUT,
        }
    }

    /// The policy of `VIDEO_ALLOWED_HOSTS` and `VIDEO_ALLOWED_PRIVATE_HOSTS` (validated when
    /// the configuration was read).
    pub fn from_config(cfg: &crate::config::Config) -> Self {
        let rules = |list: &[String]| {
            list.iter()
                .filter_map(|e| HostRule::parse(e).ok())
                .collect::<Vec<_>>()
        };
        Self::new(
            rules(&cfg.video_allowed_hosts),
            rules(&cfg.video_allowed_private_hosts),
        )
    }

    /// The same policy over another resolver.
    pub fn with_resolver(mut self, resolver: Arc<dyn Resolve>) -> Self {
        self.resolver = resolver;
        self
    }

    /// Parses `url` and checks it against the rules, resolving its host once. Errors:
    /// 400 `video_url_invalid`, 403 `video_host_not_allowed`, 403 `video_address_refused`,
    /// 502 `video_unreachable` (the name does not resolve).
    pub async fn check(&self, url: &str) -> Result<Checked, Error> {
        let url = Url::parse(url.trim()).map_err(|e| {
            Error::bad_request("video_url_invalid", format!("not an absolute URL ({e})"))
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Error::bad_request(
                "video_url_invalid",
                "only http and https video sources are supported",
            ));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(Error::bad_request(
                "video_url_invalid",
                "a video source URL must not carry credentials",
            ));
        }
        let host = url
            .host()
            .ok_or_else(|| Error::bad_request("video_url_invalid", "the URL has no host"))?;
        let key = host_key(&host);
        let port = url
            .port_or_known_default()
            .expect("http and https have default ports");
        let private_ok = self.private.iter().any(|r| r.matches(&key, port));
        if !private_ok && !self.allowed.iter().any(|r| r.matches(&key, port)) {
            return Err(refused(
                "video_host_not_allowed",
                format!("{key}:{port} is not an allowed video host"),
            ));
        }
        let (domain, addrs) = match host {
            Host::Ipv4(a) => (None, vec![SocketAddr::new(a.into(), port)]),
            Host::Ipv6(a) => (None, vec![SocketAddr::new(a.into(), port)]),
            Host::Domain(d) => {
                let addrs = self
                    .resolver
                    .lookup(d, port)
                    .await
                    .map_err(|e| unreachable(format!("{key} does not resolve ({e})")))?;
                (Some(d.to_string()), addrs)
            }
        };
        if addrs.is_empty() {
            return Err(unreachable(format!("{key} has no address")));
        }
        for a in &addrs {
            if let Some(class) = classify(a.ip())
                && (class.always_refused() || !private_ok)
            {
                return Err(refused(
                    "video_address_refused",
                    format!("{key} resolves to a {class} address; only public origins are fetched"),
                ));
            }
        }
        Ok(Checked { url, domain, addrs })
    }
}

/// The resolver of a checked URL's connections: the checked host gets the checked addresses,
/// any other name (there should be none: redirects are off) an error.
#[derive(Clone)]
struct Pinned {
    domain: Option<String>,
    addrs: Vec<SocketAddr>,
}

impl tower_service::Service<Name> for Pinned {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = io::Error;
    type Future = std::future::Ready<Result<Self::Response, io::Error>>;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), io::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: Name) -> Self::Future {
        std::future::ready(match &self.domain {
            Some(d) if d.eq_ignore_ascii_case(name.as_str()) => Ok(self.addrs.clone().into_iter()),
            _ => Err(io::Error::other(format!(
                "{} was not checked",
                name.as_str()
            ))),
        })
    }
}

/// The TLS settings of origin clients, built once per process: a client is made per proxied
/// request, and loading the system's CA certificates for each cost about a fifth of the api's
/// CPU under ranged reads (`scripts/bench-video`). The platform verifier, TLS 1.2 and 1.3,
/// HTTP/1.1 by ALPN (`dangerous()` is only rustls's door for a custom verifier; certificates
/// are verified as usual).
fn origin_tls() -> Result<rustls::ClientConfig, Error> {
    static TLS: std::sync::OnceLock<Result<rustls::ClientConfig, String>> =
        std::sync::OnceLock::new();
    TLS.get_or_init(|| {
        let provider = rustls::crypto::CryptoProvider::get_default()
            .cloned()
            .unwrap_or_else(|| Arc::new(rustls::crypto::aws_lc_rs::default_provider()));
        let verifier = rustls_platform_verifier::Verifier::new(provider.clone())
            .map_err(|e| format!("TLS verifier: {e}"))?;
        let cfg = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS versions: {e}"))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth();
        // ALPN (HTTP/1.1) is set by the connector builder.
        Ok(cfg)
    })
    .clone()
    .map_err(|e| Error::internal(anyhow::anyhow!(e)))
}

type Connector = hyper_rustls::HttpsConnector<HttpConnector<Pinned>>;

/// A client for one checked URL (see [`Checked::client`]).
#[derive(Clone)]
pub struct OriginClient {
    client: Client<Connector, Empty<Bytes>>,
    /// The longest silence of the origin: before the response head, and between body chunks.
    pub read_timeout: Duration,
}

impl OriginClient {
    /// Sends `req`; the head must arrive within the read timeout.
    pub async fn send(
        &self,
        req: http::Request<Empty<Bytes>>,
    ) -> Result<http::Response<hyper::body::Incoming>, OriginError> {
        match tokio::time::timeout(self.read_timeout, self.client.request(req)).await {
            Err(_) => Err(OriginError::TimedOut),
            Ok(Err(e)) if e.is_connect() => Err(OriginError::Refused),
            Ok(Err(_)) => Err(OriginError::Failed),
            Ok(Ok(r)) => Ok(r),
        }
    }
}

/// Why an origin gave no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OriginError {
    TimedOut,
    Refused,
    Failed,
}

impl Checked {
    /// A client that connects only to the checked addresses: no other DNS lookup, no proxy,
    /// no redirects (hyper follows none), with the policy's timeouts (no overall deadline: a
    /// long video streams for as long as the origin keeps sending) and a bounded read buffer.
    pub fn client(&self, policy: &OriginPolicy) -> Result<OriginClient, Error> {
        let mut tcp = HttpConnector::new_with_resolver(Pinned {
            domain: self.domain.clone(),
            addrs: self.addrs.clone(),
        });
        tcp.enforce_http(false);
        tcp.set_nodelay(true);
        tcp.set_connect_timeout(Some(policy.connect_timeout));
        let tls = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(origin_tls()?)
            .https_or_http()
            .enable_http1()
            .wrap_connector(tcp);
        let client = Client::builder(TokioExecutor::new())
            .http1_max_buf_size(super::UPSTREAM_READ_BUFFER)
            .pool_max_idle_per_host(0)
            .build(tls);
        Ok(OriginClient {
            client,
            read_timeout: policy.read_timeout,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(s: &str) -> Option<AddrClass> {
        classify(s.parse().unwrap())
    }

    #[test]
    fn ipv4_classes() {
        for (a, c) in [
            ("127.0.0.1", Some(AddrClass::Loopback)),
            ("127.255.0.9", Some(AddrClass::Loopback)),
            ("10.1.2.3", Some(AddrClass::Private)),
            ("172.16.0.1", Some(AddrClass::Private)),
            ("172.31.255.255", Some(AddrClass::Private)),
            ("192.168.1.1", Some(AddrClass::Private)),
            ("100.64.0.1", Some(AddrClass::SharedCgnat)),
            ("100.127.255.254", Some(AddrClass::SharedCgnat)),
            ("169.254.169.254", Some(AddrClass::LinkLocal)),
            ("0.0.0.0", Some(AddrClass::Unspecified)),
            ("0.1.2.3", Some(AddrClass::Unspecified)),
            ("224.0.0.1", Some(AddrClass::Multicast)),
            ("255.255.255.255", Some(AddrClass::Broadcast)),
            ("240.0.0.1", Some(AddrClass::Reserved)),
            ("192.0.2.1", Some(AddrClass::Reserved)),
            ("172.15.0.1", None),
            ("172.32.0.1", None),
            ("100.128.0.1", None),
            ("8.8.8.8", None),
            ("93.184.215.14", None),
        ] {
            assert_eq!(v4(a), c, "{a}");
        }
    }

    #[test]
    fn ipv6_classes_and_embedded_ipv4() {
        for (a, c) in [
            ("::", Some(AddrClass::Unspecified)),
            ("::1", Some(AddrClass::Loopback)),
            ("::ffff:127.0.0.1", Some(AddrClass::Loopback)),
            ("::ffff:7f00:1", Some(AddrClass::Loopback)),
            ("::ffff:10.0.0.1", Some(AddrClass::Private)),
            ("::ffff:169.254.169.254", Some(AddrClass::LinkLocal)),
            ("::ffff:0.0.0.0", Some(AddrClass::Unspecified)),
            ("::127.0.0.1", Some(AddrClass::Loopback)),
            ("64:ff9b::127.0.0.1", Some(AddrClass::Loopback)),
            ("64:ff9b::a9fe:a9fe", Some(AddrClass::LinkLocal)),
            ("64:ff9b:1::1", Some(AddrClass::Private)),
            ("2002:7f00:1::", Some(AddrClass::Loopback)),
            ("fe80::1", Some(AddrClass::LinkLocal)),
            ("fc00::1", Some(AddrClass::Private)),
            ("fd12:3456::1", Some(AddrClass::Private)),
            ("fec0::1", Some(AddrClass::Private)),
            ("ff02::1", Some(AddrClass::Multicast)),
            ("2001:db8::1", Some(AddrClass::Reserved)),
            ("2001::1", Some(AddrClass::Reserved)),
            ("::ffff:8.8.8.8", None),
            ("64:ff9b::808:808", None),
            ("2606:4700::1111", None),
        ] {
            assert_eq!(v4(a), c, "{a}");
        }
    }

    #[test]
    fn host_rules_normalise_like_urls() {
        assert_eq!(
            parse_host_list(" Cdn.Example.com , 127.0.0.1:8080,[::1]:9000,").unwrap(),
            vec![
                HostRule {
                    host: "cdn.example.com".into(),
                    port: None
                },
                HostRule {
                    host: "127.0.0.1".into(),
                    port: Some(8080)
                },
                HostRule {
                    host: "[::1]".into(),
                    port: Some(9000)
                },
            ]
        );
        assert_eq!(HostRule::parse("2130706433").unwrap().host, "127.0.0.1");
        for bad in ["http://x", "a b", "x/y", "user@x", "x:notaport", ":80"] {
            assert!(HostRule::parse(bad).is_err(), "{bad}");
        }
    }
}
