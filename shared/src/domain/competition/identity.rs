//! Cross-source identity scoring (issue 16; the weights, thresholds and worked examples are in
//! `docs/competition.md`, "Identity and dedup"): is this roster athlete that provider profile,
//! are these two roster athletes one person?
//!
//! One pure function, [`score`], compares two [`Person`]s field by field. Every field both sides
//! know gives one [`Evidence`] line saying what was compared, how it came out and how much it
//! counted (`contribution`, negative when it speaks against); the score is the sum of the
//! contributions clamped to 0..1, so the explanation adds up to the score. The name is the
//! base (at most 0.6 on its own); the other fields corroborate or contradict it, and a
//! contradiction (another country, another birth year, two profiles of one provider) costs
//! more than an agreement earns, because an agreement is often a coincidence and a
//! contradiction rarely is.
//!
//! [`candidate_pairs`] is the blocking that keeps dedup off O(n²): only athletes that share a
//! blocking key (a folded word of the name with the first two letters of another word, or the
//! email address; an initial is looked up as a prefix) are compared, and a block too large to
//! compare in full is compared within a sliding window over its members sorted by folded
//! name. [`prepare`] folds each person once for the thousands of comparisons that follow.
//!
//! [`fold_name`] is the "same name" key the multi-source search and the spot backfill use too.

use std::collections::{BTreeMap, HashSet};

use chrono::{Datelike, NaiveDate};
use serde::Serialize;
use unicode_normalization::UnicodeNormalization;
use utoipa::ToSchema;

/// How much each outcome counts. The name is the base; everything else corroborates it or
/// contradicts it.
pub mod weights {
    /// The same name, ignoring case and spacing.
    pub const NAME_EXACT: f64 = 0.6;
    /// The same name once accents, punctuation and spaces are folded (`João` = `Joao`,
    /// `Jean-Luc` = `Jeanluc`).
    pub const NAME_FOLDED: f64 = 0.55;
    /// The same words in another order (`Lenny Kai`, `Lenny, Kai`).
    pub const NAME_SWAPPED: f64 = 0.5;
    /// Every word of the shorter name (at least two) in the longer one (a middle name, a
    /// second surname).
    pub const NAME_TOKEN: f64 = 0.45;
    /// The words match but one or more is an initial or a short form (`K. Lenny`, `Jon` for
    /// `Jonathan`).
    pub const NAME_INITIAL: f64 = 0.4;
    /// The words match but one has a one-letter typo (`Chianka`).
    pub const NAME_SIMILAR: f64 = 0.35;
    /// Only some words are shared (a surname, a given name).
    pub const NAME_PARTIAL: f64 = 0.2;
    pub const COUNTRY_SAME: f64 = 0.1;
    pub const COUNTRY_DIFFERENT: f64 = -0.3;
    pub const BIRTH_SAME_DATE: f64 = 0.2;
    /// The same year where one side knows only the year (or an age).
    pub const BIRTH_SAME_YEAR: f64 = 0.1;
    /// Two full dates in the same year, another day.
    pub const BIRTH_OTHER_DAY: f64 = -0.1;
    /// Years more than one apart (or one apart between two full dates).
    pub const BIRTH_DIFFERENT: f64 = -0.4;
    pub const EMAIL_SAME: f64 = 0.3;
    /// Linked to the same provider profile.
    pub const LINK_SAME: f64 = 0.5;
    /// Linked to two different profiles of one provider: the provider knows them as two people.
    pub const LINK_CONFLICT: f64 = -0.5;
    /// Each event both competed in (as two providers report it), up to [`EVENTS_MAX`].
    pub const EVENT_SHARED: f64 = 0.1;
    pub const EVENTS_MAX: f64 = 0.2;
    /// A division both competed in.
    pub const DIVISION_SHARED: f64 = 0.05;
    /// Each circuit both belong to (enrolled, or ranked in it), up to [`GROUPS_MAX`].
    pub const GROUP_SHARED: f64 = 0.05;
    pub const GROUPS_MAX: f64 = 0.1;
}

/// A match candidate is shown from this score on.
pub const MATCH_MIN: f64 = 0.4;
/// A duplicate pair is suggested from this score on.
pub const DEDUP_MIN: f64 = 0.55;
/// `high` confidence from this score on.
pub const HIGH: f64 = 0.8;
/// `medium` confidence from this score on (below: `low`).
pub const MEDIUM: f64 = 0.6;

/// Blocks of at most this many people are compared pair by pair.
pub const BLOCK_ALL_PAIRS: usize = 100;
/// A larger block compares each member with this many next members in folded-name order.
pub const BLOCK_WINDOW: usize = 20;
/// The words of a name that make blocking keys (a longer name adds nothing but keys).
const KEY_TOKENS: usize = 4;

crate::text_enum! {
    /// What a line of an explanation compared.
    pub enum Field {
        Name = "name",
        Country = "country",
        BirthDate = "birthDate",
        Email = "email",
        ProviderLinks = "providerLinks",
        Events = "events",
        Divisions = "divisions",
        Organisation = "organisation",
    }
}

crate::text_enum! {
    /// How a comparison came out.
    pub enum Outcome {
        Exact = "exact",
        Folded = "folded",
        Swapped = "swapped",
        Token = "token",
        Initial = "initial",
        Similar = "similar",
        Partial = "partial",
        Same = "same",
        SameYear = "same_year",
        CloseYear = "close_year",
        OtherDay = "other_day",
        Compatible = "compatible",
        NotComparable = "not_comparable",
        Shared = "shared",
        Different = "different",
        Conflict = "conflict",
    }
}

crate::text_enum! {
    /// A score in words: `high` from 0.8, `medium` from 0.6, else `low`.
    pub enum Confidence { High = "high", Medium = "medium", Low = "low" }
}

/// One line of an explanation.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    pub field: Field,
    pub outcome: Outcome,
    /// How much this line counted (negative: it speaks against the match).
    pub contribution: f64,
    /// What was compared, in words.
    pub detail: String,
}

/// A score with its explanation.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Scored {
    /// 0–1: the contributions added up, clamped, rounded to two decimals.
    pub score: f64,
    pub confidence: Confidence,
    /// Every field both sides know, the name first.
    pub explanation: Vec<Evidence>,
}

/// A birth date, or only a year (from an age).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Birth {
    Date(NaiveDate),
    Year(i32),
}

impl Birth {
    fn year(self) -> i32 {
        match self {
            Birth::Date(d) => d.year(),
            Birth::Year(y) => y,
        }
    }

    /// A provider's birth date (`YYYY-MM-DD…`) or year (`YYYY`), when plausible.
    pub fn parse(s: &str) -> Option<Birth> {
        let s = s.trim();
        if let Some(d) = s
            .get(..10)
            .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
        {
            return (1900..=2100).contains(&d.year()).then_some(Birth::Date(d));
        }
        let y: i32 = s.parse().ok()?;
        (1900..=2100).contains(&y).then_some(Birth::Year(y))
    }
}

/// An event a person competed in, as one provider reports it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EventRef {
    pub provider: String,
    pub name: String,
    /// `YYYY-MM-DD` (a longer value is cut to its date).
    pub date: Option<String>,
}

