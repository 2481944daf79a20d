//! A small scanner over Rust sources that finds where error codes are raised: the calls of
//! `shared::Error`'s constructors, with their arguments read as tokens.
//!
//! It knows no types, so it reads only the shapes the code base uses and reports anything else
//! instead of guessing: a constructor whose code is not a string literal is returned as
//! [`Found::Indirect`] for the caller to account for.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    /// A string literal's value (escapes resolved as far as messages need).
    Str(String),
    Punct(char),
    /// Numbers, lifetimes, char literals: nothing a code is made of.
    Other,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
}

/// The tokens of `src`, comments dropped.
fn lex(src: &str) -> Vec<Token> {
    let b: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let push = |out: &mut Vec<Token>, tok, line| out.push(Token { tok, line });
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(b[i] == '\n');
                    i += 1;
                }
            }
        } else if c == '"' {
            let start = line;
            let (s, end) = string(&b, i + 1, &mut line);
            push(&mut out, Tok::Str(s), start);
            i = end;
        } else if let Some((hashes, open)) = raw_string_start(&b, i) {
            let start = line;
            let mut j = open + 1;
            let mut s = String::new();
            while j < b.len() {
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    break;
                }
                line += usize::from(b[j] == '\n');
                s.push(b[j]);
                j += 1;
            }
            push(&mut out, Tok::Str(s), start);
            i = j + 1 + hashes;
        } else if c == 'b' && next == Some('"') {
            let start = line;
            let (s, end) = string(&b, i + 2, &mut line);
            push(&mut out, Tok::Str(s), start);
            i = end;
        } else if c == '\'' || (c == 'b' && next == Some('\'')) {
            // A char literal ('x', '\n', '\''), or a lifetime ('a, 'static).
            let q = if c == 'b' { i + 1 } else { i };
            if b.get(q + 1) == Some(&'\\') {
                let mut j = q + 3;
                while j < b.len() && b[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
            } else if b.get(q + 2) == Some(&'\'') {
                i = q + 3;
            } else {
                let mut j = q + 1;
                while j < b.len() && (b[j].is_alphanumeric() || b[j] == '_') {
                    j += 1;
                }
                i = j;
            }
            push(&mut out, Tok::Other, line);
        } else if c.is_alphabetic() || c == '_' {
            let mut j = i;
            while j < b.len() && (b[j].is_alphanumeric() || b[j] == '_') {
                j += 1;
            }
            push(&mut out, Tok::Ident(b[i..j].iter().collect()), line);
            i = j;
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            push(&mut out, Tok::Other, line);
        } else {
            push(&mut out, Tok::Punct(c), line);
            i += 1;
        }
    }
    out
}

/// `r"`, `r#"`, `br"`, `br#"`…: the number of `#` and the index of the opening quote.
fn raw_string_start(b: &[char], i: usize) -> Option<(usize, usize)> {
    let prev_ident = i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_');
    if prev_ident {
        return None;
    }
    let r = match (b.get(i), b.get(i + 1)) {
        (Some('r'), _) => i,
        (Some('b'), Some('r')) => i + 1,
        _ => return None,
    };
    let mut j = r + 1;
    while b.get(j) == Some(&'#') {
        j += 1;
    }
    (b.get(j) == Some(&'"')).then_some((j - r - 1, j))
}

/// A `"…"` literal's value from just after its opening quote, and the index after its end.
fn string(b: &[char], mut i: usize, line: &mut usize) -> (String, usize) {
    let mut s = String::new();
    while i < b.len() && b[i] != '"' {
        if b[i] == '\\' {
            match b.get(i + 1) {
                // A line continuation: the newline and the next line's indentation go.
                Some('\n') => {
                    *line += 1;
                    i += 2;
                    while i < b.len() && b[i].is_whitespace() {
                        *line += usize::from(b[i] == '\n');
                        i += 1;
                    }
                    continue;
                }
                Some('n') => s.push('\n'),
                Some(&c) => s.push(c),
                None => {}
            }
            i += 2;
        } else {
            *line += usize::from(b[i] == '\n');
            s.push(b[i]);
            i += 1;
        }
    }
    (s, i + 1)
}

fn is(t: &Token, tok: Tok) -> bool {
    t.tok == tok
}

