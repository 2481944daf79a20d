//! The layers of `shared` point one way (ARCHITECTURE.md, "Layers"): `repo` (the queries) and
//! `model` (the value types they share with the domain) never name `domain`; `model` names no
//! `repo` either; and no modules of `domain` import each other in a cycle.
//!
//! The check reads the source, not the compiler's view, with a deliberately small scanner:
//! comments, strings and char literals are blanked, the rest is cut into identifiers, `::` and
//! single punctuation. It then collects every path: each `use` tree expanded (`a::{b, c::d}`
//! gives `a::b` and `a::c::d`; a group's `self` is its prefix) and every `x::y…` path written
//! inline (a fully qualified type in a signature, `super::x::f()` in a body).
//!
//! - `repo`/`model`: any path with a `domain` segment fails (`crate::domain::…`,
//!   `super::super::domain::…`, `shared::domain::…`, `use crate::{domain}`), as does a `repo`
//!   segment in `model`.
//! - `domain`: each file is a module (`domain/a/mod.rs` is `a`, `domain/a/b.rs` is `a::b`). A
//!   path starting with `crate::domain` or `super` is resolved to the deepest module file it
//!   names (`super::work::CoachingQueue` from `reviews/coaching.rs` is `reviews::work`; an item
//!   of an area's `mod.rs` is the area); that is an edge. `super` inside an inline module
//!   (`mod tests { use super::*; }`) counts the inline levels first, so it stays in the file.
//!   Paths relative to a module's own children (an area's `pub use status::X`) are not edges:
//!   an area's root is the facade of its sub-modules, which may use its items. Two graphs must
//!   be acyclic: the modules', and the areas' (edges between different areas only).
//!
//! What it does not see: macros that build paths, `#[path]` attributes, glob imports' names
//! used later without a path. None are used for imports here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

// ---- the scanner ----

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

