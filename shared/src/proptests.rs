//! Property tests of the parsers that read what clients and providers send: no input makes
//! them panic, and where a value is written and read back (a signature, a range, a date, a
//! CSV row) the round trip holds and any single-byte change is caught. Case counts are modest
//! (the whole module runs in a few seconds); `PROPTEST_CASES` raises them for a longer run.

use crate::crypto::Keys;
use crate::db::Id;
use crate::import::athletes::AthleteImporter;
use crate::import::footage::ManifestImporter;
use crate::import::pipeline::parse;
use crate::import::training::TrainingImporter;
use crate::import::{Report, neutralise};
use crate::providers::{payments, twilio, webhooks};
use crate::storage::signed_url::{SignedUrlQuery, UrlOp, local_url, verify_local_url};
use crate::storage::{ByteRange, Store};
use crate::times::{self, TimeKind};
use crate::video::token::{self, StreamGrant, VideoSource};
use chrono::{Datelike, NaiveDate};
use proptest::prelude::*;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Flips one byte of `s` at `at` (modulo its length) to another printable ASCII byte.
fn flip(s: &str, at: usize, to: u8) -> String {
    let mut b = s.as_bytes().to_vec();
    let i = at % b.len();
    let mut c = b' ' + to % 95;
    if c == b[i] {
        c = if c == b'~' { b' ' } else { c + 1 };
    }
    b[i] = c;
    String::from_utf8_lossy(&b).into_owned()
}

fn headers<'a>(id: &'a str, ts: &'a str, sig: &'a str) -> webhooks::WebhookHeaders<'a> {
    webhooks::WebhookHeaders {
        id: Some(id),
        timestamp: Some(ts),
        signature: Some(sig),
    }
}

fn report() -> Report {
    Report::new(false, String::new())
}

/// A CSV-ish file: a header of known and unknown column names, rows of cells drawn from
/// values that exercise the field rules (dates, times, quotes, separators, formulas, unicode).
fn csv_file() -> impl Strategy<Value = String> {
    let names = prop::sample::select(vec![
        "first_name",
        "last_name",
        "email",
        "birth_date",
        "stance",
        "level",
        "notes",
        "title",
        "starts_at",
        "ends_at",
        "duration_minutes",
        "athlete_email",
        "attendance",
        "location",
        "spot",
        "date",
        "file",
        "start_time",
        "athletes",
        "x",
        "",
    ]);
    let cell = prop_oneof![
        "[ -~]{0,12}",
        "\\PC{0,8}",
        Just("2026-02-30".to_string()),
        Just("+262142-12-31".to_string()),
        Just("9999-12-31 23:59".to_string()),
        Just("-0001-01-01T00:00:00Z".to_string()),
        Just("99999999999999999999".to_string()),
        Just("\"a,\"\"b\"".to_string()),
        Just("=cmd|' /C calc'!A0".to_string()),
        Just("25:61".to_string()),
        Just("é".repeat(12)),
    ];
    (
        prop::collection::vec(names, 0..8),
        prop::collection::vec(prop::collection::vec(cell, 0..9), 0..6),
    )
        .prop_map(|(header, rows)| {
            let mut s = header.join(",");
            for r in rows {
                s.push('\n');
                s.push_str(&r.join(","));
            }
            s
        })
}