fn ident(t: &Token) -> Option<&str> {
    match &t.tok {
        Tok::Ident(s) => Some(s),
        _ => None,
    }
}

/// The index of the bracket closing the one at `open`.
fn closing(toks: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate().skip(open) {
        match t.tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    toks.len()
}

/// The arguments of the call whose `(` is at `open`, split at top-level commas.
fn args(toks: &[Token], open: usize) -> Vec<&[Token]> {
    let close = closing(toks, open);
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, open + 1);
    for i in open + 1..close {
        match toks[i].tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                out.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < close {
        out.push(&toks[start..close]);
    }
    out
}

/// `#[cfg(test)]` at `i`.
fn cfg_test(toks: &[Token], i: usize) -> bool {
    let want = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    toks.len() >= i + want.len() && want.iter().zip(&toks[i..]).all(|(w, t)| t.tok == *w)
}

/// The tokens without `#[cfg(test)]` items; the names of `#[cfg(test)] mod name;` files.
fn without_tests(toks: Vec<Token>) -> (Vec<Token>, Vec<String>) {
    let mut out = Vec::with_capacity(toks.len());
    let mut test_mods = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if !cfg_test(&toks, i) {
            out.push(toks[i].clone());
            i += 1;
            continue;
        }
        i += 7;
        // Further attributes of the same item.
        while i < toks.len() && is(&toks[i], Tok::Punct('#')) {
            i = closing(&toks, i + 1) + 1;
        }
        let start = i;
        while i < toks.len() && !matches!(toks[i].tok, Tok::Punct('{' | ';')) {
            if matches!(toks[i].tok, Tok::Punct('(' | '[')) {
                i = closing(&toks, i);
            }
            i += 1;
        }
        if i < toks.len() && is(&toks[i], Tok::Punct(';')) {
            if let [first, name] = &toks[start..i]
                && ident(first) == Some("mod")
                && let Some(name) = ident(name)
            {
                test_mods.push(name.to_string());
            }
            i += 1;
        } else {
            i = closing(&toks, i) + 1;
        }
    }
    (out, test_mods)
}

/// A string literal's text as a message: a literal, or `format!`'s template.
fn message(arg: &[Token]) -> Option<String> {
    let arg = match arg.first() {
        Some(t) if is(t, Tok::Punct('&')) => &arg[1..],
        _ => arg,
    };
    match arg {
        [
            Token {
                tok: Tok::Str(s), ..
            },
            ..,
        ] => Some(s.clone()),
        [f, bang, open, lit, ..]
            if ident(f) == Some("format")
                && is(bang, Tok::Punct('!'))
                && is(open, Tok::Punct('(')) =>
        {
            match &lit.tok {
                Tok::Str(s) => Some(s.clone()),
                _ => None,
            }
        }
        _ => None,
    }
}

fn text(arg: &[Token]) -> String {
    let mut s = String::new();
    for t in arg {
        match &t.tok {
            Tok::Ident(i) => {
                if s.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                    s.push(' ');
                }
                s.push_str(i);
            }
            Tok::Str(v) => s.push_str(&format!("{v:?}")),
            Tok::Punct(c) => s.push(*c),
            Tok::Other => s.push('…'),
        }
    }
    s
}

/// A constructor the scanner looks for, by its name after `Error::`.
#[derive(Clone, Copy, Debug)]
pub struct Ctor {
    pub name: &'static str,
    /// The argument holding the code; `None`: the constructor has its own code.
    pub code_arg: Option<usize>,
    /// The argument holding the message, where the caller gives one.
    pub message_arg: Option<usize>,
    /// The argument holding the `ErrorKind` (`Error::new`'s first).
    pub kind_arg: Option<usize>,
}

/// How a found code is raised.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Raised {
    /// By a constructor that takes a code, with the kind it names (`Error::new`'s), if any.
    Ctor { ctor: String, kind: Option<String> },
    /// An axum `StatusCode` constant beside the code, outside `shared::Error` (the TV poll's
    /// RFC 8628 dialect).
    Status(String),
}

