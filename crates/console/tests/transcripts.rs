//! The console's output as transcripts: each file of `tests/transcripts/` is a terminal session
//! read as text, the way a person compares it with a real cluster's. A block starts with
//!
//! ```text
//! at SCENARIO TIME from HOST
//! ```
//!
//! (a ready scenario of `web/scenarios/`, or a JSON file beside the transcripts; the world run to
//! report time TIME, in seconds), then commands, each `$ LINE` followed by what the console
//! printed: stdout, then `--- stderr` and stderr if any, then `[exit N]` when the status is not
//! 0, `[after S s]` when the command took a second or more of simulated time, and `[records …]`
//! when it changed the cluster, then a blank line. Lines starting with `#` are comments and stay
//! as written.
//!
//! After an intended change, rewrite them with `UPDATE_GOLDEN=1 cargo test -p console --test
//! transcripts` and review the diff as text: every expected line should be what kubectl,
//! etcdctl or curl prints on a real cluster in that state (the facts sheet's timings; kubectl's
//! printers and errors as the module headers cite them).

use console::{exec, Output};
use sim::world::World;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts")
}

fn scenario(name: &str) -> String {
    let ready = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../web/scenarios")
        .join(format!("{name}.json"));
    let own = dir().join(format!("{name}.json"));
    std::fs::read_to_string(&ready)
        .or_else(|_| std::fs::read_to_string(&own))
        .unwrap_or_else(|_| panic!("no scenario {name} in web/scenarios or tests/transcripts"))
}

/// What a person sees of one command.
fn shown(out: &Output) -> String {
    let mut text = out.stdout.clone();
    if !out.stderr.is_empty() {
        text.push_str("--- stderr\n");
        text.push_str(&out.stderr);
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    if out.status != 0 {
        text.push_str(&format!("[exit {}]\n", out.status));
    }
    if out.took_s >= 1.0 {
        text.push_str(&format!("[after {:.1} s]\n", out.took_s));
    }
    if let Some(action) = &out.record {
        text.push_str(&format!("[records {action:?}]\n"));
    }
    text
}

fn starts_block(line: &str) -> bool {
    line.starts_with("$ ") || line.starts_with("at ") || line.starts_with('#')
}

/// The transcript as the console writes it now: comments, `at` lines and commands kept, every
/// command's output printed afresh.
fn replay(path: &Path, text: &str) -> String {
    let mut out = String::new();
    let mut world: Option<(World, u32)> = None;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix("at ") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let [name, t, "from", host] = words[..] else {
                panic!(
                    "{}: `at SCENARIO TIME from HOST`, not `{line}`",
                    path.display()
                );
            };
            let t: f64 = t.parse().expect("TIME in report seconds");
            let mut w = World::new(sim::scenario::parse(&scenario(name)).unwrap());
            w.run_until(w.at_report_secs(t), u64::MAX);
            let (h, _) = w.scenario().host(host).expect("a host of the scenario");
            world = Some((w, h as u32));
            out.push_str(line);
            out.push('\n');
        } else if let Some(command) = line.strip_prefix("$ ") {
            let (w, from) = world
                .as_ref()
                .unwrap_or_else(|| panic!("{}: a command before any `at`", path.display()));
            out.push_str(line);
            out.push('\n');
            out.push_str(&shown(&exec(w, *from, command)));
            out.push('\n');
            // The output recorded before, blank lines and all, up to the next command, block or
            // comment, is replaced.
            while lines.peek().is_some_and(|l| !starts_block(l)) {
                lines.next();
            }
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[test]
fn the_console_prints_what_its_transcripts_show() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut differ = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let now = replay(&path, &text);
        if now == text {
            continue;
        }
        if update {
            std::fs::write(&path, &now).unwrap();
            continue;
        }
        let (n, (want, got)) = text
            .lines()
            .chain(std::iter::repeat(""))
            .zip(now.lines().chain(std::iter::repeat("")))
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .unwrap_or((0, ("", "")));
        differ.push(format!(
            "{} line {}:\n  transcript: {want}\n  console:    {got}",
            path.display(),
            n + 1
        ));
    }
    assert!(
        differ.is_empty(),
        "{}\nif the change is intended: UPDATE_GOLDEN=1 cargo test -p console --test transcripts, then review the diff",
        differ.join("\n")
    );
}
