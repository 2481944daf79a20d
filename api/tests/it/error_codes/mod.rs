//! `docs/errors.md`, generated from the sources: every error code the service answers with, its
//! status, what it says and where it is raised.
//!
//! There is no list of codes to keep: a code is a string literal where an error is raised
//! (`Error::conflict("seat_cap_exceeded", …)`). [`scan`] reads `shared/src`, `api/src`, `worker/src` and
//! `jobs/src` (the job operations the api calls) for the calls of `shared::Error`'s constructors and takes the status from the kind each gives
//! (`api::http::error::status`, the one mapping). What it cannot read as a literal, a code
//! chosen at run time, must be accounted for in [`CHOSEN_AT_RUN_TIME`], or the test fails; so
//! does a constructor it does not know.

mod scan;

use api::http::error::status;
use axum::http::StatusCode;
use scan::{Ctor, Found, Raised, Site};
use shared::error::FieldError;
use shared::{Error, ErrorKind};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The folders scanned, and those skipped under them (the benchmark binaries).
const ROOTS: &[&str] = &["shared/src", "api/src", "worker/src", "jobs/src"];
const SKIP: &[&str] = &["src/bin"];

const fn takes_code(name: &'static str) -> Ctor {
    Ctor {
        name,
        code_arg: Some(0),
        message_arg: Some(1),
        kind_arg: None,
    }
}

const fn own_code(name: &'static str, message_arg: Option<usize>) -> Ctor {
    Ctor {
        name,
        code_arg: None,
        message_arg,
        kind_arg: None,
    }
}

/// `shared::Error`'s constructors (a test holds this list to `shared/src/error.rs`).
const CTORS: &[Ctor] = &[
    Ctor {
        name: "new",
        code_arg: Some(1),
        message_arg: Some(2),
        kind_arg: Some(0),
    },
    takes_code("bad_request"),
    takes_code("unauthorized"),
    takes_code("forbidden"),
    takes_code("conflict"),
    takes_code("gone"),
    takes_code("unavailable"),
    own_code("not_found", None),
    own_code("validation", None),
    own_code("field", None),
    own_code("payload_too_large", Some(0)),
    own_code("unsupported_media_type", Some(0)),
    own_code("too_many_requests", None),
    own_code("provider_not_configured", None),
    own_code("provider_failed", None),
    own_code("internal", None),
];

/// The kind a code-taking constructor gives.
fn kind_of_ctor(name: &str) -> ErrorKind {
    match name {
        "bad_request" => Error::bad_request("c", "m").kind,
        "unauthorized" => Error::unauthorized("c", "m").kind,
        "forbidden" => Error::forbidden("c", "m").kind,
        "conflict" => Error::conflict("c", "m").kind,
        "gone" => Error::gone("c", "m").kind,
        "unavailable" => Error::unavailable("c", "m", 1).kind,
        other => panic!("Error::{other} takes a code: say here which kind it gives"),
    }
}

/// What a constructor with its own code raises, its message written with placeholders.
fn own_code_error(name: &str) -> Error {
    match name {
        "not_found" => Error::not_found("{what}"),
        "validation" | "field" => Error::validation(vec![FieldError {
            field: "{field}".into(),
            code: "{field_code}",
            message: "{message}".into(),
        }]),
        "payload_too_large" => Error::payload_too_large("{message}"),
        "unsupported_media_type" => Error::unsupported_media_type("{message}"),
        "too_many_requests" => Error::too_many_requests(60),
        "provider_not_configured" => Error::provider_not_configured("{provider}"),
        "provider_failed" => Error::provider_failed("{provider}", "{message}"),
        "internal" => Error::internal(anyhow::anyhow!("cause")),
        other => panic!("Error::{other} has its own code: say here how to make one"),
    }
}

const KINDS: [ErrorKind; 16] = [
    ErrorKind::BadRequest,
    ErrorKind::Unauthenticated,
    ErrorKind::Forbidden,
    ErrorKind::NotFound,
    ErrorKind::MethodNotAllowed,
    ErrorKind::Conflict,
    ErrorKind::Gone,
    ErrorKind::PreconditionFailed,
    ErrorKind::PayloadTooLarge,
    ErrorKind::UnsupportedMediaType,
    ErrorKind::ChecksumMismatch,
    ErrorKind::RangeNotSatisfiable,
    ErrorKind::RateLimited,
    ErrorKind::Internal,
    ErrorKind::ProviderFailed,
    ErrorKind::Unavailable,
];

fn kind_named(name: &str) -> ErrorKind {
    KINDS
        .into_iter()
        .find(|k| format!("{k:?}") == name)
        .unwrap_or_else(|| panic!("ErrorKind::{name} is not in KINDS: add it"))
}