#[derive(Clone, Debug)]
pub enum Found {
    /// A code given as a string literal.
    Code {
        code: String,
        raised: Raised,
        message: Option<String>,
    },
    /// A constructor with its own code.
    Fixed {
        ctor: &'static str,
        message: Option<String>,
    },
    /// A constructor whose code is an expression: the caller must say which codes it carries.
    Indirect {
        ctor: String,
        kind: Option<String>,
        expr: String,
    },
    /// `name: "value"` (a struct field set to a literal), for the fields an indirect code
    /// reads, e.g. an upload's `refused_code`.
    Field { name: String, value: String },
    /// A `Validator` is made here: its `finish` answers 400 `validation_failed`.
    Validator,
}

#[derive(Clone, Debug)]
pub struct Site {
    pub file: String,
    pub line: usize,
    pub found: Found,
}

/// A function of this file that passes one of its `&'static str` parameters on as a code
/// (`fn poll_error(code: &'static str, …) { Error::bad_request(code, …) }`).
#[derive(Clone, Debug)]
struct Wrapper {
    param: usize,
    ctor: String,
    kind: Option<String>,
    public: bool,
}

/// One `fn`: its name, parameters and the token range of its body.
struct FnItem {
    name: String,
    /// The names of its `&'static str` parameters, in place (others are empty).
    params: Vec<String>,
    takes_self: bool,
    public: bool,
    body: (usize, usize),
}

fn fns(toks: &[Token]) -> Vec<FnItem> {
    let mut out = Vec::new();
    for i in 0..toks.len().saturating_sub(2) {
        if ident(&toks[i]) != Some("fn") {
            continue;
        }
        let Some(name) = ident(&toks[i + 1]) else {
            continue;
        };
        let mut open = i + 2;
        if is(&toks[open], Tok::Punct('<')) {
            while open < toks.len() && !is(&toks[open], Tok::Punct('(')) {
                open += 1;
            }
        }
        if open >= toks.len() || !is(&toks[open], Tok::Punct('(')) {
            continue;
        }
        let takes_self = args(toks, open)
            .first()
            .is_some_and(|p| p.iter().any(|t| ident(t) == Some("self")));
        let params = args(toks, open)
            .iter()
            .map(|p| match p {
                [name, colon, ..] if is(colon, Tok::Punct(':')) => {
                    let static_str = text(&p[2..]) == "&…str";
                    match (ident(name), static_str) {
                        (Some(n), true) => n.to_string(),
                        _ => String::new(),
                    }
                }
                _ => String::new(),
            })
            .collect();
        let mut b = closing(toks, open) + 1;
        while b < toks.len() && !matches!(toks[b].tok, Tok::Punct('{' | ';')) {
            b += 1;
        }
        if b >= toks.len() || is(&toks[b], Tok::Punct(';')) {
            continue;
        }
        // `pub fn`, `pub async fn`, `pub(crate) fn`…: a `pub` among the qualifiers before it.
        let public = toks[i.saturating_sub(5)..i]
            .iter()
            .rev()
            .take_while(|t| !matches!(t.tok, Tok::Punct(';' | '{' | '}' | ']')))
            .any(|t| ident(t) == Some("pub"));
        out.push(FnItem {
            name: name.to_string(),
            params,
            takes_self,
            public,
            body: (b, closing(toks, b)),
        });
    }
    out
}

/// Whether the `Error` at `i` is `shared::Error` as far as its path says: bare, or after
/// `shared::`, `crate::` or `error::`.
fn our_error(toks: &[Token], i: usize) -> bool {
    if i < 2 || !(is(&toks[i - 1], Tok::Punct(':')) && is(&toks[i - 2], Tok::Punct(':'))) {
        return true;
    }
    i >= 3 && matches!(ident(&toks[i - 3]), Some("shared" | "crate" | "error"))
}

fn kind_of(arg: &[Token]) -> Option<String> {
    match arg {
        [.., k, c1, c2, v]
            if ident(k) == Some("ErrorKind")
                && is(c1, Tok::Punct(':'))
                && is(c2, Tok::Punct(':')) =>
        {
            ident(v).map(str::to_string)
        }
        _ => None,
    }
}

