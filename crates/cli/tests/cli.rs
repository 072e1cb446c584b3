//! The runner as a user calls it: `clustersim run FILE --json`, and bad input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn clustersim(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_clustersim"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A runner given a file does not read stdin and may be gone before the write: a broken
    // pipe then is no failure.
    let written = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    if let Err(e) = written {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

const VALID: &str = r#"{"version": 1, "name": "cli", "seed": 3, "duration": "30s",
  "hosts": [{"name": "etcd-1", "roles": ["etcd"]}, {"name": "etcd-2", "roles": ["etcd"]}, {"name": "etcd-3", "roles": ["etcd"]}],
  "events": [{"at": "10s", "action": "crash", "host": "etcd-1"}]}"#;

#[test]
fn run_json_prints_the_report_of_the_format() {
    let out = clustersim(&["run", "-", "--json"], VALID);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("stdout is one JSON object");
    assert_eq!(r["scenario"], "cli");
    assert_eq!(r["seed"], 3);
    assert_eq!(r["duration_s"], 30.0);
    for key in [
        "quorum_lost_s",
        "leader_changes",
        "writes_ok",
        "writes_failed",
    ] {
        assert!(r["summary"]["etcd"][key].is_number(), "summary.etcd.{key}");
    }
    assert!(r["summary"]["operations"].is_array() && r["summary"]["violations"].is_array());
    assert_eq!(
        r["series"]["t"].as_array().unwrap().len(),
        31,
        "one sample per second, 0..=30"
    );
    let crash = r["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "host.crashed")
        .unwrap();
    assert_eq!(
        (crash["t"].as_f64(), crash["host"].as_str()),
        (Some(10.0), Some("etcd-1"))
    );
    assert!(crash["text"].as_str().unwrap().contains("etcd-1"));
}

#[test]
fn bad_input_exits_non_zero_with_one_message_naming_the_field() {
    let cases: &[(&str, &str)] = &[
        ("{\"version\": 1,", "invalid JSON"),
        (
            r#"{"version": 1, "name": "x", "duration": "1m", "hosts": [{"name": "a", "roles": "etcd"}]}"#,
            "hosts[0].roles",
        ),
        (
            r#"{"version": 1, "name": "x", "duration": "1m", "hosts": [{"name": "a", "zone": "rack-c", "roles": ["etcd"]}]}"#,
            "hosts[0].zone",
        ),
        (
            r#"{"version": 1, "name": "x", "duration": "-1m", "hosts": [{"name": "a", "roles": ["etcd"]}]}"#,
            "duration",
        ),
        (
            r#"{"version": 1, "name": "x", "duration": "1m", "hosts": [{"name": "a", "roles": ["etcd"]}], "settings": {"bogus": 1}}"#,
            "settings.bogus",
        ),
        (
            r#"{"version": 1, "name": "x", "duration": "1m", "hosts": [{"name": "a", "roles": ["etcd"]}], "events": [{"at": "1s", "action": "explode"}]}"#,
            "events[0].action",
        ),
        (
            r#"{"version": 1, "name": "x", "duration": "1m", "hosts": [{"name": "<script>", "roles": ["etcd"]}]}"#,
            "hosts[0].name",
        ),
        (
            r#"{"version": 1, "name": "x", "duration": "1m", "hosts": [{"name": "a", "roles": ["etcd"]}], "events": [{"at": "1s", "action": "crash", "host": "nope"}]}"#,
            "events[0].host",
        ),
    ];
    for (input, field) in cases {
        let out = clustersim(&["run", "-", "--json"], input);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{input}");
        assert!(out.stdout.is_empty(), "{input}: no report on bad input");
        assert!(
            stderr.contains(field),
            "{input}: message must name {field}: {stderr}"
        );
        assert_eq!(stderr.trim().lines().count(), 1, "one message: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn a_missing_file_is_a_clear_error() {
    let out = clustersim(&["run", "/nonexistent/scenario.json"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/scenario.json"));
}

#[test]
fn run_trace_prints_the_golden_trace() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let scenario = std::fs::read_to_string(format!("{root}/tests/scenarios/etcd-rack-split.json"))
        .expect("a test scenario");
    let golden = std::fs::read_to_string(format!("{root}/tests/golden/etcd-rack-split.trace"))
        .expect("its golden trace");
    let out = clustersim(&["run", "-", "--trace"], &scenario);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), golden);
    let both = clustersim(&["run", "-", "--trace", "--json"], &scenario);
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn exec_runs_kubectl_from_a_host_at_a_moment_with_the_tools_status() {
    let scenario = format!(
        "{}/../../web/scenarios/1-only-master-dies.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    // Healthy at 30 s, from the first client host (the default vantage).
    let out = clustersim(
        &[
            "exec", &scenario, "--at", "30s", "--", "kubectl", "get", "nodes",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("NAME       STATUS   ROLES           AGE   VERSION\n"),
        "{}",
        text(&out.stdout)
    );
    // The master is down at 2 min: kubectl's error on stderr, kubectl's status.
    let out = clustersim(
        &[
            "exec", &scenario, "--at", "2m", "--", "kubectl", "get", "pods",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("Unable to connect to the server: dial tcp"));
    // The runner's own problems: exit 2, one line naming it.
    for (args, msg) in [
        (
            vec!["--at", "2m", "--from", "nope"],
            "--from: no host \"nope\"",
        ),
        (
            vec!["--at", "2m", "--from", "master"],
            "--from: master is not running at 120 s",
        ),
        (vec!["--at", "9h"], "--at 9h is beyond the run"),
    ] {
        let mut all = vec!["exec", scenario.as_str()];
        all.extend(args);
        all.extend(["--", "kubectl", "get", "nodes"]);
        let out = clustersim(&all, "");
        assert_eq!(out.status.code(), Some(2));
        let err = text(&out.stderr);
        assert!(err.contains(msg) && err.lines().count() == 1, "{err}");
    }
}

#[test]
fn exec_save_writes_the_scenario_with_the_command_as_an_event() {
    let scenario = format!(
        "{}/../../web/scenarios/7-worker-dies.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let saved = std::env::temp_dir().join(format!("clustersim-save-{}.json", std::process::id()));
    let saved_s = saved.to_string_lossy().to_string();
    let out = clustersim(
        &[
            "exec",
            &scenario,
            "--at",
            "2m",
            "--save",
            &saved_s,
            "--",
            "kubectl",
            "scale",
            "deploy",
            "web",
            "--replicas=5",
        ],
        "",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&saved).unwrap();
    let _ = std::fs::remove_file(&saved);
    let s = sim::scenario::parse(&text).expect("a valid scenario");
    // In time order: the crash at 1 min, the scale at 2 min, the forced delete at 8 min.
    let actions: Vec<(f64, &str)> = s
        .events
        .iter()
        .map(|e| (e.at.as_secs_f64(), e.action.name()))
        .collect();
    assert_eq!(
        actions,
        [(60.0, "crash"), (120.0, "scale"), (480.0, "delete_pod")]
    );
    // Its run has the five replicas.
    let report = sim::run_scenario(&text).unwrap();
    assert_eq!(report.summary.workloads["web"].final_running, 5);
}
