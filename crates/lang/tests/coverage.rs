//! Every text a run writes is translated into every language: the event texts of all ready
//! scenarios and test scenarios, and every key of one catalog is in the others.

use lang::{Catalog, Lang};
use std::collections::BTreeSet;

fn catalog(l: Lang) -> Catalog {
    let path = format!(
        "{}/../../web/lang/{}.txt",
        env!("CARGO_MANIFEST_DIR"),
        l.code()
    );
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Catalog::parse(l, &json).unwrap_or_else(|e| panic!("{e}"))
}

const TRANSLATED: [Lang; 3] = [Lang::Ru, Lang::Zh, Lang::De];

/// The scenario files a run of the playground starts from.
fn scenarios() -> Vec<(String, String)> {
    let root = format!("{}/../..", env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![];
    for dir in ["web/scenarios", "tests/scenarios"] {
        let mut files: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for f in files {
            out.push((
                f.display().to_string(),
                std::fs::read_to_string(&f).unwrap(),
            ));
        }
    }
    out
}

/// The distinct event texts of every scenario's run.
fn event_texts() -> BTreeSet<String> {
    let mut texts = BTreeSet::new();
    for (name, json) in scenarios() {
        let r = sim::run_scenario(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
        texts.extend(r.events.into_iter().map(|e| e.text));
    }
    texts
}

#[test]
fn every_key_is_in_every_language() {
    let keys: Vec<(Lang, BTreeSet<String>)> = TRANSLATED
        .iter()
        .map(|&l| (l, catalog(l).keys().into_iter().collect()))
        .collect();
    let all: BTreeSet<&String> = keys.iter().flat_map(|(_, k)| k).collect();
    let mut missing = vec![];
    for (l, k) in &keys {
        for key in &all {
            if !k.contains(*key) {
                missing.push(format!("{}: {key}", l.code()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "missing translations:\n{}",
        missing.join("\n")
    );
}

#[test]
fn no_event_text_is_left_in_english() {
    let texts = event_texts();
    let mut left = vec![];
    for l in TRANSLATED {
        let c = catalog(l);
        for t in &texts {
            let out = c.text(t);
            if !c.translates(t) || english_left(&out) {
                left.push(format!("{}: {t}  →  {out}", l.code()));
            }
        }
    }
    assert!(
        left.is_empty(),
        "{} texts left in English:\n{}",
        left.len(),
        left.join("\n")
    );
}

/// Messages the simulation quotes as Kubernetes and etcd write them, in English whatever the
/// reader's language (as a real cluster answers): each from its start to the end of its clause.
const VERBATIM: [&str; 5] = [
    "Cannot evict pod",
    "nodes are available:",
    "etcdserver:",
    "error when evicting",
    "not found",
];

/// Whether a translation still has English words in it (names of hosts, pods and the
/// Kubernetes terms the communities write in English aside, and the quoted [`VERBATIM`]).
fn english_left(s: &str) -> bool {
    let mut s = s.to_string();
    for v in VERBATIM {
        while let Some(at) = s.find(v) {
            let end = s[at..]
                .find([';', ')', '；', '）'])
                .map_or(s.len(), |e| at + e);
            s.replace_range(at..end, "");
        }
    }
    const ENGLISH: [&str; 12] = [
        " the ", " is ", " was ", " and ", " its ", " it ", " of ", " to ", " from ", " not ",
        " with ", " went ",
    ];
    let padded = format!(" {s} ");
    ENGLISH.iter().any(|w| padded.contains(w))
}

/// The texts the page passes to `language::t` and `ts` (also as `tr(…)`, `trs(…)`) or marks for
/// it (`mark(…)`): literals; and the format strings of `tf(format_args!(…))` as templates.
fn page_texts() -> BTreeSet<String> {
    let root = format!("{}/../app/src", env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![];
    let mut dirs = vec![std::path::PathBuf::from(root)];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let mut texts = BTreeSet::new();
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        // A call, then (after any line break) the literal: `t("…")`, `tf(format_args!(\n "…"`.
        for opener in ["t(", "tr(", "ts(", "trs(", "mark(", "tf(", "trf("] {
            for (at, _) in src.match_indices(opener) {
                let before = src[..at].chars().last();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let rest = src[at + opener.len()..].trim_start();
                let (format, rest) = match rest.strip_prefix("format_args!(") {
                    Some(r) => (true, r.trim_start()),
                    None => (false, rest),
                };
                let Some(body) = rest.strip_prefix('"') else {
                    continue;
                };
                let literal = string_literal(body);
                texts.insert(if format {
                    as_template(&literal)
                } else {
                    literal
                });
            }
        }
    }
    texts
}

/// The text of a Rust string literal whose body starts `src` (up to its closing quote).
fn string_literal(src: &str) -> String {
    let mut out = String::new();
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => return out,
            '\\' => match chars.next() {
                Some('\n') => {
                    while chars.peek().is_some_and(|c| c.is_whitespace()) {
                        chars.next();
                    }
                }
                Some('n') => out.push('\n'),
                Some(c) => out.push(c),
                None => break,
            },
            c => out.push(c),
        }
    }
    panic!("an unclosed string literal: {src:.40}")
}

/// A format string as a catalog key: each `{…}` becomes `{}`.
fn as_template(format: &str) -> String {
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('{', Some('{')) | ('}', Some('}')) => {
                chars.next();
                out.push(c);
                out.push(c);
            }
            ('{', _) => {
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
                out.push_str("{}");
            }
            (c, _) => out.push(c),
        }
    }
    out
}

#[test]
fn every_text_of_the_page_is_in_every_catalog() {
    let texts = page_texts();
    assert!(texts.len() > 30, "the page's texts were found: {texts:?}");
    let mut missing = vec![];
    for l in TRANSLATED {
        let keys: BTreeSet<String> = catalog(l).keys().into_iter().collect();
        for t in &texts {
            if !keys.contains(t) {
                missing.push(format!("{}: {t}", l.code()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "{} page texts missing:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// The simulation's refusals of a broken scenario (shown when a link or an edit is refused) are
/// in every language: each mutation of a ready scenario below is refused with a message.
#[test]
fn refusals_of_a_broken_scenario_are_translated() {
    let root = format!("{}/../..", env!("CARGO_MANIFEST_DIR"));
    let base: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{root}/web/scenarios/4-rack-split.json")).unwrap(),
    )
    .unwrap();
    type Mutation = fn(&mut serde_json::Value);
    let mutations: [Mutation; 16] = [
        |v| v["hosts"][0]["name"] = "".into(),
        |v| v["hosts"][1]["name"] = v["hosts"][0]["name"].clone(),
        |v| v["hosts"][0]["roles"] = serde_json::json!(["master"]),
        |v| v["duration"] = "soon".into(),
        |v| v["duration"] = "30d".into(),
        |v| v["version"] = 2.into(),
        |v| v["nonsense"] = true.into(),
        |v| v["workloads"][0]["replicas"] = (-1).into(),
        |v| v["workloads"][0]["kind"] = "Job".into(),
        |v| v["events"][0]["at"] = "100h".into(),
        |v| v["events"][0]["action"] = "explode".into(),
        |v| v["settings"] = serde_json::json!({"lease_duration": "0s"}),
        |v| v["settings"] = serde_json::json!({"no_such_setting": "1s"}),
        |v| v["hosts"] = serde_json::json!([]),
        |v| v["seed"] = "x".into(),
        |v| v["faults"] = serde_json::json!([{"hosts": "all", "mtbf": "1h"}]),
    ];
    let mut refusals = vec![];
    for m in mutations {
        let mut v = base.clone();
        m(&mut v);
        let e = sim::scenario::parse(&v.to_string()).expect_err("a broken scenario is refused");
        refusals.push(e.to_string());
    }
    refusals.push(sim::scenario::parse("{").unwrap_err().to_string());
    let mut left = vec![];
    for l in TRANSLATED {
        let c = catalog(l);
        for r in &refusals {
            let out = c.text(r);
            if !c.translates(r) || english_left(&out) {
                left.push(format!("{}: {r}  →  {out}", l.code()));
            }
        }
    }
    assert!(
        left.is_empty(),
        "{} refusals left in English:\n{}",
        left.len(),
        left.join("\n")
    );
}
