//! The console's output as transcripts: each file of `tests/transcripts/` is a terminal session
//! read as text, the way a person compares it with a real cluster's, in the datadriven form of
//! etcd-raft and raft-rs (a directive, its input, `----`, what came out). Two directives:
//!
//! - `at scenario=NAME t=SECONDS from=HOST`: the world of a ready scenario (`web/scenarios/`, or
//!   a JSON file of `tests/`) run to report time SECONDS, seen from HOST;
//! - `run` with a command line as its input: what the console printed, stdout (after `---
//!   stdout` when it starts with a blank line), then `--- stderr`
//!   and stderr if any, then `[exit N]` when the status is not 0, `[after S s]` when it took a
//!   second or more of simulated time, and `[records …]` when it changed the cluster.
//!
//! After an intended change, rewrite them with `REWRITE=1 cargo test -p console --test
//! transcripts` and review the diff as text: every expected line should be what kubectl,
//! etcdctl or curl prints on a real cluster in that state (the facts sheet's timings; kubectl's
//! printers and errors as the module headers cite them).

use console::{exec, Output};
use sim::world::World;
use std::path::PathBuf;

fn scenario(name: &str) -> String {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let ready = here.join(format!("../../web/scenarios/{name}.json"));
    let own = here.join(format!("tests/{name}.json"));
    std::fs::read_to_string(&ready)
        .or_else(|_| std::fs::read_to_string(&own))
        .unwrap_or_else(|_| panic!("no scenario {name} in web/scenarios or crates/console/tests"))
}

/// What a person sees of one command.
fn shown(out: &Output) -> String {
    // (A blank first line would end the case: datadriven's double separator is only written
    // for outputs with an empty line inside.)
    let mut text = match out.stdout.starts_with('\n') {
        true => format!("--- stdout\n{}", out.stdout),
        false => out.stdout.clone(),
    };
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

#[test]
fn the_console_prints_what_its_transcripts_show() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/transcripts");
    datadriven::walk(dir, |file| {
        let mut at: Option<(World, u32)> = None;
        file.run(|case| -> String {
            match case.directive.as_str() {
                "at" => {
                    let name: String = case.take_arg("scenario").unwrap();
                    let t: f64 = case.take_arg("t").unwrap();
                    let host: String = case.take_arg("from").unwrap();
                    let mut w = World::new(sim::scenario::parse(&scenario(&name)).unwrap());
                    w.run_until(w.at_report_secs(t), u64::MAX);
                    let (h, _) = w.scenario().host(&host).expect("a host of the scenario");
                    at = Some((w, h as u32));
                    String::new()
                }
                "run" => {
                    let (w, from) = at.as_ref().expect("`at` before the first `run`");
                    shown(&exec(w, *from, case.input.trim_end_matches('\n')))
                }
                other => panic!("unknown directive {other}"),
            }
        })
    });
}