fn is_code(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Scans one file's tokens.
fn scan_file(file: &str, toks: &[Token], ctors: &[Ctor], fields: &[&str]) -> Vec<Site> {
    let mut out = Vec::new();
    let site = |line, found| Site {
        file: file.to_string(),
        line,
        found,
    };
    let items = fns(toks);
    let enclosing = |i: usize| {
        items
            .iter()
            .filter(|f| f.body.0 < i && i < f.body.1)
            .min_by_key(|f| f.body.1 - f.body.0)
    };
    let mut wrappers: BTreeMap<String, Wrapper> = BTreeMap::new();
    // The constructors' calls.
    let mut calls = Vec::new();
    for i in 0..toks.len().saturating_sub(4) {
        if ident(&toks[i]) == Some("Error")
            && is(&toks[i + 1], Tok::Punct(':'))
            && is(&toks[i + 2], Tok::Punct(':'))
            && our_error(toks, i)
            && let Some(ctor) = ident(&toks[i + 3]).and_then(|n| ctors.iter().find(|c| c.name == n))
        {
            if is(&toks[i + 4], Tok::Punct('(')) {
                calls.push((i + 4, ctor.name.to_string(), *ctor, None));
            } else if ctor.code_arg.is_none() {
                // Named as a function, e.g. `.map_err(Error::internal)`.
                let found = Found::Fixed {
                    ctor: ctor.name,
                    message: None,
                };
                out.push(site(toks[i].line, found));
            } else {
                let found = Found::Indirect {
                    ctor: ctor.name.to_string(),
                    kind: None,
                    expr: "(named as a function)".into(),
                };
                out.push(site(toks[i].line, found));
            }
        }
    }
    // This file's wrappers, then their calls.
    for (open, name, ctor, _) in &calls {
        let a = args(toks, *open);
        let (Some(code_arg), Some(f)) = (ctor.code_arg, enclosing(*open)) else {
            continue;
        };
        if let Some([t]) = a.get(code_arg)
            && let Some(p) = ident(t)
            && let Some(param) = f.params.iter().position(|q| q == p)
        {
            let kind = ctor
                .kind_arg
                .and_then(|k| a.get(k))
                .and_then(|k| kind_of(k));
            wrappers.insert(
                f.name.clone(),
                Wrapper {
                    param,
                    ctor: name.clone(),
                    kind,
                    public: f.public,
                },
            );
        }
    }
    for i in 1..toks.len().saturating_sub(1) {
        let bare = match &toks[i - 1].tok {
            Tok::Punct('.') => false,
            Tok::Punct(':') => i >= 3 && ident(&toks[i - 3]) == Some("Self"),
            Tok::Ident(k) => k != "fn",
            _ => true,
        };
        if let Some(w) = ident(&toks[i]).and_then(|n| wrappers.get(n))
            && is(&toks[i + 1], Tok::Punct('('))
            && bare
        {
            let name = ident(&toks[i]).expect("an ident").to_string();
            let ctor = Ctor {
                name: "wrapper",
                code_arg: Some(w.param),
                message_arg: Some(w.param + 1),
                kind_arg: None,
            };
            calls.push((i + 1, w.ctor.clone(), ctor, Some((name, w.clone()))));
        }
    }
    for (open, name, ctor, wrapper) in calls {
        let line = toks[open].line;
        let a = args(toks, open);
        let message = ctor
            .message_arg
            .and_then(|m| a.get(m))
            .and_then(|m| message(m));
        let Some(code_arg) = ctor.code_arg else {
            out.push(site(
                line,
                Found::Fixed {
                    ctor: ctor.name,
                    message,
                },
            ));
            continue;
        };
        let kind = match &wrapper {
            Some((_, w)) => w.kind.clone(),
            None => ctor
                .kind_arg
                .and_then(|k| a.get(k))
                .and_then(|k| kind_of(k)),
        };
        let arg = a.get(code_arg).copied().unwrap_or_default();
        let passes_on = match (arg, enclosing(open)) {
            ([t], Some(f)) => ident(t).is_some_and(|p| f.params.iter().any(|q| q == p)),
            _ => false,
        };
        if passes_on && wrapper.is_none() {
            continue; // a wrapper's own body: its calls are the sites
        }
        let literals: Vec<&String> = arg
            .iter()
            .filter_map(|t| match &t.tok {
                Tok::Str(s) => Some(s),
                _ => None,
            })
            .collect();
        let expr = text(arg);
        if let Some((wname, w)) = &wrapper
            && w.public
        {
            out.push(site(
                line,
                Found::Indirect {
                    ctor: format!("{wname} (a pub wrapper of Error::{name})"),
                    kind,
                    expr,
                },
            ));
        } else if literals.is_empty() || literals.iter().any(|s| !is_code(s)) {
            out.push(site(
                line,
                Found::Indirect {
                    ctor: name,
                    kind,
                    expr,
                },
            ));
        } else {
            for code in literals {
                out.push(site(
                    line,
                    Found::Code {
                        code: code.clone(),
                        raised: Raised::Ctor {
                            ctor: name.clone(),
                            kind: kind.clone(),
                        },
                        message: message.clone(),
                    },
                ));
            }
        }
    }
    // `error(StatusCode::X, "code", …)`: the TV poll's RFC dialect.
    for i in 0..toks.len().saturating_sub(7) {
        if ident(&toks[i]) == Some("error")
            && is(&toks[i + 1], Tok::Punct('('))
            && ident(&toks[i + 2]) == Some("StatusCode")
        {
            let a = args(toks, i + 1);
            let status = a.first().and_then(|s| s.last()).and_then(ident);
            let line = toks[i].line;
            match (status, a.get(1)) {
                (
                    Some(status),
                    Some(
                        [
                            Token {
                                tok: Tok::Str(code),
                                ..
                            },
                        ],
                    ),
                ) if is_code(code) => out.push(site(
                    line,
                    Found::Code {
                        code: code.clone(),
                        raised: Raised::Status(status.to_string()),
                        message: a.get(2).and_then(|m| message(m)),
                    },
                )),
                (status, code) => out.push(site(
                    line,
                    Found::Indirect {
                        ctor: "error(StatusCode…)".into(),
                        kind: status.map(str::to_string),
                        expr: code.map(|c| text(c)).unwrap_or_default(),
                    },
                )),
            }
        }
    }
    // Fields set to literals, and validators.
    for i in 0..toks.len().saturating_sub(2) {
        if let Some(name) = ident(&toks[i]).filter(|n| fields.contains(n))
            && is(&toks[i + 1], Tok::Punct(':'))
            && let Tok::Str(value) = &toks[i + 2].tok
        {
            out.push(site(
                toks[i].line,
                Found::Field {
                    name: name.to_string(),
                    value: value.clone(),
                },
            ));
        }
        if ident(&toks[i]) == Some("Validator")
            && is(&toks[i + 1], Tok::Punct(':'))
            && matches!(toks.get(i + 3).and_then(ident), Some("new" | "default"))
        {
            out.push(site(toks[i].line, Found::Validator));
        }
    }
    out.sort_by_key(|s| s.line);
    out
}

/// The `.rs` files under `dir`, sorted.
fn rust_files(dir: &Path, skip_dirs: &[&str], out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if !skip_dirs.iter().any(|s| p.ends_with(s)) {
                rust_files(&p, skip_dirs, out);
            }
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Every site under `roots` (relative to `repo`), skipping the `skip_dirs` folders (say,
/// `src/bin` of benchmark binaries) and test code: `#[cfg(test)]` items and the files of
/// `#[cfg(test)] mod name;`.
pub fn scan(
    repo: &Path,
    roots: &[&str],
    skip_dirs: &[&str],
    ctors: &[Ctor],
    fields: &[&str],
) -> Vec<Site> {
    let mut files = Vec::new();
    for r in roots {
        rust_files(&repo.join(r), skip_dirs, &mut files);
    }
    let mut lexed = Vec::new();
    let mut test_files = BTreeSet::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let (toks, test_mods) = without_tests(lex(&src));
        let dir = match f.file_stem().and_then(|s| s.to_str()) {
            Some("mod" | "lib" | "main") => f.parent().expect("a folder").to_path_buf(),
            _ => f.with_extension(""),
        };
        for m in test_mods {
            test_files.insert(dir.join(format!("{m}.rs")));
            test_files.insert(dir.join(&m).join("mod.rs"));
        }
        lexed.push((f, toks));
    }
    let mut out = Vec::new();
    for (f, toks) in lexed {
        if test_files.contains(f) {
            continue;
        }
        let rel = f
            .strip_prefix(repo)
            .expect("under the repository")
            .to_string_lossy()
            .replace('\\', "/");
        out.extend(scan_file(&rel, &toks, ctors, fields));
    }
    out
}

fn lex_file(path: &Path) -> Vec<Token> {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    without_tests(lex(&src)).0
}

/// The constructors of `impl Error` in `path`: its `pub fn`s that return `Self` and take no
/// `self`.
pub fn constructors(path: &Path) -> Vec<String> {
    let toks = lex_file(path);
    let Some(start) = toks.windows(3).position(|w| {
        ident(&w[0]) == Some("impl") && ident(&w[1]) == Some("Error") && is(&w[2], Tok::Punct('{'))
    }) else {
        panic!("no `impl Error {{` in {}", path.display());
    };
    let end = closing(&toks, start + 2);
    fns(&toks[..end])
        .into_iter()
        .filter(|f| f.public && !f.takes_self && f.body.0 > start)
        .filter(|f| text(&toks[f.body.0 - 3..f.body.0]) == "->Self")
        .map(|f| f.name)
        .collect()
}

/// An error enum's codes and messages: each `Enum::Variant… => "code"` arm of its `fn code` in
/// `path`, with the variant's `#[error("…")]` message.
pub fn enum_codes(path: &Path, name: &str, code_fn: &str) -> Vec<(String, Option<String>)> {
    let toks = lex_file(path);
    let Some(start) = toks.windows(3).position(|w| {
        ident(&w[0]) == Some("enum") && ident(&w[1]) == Some(name) && is(&w[2], Tok::Punct('{'))
    }) else {
        panic!("no `enum {name} {{` in {}", path.display());
    };
    let mut messages = BTreeMap::new();
    let (mut i, end, mut pending) = (start + 3, closing(&toks, start + 2), None);
    while i < end {
        match (&toks[i].tok, toks.get(i + 2).and_then(ident)) {
            (Tok::Punct('#'), Some("error")) => {
                pending = match toks.get(i + 4).map(|t| &t.tok) {
                    Some(Tok::Str(m)) => Some(m.clone()),
                    _ => None,
                };
                i = closing(&toks, i + 1) + 1;
            }
            (Tok::Punct('#'), _) => i = closing(&toks, i + 1) + 1,
            (Tok::Punct('(' | '{'), _) => i = closing(&toks, i) + 1,
            (Tok::Ident(v), _) => {
                messages.insert(v.clone(), pending.take());
                i += 1;
            }
            _ => i += 1,
        }
    }
    let f = fns(&toks)
        .into_iter()
        .find(|f| f.name == code_fn)
        .unwrap_or_else(|| panic!("no fn {code_fn} in {}", path.display()));
    let body = &toks[f.body.0..f.body.1];
    let mut out = Vec::new();
    for (j, t) in body.iter().enumerate() {
        if ident(t) != Some(name) || !body.get(j + 1).is_some_and(|c| is(c, Tok::Punct(':'))) {
            continue;
        }
        let variant = body.get(j + 3).and_then(ident).unwrap_or_default();
        let arrow = (j..body.len()).find(|&k| {
            is(&body[k], Tok::Punct('=')) && body.get(k + 1).is_some_and(|g| is(g, Tok::Punct('>')))
        });
        if let Some(Tok::Str(code)) = arrow.and_then(|k| body.get(k + 2)).map(|t| &t.tok) {
            out.push((code.clone(), messages.get(variant).cloned().flatten()));
        }
    }
    out
}

/// The variants of the unit-only `enum name` in `path`, in order.
pub fn enum_variants(path: &Path, name: &str) -> Vec<String> {
    let toks = lex_file(path);
    let Some(start) = toks.windows(3).position(|w| {
        ident(&w[0]) == Some("enum") && ident(&w[1]) == Some(name) && is(&w[2], Tok::Punct('{'))
    }) else {
        panic!("no `enum {name} {{` in {}", path.display());
    };
    let end = closing(&toks, start + 2);
    let mut out = Vec::new();
    let mut i = start + 3;
    while i < end {
        if is(&toks[i], Tok::Punct('#')) {
            i = closing(&toks, i + 1) + 1;
            continue;
        }
        if let Some(v) = ident(&toks[i]) {
            out.push(v.to_string());
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CTORS: &[Ctor] = &[
        Ctor {
            name: "conflict",
            code_arg: Some(0),
            message_arg: Some(1),
            kind_arg: None,
        },
        Ctor {
            name: "new",
            code_arg: Some(1),
            message_arg: Some(2),
            kind_arg: Some(0),
        },
        Ctor {
            name: "not_found",
            code_arg: None,
            message_arg: None,
            kind_arg: None,
        },
    ];

    fn found(src: &str) -> Vec<String> {
        let (toks, _) = without_tests(lex(src));
        scan_file("f.rs", &toks, CTORS, &["refused_code"])
            .into_iter()
            .map(|s| match s.found {
                Found::Code {
                    code,
                    raised: Raised::Ctor { ctor, kind },
                    message,
                } => format!("{}: {code} {ctor} {kind:?} {message:?}", s.line),
                other => format!("{}: {other:?}", s.line),
            })
            .collect()
    }

    #[test]
    fn comments_strings_and_test_code_raise_nothing() {
        let src = r##"
            // Error::conflict("in_a_comment", "m")
            /* Error::conflict("in_a_block", /* nested */ "m") */
            const S: &str = "Error::conflict(\"in_a_string\", \"m\")";
            const R: &str = r#"Error::conflict("in_a_raw_string", "m")"#;
            const Q: char = '"';
            fn f<'a>(x: &'a str) -> Error { Error::conflict("real", "a \"quoted\" message") }
            #[cfg(test)]
            mod tests {
                fn g() { Error::conflict("in_a_test", "m"); }
            }
            #[cfg(test)]
            mod more;
            io::Error::new(ErrorKind::Other, "not_ours");
        "##;
        assert_eq!(
            found(src),
            [r#"7: real conflict None Some("a \"quoted\" message")"#]
        );
        assert_eq!(without_tests(lex(src)).1, ["more"]);
    }

    #[test]
    fn codes_are_read_through_branches_wrappers_and_kinds() {
        let src = r#"
            fn refused(code: &'static str, message: &str) -> Error {
                Error::conflict(code, message)
            }
            fn a(x: bool) -> Error {
                Error::conflict(if x { "one" } else { "two" }, format!("{x} m"))
            }
            fn b() -> Error { refused("wrapped", "w") }
            fn c() -> Error { shared::Error::new(shared::ErrorKind::Gone, "gone_code", msg) }
            fn d() -> Error { Error::new(kind, e.code(), "m") }
            fn e() -> Result<()> { x.ok_or_else(|| Error::not_found("row"))?; y.map_err(Error::not_found) }
            const M: Media = Media { refused_code: "not_audio" };
        "#;
        assert_eq!(
            found(src),
            [
                r#"6: one conflict None Some("{x} m")"#,
                r#"6: two conflict None Some("{x} m")"#,
                r#"8: wrapped conflict None Some("w")"#,
                r#"9: gone_code new Some("Gone") None"#,
                r#"10: Indirect { ctor: "new", kind: None, expr: "e.code()" }"#,
                r#"11: Fixed { ctor: "not_found", message: None }"#,
                r#"11: Fixed { ctor: "not_found", message: None }"#,
                r#"12: Field { name: "refused_code", value: "not_audio" }"#,
            ]
        );
    }

    #[test]
    fn an_error_enum_gives_its_codes_with_their_messages() {
        let src = r#"
            #[derive(Debug, thiserror::Error)]
            pub enum HookError {
                /// Doc.
                #[error("the {0} header is missing")]
                MissingHeader(&'static str),
                #[error("no match")]
                Mismatch,
                Bare { at: i64 },
            }
            impl HookError {
                pub fn code(&self) -> &'static str {
                    match self {
                        HookError::MissingHeader(_) => "header_missing",
                        HookError::Mismatch => "mismatch",
                        HookError::Bare { .. } => "bare",
                    }
                }
            }
        "#;
        let path = std::env::temp_dir().join(format!("enum_codes_{}.rs", std::process::id()));
        std::fs::write(&path, src).unwrap();
        let codes = enum_codes(&path, "HookError", "code");
        std::fs::remove_file(&path).unwrap();
        let msg = |s: &str| Some(s.to_string());
        assert_eq!(
            codes,
            [
                ("header_missing".into(), msg("the {0} header is missing")),
                ("mismatch".into(), msg("no match")),
                ("bare".into(), None),
            ]
        );
    }

    #[test]
    fn a_public_wrapper_is_reported_not_guessed() {
        let src = r#"
            pub fn refused(code: &'static str) -> Error { Error::conflict(code, "m") }
            fn b() -> Error { refused("wrapped") }
        "#;
        let f = found(src);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].contains("Indirect") && f[0].contains("pub wrapper"),
            "{f:?}"
        );
    }
}