/// The source with comments, strings and char literals blanked (newlines kept, so line numbers
/// hold).
fn strip(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    while i < c.len() {
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if c[i] == 'r'
            && (c.get(i + 1) == Some(&'"') || c.get(i + 1) == Some(&'#'))
            && (i == 0 || !(c[i - 1].is_alphanumeric() || c[i - 1] == '_'))
        {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= c.len() {
                    break;
                }
                if c[j] == '"' && (0..hashes).all(|h| c.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                blank(&mut out, c[j]);
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    i += 1;
                }
                if i < c.len() {
                    blank(&mut out, c[i]);
                }
                i += 1;
            }
            out.push_str("\"\"");
            i += 1;
        } else if c[i] == '\'' {
            // A char literal ('x', '\n', '\u{1F600}'), or else a lifetime ('a), kept.
            if c.get(i + 1) == Some(&'\\') {
                let mut j = i + 3;
                while j < c.len() && c[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                out.push(c[i]);
                i += 1;
            }
            out.push(' ');
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// Tokens with their line numbers.
fn tokens(src: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = strip(src).chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            out.push((Tok::Ident(word), line));
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push((Tok::PathSep, line));
            i += 2;
        } else {
            out.push((Tok::Punct(ch), line));
            i += 1;
        }
    }
    out
}

/// A path found in a file: its segments, its line, and how many inline modules (`mod x { … }`)
/// it sits in.
#[derive(Debug, Clone)]
struct Found {
    segs: Vec<String>,
    line: usize,
    inline_depth: usize,
}

/// Expands a `use` tree starting at `t[*i]` (stops before `,`, `}` or `;`).
fn use_tree(t: &[(Tok, usize)], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    loop {
        match t.get(*i).map(|x| &x.0) {
            Some(Tok::Ident(w))
                if w == "self" && !path.is_empty() && path.len() == prefix.len() =>
            {
                // `{self, …}`: the prefix itself.
                *i += 1;
            }
            Some(Tok::Ident(w)) => {
                path.push(w.clone());
                *i += 1;
            }
            Some(Tok::PathSep) => *i += 1,
            Some(Tok::Punct('*')) => *i += 1,
            Some(Tok::Punct('{')) => {
                *i += 1;
                loop {
                    match t.get(*i).map(|x| &x.0) {
                        Some(Tok::Punct('}')) => {
                            *i += 1;
                            break;
                        }
                        Some(Tok::Punct(',')) => *i += 1,
                        None => return,
                        _ => use_tree(t, i, &path, out),
                    }
                }
                return;
            }
            _ => break,
        }
        // `as name` ends the path.
        if let Some(Tok::Ident(w)) = t.get(*i).map(|x| &x.0)
            && w == "as"
            && matches!(t.get(*i - 1).map(|x| &x.0), Some(Tok::Ident(_)))
        {
            out.push(path.clone());
            *i += 2;
            return;
        }
    }
    out.push(path);
}

/// Every path in a file's source.
fn paths(src: &str) -> Vec<Found> {
    let t = tokens(src);
    let mut out = Vec::new();
    let mut depth = 0usize; // brace depth
    let mut inline: Vec<usize> = Vec::new(); // brace depths at which inline modules opened
    let mut i = 0;
    while i < t.len() {
        let word = match &t[i].0 {
            Tok::Ident(w) => Some(w.as_str()),
            _ => None,
        };
        match (&t[i].0, word) {
            (Tok::Punct('{'), _) => {
                depth += 1;
                i += 1;
            }
            (Tok::Punct('}'), _) => {
                if inline.last() == Some(&depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            (_, Some("mod"))
                if matches!(t.get(i + 1).map(|x| &x.0), Some(Tok::Ident(_)))
                    && t.get(i + 2).map(|x| &x.0) == Some(&Tok::Punct('{')) =>
            {
                inline.push(depth + 1);
                i += 2;
            }
            (_, Some("use")) => {
                let line = t[i].1;
                i += 1;
                let mut trees = Vec::new();
                while i < t.len() && t[i].0 != Tok::Punct(';') {
                    let before = i;
                    use_tree(&t, &mut i, &[], &mut trees);
                    if i == before {
                        i += 1;
                    }
                }
                out.extend(trees.into_iter().map(|segs| Found {
                    segs,
                    line,
                    inline_depth: inline.len(),
                }));
            }
            (Tok::Ident(first), _) if t.get(i + 1).map(|x| &x.0) == Some(&Tok::PathSep) => {
                let line = t[i].1;
                let mut segs = vec![first.clone()];
                i += 1;
                while t.get(i).map(|x| &x.0) == Some(&Tok::PathSep) {
                    match t.get(i + 1).map(|x| &x.0) {
                        Some(Tok::Ident(w)) => {
                            segs.push(w.clone());
                            i += 2;
                        }
                        _ => break,
                    }
                }
                out.push(Found {
                    segs,
                    line,
                    inline_depth: inline.len(),
                });
            }
            _ => i += 1,
        }
    }
    out
}

// ---- the rules ----

/// A module of `domain` by its path (`[]` is `domain/mod.rs`).
type Module = Vec<String>;

/// Where a path names something in `domain`, seen from module `from`: the path below
/// `crate::domain`, or `None` (outside `domain`, inside the same file, or relative).
fn resolve(from: &Module, f: &Found) -> Option<Vec<String>> {
    let s = &f.segs;
    match s.first().map(String::as_str) {
        Some("crate") => (s.get(1).map(String::as_str) == Some("domain")).then(|| s[2..].to_vec()),
        Some("super") => {
            let ups = s.iter().take_while(|x| *x == "super").count();
            // `super` inside inline modules climbs those first.
            let ups = ups.checked_sub(f.inline_depth).filter(|u| *u > 0)?;
            let mut abs: Vec<String> = ["crate", "domain"].map(String::from).to_vec();
            abs.extend(from.iter().cloned());
            for _ in 0..ups {
                abs.pop()?;
            }
            abs.extend(s[ups + f.inline_depth..].iter().cloned());
            (abs.len() >= 2 && abs[0] == "crate" && abs[1] == "domain").then(|| abs[2..].to_vec())
        }
        _ => None,
    }
}

/// The deepest module file a resolved path names.
fn node_of(modules: &BTreeSet<Module>, target: &[String]) -> Module {
    (0..=target.len())
        .rev()
        .map(|n| target[..n].to_vec())
        .find(|m| modules.contains(m))
        .unwrap_or_default()
}

/// An edge with where it was first seen (`file:line`).
type Edges = BTreeMap<(Module, Module), String>;

/// The import edges among `files` (`(module, file name, source)`).
fn domain_edges(files: &[(Module, String, String)]) -> Edges {
    let modules: BTreeSet<Module> = files.iter().map(|f| f.0.clone()).collect();
    let mut edges = Edges::new();
    for (module, name, src) in files {
        for found in paths(src) {
            let Some(target) = resolve(module, &found) else {
                continue;
            };
            let to = node_of(&modules, &target);
            if &to != module {
                edges
                    .entry((module.clone(), to))
                    .or_insert_with(|| format!("{name}:{}", found.line));
            }
        }
    }
    edges
}

/// The area graph: edges between different areas (`domain/mod.rs` is the area "").
fn area_edges(edges: &Edges) -> Edges {
    let area = |m: &Module| m.first().cloned().into_iter().collect::<Module>();
    let mut out = Edges::new();
    for ((a, b), at) in edges {
        if area(a) != area(b) {
            out.entry((area(a), area(b))).or_insert_with(|| at.clone());
        }
    }
    out
}

fn show(m: &Module) -> String {
    if m.is_empty() {
        "domain".to_string()
    } else {
        m.join("::")
    }
}

/// Every cycle a depth-first search meets (one per back edge), each as `a -> b (file:line) -> a`.
fn cycles(edges: &Edges) -> Vec<String> {
    let mut next: BTreeMap<&Module, Vec<&Module>> = BTreeMap::new();
    for (a, b) in edges.keys() {
        next.entry(a).or_default().push(b);
    }
    // 0 unseen, 1 on the stack, 2 done.
    fn visit<'a>(
        m: &'a Module,
        next: &BTreeMap<&'a Module, Vec<&'a Module>>,
        edges: &Edges,
        state: &mut BTreeMap<&'a Module, u8>,
        stack: &mut Vec<&'a Module>,
        found: &mut Vec<String>,
    ) {
        state.insert(m, 1);
        stack.push(m);
        for &n in next.get(m).into_iter().flatten() {
            match state.get(n).copied().unwrap_or(0) {
                0 => visit(n, next, edges, state, stack, found),
                1 => {
                    let start = stack.iter().position(|x| *x == n).unwrap();
                    let mut ring: Vec<&Module> = stack[start..].to_vec();
                    ring.push(n);
                    let text = ring
                        .windows(2)
                        .map(|w| {
                            let at = &edges[&(w[0].clone(), w[1].clone())];
                            format!("{} -> {} ({at})", show(w[0]), show(w[1]))
                        })
                        .collect::<Vec<_>>()
                        .join(", ");
                    found.push(text);
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(m, 2);
    }
    let mut state = BTreeMap::new();
    let mut found = Vec::new();
    for m in next.keys() {
        if state.get(m).copied().unwrap_or(0) == 0 {
            visit(m, &next, edges, &mut state, &mut Vec::new(), &mut found);
        }
    }
    found
}

/// The paths in `src` that a lower layer may not write: with a segment in `banned`.
fn banned_paths(src: &str, banned: &[&str]) -> Vec<(usize, String)> {
    paths(src)
        .into_iter()
        .filter(|f| f.segs.iter().any(|s| banned.contains(&s.as_str())))
        .map(|f| (f.line, f.segs.join("::")))
        .collect()
}

// ---- the source tree ----

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `domain`'s files as modules.
fn domain_files() -> Vec<(Module, String, String)> {
    let root = src_dir().join("domain");
    rust_files(&root)
        .into_iter()
        .map(|path| {
            let rel = path.strip_prefix(&root).unwrap().with_extension("");
            let mut module: Module = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|l| l == "mod") {
                module.pop();
            }
            let name = format!("shared/src/domain/{}", rel.display());
            (module, format!("{name}.rs"), read(&path))
        })
        .collect()
}

fn lower_layer_violations(layer: &str, banned: &[&str]) -> Vec<String> {
    rust_files(&src_dir().join(layer))
        .into_iter()
        .flat_map(|path| {
            let name = path.strip_prefix(src_dir()).unwrap().display().to_string();
            banned_paths(&read(&path), banned)
                .into_iter()
                .map(move |(line, p)| format!("shared/src/{name}:{line}: {p}"))
        })
        .collect()
}

// ---- the checks ----

#[test]
fn the_query_layer_names_no_domain_path() {
    let found = lower_layer_violations("repo", &["domain"]);
    assert!(
        found.is_empty(),
        "repo depends only on model and db: move the value type into shared/src/model/<area>.rs \
         (the domain re-exports it), or pass the fields the query needs:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_model_layer_names_neither_domain_nor_repo() {
    let found = lower_layer_violations("model", &["domain", "repo"]);
    assert!(
        found.is_empty(),
        "model sits below repo and domain:\n{}",
        found.join("\n")
    );
}

#[test]
fn domain_modules_import_each_other_without_cycles() {
    let files = domain_files();
    let edges = domain_edges(&files);
    // A scanner that finds nothing passes everything: make sure it reads the tree.
    assert!(
        files.len() > 20 && edges.len() > 50,
        "the scanner found {} files and {} edges",
        files.len(),
        edges.len()
    );
    let mut found = cycles(&edges);
    found.extend(
        cycles(&area_edges(&edges))
            .into_iter()
            .map(|c| format!("areas: {c}")),
    );
    assert!(
        found.is_empty(),
        "import cycles in shared/src/domain (move the shared piece into the lower module or \
         into shared/src/model, or pass what the lower one needs):\n{}",
        found.join("\n")
    );
}

// ---- the scanner on small trees, so the checks above can fail ----

fn module(path: &str) -> Module {
    path.split("::")
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

fn tree(files: &[(&str, &str)]) -> Vec<(Module, String, String)> {
    files
        .iter()
        .map(|(m, src)| (module(m), format!("{m}.rs"), src.to_string()))
        .collect()
}

#[test]
fn use_trees_expand_and_comments_and_strings_do_not_count() {
    let src = r#"
        //! See `crate::domain::x` and super::y.
        use crate::{db::{self, Id}, domain::a::{b as c, d::*}};
        /* use crate::domain::hidden; */
        const S: &str = "crate::domain::in_a_string";
        fn f() -> crate::domain::e::F { super::g::h() }
    "#;
    let got: Vec<String> = paths(src).iter().map(|f| f.segs.join("::")).collect();
    for want in [
        "crate::db",
        "crate::db::Id",
        "crate::domain::a::b",
        "crate::domain::a::d",
        "crate::domain::e::F",
        "super::g::h",
    ] {
        assert!(got.contains(&want.to_string()), "{want} missing in {got:?}");
    }
    assert!(
        !got.iter()
            .any(|p| p.contains("hidden") || p.contains("in_a_string")),
        "{got:?}"
    );
    assert_eq!(
        banned_paths("//! crate::domain::x\nuse crate::db;", &["domain"]),
        []
    );
}

#[test]
fn a_repo_module_naming_the_domain_is_found_however_it_is_written() {
    for src in [
        "use crate::domain::wearable::codec::Chunk;",
        "use crate::{db::Id, domain::reviews::ReviewStatus};",
        "use super::super::domain::x::Y;",
        "pub fn f(r: &[crate::domain::wearable::detect::Ride]) {}",
        "fn f() { let s = shared::domain::footage::SessionStatus::Stored; }",
        "use crate::domain as d;",
    ] {
        assert!(
            !banned_paths(src, &["domain"]).is_empty(),
            "not found: {src}"
        );
    }
}

#[test]
fn cycles_are_found_between_sub_modules_and_between_areas() {
    // reviews::coaching ↔ reviews::work, through `super::`.
    let t = tree(&[
        ("reviews", "pub mod coaching; pub mod work;"),
        ("reviews::coaching", "use super::work::Queue;"),
        (
            "reviews::work",
            "pub struct Job { pub mode: super::coaching::Mode }",
        ),
    ]);
    let found = cycles(&domain_edges(&t));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("reviews::coaching -> reviews::work (reviews::coaching.rs:1)"));

    // messaging ↔ notifications, only as areas (different sub-modules).
    let t = tree(&[
        ("", "pub mod messaging; pub mod notifications;"),
        ("messaging", "pub struct Access;"),
        (
            "messaging::messages",
            "use crate::domain::notifications::{self, Queue};",
        ),
        ("notifications", "use super::messaging::Access;"),
    ]);
    let edges = domain_edges(&t);
    assert!(cycles(&edges).is_empty());
    assert_eq!(cycles(&area_edges(&edges)).len(), 1);

    // Without the back edge, none.
    let t = tree(&[
        (
            "reviews::coaching",
            "use super::work::Queue; use super::Origin;",
        ),
        ("reviews::work", "use crate::model::reviews::Mode;"),
        ("reviews", "pub use coaching::X; pub use status::Y;"),
    ]);
    assert!(cycles(&domain_edges(&t)).is_empty());
}

#[test]
fn super_in_an_inline_test_module_stays_in_its_file() {
    let t = tree(&[
        ("a", "pub mod b; pub mod c;"),
        (
            "a::b",
            "fn f() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::c::X;\n}",
        ),
        (
            "a::c",
            "use super::Y; const Q: char = '\\''; fn g<'a>(x: &'a str) {}",
        ),
    ]);
    let edges = domain_edges(&t);
    let got: Vec<_> = edges
        .iter()
        .map(|((a, b), at)| format!("{} -> {} ({at})", show(a), show(b)))
        .collect();
    assert_eq!(
        got,
        ["a::b -> a::c (a::b.rs:5)", "a::c -> a (a::c.rs:1)"],
        "in a test module, super is the file and super::super its parent"
    );
}