/// A circuit (or another group) a person belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Group {
    pub key: String,
    pub label: String,
}

/// What is known of one person in one source; every field but the name may be empty.
#[derive(Clone, Debug, Default)]
pub struct Person {
    pub name: String,
    pub country: Option<String>,
    pub birth: Option<Birth>,
    pub email: Option<String>,
    /// Provider profiles: `(provider, external id)`.
    pub links: Vec<(String, String)>,
    pub events: Vec<EventRef>,
    pub divisions: Vec<String>,
    pub groups: Vec<Group>,
}

impl Person {
    pub fn named(name: impl Into<String>) -> Person {
        Person {
            name: name.into(),
            ..Person::default()
        }
    }
}

/// A person with what scoring derives from them computed once (the folded words, the country
/// code, the events' keys), so comparing a roster's thousands of pairs folds each name once.
pub struct Prepared<'a> {
    person: &'a Person,
    /// Lower-cased, single-spaced: the `exact` comparison.
    spaced: String,
    tokens: Vec<String>,
    sorted: Vec<String>,
    joined: String,
    country: Option<&'static str>,
    /// `((folded name, date), event)` of each event with a date.
    events: Vec<((String, String), &'a EventRef)>,
    /// `(folded, as written)`.
    divisions: Vec<(String, &'a str)>,
}

/// Prepares a person for [`score_prepared`].
pub fn prepare(p: &Person) -> Prepared<'_> {
    let tokens = tokens(&p.name);
    let mut sorted = tokens.clone();
    sorted.sort();
    Prepared {
        person: p,
        spaced: p
            .name
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase(),
        joined: tokens.concat(),
        sorted,
        tokens,
        country: p.country.as_deref().and_then(country_code),
        events: p
            .events
            .iter()
            .filter_map(|e| event_key(e).map(|k| (k, e)))
            .collect(),
        divisions: p
            .divisions
            .iter()
            .map(|d| (fold_name(d), d.as_str()))
            .collect(),
    }
}

// ---- names ----