fn manifest() -> ManifestImporter {
    ManifestImporter {
        batch_id: Id::nil(),
        file_name: "m.csv".into(),
        format: "csv",
    }
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn csv_imports_never_panic_on_bytes(data in prop::collection::vec(any::<u8>(), 0..400)) {
        let mut r = report();
        let rows = parse(&AthleteImporter, &data, &mut r);
        prop_assert!(rows.len() as u64 <= r.rows);
        parse(&TrainingImporter, &data, &mut report());
        parse(&manifest(), &data, &mut report());
        // A workbook's magic, then garbage: the xlsx reader refuses it without panicking.
        let mut xlsx = b"PK\x03\x04".to_vec();
        xlsx.extend_from_slice(&data);
        parse(&AthleteImporter, &xlsx, &mut report());
    }

    #[test]
    fn csv_imports_never_panic_on_csv_shaped_files(file in csv_file()) {
        let data = file.as_bytes();
        let mut r = report();
        let rows = parse(&AthleteImporter, data, &mut r);
        // Every data row is either parsed or reported (an error on it or on the header).
        prop_assert!(rows.len() as u64 <= r.rows);
        prop_assert!(rows.len() as u64 == r.rows || r.error_count > 0);
        let mut r = report();
        let rows = parse(&TrainingImporter, data, &mut r);
        prop_assert!(rows.len() as u64 == r.rows || r.error_count > 0);
        let mut r = report();
        let rows = parse(&manifest(), data, &mut r);
        prop_assert!(rows.len() as u64 == r.rows || r.error_count > 0);
    }

    /// Valid athletes written as CSV (cells neutralised as the export does) read back as the
    /// same athletes.
    #[test]
    fn athlete_rows_round_trip_through_csv(
        people in prop::collection::vec(
            ("[A-Za-z][A-Za-z' -]{0,20}[A-Za-z]", "[A-Za-z]{1,20}", 1910i32..2020, 1u32..=28),
            1..8,
        )
    ) {
        let mut w = csv::Writer::from_writer(vec![]);
        w.write_record(["first_name", "last_name", "birth_date"]).unwrap();
        for (first, last, y, d) in &people {
            let born = NaiveDate::from_ymd_opt(*y, 6, *d).unwrap().to_string();
            w.write_record([neutralise(first).as_ref(), neutralise(last).as_ref(), &born]).unwrap();
        }
        let data = w.into_inner().unwrap();
        let mut r = report();
        let rows = parse(&AthleteImporter, &data, &mut r);
        prop_assert_eq!(r.error_count, 0, "{:?}", r.errors);
        prop_assert_eq!(rows.len(), people.len());
        for ((_, a), (first, last, y, d)) in rows.iter().zip(&people) {
            prop_assert_eq!(&a.first_name, first.trim());
            prop_assert_eq!(&a.last_name, last);
            prop_assert_eq!(a.birth_date, NaiveDate::from_ymd_opt(*y, 6, *d));
        }
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn range_headers_never_panic_and_resolve_within_the_length(
        value in prop_oneof![
            "\\PC{0,24}",
            "bytes=[0-9]{0,22}-[0-9]{0,22}",
            "bytes= ?-?[0-9]{0,3}-?[0-9,]{0,6}",
        ],
        size in prop_oneof![Just(0u64), 1u64..10_000, Just(u64::MAX)],
    ) {
        if let Some(r) = ByteRange::parse_header(&value)
            && let Ok((first, last)) = r.resolve(size)
        {
            prop_assert!(first <= last && last < size, "{value} over {size}: {first}-{last}");
        }
    }

    #[test]
    fn a_parsed_range_is_the_one_written(start in 0u64..u64::MAX / 2, len in 0u64..u64::MAX / 2) {
        let end = start + len;
        for (r, text) in [
            (ByteRange::new(start, end), format!("bytes={start}-{end}")),
            (ByteRange::starting_at(start), format!("bytes={start}-")),
            (ByteRange::suffix(len), format!("bytes=-{len}")),
        ] {
            prop_assert_eq!(ByteRange::parse_header(&text), Some(r));
        }
    }

    #[test]
    fn signatures_verify_and_any_changed_byte_fails(
        key in prop::collection::vec(any::<u8>(), 1..64),
        data in "\\PC{1,64}",
        at in any::<usize>(),
        to in any::<u8>(),
    ) {
        let keys = Keys::new(&key);
        let sig = keys.sign("purpose", data.as_bytes());
        prop_assert!(keys.verify("purpose", data.as_bytes(), &sig));
        prop_assert!(!keys.verify("other", data.as_bytes(), &sig));
        prop_assert!(!keys.verify("purpose", data.as_bytes(), &flip(&sig, at, to)));
        let mut changed = data.clone().into_bytes();
        let i = at % changed.len();
        changed[i] ^= 1 | (to & 0x7f);
        prop_assert!(!keys.verify("purpose", &changed, &sig));
        // Encryption: round trip, and a changed ciphertext is refused, never a panic.
        let ct = keys.encrypt("purpose", data.as_bytes());
        prop_assert_eq!(keys.decrypt("purpose", &ct), Some(data.as_bytes().to_vec()));
        prop_assert_eq!(keys.decrypt("purpose", &flip(&ct, at, to)), None);
        prop_assert_eq!(keys.decrypt("other", &ct), None);
    }

    #[test]
    fn token_verifiers_never_panic(s in "\\PC{0,200}", now in any::<i64>()) {
        let keys = Keys::new(b"k");
        let _ = token::verify(&keys, &s, now);
        let _ = crate::unsubscribe::verify(&keys, &s);
        let _ = keys.decrypt("p", &s);
        let q = SignedUrlQuery { op: UrlOp::Get, exp: 0, sig: s.clone(), ct: s.clone() };
        let _ = verify_local_url(&keys, Store::SessionVideos, &s, &q, 0);
    }

    #[test]
    fn video_tokens_round_trip_and_changed_ones_fail(
        key in "[a-z0-9/._-]{1,60}",
        url in "https://[a-z]{1,10}\\.example/[a-z0-9]{0,20}",
        stored in any::<bool>(),
        expires in 0i64..4_102_444_800,
        at in any::<usize>(),
        to in any::<u8>(),
    ) {
        let keys = Keys::new(b"video key");
        let source = if stored {
            VideoSource::Stored { store: Store::SessionVideos, key }
        } else {
            VideoSource::External { url }
        };
        let grant = StreamGrant { clip_id: Id::new(), user_id: Id::new(), source, expires_at: expires };
        let t = token::sign(&keys, &grant);
        let back = token::verify(&keys, &t, expires).unwrap();
        prop_assert_eq!(back.clip_id, grant.clip_id);
        prop_assert_eq!(back.expires_at, expires);
        let err = token::verify(&keys, &flip(&t, at, to), expires).unwrap_err();
        prop_assert_eq!(err.code, "video_token_invalid");
        let expired = token::verify(&keys, &t, expires + 1).unwrap_err();
        prop_assert_eq!(expired.code, "video_token_expired");
    }

    #[test]
    fn unsubscribe_tokens_round_trip_and_changed_ones_fail(
        category in "[a-z0-9_-]{1,20}",
        at in any::<usize>(),
        to in any::<u8>(),
    ) {
        let keys = Keys::new(b"mail key");
        let user = Id::new();
        let t = crate::unsubscribe::token(&keys, user, &category);
        prop_assert_eq!(crate::unsubscribe::verify(&keys, &t), Some((user, category.clone())));
        prop_assert_eq!(crate::unsubscribe::verify(&keys, &flip(&t, at, to)), None);
    }

    #[test]
    fn signed_storage_urls_verify_and_changed_ones_fail(
        key in "[a-z0-9]{1,8}(/[a-z0-9._-]{1,12}){0,3}",
        at in any::<usize>(),
        to in any::<u8>(),
    ) {
        prop_assume!(crate::storage::validate_key(&key).is_ok());
        let keys = Keys::new(b"storage key");
        let url = local_url(&keys, "https://coach.example/", Store::RawUploads, &key, UrlOp::Put,
            "image/png", std::time::Duration::from_secs(600)).unwrap();
        let u = url::Url::parse(&url).unwrap();
        let q: std::collections::HashMap<String, String> = u.query_pairs().into_owned().collect();
        let signed = SignedUrlQuery {
            op: UrlOp::Put,
            exp: q["exp"].parse().unwrap(),
            sig: q["sig"].clone(),
            ct: q["ct"].clone(),
        };
        let exp = signed.exp;
        let now = exp - 600;
        let with = |change: &dyn Fn(&mut SignedUrlQuery)| {
            let mut t = signed.clone();
            change(&mut t);
            t
        };
        prop_assert!(verify_local_url(&keys, Store::RawUploads, &key, &signed, now));
        prop_assert!(!verify_local_url(&keys, Store::RawUploads, &key, &with(&|t| t.op = UrlOp::Get), now));
        prop_assert!(!verify_local_url(&keys, Store::Sidecars, &key, &signed, now));
        prop_assert!(!verify_local_url(&keys, Store::RawUploads, &key, &with(&|t| t.exp += 1), now));
        prop_assert!(!verify_local_url(&keys, Store::RawUploads, &key, &signed, exp + 1));
        prop_assert!(!verify_local_url(&keys, Store::RawUploads, &key, &with(&|t| t.sig = flip(&t.sig, at, to)), now));
        prop_assert!(!verify_local_url(&keys, Store::RawUploads, &key, &with(&|t| t.ct = "text/html".into()), now));
        let other = flip(&key, at, to);
        if other != key {
            prop_assert!(!verify_local_url(&keys, Store::RawUploads, &other, &signed, now));
        }
    }

    #[test]
    fn standard_webhooks_verify_and_changed_ones_fail(
        secret in prop::collection::vec(any::<u8>(), 1..40),
        id in "[a-zA-Z0-9_]{1,30}",
        ts in 1_600_000_000i64..2_000_000_000,
        data in "[ -~]{0,40}",
        at in any::<usize>(),
        to in any::<u8>(),
    ) {
        use base64::Engine;
        let secret = format!("whsec_{}", base64::engine::general_purpose::STANDARD.encode(&secret));
        let body = serde_json::json!({ "type": "analysis.completed", "data": { "note": data } }).to_string();
        let sig = webhooks::sign_webhook(&secret, &id, ts, body.as_bytes());
        let ts_text = ts.to_string();
        let ok = webhooks::verify_webhook(&secret, headers(&id, &ts_text, &sig), body.as_bytes(), ts);
        prop_assert!(ok.is_ok(), "{ok:?}");
        prop_assert!(webhooks::verify_webhook(&secret, headers(&id, &ts_text, &flip(&sig, at, to)), body.as_bytes(), ts).is_err());
        prop_assert!(webhooks::verify_webhook(&secret, headers(&flip(&id, at, to), &ts_text, &sig), body.as_bytes(), ts).is_err());
        prop_assert!(webhooks::verify_webhook(&secret, headers(&id, &ts_text, &sig), flip(&body, at, to).as_bytes(), ts).is_err());
        prop_assert!(webhooks::verify_webhook(&secret, headers(&id, &ts_text, &sig), body.as_bytes(), ts + webhooks::TOLERANCE_SECS + 1).is_err());
    }

    #[test]
    fn webhook_verifiers_never_panic(
        a in "\\PC{0,60}",
        b in "[ -~]{0,60}",
        body in prop::collection::vec(any::<u8>(), 0..100),
        now in any::<i64>(),
    ) {
        let h = webhooks::WebhookHeaders { id: Some(&a), timestamp: Some(&b), signature: Some(&a) };
        let _ = webhooks::verify_webhook("whsec_c2VjcmV0", h, &body, now);
        let _ = webhooks::verify_webhook(&a, h, &body, now);
        let _ = webhooks::decode_secret(&a);
        let _ = payments::verify_signature(&["whsec_x".to_string()], Some(&a), &body, now);
        let _ = payments::verify_signature(&["whsec_x".to_string()], Some(&b), &body, now);
        if let Ok(u) = url::Url::parse(&format!("https://x.example/{b}")) {
            let params = vec![(a.clone(), b.clone())];
            let _ = twilio::verify_signature("token", &u, &params, &a);
        }
    }

    #[test]
    fn stripe_signatures_verify_and_changed_ones_fail(
        secret in "whsec_[a-zA-Z0-9]{8,32}",
        t in 1_600_000_000i64..2_000_000_000,
        body in "[ -~]{0,60}",
        at in any::<usize>(),
        to in any::<u8>(),
    ) {
        let header = payments::sign(&secret, t, body.as_bytes());
        let secrets = [secret.clone()];
        prop_assert_eq!(payments::verify_signature(&secrets, Some(&header), body.as_bytes(), t), Ok(t));
        prop_assert!(payments::verify_signature(&secrets, Some(&flip(&header, at, to)), body.as_bytes(), t).is_err());
        let changed = if body.is_empty() { "x".to_string() } else { flip(&body, at, to) };
        prop_assert!(payments::verify_signature(&secrets, Some(&header), changed.as_bytes(), t).is_err());
        // A rotation: the old and the new secret both verify.
        let both = ["whsec_new".to_string(), secret];
        prop_assert_eq!(payments::verify_signature(&both, Some(&header), body.as_bytes(), t), Ok(t));
    }

    #[test]
    fn twilio_signatures_verify_and_changed_ones_fail(
        token in "[a-f0-9]{32}",
        path in "[a-z]{1,10}",
        params in prop::collection::vec(("[A-Za-z]{1,8}", "[ -~]{0,12}"), 0..5),
        at in any::<usize>(),
        to in any::<u8>(),
    ) {
        let url = url::Url::parse(&format!("https://coach.example/{path}?a=1")).unwrap();
        let params: Vec<(String, String)> = params;
        let sig = twilio::signature(&token, url.as_str(), &params);
        prop_assert!(twilio::verify_signature(&token, &url, &params, &sig));
        prop_assert!(!twilio::verify_signature(&token, &url, &params, &flip(&sig, at, to)));
        let mut more = params.clone();
        more.push(("Extra".into(), "1".into()));
        prop_assert!(!twilio::verify_signature(&token, &url, &more, &sig));
    }

    #[test]
    fn phone_numbers_never_panic_and_accepted_ones_are_e164(s in "\\PC{0,20}", d in "[1-9][0-9]{7,14}") {
        use crate::domain::notifications::sms::is_e164;
        if is_e164(&s) {
            let digits = &s[1..];
            prop_assert!(s.starts_with('+') && digits.bytes().all(|b| b.is_ascii_digit()));
            prop_assert!((8..=15).contains(&digits.len()));
        }
        let (plus, zero) = (format!("+{d}"), format!("+0{d}"));
        prop_assert!(is_e164(&plus));
        prop_assert!(!is_e164(&d));
        prop_assert!(!is_e164(&zero));
    }

    #[test]
    fn date_parsers_never_panic(s in prop_oneof!["\\PC{0,40}", "[-+]?[0-9]{1,7}-[0-9]{1,2}-[0-9]{1,2}([T ][0-9:.]{0,15}(Z|[-+][0-9:]{0,6})?)?"]) {
        let _ = times::parse_day(&s);
        if let Some(t) = times::parse_rfc3339(&s) {
            // Any parsed time is either accepted or refused by each kind, never a panic.
            for k in [TimeKind::Calendar, TimeKind::Past, TimeKind::Future, TimeKind::Birth, TimeKind::Recorded] {
                let _ = k.contains(t);
            }
            let _ = t.plus(chrono::Duration::days(28));
            let _ = t.minus(chrono::Duration::days(28));
        }
        let _ = crate::minors::check_birth_date(&s);
        let _ = serde_json::from_value::<crate::db::Ts>(serde_json::Value::String(s.clone()));
        let mut v = crate::error::Validator::new();
        let _ = v.date_text("d", &s, TimeKind::Calendar);
        let _ = v.time_text("t", &s, TimeKind::Recorded);
    }

    #[test]
    fn calendar_days_round_trip(days in 0i64..2_914_000) {
        let d = NaiveDate::from_ymd_opt(1900, 1, 1).unwrap() + chrono::Duration::days(days);
        prop_assume!(d.year() <= 9999);
        prop_assert_eq!(times::parse_day(&d.to_string()), Some(d));
        prop_assert!(TimeKind::Calendar.contains_date(d));
        let t = times::parse_rfc3339(&format!("{d}T12:00:00Z")).unwrap();
        prop_assert!(TimeKind::Calendar.contains(t));
    }

    #[test]
    fn millisecond_times_never_panic(ms in any::<i64>()) {
        let _ = TimeKind::Recorded.contains_millis(ms);
        let _ = crate::domain::wearable::sessions::ts_ms(ms);
    }
}

/// What the properties found: one signature had two spellings.
#[test]
fn a_stripe_signature_in_upper_case_hex_is_refused() {
    let header = payments::sign("whsec_k", 1_700_000_000, b"{}");
    let upper = header
        .replace("v1=", "V1=")
        .to_uppercase()
        .replace("T=", "t=")
        .replace("V1=", "v1=");
    assert!(upper != header);
    let secrets = ["whsec_k".to_string()];
    assert!(payments::verify_signature(&secrets, Some(&upper), b"{}", 1_700_000_000).is_err());
}

#[test]
fn an_unsubscribe_token_with_the_id_in_another_spelling_is_refused() {
    let keys = Keys::new(b"k");
    let t = crate::unsubscribe::token(&keys, Id::new(), "message");
    let (user, rest) = t.split_once('.').unwrap();
    let upper = format!("{}.{rest}", user.to_uppercase());
    assert_eq!(crate::unsubscribe::verify(&keys, &upper), None);
}
