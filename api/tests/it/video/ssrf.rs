//! The SSRF table: every spelling of a refused address, hosts off the allow-list, a name that
//! resolves to loopback, a redirect to a private address, and DNS answers that change between
//! lookups.

use crate::support::*;
use axum::http::StatusCode;
use futures::future::BoxFuture;
use shared::video::origin::{self, OriginRequest};
use shared::video::ssrf::{HostRule, OriginPolicy, Resolve};
use shared::video::token::VideoSource;
use std::collections::VecDeque;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Every refused address, each allow-listed (by its normalised host) so that the address
/// check, not the allow-list, is what refuses it. None of these is ever connected to.
const REFUSED: &[(&str, &str)] = &[
    ("http://127.0.0.1/v.mp4", "loopback"),
    ("http://127.0.0.1:8080/v.mp4", "loopback with a port"),
    ("http://2130706433/v.mp4", "decimal"),
    ("http://0177.0.0.1/v.mp4", "octal"),
    ("http://0x7f.1/v.mp4", "hex, short"),
    ("http://0x7f000001/v.mp4", "hex"),
    ("http://127.1/v.mp4", "short form"),
    ("http://0177.1/v.mp4", "octal short form"),
    ("http://0.0.0.0/v.mp4", "unspecified"),
    ("http://0/v.mp4", "unspecified, one number"),
    ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
    ("http://10.0.0.1/v.mp4", "private 10/8"),
    ("http://172.16.0.1/v.mp4", "private 172.16/12"),
    ("http://192.168.1.1/v.mp4", "private 192.168/16"),
    ("http://100.64.0.1/v.mp4", "CGNAT"),
    ("http://224.0.0.1/v.mp4", "multicast"),
    ("http://255.255.255.255/v.mp4", "broadcast"),
    ("http://[::1]/v.mp4", "IPv6 loopback"),
    ("http://[::]/v.mp4", "IPv6 unspecified"),
    ("http://[::ffff:127.0.0.1]/v.mp4", "IPv4-mapped loopback"),
    ("http://[::ffff:7f00:1]/v.mp4", "IPv4-mapped loopback, hex"),
    (
        "http://[::ffff:169.254.169.254]/v.mp4",
        "IPv4-mapped metadata",
    ),
    ("http://[::127.0.0.1]/v.mp4", "IPv4-compatible loopback"),
    ("http://[64:ff9b::127.0.0.1]/v.mp4", "NAT64 loopback"),
    ("http://[64:ff9b::a9fe:a9fe]/v.mp4", "NAT64 metadata"),
    ("http://[fe80::1]/v.mp4", "IPv6 link-local"),
    ("http://[fc00::1]/v.mp4", "unique-local"),
    (
        "http://[fd00:ec2::254]/v.mp4",
        "unique-local (AWS IPv6 metadata)",
    ),
    ("http://[2002:7f00:1::]/v.mp4", "6to4 of loopback"),
    ("http://[ff02::1]/v.mp4", "IPv6 multicast"),
];

/// The allow-list entry of a URL's host (normalised by the same rules).
fn host_of(url: &str) -> String {
    let u = url::Url::parse(url).unwrap();
    let h = u.host().unwrap();
    HostRule::parse(&h.to_string()).unwrap().to_entry()
}

async fn checker_app(allowed: &str) -> (TestApp, Session) {
    let app = TestApp::with_env(&[("VIDEO_ALLOWED_HOSTS", allowed)]).await;
    let s = app.signup("coach@example.com").await;
    (app, s)
}

#[tokio::test]
async fn every_refused_address_form_is_refused_by_check_and_stream() {
    let mut hosts: Vec<String> = REFUSED.iter().map(|(u, _)| host_of(u)).collect();
    hosts.push("localhost".into());
    let (app, s) = checker_app(&hosts.join(",")).await;
    let mut cases: Vec<(String, &str)> = REFUSED.iter().map(|(u, n)| (u.to_string(), *n)).collect();
    // An allow-listed name that resolves to loopback, without the private-origin setting.
    cases.push((
        "http://localhost/v.mp4".into(),
        "name resolving to loopback",
    ));
    for (url, name) in &cases {
        let r = app
            .get(&format!("/api/video/check?url={}", urlencode(url)))
            .session(&s)
            .send()
            .await;
        assert_eq!(
            r.status,
            StatusCode::FORBIDDEN,
            "{name} ({url}): {}",
            r.body
        );
        assert_eq!(
            r.code(),
            "video_address_refused",
            "{name} ({url}): {}",
            r.body
        );
        let t = stream_token(&app, VideoSource::External { url: url.clone() });
        let r = app.get(&stream_path(&t)).send().await;
        assert_eq!(
            r.status,
            StatusCode::FORBIDDEN,
            "stream {name} ({url}): {}",
            r.body
        );
        assert_eq!(r.code(), "video_address_refused", "stream {name}");
    }
}

#[tokio::test]
async fn hosts_off_the_allow_list_and_bad_urls_are_refused() {
    let (app, s) = checker_app("cdn.example.com").await;
    for (url, status, code) in [
        (
            "http://media.example.org/v.mp4",
            403,
            "video_host_not_allowed",
        ),
        (
            "http://sub.cdn.example.com/v.mp4",
            403,
            "video_host_not_allowed",
        ),
        (
            "http://cdn.example.com.evil.test/v.mp4",
            403,
            "video_host_not_allowed",
        ),
        (
            "http://evilcdn.example.com/v.mp4",
            403,
            "video_host_not_allowed",
        ),
        ("http://127.0.0.1/v.mp4", 403, "video_host_not_allowed"),
        ("http://2130706433/v.mp4", 403, "video_host_not_allowed"),
        ("ftp://cdn.example.com/v.mp4", 400, "video_url_invalid"),
        ("file:///etc/passwd", 400, "video_url_invalid"),
        (
            "http://user:pw@cdn.example.com/v.mp4",
            400,
            "video_url_invalid",
        ),
        ("not a url", 400, "video_url_invalid"),
    ] {
        let r = app
            .get(&format!("/api/video/check?url={}", urlencode(url)))
            .session(&s)
            .send()
            .await;
        assert_eq!(r.status.as_u16(), status, "{url}: {}", r.body);
        assert_eq!(r.code(), code, "{url}");
    }
}