/// The axum status constants the scanner meets beside a code (the TV poll's RFC dialect).
fn status_named(name: &str) -> StatusCode {
    match name {
        "BAD_REQUEST" => StatusCode::BAD_REQUEST,
        other => panic!("StatusCode::{other}: add it to status_named"),
    }
}

/// A site whose code is an expression, and what it carries.
struct Chosen {
    file: &'static str,
    /// The code argument as the scanner prints it.
    expr: &'static str,
    carries: Carries,
}

enum Carries {
    /// These codes with these statuses (an error enum's `fn code()`, mapped at the site).
    Codes(&'static [(&'static str, u16)]),
    /// The literals given to this struct field anywhere scanned, with this status.
    Field(&'static str, u16),
    /// A code raised elsewhere, passed on unchanged; listed where it is raised.
    PassedOn,
}

/// Where a webhook check's codes are spelled: `WebhookError::code`, each variant's message in
/// its `#[error]`.
const WEBHOOK_CODES: (&str, &str, &str) =
    ("shared/src/providers/webhooks.rs", "WebhookError", "code");

/// Every code the scanner cannot read as a literal.
const CHOSEN_AT_RUN_TIME: &[Chosen] = &[
    // The payments webhook: a failed signature check is 401 with the check's code (no secret
    // configured is 503 `provider_not_configured`, raised beside it); a body that is no event,
    // 400.
    Chosen {
        file: "shared/src/domain/billing/events.rs",
        expr: "e.code()",
        carries: Carries::Codes(&[
            ("webhook_header_missing", 401),
            ("webhook_timestamp_malformed", 401),
            ("webhook_timestamp_too_old", 401),
            ("webhook_timestamp_in_future", 401),
            ("webhook_signature_malformed", 401),
            ("webhook_signature_mismatch", 401),
            ("webhook_body_malformed", 400),
        ]),
    },
    // The analysis backend's completion webhook: our own configuration at fault is 503, any
    // other failed check 401.
    Chosen {
        file: "api/src/areas/footage.rs",
        expr: "e.code()",
        carries: Carries::Codes(&[
            ("webhook_not_configured", 503),
            ("webhook_secret_invalid", 503),
            ("webhook_header_missing", 401),
            ("webhook_timestamp_malformed", 401),
            ("webhook_timestamp_too_old", 401),
            ("webhook_timestamp_in_future", 401),
            ("webhook_signature_malformed", 401),
            ("webhook_signature_mismatch", 401),
            ("webhook_body_malformed", 401),
        ]),
    },
    // An upload route's refused type: each route's `Media` names its 415 code.
    Chosen {
        file: "api/src/http/upload.rs",
        expr: "media.refused_code",
        carries: Carries::Field("refused_code", 415),
    },
    // The TV poll's RFC 8628 form dialect answers the poll's own codes in its shape.
    Chosen {
        file: "api/src/areas/tv.rs",
        expr: "e.code",
        carries: Carries::PassedOn,
    },
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `api/src/areas/tv.rs` → `tv`; `shared/src/domain/billing/events.rs` → `billing`;
/// `shared/src/video/ssrf.rs` → `video`; `shared/src/error.rs` → `error`.
fn area(file: &str) -> &str {
    let prefixes = [
        "api/src/areas/",
        "shared/src/domain/",
        "shared/src/repo/",
        "shared/src/providers/",
        "api/src/",
        "shared/src/",
        "worker/src/",
        "jobs/src/",
    ];
    let Some((prefix, rest)) = prefixes
        .iter()
        .find_map(|p| file.strip_prefix(p).map(|rest| (*p, rest)))
    else {
        return file;
    };
    match rest.split('/').next().unwrap_or(rest) {
        "mod.rs" | "lib.rs" => prefix
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(prefix),
        first => first.strip_suffix(".rs").unwrap_or(first),
    }
}

#[derive(Default)]
struct Entry {
    files: BTreeSet<String>,
    messages: BTreeSet<String>,
}

/// Every (status, code) with where it is raised and what it says.
fn codes() -> BTreeMap<(u16, String), Entry> {
    let repo = repo();
    let fields: Vec<&str> = CHOSEN_AT_RUN_TIME
        .iter()
        .filter_map(|c| match c.carries {
            Carries::Field(f, _) => Some(f),
            _ => None,
        })
        .collect();
    let sites = scan::scan(&repo, ROOTS, SKIP, CTORS, &fields);
    let mut out: BTreeMap<(u16, String), Entry> = BTreeMap::new();
    let mut add = |status: u16, code: &str, file: &str, message: Option<String>| {
        assert!(
            code.starts_with(|c: char| c.is_ascii_lowercase())
                && code
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "{file}: `{code}` is not a snake_case code"
        );
        let e = out.entry((status, code.to_string())).or_default();
        e.files.insert(file.to_string());
        e.messages.extend(message);
    };
    let validation = own_code_error("validation");
    let mut unaccounted = Vec::new();
    let mut used: BTreeMap<usize, BTreeSet<u16>> = BTreeMap::new();
    for Site { file, line, found } in &sites {
        match found {
            Found::Code {
                code,
                raised,
                message,
            } => {
                let status = match raised {
                    Raised::Ctor { ctor, kind } if ctor == "new" => {
                        let kind = kind.as_deref().unwrap_or_else(|| {
                            panic!("{file}:{line}: Error::new with a kind the scanner cannot read")
                        });
                        status(kind_named(kind))
                    }
                    Raised::Ctor { ctor, .. } => status(kind_of_ctor(ctor)),
                    Raised::Status(name) => status_named(name),
                };
                add(status.as_u16(), code, file, message.clone());
            }
            Found::Fixed { ctor, message } => {
                let e = own_code_error(ctor);
                let message = match *ctor {
                    "payload_too_large" | "unsupported_media_type" => message.clone(),
                    _ => Some(e.message),
                };
                add(status(e.kind).as_u16(), e.code, file, message);
            }
            Found::Validator => add(
                status(validation.kind).as_u16(),
                validation.code,
                file,
                Some(validation.message.clone()),
            ),
            Found::Field { .. } => {}
            Found::Indirect { ctor, expr, kind } => {
                match CHOSEN_AT_RUN_TIME
                    .iter()
                    .position(|c| c.file == file && c.expr == expr)
                {
                    Some(i) => {
                        // The status the site gives, where it says (a kind it names).
                        let named = match (ctor.as_str(), kind) {
                            ("new", Some(k)) => Some(status(kind_named(k))),
                            ("error(StatusCode…)", Some(s)) => Some(status_named(s)),
                            (c, _) if CTORS.iter().any(|k| k.name == c && k.kind_arg.is_none()) => {
                                Some(status(kind_of_ctor(c)))
                            }
                            _ => None,
                        };
                        let seen = used.entry(i).or_default();
                        seen.extend(named.map(|s| s.as_u16()));
                    }
                    None => unaccounted.push(format!("{file}:{line}: {ctor}({expr}, …)")),
                }
            }
        }
    }
    assert!(
        unaccounted.is_empty(),
        "codes the scanner cannot read; pass a literal, or say in CHOSEN_AT_RUN_TIME \
         (api/tests/it/error_codes/mod.rs) which codes they carry:\n{}",
        unaccounted.join("\n")
    );
    let (path, enum_name, code_fn) = WEBHOOK_CODES;
    let webhook: BTreeMap<String, Option<String>> =
        scan::enum_codes(&repo.join(path), enum_name, code_fn)
            .into_iter()
            .collect();
    for (i, c) in CHOSEN_AT_RUN_TIME.iter().enumerate() {
        let Some(seen) = used.get(&i) else {
            panic!("CHOSEN_AT_RUN_TIME: no `{}` at {} any more", c.expr, c.file);
        };
        let listed: BTreeSet<u16> = match c.carries {
            Carries::Codes(codes) => codes.iter().map(|(_, s)| *s).collect(),
            Carries::Field(_, s) => BTreeSet::from([s]),
            Carries::PassedOn => seen.clone(),
        };
        assert!(
            seen.is_subset(&listed),
            "CHOSEN_AT_RUN_TIME: `{}` at {} is raised with {seen:?}, listed with {listed:?}",
            c.expr,
            c.file
        );
        match c.carries {
            Carries::Codes(codes) => {
                for (code, status) in codes {
                    let message = webhook.get(*code).cloned().flatten();
                    add(*status, code, c.file, message);
                }
            }
            Carries::Field(field, status) => {
                for s in &sites {
                    if let Found::Field { name, value } = &s.found
                        && name == field
                    {
                        add(status, value, &s.file, None);
                        add(status, value, c.file, None);
                    }
                }
            }
            Carries::PassedOn => {}
        }
    }
    // The webhook codes listed above are exactly those `WebhookError::code` spells.
    let spelled: BTreeSet<String> = webhook.into_keys().collect();
    let listed: BTreeSet<String> = CHOSEN_AT_RUN_TIME
        .iter()
        .filter(|c| c.expr == "e.code()")
        .flat_map(|c| match c.carries {
            Carries::Codes(codes) => codes.iter().map(|(code, _)| code.to_string()).collect(),
            _ => Vec::new(),
        })
        .collect();
    assert_eq!(
        listed, spelled,
        "CHOSEN_AT_RUN_TIME's webhook codes differ from {}'s fn {}",
        path, code_fn
    );
    out
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The messages a code is raised with, the shortest first, at most three.
fn meaning(messages: &BTreeSet<String>) -> String {
    let mut m: Vec<&String> = messages.iter().filter(|m| !m.is_empty()).collect();
    m.sort_by_key(|m| (m.len(), m.as_str()));
    let more = m.len() > 3;
    let mut out = m
        .iter()
        .take(3)
        .map(|m| format!("“{}”", cell(m)))
        .collect::<Vec<_>>()
        .join("; ");
    if more {
        out.push_str("; …");
    }
    out
}

fn markdown() -> String {
    let codes = codes();
    let distinct: BTreeSet<&String> = codes.keys().map(|(_, c)| c).collect();
    let mut out = format!(
        "# Error codes

Generated from the sources by `UPDATE_DOCS=1 cargo nextest run -p api -E 'test(docs_errors)'`
(`api/tests/it/error_codes/`); a test fails when it is stale.

Every error answers `{{\"error\": {{\"code\", \"message\", \"details\"?}}}}` with one of these
{n} codes; the status is the error kind's (`api/src/http/error.rs`). A 400 `validation_failed`
names each invalid field in `details.fields`, each with a field code of its own (`required`,
`too_long`, `invalid`, …; not listed here). A 429, and a 503 that knows when to come back,
carry `Retry-After`. The TV poll's form-encoded dialect (RFC 8628) answers
`{{\"error\": code, \"error_description\"}}` instead, with the same codes.

How the list is made: a scanner reads `shared/src`, `api/src`, `worker/src` and `jobs/src`
(not test code, not the benchmark binaries) for the calls of `shared::Error`'s constructors and takes each code from
its string literal, the status from the kind the constructor gives. A code chosen at run time (a
webhook check's, an upload route's refused type) is listed beside its site in the generator,
checked against the source. The meaning column quotes the messages a code is raised with
(`{{…}}` is filled in at run time); \"raised in\" names every file that raises it.
",
        n = distinct.len()
    );
    let mut statuses: BTreeMap<&String, Vec<String>> = BTreeMap::new();
    for (status, code) in codes.keys() {
        statuses.entry(code).or_default().push(status.to_string());
    }
    let several: Vec<String> = statuses
        .iter()
        .filter(|(_, s)| s.len() > 1)
        .map(|(code, s)| format!("`{code}` ({})", s.join(", ")))
        .collect();
    if !several.is_empty() {
        out.push_str(&format!(
            "\nRaised with more than one status: {}.\n",
            several.join(", ")
        ));
    }
    let mut current = None;
    for ((status, code), e) in &codes {
        if current != Some(*status) {
            current = Some(*status);
            let s = StatusCode::from_u16(*status).expect("a status");
            let reason = s.canonical_reason().unwrap_or("Checksum Mismatch (tus)");
            out.push_str(&format!(
                "\n## {status} {reason}\n\n| code | area | meaning | raised in |\n|---|---|---|---|\n"
            ));
        }
        let areas: BTreeSet<&str> = e.files.iter().map(|f| area(f)).collect();
        let files: Vec<String> = e.files.iter().map(|f| format!("`{f}`")).collect();
        out.push_str(&format!(
            "| `{code}` | {} | {} | {} |\n",
            areas.into_iter().collect::<Vec<_>>().join(", "),
            meaning(&e.messages),
            files.join(", ")
        ));
    }
    out
}

#[test]
fn docs_errors_table_is_current() {
    let path = repo().join("docs/errors.md");
    let fresh = markdown();
    if std::env::var("UPDATE_DOCS").is_ok() {
        std::fs::write(&path, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "docs/errors.md is stale: run UPDATE_DOCS=1 cargo nextest run -p api -E 'test(docs_errors)'"
    );
}

#[test]
fn docs_errors_scanner_knows_every_constructor() {
    let defined: BTreeSet<String> = scan::constructors(&repo().join("shared/src/error.rs"))
        .into_iter()
        .collect();
    let known: BTreeSet<String> = CTORS.iter().map(|c| c.name.to_string()).collect();
    assert_eq!(
        defined, known,
        "shared::Error's constructors changed: update CTORS (api/tests/it/error_codes/mod.rs)"
    );
    for c in CTORS {
        match c.code_arg {
            Some(_) if c.kind_arg.is_none() => _ = kind_of_ctor(c.name),
            Some(_) => {}
            None => _ = own_code_error(c.name),
        }
    }
    let variants = scan::enum_variants(&repo().join("shared/src/error.rs"), "ErrorKind");
    let kinds: Vec<String> = KINDS.iter().map(|k| format!("{k:?}")).collect();
    assert_eq!(kinds, variants, "ErrorKind changed: update KINDS");
}