/// Case, accents and spacing folded: the "same name" key (`João  Chianca` → `joao chianca`).
/// Letters are decomposed (NFKD) and their marks dropped; `ß`, `ø`, `æ`, `œ`, `ł`, `đ`, `þ`
/// are spelled out; `-`, `'` and `.` separate words.
pub fn fold_name(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.nfkd() {
        if unicode_normalization::char::is_combining_mark(c) {
            continue;
        }
        for c in c.to_lowercase() {
            match c {
                'ß' => out.push_str("ss"),
                'ø' => out.push('o'),
                'æ' => out.push_str("ae"),
                'œ' => out.push_str("oe"),
                'ł' => out.push('l'),
                'đ' | 'ð' => out.push('d'),
                'þ' => out.push_str("th"),
                'ı' => out.push('i'),
                '-' | '\'' | '.' | '\u{2019}' | '\u{02bb}' => out.push(' '),
                c => out.push(c),
            }
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The folded words of a name (anything but letters and digits separates words).
pub fn tokens(name: &str) -> Vec<String> {
    fold_name(name)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// Levenshtein distance, or `None` once it is over `max`.
fn distance_within(a: &str, b: &str, max: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        if cur.iter().min().copied().unwrap_or(0) > max {
            return None;
        }
        prev = cur;
    }
    let d = prev[b.len()];
    (d <= max).then_some(d)
}

/// One word abbreviates the other: an initial (`k`), or a short form of at least three letters
/// (`jon` for `jonathan`).
fn abbreviates(a: &str, b: &str) -> bool {
    let (short, long) = if a.chars().count() <= b.chars().count() {
        (a, b)
    } else {
        (b, a)
    };
    let n = short.chars().count();
    short != long && (n == 1 || n >= 3) && long.starts_with(short)
}

fn similar_word(a: &str, b: &str) -> bool {
    a.chars().count() >= 4 && b.chars().count() >= 4 && distance_within(a, b, 1) == Some(1)
}

/// How two names compare (no text: the comparison runs for every candidate pair).
fn name_outcome(a: &Prepared, b: &Prepared) -> Outcome {
    let (ta, tb) = (&a.tokens, &b.tokens);
    if ta.is_empty() || tb.is_empty() {
        return Outcome::Different;
    }
    if a.spaced == b.spaced {
        return Outcome::Exact;
    }
    if ta == tb || a.joined == b.joined {
        return Outcome::Folded;
    }
    if a.sorted == b.sorted {
        return Outcome::Swapped;
    }
    // Align the shorter name's words with the longer one's: whole words first, then initials
    // and short forms, then one-letter typos.
    let (short, long) = if ta.len() <= tb.len() {
        (ta, tb)
    } else {
        (tb, ta)
    };
    let mut used = vec![false; long.len()];
    let mut open: Vec<&String> = Vec::new();
    let mut whole = 0;
    for w in short {
        match (0..long.len()).find(|&i| !used[i] && long[i] == *w) {
            Some(i) => {
                used[i] = true;
                whole += 1;
            }
            None => open.push(w),
        }
    }
    let (mut abbreviated, mut typo, mut unmatched) = (0, 0, 0);
    for w in open {
        if let Some(i) = (0..long.len()).find(|&i| !used[i] && abbreviates(w, &long[i])) {
            used[i] = true;
            abbreviated += 1;
        } else if let Some(i) = (0..long.len()).find(|&i| !used[i] && similar_word(w, &long[i])) {
            used[i] = true;
            typo += 1;
        } else {
            unmatched += 1;
        }
    }
    if whole >= 1 && unmatched == 0 {
        if typo == 1 {
            return Outcome::Similar;
        }
        if typo == 0 && abbreviated > 0 {
            return Outcome::Initial;
        }
        if typo == 0 && short.len() >= 2 {
            return Outcome::Token;
        }
    }
    if shared_words(short, long).next().is_some() {
        Outcome::Partial
    } else {
        Outcome::Different
    }
}

/// The words of two letters or more that `short` and `long` share.
fn shared_words<'a>(short: &'a [String], long: &'a [String]) -> impl Iterator<Item = &'a str> {
    short
        .iter()
        .filter(move |w| w.chars().count() >= 2 && long.contains(w))
        .map(String::as_str)
}

fn name_weight(o: Outcome) -> f64 {
    match o {
        Outcome::Exact => weights::NAME_EXACT,
        Outcome::Folded => weights::NAME_FOLDED,
        Outcome::Swapped => weights::NAME_SWAPPED,
        Outcome::Token => weights::NAME_TOKEN,
        Outcome::Initial => weights::NAME_INITIAL,
        Outcome::Similar => weights::NAME_SIMILAR,
        Outcome::Partial => weights::NAME_PARTIAL,
        _ => 0.0,
    }
}

fn name_evidence(a: &Prepared, b: &Prepared, outcome: Outcome) -> Evidence {
    let pair = format!("“{}” and “{}”", a.person.name.trim(), b.person.name.trim());
    let detail = match outcome {
        _ if a.tokens.is_empty() || b.tokens.is_empty() => {
            format!("{pair}: nothing to compare")
        }
        Outcome::Exact => format!("{pair}: the same name"),
        Outcome::Folded => {
            format!("{pair}: the same once accents, punctuation and spaces are folded")
        }
        Outcome::Swapped => format!("{pair}: the same words in another order"),
        Outcome::Token => {
            format!("{pair}: every word of the shorter name is in the longer one")
        }
        Outcome::Initial => {
            format!("{pair}: the same words, one given as an initial or a short form")
        }
        Outcome::Similar => {
            format!("{pair}: the same words but for a one-letter difference")
        }
        Outcome::Partial => {
            let (short, long) = if a.tokens.len() <= b.tokens.len() {
                (&a.tokens, &b.tokens)
            } else {
                (&b.tokens, &a.tokens)
            };
            let shared: Vec<&str> = shared_words(short, long).collect();
            format!("{pair}: only “{}” in common", shared.join(" "))
        }
        _ => format!("{pair}: different names"),
    };
    Evidence {
        field: Field::Name,
        outcome,
        contribution: name_weight(outcome),
        detail,
    }
}

/// Whether two names could be one person's at all (the name alone scores above zero).
pub fn names_related(a: &str, b: &str) -> bool {
    let (a, b) = (Person::named(a), Person::named(b));
    name_weight(name_outcome(&prepare(&a), &prepare(&b))) > 0.0
}

// ---- countries ----

/// ISO 3166-1 alpha-2, alpha-3, the IOC's code where it differs, and English names: the
/// providers write countries all three ways (`US`, `USA`, `United States`; `DE`, `DEU`, `GER`).
const COUNTRIES: &[(&str, &str, &str, &[&str])] = &[
    ("AD", "AND", "", &["andorra"]),
    ("AE", "ARE", "UAE", &["united arab emirates"]),
    ("AG", "ATG", "ANT", &["antigua and barbuda"]),
    ("AL", "ALB", "", &["albania"]),
    ("AO", "AGO", "ANG", &["angola"]),
    ("AR", "ARG", "", &["argentina"]),
    ("AT", "AUT", "", &["austria"]),
    ("AU", "AUS", "", &["australia"]),
    ("AW", "ABW", "ARU", &["aruba"]),
    ("BB", "BRB", "BAR", &["barbados"]),
    ("BD", "BGD", "BAN", &["bangladesh"]),
    ("BE", "BEL", "", &["belgium"]),
    ("BG", "BGR", "BUL", &["bulgaria"]),
    ("BR", "BRA", "", &["brazil", "brasil"]),
    ("BS", "BHS", "BAH", &["bahamas"]),
    ("BZ", "BLZ", "BIZ", &["belize"]),
    ("CA", "CAN", "", &["canada"]),
    ("CH", "CHE", "SUI", &["switzerland"]),
    ("CL", "CHL", "CHI", &["chile"]),
    ("CN", "CHN", "", &["china"]),
    ("CO", "COL", "", &["colombia"]),
    ("CR", "CRI", "CRC", &["costa rica"]),
    ("CU", "CUB", "", &["cuba"]),
    ("CV", "CPV", "", &["cape verde", "cabo verde"]),
    ("CY", "CYP", "", &["cyprus"]),
    ("CZ", "CZE", "", &["czechia", "czech republic"]),
    ("DE", "DEU", "GER", &["germany"]),
    ("DK", "DNK", "DEN", &["denmark"]),
    ("DO", "DOM", "", &["dominican republic"]),
    ("DZ", "DZA", "ALG", &["algeria"]),
    ("EC", "ECU", "", &["ecuador"]),
    ("EE", "EST", "", &["estonia"]),
    ("EG", "EGY", "", &["egypt"]),
    ("ES", "ESP", "", &["spain", "espana"]),
    ("FI", "FIN", "", &["finland"]),
    ("FJ", "FJI", "FIJ", &["fiji"]),
    ("FR", "FRA", "", &["france"]),
    (
        "GB",
        "GBR",
        "",
        &[
            "united kingdom",
            "great britain",
            "uk",
            "england",
            "scotland",
            "wales",
        ],
    ),
    ("GH", "GHA", "", &["ghana"]),
    ("GP", "GLP", "", &["guadeloupe"]),
    ("GR", "GRC", "GRE", &["greece"]),
    ("GT", "GTM", "GUA", &["guatemala"]),
    ("GU", "GUM", "", &["guam"]),
    ("HK", "HKG", "", &["hong kong"]),
    ("HN", "HND", "HON", &["honduras"]),
    ("HR", "HRV", "CRO", &["croatia"]),
    ("HU", "HUN", "", &["hungary"]),
    ("ID", "IDN", "INA", &["indonesia"]),
    ("IE", "IRL", "", &["ireland"]),
    ("IL", "ISR", "", &["israel"]),
    ("IN", "IND", "", &["india"]),
    ("IR", "IRN", "IRI", &["iran"]),
    ("IS", "ISL", "", &["iceland"]),
    ("IT", "ITA", "", &["italy"]),
    ("JM", "JAM", "", &["jamaica"]),
    ("JP", "JPN", "", &["japan"]),
    ("KE", "KEN", "", &["kenya"]),
    ("KR", "KOR", "", &["south korea", "korea"]),
    ("LB", "LBN", "LIB", &["lebanon"]),
    ("LK", "LKA", "SRI", &["sri lanka"]),
    ("LT", "LTU", "", &["lithuania"]),
    ("LU", "LUX", "", &["luxembourg"]),
    ("LV", "LVA", "LAT", &["latvia"]),
    ("MA", "MAR", "", &["morocco"]),
    ("MC", "MCO", "MON", &["monaco"]),
    ("MG", "MDG", "MAD", &["madagascar"]),
    ("MQ", "MTQ", "", &["martinique"]),
    ("MT", "MLT", "", &["malta"]),
    ("MU", "MUS", "MRI", &["mauritius"]),
    ("MV", "MDV", "", &["maldives"]),
    ("MX", "MEX", "", &["mexico"]),
    ("MY", "MYS", "MAS", &["malaysia"]),
    ("MZ", "MOZ", "", &["mozambique"]),
    ("NA", "NAM", "", &["namibia"]),
    ("NC", "NCL", "", &["new caledonia"]),
    ("NG", "NGA", "NGR", &["nigeria"]),
    ("NI", "NIC", "NCA", &["nicaragua"]),
    ("NL", "NLD", "NED", &["netherlands", "holland"]),
    ("NO", "NOR", "", &["norway"]),
    ("NZ", "NZL", "", &["new zealand"]),
    ("OM", "OMN", "OMA", &["oman"]),
    ("PA", "PAN", "", &["panama"]),
    ("PE", "PER", "", &["peru"]),
    ("PF", "PYF", "", &["french polynesia", "tahiti"]),
    ("PG", "PNG", "", &["papua new guinea"]),
    ("PH", "PHL", "PHI", &["philippines"]),
    ("PL", "POL", "", &["poland"]),
    ("PR", "PRI", "PUR", &["puerto rico"]),
    ("PT", "PRT", "POR", &["portugal"]),
    ("PY", "PRY", "PAR", &["paraguay"]),
    ("RE", "REU", "", &["reunion"]),
    ("RO", "ROU", "", &["romania"]),
    ("RS", "SRB", "", &["serbia"]),
    ("RU", "RUS", "", &["russia"]),
    ("SA", "SAU", "KSA", &["saudi arabia"]),
    ("SE", "SWE", "", &["sweden"]),
    ("SG", "SGP", "", &["singapore"]),
    ("SI", "SVN", "SLO", &["slovenia"]),
    ("SK", "SVK", "", &["slovakia"]),
    ("SN", "SEN", "", &["senegal"]),
    ("SV", "SLV", "ESA", &["el salvador"]),
    ("TH", "THA", "", &["thailand"]),
    ("TN", "TUN", "", &["tunisia"]),
    ("TO", "TON", "TGA", &["tonga"]),
    ("TR", "TUR", "", &["turkey", "turkiye"]),
    ("TT", "TTO", "", &["trinidad and tobago"]),
    ("TW", "TWN", "TPE", &["taiwan", "chinese taipei"]),
    ("UA", "UKR", "", &["ukraine"]),
    (
        "US",
        "USA",
        "",
        &["united states", "united states of america", "america"],
    ),
    ("UY", "URY", "URU", &["uruguay"]),
    ("VE", "VEN", "", &["venezuela"]),
    ("VN", "VNM", "VIE", &["vietnam", "viet nam"]),
    ("WS", "WSM", "SAM", &["samoa"]),
    ("ZA", "ZAF", "RSA", &["south africa"]),
];

/// Surfing's flags that are not countries, and territories whose athletes often compete under
/// another flag: listed under one by one provider and the other by another, they are
/// `compatible` (counted 0), not different.
const COMPATIBLE: &[(&str, &str)] = &[
    ("HAW", "US"),
    ("PF", "FR"),
    ("RE", "FR"),
    ("GP", "FR"),
    ("MQ", "FR"),
    ("NC", "FR"),
    ("PR", "US"),
    ("GU", "US"),
];

/// A country as its ISO alpha-2 code when the table knows it (`USA`, `usa`, `United States` →
/// `US`; `Hawaii`/`HAW` → `HAW`).
pub fn country_code(c: &str) -> Option<&'static str> {
    let t = c.trim();
    let up = t.to_ascii_uppercase();
    if up == "HAW" || fold_name(t) == "hawaii" {
        return Some("HAW");
    }
    let folded = fold_name(t);
    COUNTRIES
        .iter()
        .find(|(a2, a3, ioc, names)| {
            up == *a2 || up == *a3 || (!ioc.is_empty() && up == *ioc) || names.contains(&&*folded)
        })
        .map(|(a2, ..)| *a2)
}

fn country_evidence(
    (a, code_a): (&str, Option<&'static str>),
    (b, code_b): (&str, Option<&'static str>),
) -> Evidence {
    let ev = |outcome, contribution, detail: String| Evidence {
        field: Field::Country,
        outcome,
        contribution,
        detail,
    };
    let pair = format!("{} and {}", a.trim(), b.trim());
    match (code_a, code_b) {
        (Some(x), Some(y)) if x == y => ev(
            Outcome::Same,
            weights::COUNTRY_SAME,
            format!("{pair}: the same country"),
        ),
        (Some(x), Some(y))
            if COMPATIBLE
                .iter()
                .any(|&(p, q)| (p, q) == (x, y) || (q, p) == (x, y)) =>
        {
            ev(
                Outcome::Compatible,
                0.0,
                format!("{pair}: a territory and the flag its athletes often compete under"),
            )
        }
        (Some(_), Some(_)) => ev(
            Outcome::Different,
            weights::COUNTRY_DIFFERENT,
            format!("{pair}: different countries"),
        ),
        // Unknown spellings: compared as written only when they have the same form.
        _ if a.trim().len() == b.trim().len() => {
            if a.trim().eq_ignore_ascii_case(b.trim()) {
                ev(
                    Outcome::Same,
                    weights::COUNTRY_SAME,
                    format!("{pair}: the same country"),
                )
            } else {
                ev(
                    Outcome::Different,
                    weights::COUNTRY_DIFFERENT,
                    format!("{pair}: different countries"),
                )
            }
        }
        _ => ev(
            Outcome::NotComparable,
            0.0,
            format!("{pair}: written in forms that cannot be compared"),
        ),
    }
}

// ---- the other fields ----

fn birth_evidence(a: Birth, b: Birth) -> Evidence {
    let show = |x: Birth| match x {
        Birth::Date(d) => d.to_string(),
        Birth::Year(y) => format!("{y} (year only)"),
    };
    let pair = format!("{} and {}", show(a), show(b));
    let (outcome, contribution, why) = match (a, b) {
        (Birth::Date(x), Birth::Date(y)) if x == y => {
            (Outcome::Same, weights::BIRTH_SAME_DATE, "the same date")
        }
        (Birth::Date(x), Birth::Date(y)) if x.year() == y.year() => (
            Outcome::OtherDay,
            weights::BIRTH_OTHER_DAY,
            "the same year, another day",
        ),
        _ if a.year() == b.year() => (Outcome::SameYear, weights::BIRTH_SAME_YEAR, "the same year"),
        (Birth::Year(_), _) | (_, Birth::Year(_)) if a.year().abs_diff(b.year()) == 1 => {
            (Outcome::CloseYear, 0.0, "a year apart, as an age can be")
        }
        _ => (
            Outcome::Different,
            weights::BIRTH_DIFFERENT,
            "different years",
        ),
    };
    Evidence {
        field: Field::BirthDate,
        outcome,
        contribution,
        detail: format!("{pair}: {why}"),
    }
}

fn email_evidence(a: &str, b: &str) -> Evidence {
    let same = a.trim().eq_ignore_ascii_case(b.trim());
    Evidence {
        field: Field::Email,
        outcome: if same {
            Outcome::Same
        } else {
            Outcome::Different
        },
        contribution: if same { weights::EMAIL_SAME } else { 0.0 },
        detail: if same {
            format!("{}: the same address", a.trim().to_lowercase())
        } else {
            "different addresses (not held against them: people have several)".into()
        },
    }
}

fn links_evidence(a: &[(String, String)], b: &[(String, String)]) -> Option<Evidence> {
    let shared: Vec<String> = a
        .iter()
        .filter(|l| b.contains(l))
        .map(|(p, id)| format!("{p} {id}"))
        .collect();
    if !shared.is_empty() {
        return Some(Evidence {
            field: Field::ProviderLinks,
            outcome: Outcome::Same,
            contribution: weights::LINK_SAME,
            detail: format!("both linked to {}", shared.join(", ")),
        });
    }
    let mut conflicts: Vec<String> = Vec::new();
    for (p, x) in a {
        for (q, y) in b {
            if p == q && x != y {
                conflicts.push(format!("{p} knows them as two people ({x}, {y})"));
            }
        }
    }
    conflicts.sort();
    conflicts.dedup();
    (!conflicts.is_empty()).then(|| Evidence {
        field: Field::ProviderLinks,
        outcome: Outcome::Conflict,
        contribution: weights::LINK_CONFLICT,
        detail: conflicts.join("; "),
    })
}

/// An event's identity across providers: the folded name and the date.
fn event_key(e: &EventRef) -> Option<(String, String)> {
    let date = e.date.as_deref()?.get(..10)?.to_string();
    Some((fold_name(&e.name), date))
}

/// Events both competed in, as two different providers report them (one provider reporting
/// two profiles in one event is two people, which `providerLinks` already says).
fn events_evidence(a: &Prepared, b: &Prepared) -> Option<Evidence> {
    if a.person.events.is_empty() || b.person.events.is_empty() {
        return None;
    }
    let mut shared: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for (kx, x) in &a.events {
        if seen.contains(kx) {
            continue;
        }
        if b.events
            .iter()
            .any(|(ky, y)| y.provider != x.provider && ky == kx)
        {
            shared.push(format!("{} ({})", x.name, kx.1));
            seen.insert(kx);
        }
    }
    shared.sort();
    let contribution = (weights::EVENT_SHARED * shared.len() as f64).min(weights::EVENTS_MAX);
    Some(if shared.is_empty() {
        Evidence {
            field: Field::Events,
            outcome: Outcome::Different,
            contribution: 0.0,
            detail: "no event in common (not held against them)".into(),
        }
    } else {
        Evidence {
            field: Field::Events,
            outcome: Outcome::Shared,
            contribution,
            detail: format!(
                "{} event{} in common: {}",
                shared.len(),
                if shared.len() == 1 { "" } else { "s" },
                shared.join(", ")
            ),
        }
    })
}

fn divisions_evidence(a: &Prepared, b: &Prepared) -> Option<Evidence> {
    if a.divisions.is_empty() || b.divisions.is_empty() {
        return None;
    }
    let mut shared: Vec<&str> = a
        .divisions
        .iter()
        .filter(|(f, _)| b.divisions.iter().any(|(g, _)| g == f))
        .map(|(_, d)| *d)
        .collect();
    shared.sort();
    shared.dedup();
    Some(if shared.is_empty() {
        Evidence {
            field: Field::Divisions,
            outcome: Outcome::Different,
            contribution: 0.0,
            detail: "no division in common (not held against them)".into(),
        }
    } else {
        Evidence {
            field: Field::Divisions,
            outcome: Outcome::Shared,
            contribution: weights::DIVISION_SHARED,
            detail: format!("both competed in {}", shared.join(", ")),
        }
    })
}

fn groups_evidence(a: &[Group], b: &[Group]) -> Option<Evidence> {
    let mut shared: Vec<&str> = a
        .iter()
        .filter(|g| b.iter().any(|h| h.key == g.key))
        .map(|g| g.label.as_str())
        .collect();
    shared.sort();
    shared.dedup();
    (!shared.is_empty()).then(|| Evidence {
        field: Field::Organisation,
        outcome: Outcome::Shared,
        contribution: (weights::GROUP_SHARED * shared.len() as f64).min(weights::GROUPS_MAX),
        detail: format!("both in {}", shared.join(", ")),
    })
}

fn confidence(score: f64) -> Confidence {
    if score >= HIGH {
        Confidence::High
    } else if score >= MEDIUM {
        Confidence::Medium
    } else {
        Confidence::Low
    }
}

/// Compares two people field by field: every field both know is one line of the
/// explanation, and the score is the lines' contributions added up, clamped to 0..1.
pub fn score(a: &Person, b: &Person) -> Scored {
    score_prepared(&prepare(a), &prepare(b))
}

/// [`score`] of two prepared people.
pub fn score_prepared(pa: &Prepared, pb: &Prepared) -> Scored {
    explain(pa, pb, name_outcome(pa, pb))
}

/// [`score_prepared`] when it can reach `min`, else `None`: the most the fields both sides
/// know could add is weighed first, so the many pairs a blocking key brings together by a
/// shared given name cost no explanation text.
pub fn score_at_least(pa: &Prepared, pb: &Prepared, min: f64) -> Option<Scored> {
    let (a, b) = (pa.person, pb.person);
    let name = name_outcome(pa, pb);
    let both = |x: bool, y: bool, w: f64| if x && y { w } else { 0.0 };
    let email = match (&a.email, &b.email) {
        (Some(x), Some(y)) if x.trim().eq_ignore_ascii_case(y.trim()) => weights::EMAIL_SAME,
        _ => 0.0,
    };
    let ceiling = name_weight(name)
        + both(
            a.country.is_some(),
            b.country.is_some(),
            weights::COUNTRY_SAME,
        )
        + both(
            a.birth.is_some(),
            b.birth.is_some(),
            weights::BIRTH_SAME_DATE,
        )
        + email
        + both(!a.links.is_empty(), !b.links.is_empty(), weights::LINK_SAME)
        + both(
            !pa.events.is_empty(),
            !pb.events.is_empty(),
            weights::EVENTS_MAX,
        )
        + both(
            !pa.divisions.is_empty(),
            !pb.divisions.is_empty(),
            weights::DIVISION_SHARED,
        )
        + both(
            !a.groups.is_empty(),
            !b.groups.is_empty(),
            weights::GROUPS_MAX,
        );
    if ceiling < min {
        return None;
    }
    let s = explain(pa, pb, name);
    (s.score >= min).then_some(s)
}

fn explain(pa: &Prepared, pb: &Prepared, name: Outcome) -> Scored {
    let (a, b) = (pa.person, pb.person);
    let mut lines = vec![name_evidence(pa, pb, name)];
    if let (Some(x), Some(y)) = (&a.country, &b.country) {
        lines.push(country_evidence((x, pa.country), (y, pb.country)));
    }
    if let (Some(x), Some(y)) = (a.birth, b.birth) {
        lines.push(birth_evidence(x, y));
    }
    if let (Some(x), Some(y)) = (&a.email, &b.email) {
        lines.push(email_evidence(x, y));
    }
    lines.extend(links_evidence(&a.links, &b.links));
    lines.extend(events_evidence(pa, pb));
    lines.extend(divisions_evidence(pa, pb));
    lines.extend(groups_evidence(&a.groups, &b.groups));
    let sum: f64 = lines.iter().map(|l| l.contribution).sum();
    let score = (sum.clamp(0.0, 1.0) * 100.0).round() / 100.0;
    Scored {
        score,
        confidence: confidence(score),
        explanation: lines,
    }
}

// ---- blocking ----

/// The keys under which a person is filed for comparison.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockingKeys {
    /// Shared exactly: each folded word of the name (two letters or more) with the first two
    /// letters of each other word (`kai|le`, `lenny|ka`: `Lenny Kai` and `Kai Lenny` meet), a
    /// one-word name by the word, and the email.
    pub exact: Vec<String>,
    /// Looked up as prefixes: a word with another word that is an initial (`lenny|k` of `K.
    /// Lenny` finds `lenny|ka` of `Kai Lenny`, `lenny|ke`, …).
    pub initials: Vec<String>,
}

/// A person's blocking keys (the first four words of the name count).
pub fn blocking_keys(p: &Person) -> BlockingKeys {
    let t: Vec<String> = tokens(&p.name).into_iter().take(KEY_TOKENS).collect();
    let mut keys = BlockingKeys::default();
    if t.len() == 1 {
        keys.exact.push(format!("n:{}|", t[0]));
    }
    for (i, w) in t.iter().enumerate() {
        if w.chars().count() < 2 {
            continue;
        }
        for (j, other) in t.iter().enumerate() {
            if i == j {
                continue;
            }
            let head: String = other.chars().take(2).collect();
            if other.chars().count() == 1 {
                keys.initials.push(format!("n:{w}|{head}"));
            } else {
                keys.exact.push(format!("n:{w}|{head}"));
            }
        }
    }
    if let Some(e) = p.email.as_deref().map(str::trim).filter(|e| !e.is_empty()) {
        keys.exact.push(format!("e:{}", e.to_lowercase()));
    }
    for k in [&mut keys.exact, &mut keys.initials] {
        k.sort();
        k.dedup();
    }
    keys
}

/// The pairs worth comparing (indexes into `people`, smaller first, each pair once): those
/// sharing a blocking key, and each initialled name with the names its initial may stand for
/// (at most [`BLOCK_ALL_PAIRS`] of them). A block of at most [`BLOCK_ALL_PAIRS`] is compared
/// in full; a larger one (a very common name, a club's shared address) only within a window
/// of [`BLOCK_WINDOW`] in folded-name order, so the work stays near-linear in the roster.
pub fn candidate_pairs(people: &[Person]) -> Vec<(usize, usize)> {
    let mut blocks: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut initials: Vec<(usize, String)> = Vec::new();
    for (i, p) in people.iter().enumerate() {
        let keys = blocking_keys(p);
        for k in keys.exact {
            blocks.entry(k).or_default().push(i);
        }
        for k in keys.initials {
            // Filed too, so two initialled spellings meet each other.
            blocks.entry(k.clone()).or_default().push(i);
            initials.push((i, k));
        }
    }
    let mut pairs: HashSet<(usize, usize)> = HashSet::new();
    let mut add = |i: usize, j: usize| {
        if i != j {
            pairs.insert((i.min(j), i.max(j)));
        }
    };
    for (i, prefix) in &initials {
        blocks
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(prefix.as_str()))
            .flat_map(|(_, members)| members.iter().copied())
            .take(BLOCK_ALL_PAIRS)
            .for_each(|j| add(*i, j));
    }
    let folded: Vec<String> = people.iter().map(|p| fold_name(&p.name)).collect();
    for members in blocks.values_mut() {
        if members.len() < 2 {
            continue;
        }
        if members.len() <= BLOCK_ALL_PAIRS {
            for (x, &i) in members.iter().enumerate() {
                for &j in &members[x + 1..] {
                    add(i, j);
                }
            }
        } else {
            members.sort_by(|&i, &j| folded[i].cmp(&folded[j]).then(i.cmp(&j)));
            for (x, &i) in members.iter().enumerate() {
                for &j in members.iter().skip(x + 1).take(BLOCK_WINDOW) {
                    add(i, j);
                }
            }
        }
    }
    let mut out: Vec<(usize, usize)> = pairs.into_iter().collect();
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(name: &str) -> Person {
        Person::named(name)
    }

    fn line(s: &Scored, field: Field) -> &Evidence {
        s.explanation
            .iter()
            .find(|e| e.field == field)
            .unwrap_or_else(|| panic!("no {field} line in {s:?}"))
    }

    fn ev(provider: &str, name: &str, date: &str) -> EventRef {
        EventRef {
            provider: provider.into(),
            name: name.into(),
            date: Some(date.into()),
        }
    }

    #[test]
    fn folding_drops_accents_case_and_punctuation() {
        assert_eq!(fold_name("  João   CHIANCA "), "joao chianca");
        assert_eq!(fold_name("Jean-Luc O'Neill"), "jean luc o neill");
        assert_eq!(fold_name("Łukasz Großmann"), "lukasz grossmann");
        assert_eq!(fold_name("Søren Æbelø"), "soren aebelo");
        assert_eq!(tokens("Lenny, Kai"), ["lenny", "kai"]);
    }

    #[test]
    fn the_same_name_scores_the_name_weight_alone() {
        let s = score(&person("Kai Lenny"), &person("kai  lenny"));
        assert_eq!(s.score, 0.6);
        assert_eq!(s.confidence, Confidence::Medium);
        assert_eq!(line(&s, Field::Name).outcome, Outcome::Exact);
        assert_eq!(s.explanation.len(), 1, "only what both sides know");
    }

    #[test]
    fn accents_fold_and_count_a_little_less_than_exact() {
        let s = score(&person("João Chianca"), &person("Joao Chianca"));
        assert_eq!(line(&s, Field::Name).outcome, Outcome::Folded);
        assert_eq!(s.score, 0.55);
        let s = score(&person("Jean-Luc Picard"), &person("Jeanluc Picard"));
        assert_eq!(line(&s, Field::Name).outcome, Outcome::Folded);
    }

    #[test]
    fn swapped_first_and_last_names_match() {
        let s = score(&person("Kai Lenny"), &person("Lenny, Kai"));
        assert_eq!(line(&s, Field::Name).outcome, Outcome::Swapped);
        assert_eq!(s.score, 0.5);
    }

    #[test]
    fn initials_and_short_forms_match_below_full_names() {
        for (a, b) in [
            ("K. Lenny", "Kai Lenny"),
            ("Lenny K", "Kai Lenny"),
            ("Jon Smith", "Jonathan Smith"),
        ] {
            let s = score(&person(a), &person(b));
            assert_eq!(line(&s, Field::Name).outcome, Outcome::Initial, "{a} / {b}");
            assert_eq!(s.score, 0.4, "{a} / {b}");
        }
        // Two letters are neither an initial nor a short form.
        let s = score(&person("Jo Smith"), &person("Jonathan Smith"));
        assert_eq!(line(&s, Field::Name).outcome, Outcome::Partial);
    }

    #[test]
    fn a_middle_name_or_second_surname_is_a_token_match() {
        let s = score(&person("Gabriel Medina"), &person("Gabriel Medina Pinto"));
        assert_eq!(line(&s, Field::Name).outcome, Outcome::Token);
        assert_eq!(s.score, 0.45);
    }

    #[test]
    fn a_one_letter_typo_is_similar() {
        let s = score(&person("Joao Chianca"), &person("Joao Chianka"));
        assert_eq!(line(&s, Field::Name).outcome, Outcome::Similar);
        assert_eq!(s.score, 0.35);
        // Short words get no typo allowance.
        let s = score(&person("Kai Lenny"), &person("Kay Lenny"));
        assert_eq!(line(&s, Field::Name).outcome, Outcome::Partial);
    }

    #[test]
    fn a_shared_surname_alone_is_partial_and_other_names_nothing() {
        let s = score(&person("Kai Smith"), &person("Lea Smith"));
        assert_eq!(line(&s, Field::Name).outcome, Outcome::Partial);
        assert_eq!(s.score, 0.2);
        let s = score(&person("Kai Lenny"), &person("Molly Picklum"));
        assert_eq!(line(&s, Field::Name).outcome, Outcome::Different);
        assert_eq!(s.score, 0.0);
        assert!(!names_related("Kai Lenny", "Molly Picklum"));
    }

    #[test]
    fn countries_are_compared_across_code_forms() {
        for (a, b) in [
            ("US", "USA"),
            ("DE", "GER"),
            ("ZAF", "RSA"),
            ("Brazil", "BRA"),
        ] {
            assert_eq!(country_code(a), country_code(b), "{a} / {b}");
        }
        let mut a = person("Kai Lenny");
        a.country = Some("US".into());
        let mut b = person("Kai Lenny");
        b.country = Some("USA".into());
        let s = score(&a, &b);
        assert_eq!(line(&s, Field::Country).outcome, Outcome::Same);
        assert_eq!(s.score, 0.7);
    }

    #[test]
    fn different_countries_reduce_the_score_below_the_threshold() {
        let mut a = person("Kai Lenny");
        a.country = Some("US".into());
        let mut b = person("Kai Lenny");
        b.country = Some("JPN".into());
        let s = score(&a, &b);
        let c = line(&s, Field::Country);
        assert_eq!((c.outcome, c.contribution), (Outcome::Different, -0.3));
        assert_eq!(s.score, 0.3);
        assert!(s.score < MATCH_MIN);
    }

    #[test]
    fn hawaii_and_the_united_states_are_compatible_not_different() {
        let mut a = person("Kai Lenny");
        a.country = Some("HAW".into());
        let mut b = person("Kai Lenny");
        b.country = Some("United States".into());
        let s = score(&a, &b);
        assert_eq!(line(&s, Field::Country).outcome, Outcome::Compatible);
        assert_eq!(s.score, 0.6);
    }

    #[test]
    fn unknown_country_spellings_compare_only_in_the_same_form() {
        let mut a = person("A B");
        a.country = Some("XX".into());
        let mut b = person("A B");
        b.country = Some("XXX".into());
        assert_eq!(
            line(&score(&a, &b), Field::Country).outcome,
            Outcome::NotComparable
        );
    }

    #[test]
    fn birth_dates_agree_or_speak_against() {
        let d = |s: &str| Birth::parse(s).unwrap();
        let cases = [
            ("1992-10-08", "1992-10-08", Outcome::Same, 0.2),
            ("1992-10-08", "1992", Outcome::SameYear, 0.1),
            ("1992-10-08", "1993", Outcome::CloseYear, 0.0),
            ("1992-10-08", "1992-08-10", Outcome::OtherDay, -0.1),
            ("1992-10-08", "1993-10-08", Outcome::Different, -0.4),
            ("1992-10-08", "1999", Outcome::Different, -0.4),
        ];
        for (x, y, outcome, w) in cases {
            let e = birth_evidence(d(x), d(y));
            assert_eq!((e.outcome, e.contribution), (outcome, w), "{x} / {y}");
        }
        assert_eq!(Birth::parse("n/a"), None);
        assert_eq!(Birth::parse("1850-01-01"), None);
    }

    #[test]
    fn a_duplicate_with_the_same_email_and_birth_date_is_certain() {
        let mut a = person("Kai Lenny");
        a.email = Some("kai@example.com".into());
        a.birth = Birth::parse("1992-10-08");
        let mut b = person("kai lenny");
        b.email = Some("KAI@example.com ".into());
        b.birth = Birth::parse("1992-10-08");
        let s = score(&a, &b);
        assert_eq!(s.score, 1.0, "0.6 + 0.3 + 0.2, clamped");
        assert_eq!(s.confidence, Confidence::High);
        let total: f64 = s.explanation.iter().map(|e| e.contribution).sum();
        assert!(
            (total - 1.1).abs() < 1e-9,
            "the lines add up before clamping"
        );
    }

    #[test]
    fn siblings_sharing_a_parent_email_are_not_suggested() {
        let mut a = person("Kai Smith");
        a.email = Some("family@example.com".into());
        a.birth = Birth::parse("2010-01-01");
        let mut b = person("Lea Smith");
        b.email = Some("family@example.com".into());
        b.birth = Birth::parse("2012-05-05");
        let s = score(&a, &b);
        assert_eq!(s.score, 0.1, "0.2 + 0.3 - 0.4");
        assert!(s.score < DEDUP_MIN);
    }

    #[test]
    fn different_emails_are_shown_but_count_nothing() {
        let mut a = person("Kai Lenny");
        a.email = Some("kai@a.test".into());
        let mut b = person("Kai Lenny");
        b.email = Some("kai@b.test".into());
        let s = score(&a, &b);
        let e = line(&s, Field::Email);
        assert_eq!((e.outcome, e.contribution), (Outcome::Different, 0.0));
        assert_eq!(s.score, 0.6);
    }

    #[test]
    fn two_profiles_of_one_provider_are_two_people() {
        let mut a = person("Jack Robinson");
        a.links = vec![("heatsource".into(), "a2".into())];
        let mut b = person("Jack Robinson");
        b.links = vec![("heatsource".into(), "a9".into())];
        let s = score(&a, &b);
        let e = line(&s, Field::ProviderLinks);
        assert_eq!((e.outcome, e.contribution), (Outcome::Conflict, -0.5));
        assert_eq!(s.score, 0.1);
        // Profiles of different providers say nothing either way.
        b.links = vec![("tourindex".into(), "ti-9".into())];
        assert!(
            score(&a, &b)
                .explanation
                .iter()
                .all(|e| e.field != Field::ProviderLinks)
        );
    }

    #[test]
    fn events_shared_across_providers_corroborate_up_to_a_cap() {
        let mut a = person("Kai Lenny");
        a.country = Some("US".into());
        a.events = vec![
            ev("heatsource", "Bells Beach Pro", "2026-04-12T00:00:00Z"),
            ev("heatsource", "Pipe Pro", "2026-02-01"),
            ev("heatsource", "Tahiti Pro", "2026-08-10"),
        ];
        let mut b = person("Kai Lenny");
        b.country = Some("USA".into());
        b.events = vec![ev("tourindex", "Bells Beach Pro", "2026-04-12")];
        let s = score(&a, &b);
        let e = line(&s, Field::Events);
        assert_eq!((e.outcome, e.contribution), (Outcome::Shared, 0.1));
        assert_eq!(s.score, 0.8, "0.6 + 0.1 + 0.1");
        assert_eq!(s.confidence, Confidence::High);

        b.events = vec![
            ev("tourindex", "Bells Beach Pro", "2026-04-12"),
            ev("tourindex", "Pipe Pro", "2026-02-01"),
            ev("tourindex", "Tahiti Pro", "2026-08-10"),
        ];
        assert_eq!(line(&score(&a, &b), Field::Events).contribution, 0.2);
        // The same provider's event says nothing (two profiles there are two people).
        b.events = vec![ev("heatsource", "Bells Beach Pro", "2026-04-12")];
        assert_eq!(line(&score(&a, &b), Field::Events).contribution, 0.0);
        // Another year's edition is another event.
        b.events = vec![ev("tourindex", "Bells Beach Pro", "2025-04-12")];
        assert_eq!(line(&score(&a, &b), Field::Events).contribution, 0.0);
    }

    #[test]
    fn shared_divisions_and_circuits_count_a_little() {
        let mut a = person("K. Lenny");
        a.divisions = vec!["Men".into()];
        a.groups = vec![Group {
            key: "circuit:1".into(),
            label: "Championship Tour 2026".into(),
        }];
        let mut b = person("Kai Lenny");
        b.divisions = vec!["men".into(), "Open".into()];
        b.groups = a.groups.clone();
        let s = score(&a, &b);
        assert_eq!(line(&s, Field::Divisions).contribution, 0.05);
        assert_eq!(line(&s, Field::Organisation).contribution, 0.05);
        assert_eq!(s.score, 0.5, "0.4 + 0.05 + 0.05");
    }

    #[test]
    fn the_score_never_goes_below_zero() {
        let mut a = person("Kai Lenny");
        a.country = Some("US".into());
        a.birth = Birth::parse("1992-10-08");
        let mut b = person("Molly Picklum");
        b.country = Some("AUS".into());
        b.birth = Birth::parse("2002-08-01");
        let s = score(&a, &b);
        assert_eq!(s.score, 0.0);
        assert_eq!(s.confidence, Confidence::Low);
    }

    #[test]
    fn the_ceiling_never_drops_a_pair_that_reaches_the_threshold() {
        let mut people = Vec::new();
        for (name, country, birth, email) in [
            (
                "Kai Lenny",
                Some("US"),
                Some("1992-10-08"),
                Some("kai@example.com"),
            ),
            (
                "kai lenny",
                Some("USA"),
                Some("1992-10-08"),
                Some("KAI@example.com"),
            ),
            ("K. Lenny", None, Some("1992"), Some("kai@example.com")),
            ("Lenny, Kai", Some("JPN"), None, None),
            (
                "Kai Smith",
                None,
                Some("2010-01-01"),
                Some("family@example.com"),
            ),
            (
                "Lea Smith",
                None,
                Some("2012-05-05"),
                Some("family@example.com"),
            ),
            ("João Chianca", Some("BRA"), None, None),
            ("Joao Chianka", Some("Brazil"), None, None),
        ] {
            let mut p = person(name);
            p.country = country.map(str::to_string);
            p.birth = birth.and_then(Birth::parse);
            p.email = email.map(str::to_string);
            people.push(p);
        }
        let prepared: Vec<Prepared> = people.iter().map(prepare).collect();
        for a in &prepared {
            for b in &prepared {
                let full = score_prepared(a, b);
                for min in [MATCH_MIN, DEDUP_MIN, HIGH] {
                    assert_eq!(
                        score_at_least(a, b, min).map(|s| s.score),
                        (full.score >= min).then_some(full.score),
                        "{} / {} at {min}",
                        a.person.name,
                        b.person.name
                    );
                }
            }
        }
    }

    #[test]
    fn blocking_brings_swapped_and_initialled_names_together() {
        let people = vec![
            person("Kai Lenny"),
            person("Lenny Kai"),
            person("K. Lenny"),
            person("Molly Picklum"),
            {
                let mut p = person("Someone Else");
                p.email = Some("molly@example.com".into());
                p
            },
            {
                let mut p = person("M Picklum");
                p.email = Some("Molly@example.com".into());
                p
            },
        ];
        let pairs = candidate_pairs(&people);
        for want in [(0, 1), (0, 2), (1, 2), (3, 5), (4, 5)] {
            assert!(pairs.contains(&want), "{want:?} in {pairs:?}");
        }
        assert!(!pairs.contains(&(0, 3)), "unrelated names never meet");
    }

    /// A roster of 5,000 made-up athletes: the blocking compares a small fraction of the 12.5
    /// million pairs and still finds the planted duplicates.
    #[test]
    fn dedup_blocking_stays_far_from_quadratic() {
        let first = [
            "Kai",
            "Molly",
            "Jack",
            "Ethan",
            "Joao",
            "Filipe",
            "Italo",
            "Caroline",
            "Tyler",
            "Stephanie",
            "Carissa",
            "Johanne",
            "Griffin",
            "Leonardo",
            "Miguel",
            "Yago",
            "Ryan",
            "Connor",
            "Barron",
            "Kanoa",
            "Sally",
            "Isabella",
            "Tatiana",
            "Brisa",
            "Lakey",
        ];
        let syllables = [
            "ka", "lo", "mi", "re", "su", "ta", "vo", "ne", "pi", "ra", "do", "le", "bu", "sa",
            "ko", "ri", "ma", "te", "zo", "fi",
        ];
        let mut people: Vec<Person> = Vec::new();
        for i in 0..5000usize {
            let last = format!(
                "{}{}{}",
                syllables[i % 20],
                syllables[(i / 20) % 20],
                syllables[(i / 400) % 20]
            );
            let name = format!("{} {}", first[(i * 7) % first.len()], last);
            people.push(Person::named(name));
        }
        // Planted: an accented copy, a swapped copy and an initialled copy.
        people.push(Person::named(
            format!("{} ", people[17].name).replace('o', "ó"),
        ));
        people.push(Person::named({
            let t: Vec<&str> = people[42].name.split(' ').collect();
            format!("{}, {}", t[1], t[0])
        }));
        people.push(Person::named({
            let t: Vec<&str> = people[99].name.split(' ').collect();
            format!("{}. {}", &t[0][..1], t[1])
        }));
        let started = std::time::Instant::now();
        let pairs = candidate_pairs(&people);
        let blocked = started.elapsed();
        let prepared: Vec<Prepared> = people.iter().map(prepare).collect();
        let found: Vec<(usize, usize)> = pairs
            .iter()
            .copied()
            .filter(|&(i, j)| {
                score_at_least(&prepared[i], &prepared[j], weights::NAME_INITIAL).is_some()
            })
            .collect();
        let n = people.len();
        eprintln!(
            "{} of {} pairs compared; blocking {:?}, all {:?}",
            pairs.len(),
            n * (n - 1) / 2,
            blocked,
            started.elapsed()
        );
        assert!(
            pairs.len() < n * (n - 1) / 2 / 50,
            "{} pairs compared out of {}",
            pairs.len(),
            n * (n - 1) / 2
        );
        for want in [(17, 5000), (42, 5001), (99, 5002)] {
            assert!(found.contains(&want), "{want:?} not found");
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_huge_block_is_compared_within_a_window() {
        let people: Vec<Person> = (0..1000)
            .map(|i| {
                let mut p = Person::named(format!("Person{i:04} Alpha{i:04}"));
                p.email = Some("club@example.com".into());
                p
            })
            .collect();
        let pairs = candidate_pairs(&people);
        assert!(pairs.len() <= 1000 * BLOCK_WINDOW, "{}", pairs.len());
        assert!(pairs.contains(&(0, 1)));
    }
}
