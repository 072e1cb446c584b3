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

/// `bench-checkpoints FILE EVERY`: the scenario in the file for its own length, a copy every
/// EVERY simulated seconds; a file that does not read is named.
#[test]
fn bench_checkpoints_runs_a_scenario_file() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let file = format!("{root}/tests/scenarios/etcd-leader-dies.json");
    let out = clustersim(&["bench-checkpoints", &file, "60"], "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Two simulated minutes and the boot before them, a copy a minute.
    assert!(
        stdout.starts_with("3 copies of the world of ") && stdout.contains("etcd-leader-dies.json"),
        "{stdout}"
    );
    let out = clustersim(
        &["bench-checkpoints", "/nonexistent/scenario.json", "60"],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/scenario.json"));
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
fn exec_takes_a_line_of_commands_as_one_argument_or_as_separate_words() {
    let scenario = format!(
        "{}/../../web/scenarios/1-only-master-dies.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let line = "kubectl port-forward svc/web 8080:80 & curl localhost:8080";
    let one = clustersim(&["exec", &scenario, "--at", "30s", "--", line], "");
    let mut words = vec!["exec", scenario.as_str(), "--at", "30s", "--"];
    words.extend(line.split(' '));
    let split = clustersim(&words, "");
    for out in [&one, &split] {
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert!(
            stdout.starts_with("Forwarding from 127.0.0.1:8080 -> 80\n")
                && stdout.contains("Handling connection for 8080\nHostname: web-"),
            "{stdout}"
        );
    }
    assert_eq!(one.stdout, split.stdout);
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

const FAULTY: &str = r#"{"version": 1, "name": "faulty etcd", "seed": 3, "duration": "30s",
  "hosts": [{"name": "etcd-1", "roles": ["etcd"]}, {"name": "etcd-2", "roles": ["etcd"]}, {"name": "etcd-3", "roles": ["etcd"]}],
  "faults": [{"hosts": "all", "mtbf": "3m", "mttr": "1m"}]}"#;

fn stdout_of(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn study_is_the_same_on_any_threads_and_shards_and_its_worst_trial_replays() {
    let dir = std::env::temp_dir().join(format!("clustersim-study-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.json");
    std::fs::write(&file, FAULTY).unwrap();
    let f = file.to_str().unwrap();
    let study = |extra: &[&str]| {
        let mut args = vec!["study", f, "--trials", "5", "--horizon", "10m", "--json"];
        args.extend_from_slice(extra);
        stdout_of(&clustersim(&args, ""))
    };
    let one = study(&["--threads", "1"]);
    assert_eq!(
        study(&["--threads", "3"]),
        one,
        "thread count changes nothing"
    );
    let v: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(v["trials"], 5);
    assert_eq!(v["horizon_s"], 600.0);
    assert_eq!(v["shard"], "1/1");
    let q = &v["etcd"]["quorum_unavailability"];
    assert!(q["ci95"][0].as_f64().unwrap() <= q["mean"].as_f64().unwrap());
    // Two shards written to files and merged: the unsharded report, byte for byte.
    let mut parts = Vec::new();
    for k in ["2/2", "1/2"] {
        let p = dir.join(format!("shard-{}.json", &k[..1]));
        std::fs::write(&p, study(&["--shard", k])).unwrap();
        parts.push(p.to_str().unwrap().to_string());
    }
    let merged = stdout_of(&clustersim(
        &["study", "merge", &parts[0], &parts[1], "--json"],
        "",
    ));
    assert_eq!(merged, one);
    // An Indexed Job's pods count from 0: --shard-index I/M is shard I+1 of M.
    assert_eq!(study(&["--shard-index", "0/2"]), study(&["--shard", "1/2"]));
    for bad in ["2/2", "-1/2", "x"] {
        let out = clustersim(
            &[
                "study",
                f,
                "--trials",
                "5",
                "--horizon",
                "10m",
                "--shard-index",
                bad,
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--shard-index: expected I/M with 0 ≤ I < M"),
            "{err}"
        );
    }
    // The worst trial is an ordinary run of its seed over the horizon.
    let worst = &v["worst"][0];
    let seed = worst["seed"].as_u64().unwrap().to_string();
    let run = stdout_of(&clustersim(
        &["run", f, "--seed", &seed, "--duration", "10m", "--json"],
        "",
    ));
    let run: serde_json::Value = serde_json::from_str(&run).unwrap();
    assert_eq!(
        run["summary"]["etcd"]["quorum_lost_s"],
        worst["etcd_quorum_lost_s"]
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_faults_and_study_requests_exit_2_naming_the_problem() {
    let bad = FAULTY.replace(r#""hosts": "all""#, r#""hosts": ["etcd-7"]"#);
    let out = clustersim(&["run", "-", "--json"], &bad);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "clustersim: -: faults[0].hosts[0]: unknown host or zone \"etcd-7\"\n"
    );
    for (args, message) in [
        (vec!["--trials", "2", "--horizon", "9000000h"],
         "clustersim: --horizon: 9000000h exceeds the limit of 8760000h (1,000 years)\n"),
        (vec!["--trials", "2", "--horizon", "8000000h"],
         "clustersim: --horizon: the fault processes would draw about 720000000 faults and repairs in 8000000h; the limit for a trial is 10000000\n"),
        (vec!["--trials", "two", "--horizon", "1h"],
         "clustersim: --trials: expected a whole number, found \"two\"\n"),
        (vec!["--trials", "2", "--horizon", "1h", "--shard", "3/2"],
         "clustersim: --shard: expected K/M with 1 ≤ K ≤ M, found \"3/2\"\n"),
        // Degenerate and huge requests: refused before anything runs or is allocated.
        (vec!["--trials", "0", "--horizon", "1h"],
         "clustersim: --trials: must be at least 1\n"),
        (vec!["--trials", "2", "--horizon", "0s"],
         "clustersim: --horizon: must be longer than 0s\n"),
        (vec!["--trials", "2", "--horizon", "1h", "--threads", "0"],
         "clustersim: --threads: must be at least 1\n"),
        (vec!["--trials", "1000000000000", "--horizon", "1h"],
         "clustersim: --trials: 1000000000000 exceeds the limit of 1000000000 trials\n"),
        (vec!["--trials", "5000000", "--horizon", "1h"],
         "clustersim: --trials: 5000000 trials in this process exceed the limit of 1000000: split the study with --shard K/M (M ≥ 5)\n"),
    ] {
        let mut a = vec!["study", "-"];
        a.extend(args);
        let out = clustersim(&a, FAULTY);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&out.stderr), message);
    }
}

#[test]
fn a_studys_worst_trials_come_with_the_link_that_opens_them_in_the_page() {
    let out = clustersim(&["study", "-", "--trials", "3", "--horizon", "10m"], FAULTY);
    let text = stdout_of(&out);
    let worst = text
        .lines()
        .find(|l| l.starts_with("worst: trial "))
        .unwrap();
    let seed: u64 = worst
        .split("(seed ")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let link = text
        .lines()
        .find(|l| l.contains("watch it in the playground"))
        .unwrap();
    let payload = link
        .split("#s=1.")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    // The page's decoding: base64url, raw DEFLATE, the scenario format.
    let packed = sim::scenario::link::base64url_decode(payload).unwrap();
    let json = miniz_oxide::inflate::decompress_to_vec(&packed).unwrap();
    let s = sim::scenario::parse(std::str::from_utf8(&json).unwrap()).unwrap();
    assert_eq!((s.seed, s.duration.as_secs_f64()), (seed, 600.0));
    assert_eq!(s.faults.len(), 1, "the trial keeps its fault processes");
}

#[test]
fn run_lang_writes_the_event_texts_in_that_language_and_nothing_else() {
    let en: serde_json::Value =
        serde_json::from_slice(&clustersim(&["run", "-", "--json"], VALID).stdout).unwrap();
    for (code, crashed) in [
        ("ru", "хост etcd-1 упал: его уронил сценарий"),
        (
            "de",
            "etcd-1 ist ausgefallen: das Szenario hat ihn abstürzen lassen",
        ),
        ("zh", "etcd-1 宕机：场景让它崩溃了"),
    ] {
        let out = clustersim(&["run", "-", "--json", "--lang", code], VALID);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // Kinds, fields and the summary are the same; only the texts differ.
        assert_eq!(r["summary"], en["summary"], "{code}");
        let (a, b) = (
            r["events"].as_array().unwrap(),
            en["events"].as_array().unwrap(),
        );
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert_eq!(
                (&x["t"], &x["kind"], &x["host"]),
                (&y["t"], &y["kind"], &y["host"])
            );
            assert_ne!(
                x["text"], y["text"],
                "{code}: {} is not translated",
                y["text"]
            );
        }
        let crash = a.iter().find(|e| e["kind"] == "host.crashed").unwrap();
        assert_eq!(crash["text"], crashed, "{code}");
    }
    let out = clustersim(&["run", "-", "--lang", "fr"], VALID);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "clustersim: --lang: unknown language \"fr\" (the languages are en, ru, zh, de)\n"
    );
}

/// A document that is not UTF-8 is refused naming the first bad byte and its offset.
#[test]
fn invalid_utf8_is_refused_naming_its_byte_offset() {
    let path = std::env::temp_dir().join(format!("clustersim-bad-{}.json", std::process::id()));
    std::fs::write(
        &path,
        b"{\"version\": 1, \"name\": \"bad\xff\xfe\", \"seed\": 1}",
    )
    .unwrap();
    let file = path.to_str().unwrap();
    let out = clustersim(&["run", file, "--json"], "");
    std::fs::remove_file(&path).unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("clustersim: {file}: not UTF-8: invalid byte 0xff at byte offset 27\n")
    );
}

const K8S_STUDY: &str = r#"{"version": 1, "name": "k8s study", "seed": 3, "duration": "1h",
  "hosts": [{"name": "m1", "roles": ["control-plane", "etcd"]}, {"name": "m2", "roles": ["control-plane", "etcd"]},
            {"name": "m3", "roles": ["control-plane", "etcd"]}, {"name": "w1", "roles": ["worker"]},
            {"name": "w2", "roles": ["worker"]}, {"name": "lb", "roles": ["load-balancer"]},
            {"name": "users", "roles": ["client"]}],
  "workloads": [{"kind": "Deployment", "name": "web", "replicas": 2, "service": true}],
  "faults": [{"hosts": "all", "mtbf": "2h", "mttr": "5m"}]}"#;

/// A Kubernetes study's per-trial shares are long fractions (`0.03643622274030006`): merged
/// shards, and even a merge of the whole report alone, are the unsharded report byte for byte,
/// as JSON and as text with its playground links.
#[test]
fn a_kubernetes_study_merges_to_the_unsharded_report_byte_for_byte() {
    let dir = std::env::temp_dir().join(format!("clustersim-k8s-study-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.json");
    std::fs::write(&file, K8S_STUDY).unwrap();
    let f = file.to_str().unwrap();
    let study = |extra: &[&str]| {
        let mut args = vec![
            "study",
            f,
            "--trials",
            "3",
            "--horizon",
            "2h",
            "--threads",
            "2",
        ];
        args.extend_from_slice(extra);
        stdout_of(&clustersim(&args, ""))
    };
    let whole = study(&["--json"]);
    assert!(
        whole.contains("\"api_write_unavailability\": 0."),
        "{whole}"
    );
    let mut files = Vec::new();
    for (name, text) in [
        ("whole", whole.clone()),
        ("1", study(&["--shard", "1/2", "--json"])),
        ("2", study(&["--shard", "2/2", "--json"])),
    ] {
        let p = dir.join(format!("{name}.json"));
        std::fs::write(&p, text).unwrap();
        files.push(p.to_str().unwrap().to_string());
    }
    let merge = |args: &[&str]| stdout_of(&clustersim(&[&["study", "merge"], args].concat(), ""));
    assert_eq!(merge(&[&files[2], &files[1], "--json"]), whole);
    assert_eq!(merge(&[&files[0], "--json"]), whole);
    let text = study(&[]);
    assert!(
        text.contains("watch it in the playground: append #s=1."),
        "{text}"
    );
    assert_eq!(merge(&[&files[1], &files[2]]), text);
    std::fs::remove_dir_all(&dir).ok();
}

/// A shard is checked field by field before it is merged: each refusal is one line naming the
/// file and the field, exit 2.
#[test]
fn damaged_or_mismatched_shards_are_refused_naming_the_file_and_the_field() {
    let dir = std::env::temp_dir().join(format!("clustersim-bad-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let study = |extra: &[&str]| {
        let mut args = vec!["study", "-", "--trials", "4", "--horizon", "10m", "--json"];
        args.extend_from_slice(extra);
        serde_json::from_str::<serde_json::Value>(&stdout_of(&clustersim(&args, FAULTY))).unwrap()
    };
    let (one, two) = (study(&["--shard", "1/2"]), study(&["--shard", "2/2"]));
    let write = |name: &str, v: &serde_json::Value| {
        let p = dir.join(name);
        std::fs::write(&p, v.to_string()).unwrap();
        p.to_str().unwrap().to_string()
    };
    let good = write("one.json", &one);
    let damaged = |change: &dyn Fn(&mut serde_json::Value)| {
        let mut v = two.clone();
        change(&mut v);
        write("two.json", &v)
    };
    let refusal = |files: &[String]| {
        let mut args = vec!["study", "merge"];
        args.extend(files.iter().map(String::as_str));
        let out = clustersim(&args, "");
        assert_eq!(out.status.code(), Some(2), "{files:?}");
        String::from_utf8(out.stderr).unwrap()
    };
    // A damage done to a shard's report, and the refusal it gets.
    type Damage = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(Damage, String)> = vec![
        (
            Box::new(|v| v["per_trial"][0]["etcd_quorum_lost_s"] = 601.0.into()),
            "per_trial[0].etcd_quorum_lost_s: 601 is not within the horizon (0 – 600 s)".into(),
        ),
        (
            Box::new(|v| v["per_trial"][1]["etcd_quorum_lost_s"] = (-1.0).into()),
            "per_trial[1].etcd_quorum_lost_s: -1 is not within the horizon (0 – 600 s)".into(),
        ),
        (
            Box::new(|v| v["shard"] = "7/2".into()),
            "shard: \"7/2\" is not K/M with 1 ≤ K ≤ M".into(),
        ),
        (
            Box::new(|v| v["per_trial"][0]["seed"] = 42.into()),
            "per_trial[0].seed: 42 is not trial 1's seed in a study of seed 3".into(),
        ),
        (
            Box::new(|v| v["per_trial"][1]["trial"] = 1.into()),
            "per_trial[1].trial: 1 is not the next trial of shard 2/2 (expected 3)".into(),
        ),
        (
            Box::new(|v| v["trials"] = 1_000_000_000_000u64.into()),
            "trials: 1000000000000 is not between 1 and 1000000000".into(),
        ),
        (
            Box::new(|v| v["seed"] = 4.into()),
            "per_trial[0].seed: ".into(),
        ),
    ];
    for (change, message) in cases {
        let bad = damaged(&*change);
        let e = refusal(&[good.clone(), bad.clone()]);
        assert!(
            e.starts_with(&format!("clustersim: {bad}: {message}")),
            "{e}"
        );
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    // Shards of another study (another seed, each shard consistent) and a shard given twice.
    let other = write("other.json", &study(&["--shard", "2/2", "--seed", "9"]));
    let e = refusal(&[good.clone(), other.clone()]);
    assert!(
        e.starts_with(&format!(
            "clustersim: {other}: shard 2/2 is of another study"
        )),
        "{e}"
    );
    let e = refusal(&[good.clone(), good.clone()]);
    assert_eq!(
        e,
        format!("clustersim: {good}: shard 1/2 is given twice (also as shard number 1)\n")
    );
    let e = refusal(std::slice::from_ref(&good));
    assert_eq!(
        e,
        "clustersim: 2 of 4 trials are missing (the first is trial 1): merge every shard (2/2 is not here)\n"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `clustersim import`: the scenario on stdout (one the runner takes), each thing not carried
/// over on stderr; a file that is not Kubernetes objects, or no Node, exits 2 naming the file.
#[test]
fn import_prints_a_scenario_and_says_what_it_left_out() {
    let dir = format!("{}/../import/tests/clusters", env!("CARGO_MANIFEST_DIR"));
    let (a, b) = (
        format!("{dir}/kubeadm.yaml"),
        format!("{dir}/kube-system.yaml"),
    );
    let out = clustersim(&["import", &a, &b, "--name", "shop"], "");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let scenario = String::from_utf8(out.stdout).unwrap();
    let s = sim::scenario::parse(&scenario).unwrap();
    assert_eq!(s.name, "shop");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr
            .lines()
            .all(|l| l.starts_with("clustersim: import: ")),
        "{stderr}"
    );
    assert!(
        stderr.contains("clustersim: import: ignored: 1 Secret\n"),
        "{stderr}"
    );
    let run = clustersim(&["run", "-"], &scenario);
    assert_eq!(run.status.code(), Some(0));
    let out = clustersim(&["import", "-"], "{\"kind\": \"Secret\"}");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "clustersim: stdin: no Node found: include the output of kubectl get nodes -o yaml\n"
    );
    let out = clustersim(&["import"], "");
    assert_eq!(out.status.code(), Some(2));
}
