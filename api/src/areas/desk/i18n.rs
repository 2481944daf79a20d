//! The web application's message catalogue: every sentence a desk page shows lives in
//! `api/locales/<lang>.txt` (`key = text`, `{name}` placeholders), so a translation is a file,
//! not a code change. English is the reference: a key missing from another language falls back
//! to it, and a test checks that every key a template or handler uses exists in English.

use std::collections::HashMap;
use std::sync::LazyLock;

/// The catalogues compiled into the binary: (language tag, file).
const CATALOGUES: &[(&str, &str)] = &[("en", include_str!("../../../locales/en.txt"))];

/// One language's texts.
pub struct Catalogue {
    pub lang: &'static str,
    texts: HashMap<&'static str, &'static str>,
}

static LOADED: LazyLock<Vec<Catalogue>> = LazyLock::new(|| {
    CATALOGUES
        .iter()
        .map(|(lang, file)| Catalogue {
            lang,
            texts: parse(file),
        })
        .collect()
});

/// `key = text` lines; blank lines and `#` comments skipped.
pub fn parse(file: &'static str) -> HashMap<&'static str, &'static str> {
    file.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(" = "))
        .map(|(k, v)| (k.trim(), v.trim()))
        .collect()
}

impl Catalogue {
    /// The English catalogue.
    pub fn english() -> &'static Catalogue {
        &LOADED[0]
    }

    /// The best catalogue for an `Accept-Language` header (English when none matches).
    pub fn for_accept_language(header: Option<&str>) -> &'static Catalogue {
        let wanted = header.unwrap_or("").split(',').filter_map(|part| {
            let tag = part.split(';').next()?.trim();
            tag.split('-').next().map(str::to_ascii_lowercase)
        });
        for tag in wanted {
            if let Some(c) = LOADED.iter().find(|c| c.lang == tag) {
                return c;
            }
        }
        Catalogue::english()
    }

    /// The text of `key`; English when this language lacks it; the key itself when English
    /// lacks it too (a test keeps that from shipping).
    pub fn t(&self, key: &str) -> &'static str {
        self.texts
            .get(key)
            .or_else(|| Catalogue::english().texts.get(key))
            .copied()
            .unwrap_or_else(|| {
                tracing::warn!(key, "missing message catalogue key");
                "?"
            })
    }

    /// `t(key)` with `{name}` placeholders filled in.
    pub fn fill(&self, key: &str, args: &[(&str, &str)]) -> String {
        let mut s = self.t(key).to_string();
        for (name, value) in args {
            s = s.replace(&format!("{{{name}}}"), value);
        }
        s
    }

    /// Whether English has `key` (the catalogue test).
    pub fn has(key: &str) -> bool {
        Catalogue::english().texts.contains_key(key)
    }
}