#[tokio::test]
async fn a_port_rule_allows_only_that_port() {
    let origin = VideoOrigin::start(100).await;
    let private = format!("127.0.0.1:{}", origin.port());
    let app = TestApp::with_env(&[("VIDEO_ALLOWED_PRIVATE_HOSTS", &private)]).await;
    let s = app.signup("coach@example.com").await;
    let other = format!("http://127.0.0.1:{}/video.mp4", closed_port().await);
    let r = app
        .get(&format!("/api/video/check?url={}", urlencode(&other)))
        .session(&s)
        .send()
        .await;
    r.assert_error(StatusCode::FORBIDDEN, "video_host_not_allowed");
}

#[tokio::test]
async fn a_redirect_to_a_private_address_is_refused() {
    let origin = VideoOrigin::start(100).await;
    let private = format!("127.0.0.1:{}", origin.port());
    let app = TestApp::with_env(&[("VIDEO_ALLOWED_PRIVATE_HOSTS", &private)]).await;
    let s = app.signup("coach@example.com").await;
    let url = origin.url("/redirect");
    let r = app
        .get(&format!("/api/video/check?url={}", urlencode(&url)))
        .session(&s)
        .send()
        .await;
    r.assert_error(StatusCode::BAD_GATEWAY, "video_redirect_refused");
    let t = stream_token(&app, VideoSource::External { url });
    app.get(&stream_path(&t))
        .send()
        .await
        .assert_error(StatusCode::BAD_GATEWAY, "video_redirect_refused");
}

/// A resolver whose answer changes with each lookup, counting lookups.
struct Changing {
    answers: Mutex<VecDeque<IpAddr>>,
    lookups: AtomicUsize,
}

impl Changing {
    fn new(answers: &[IpAddr]) -> Arc<Changing> {
        Arc::new(Changing {
            answers: Mutex::new(answers.iter().copied().collect()),
            lookups: AtomicUsize::new(0),
        })
    }
}

impl Resolve for Changing {
    fn lookup<'a>(
        &'a self,
        _host: &'a str,
        port: u16,
    ) -> BoxFuture<'a, std::io::Result<Vec<SocketAddr>>> {
        self.lookups.fetch_add(1, Ordering::SeqCst);
        let ip = self.answers.lock().unwrap().pop_front();
        Box::pin(async move {
            ip.map(|ip| vec![SocketAddr::new(ip, port)])
                .ok_or_else(|| std::io::Error::other("no more answers"))
        })
    }
}

fn rules(list: &str) -> Vec<HostRule> {
    shared::video::ssrf::parse_host_list(list).unwrap()
}

#[tokio::test]
async fn the_checked_dns_answer_is_the_only_one_used() {
    // A public answer first, loopback second: the check keeps the first and never asks again.
    // (Nothing connects here: the public address must not receive traffic from tests.)
    let public: IpAddr = "93.184.215.14".parse().unwrap();
    let dns = Changing::new(&[public, "127.0.0.1".parse().unwrap()]);
    let policy = OriginPolicy::new(rules("media.test"), vec![]).with_resolver(dns.clone());
    let checked = policy.check("http://media.test/v.mp4").await.unwrap();
    assert_eq!(checked.addrs, vec![SocketAddr::new(public, 80)]);
    let _client = checked.client(&policy).unwrap();
    assert_eq!(dns.lookups.load(Ordering::SeqCst), 1);

    // Loopback first: refused on that one lookup.
    let dns = Changing::new(&["127.0.0.1".parse().unwrap(), public]);
    let policy = OriginPolicy::new(rules("media.test"), vec![]).with_resolver(dns.clone());
    let e = policy.check("http://media.test/v.mp4").await.unwrap_err();
    assert_eq!(e.code, "video_address_refused");
    assert_eq!(dns.lookups.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_connection_goes_to_the_first_checked_answer() {
    // Two origins on the same port, 127.0.0.1 and 127.0.0.2; the name resolves to the first,
    // then to the second. The request must reach the first, with one lookup.
    let first = VideoOrigin::start_on(([127, 0, 0, 1], 0).into(), 10, "first")
        .await
        .unwrap();
    let second = VideoOrigin::start_on(([127, 0, 0, 2], first.port()).into(), 10, "second").await;
    if second.is_err() {
        println!("note: 127.0.0.2 is not bindable here; checking the lookup count only");
    }
    let dns = Changing::new(&[first.ip(), "127.0.0.2".parse().unwrap()]);
    let policy = OriginPolicy::new(vec![], rules("media.test")).with_resolver(dns.clone());
    let url = format!("http://media.test:{}/who", first.port());
    let r = origin::fetch(&policy, &url, &OriginRequest::default())
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    let chunks: Vec<bytes::Bytes> = futures::TryStreamExt::try_collect(r.body.into_stream())
        .await
        .unwrap();
    let body = chunks.concat();
    assert_eq!(body, b"first");
    assert_eq!(dns.lookups.load(Ordering::SeqCst), 1);
}

pub fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}
