//! `clustersim study`: an availability study of a scenario's fault processes over many
//! trials, run on every core, and `clustersim study merge` of its shards.

use sim::scenario::link::{base64url_encode, ENCODING};
use sim::scenario::Scenario;
use sim::study::{
    run_trial_with, shard_trials, trial_scenario, with_seed_and_horizon, MergeError, Shortcut,
    StudyReport, Trial, MAX_TRIALS,
};
use sim::time::{parse_duration, Duration};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::USAGE;

/// The most trials one study may have (shards included), and one process may run: each trial's
/// result is kept until the report (about 100 bytes), and a trial of a year takes milliseconds.
const MAX_TRIALS_HERE: u64 = 1_000_000;

fn refuse(m: impl std::fmt::Display) -> ExitCode {
    eprintln!("clustersim: {m}");
    ExitCode::from(2)
}

pub fn study(args: &[String]) -> ExitCode {
    if args.first().map(String::as_str) == Some("merge") {
        return merge(&args[1..]);
    }
    let (mut json, mut shortcut) = (false, Shortcut::On);
    let (mut file, mut trials, mut horizon, mut seed, mut shard, mut threads) =
        (None, None, None, None, (1u64, 1u64), None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag}: missing value"))
        };
        let r: Result<(), String> = (|| {
            match a.as_str() {
                "--json" => json = true,
                "--no-shortcut" => shortcut = Shortcut::Off,
                "--trials" => trials = Some(count("--trials", &value("--trials")?)?),
                "--horizon" => {
                    let v = value("--horizon")?;
                    horizon = Some(parse_duration(&v).map_err(|m| format!("--horizon: {m}"))?)
                }
                "--seed" => seed = Some(count("--seed", &value("--seed")?)?),
                "--threads" => threads = Some(count("--threads", &value("--threads")?)?),
                "--shard" => {
                    let v = value("--shard")?;
                    match pair(&v) {
                        Some((k, m)) if (1..=m).contains(&k) => shard = (k, m),
                        _ => {
                            return Err(format!(
                                "--shard: expected K/M with 1 ≤ K ≤ M, found {v:?}"
                            ))
                        }
                    }
                }
                // As an Indexed Job numbers its pods (JOB_COMPLETION_INDEX, from 0): shard I+1 of M.
                "--shard-index" => {
                    let v = value("--shard-index")?;
                    match pair(&v) {
                        Some((i, m)) if i < m => shard = (i + 1, m),
                        _ => {
                            return Err(format!(
                                "--shard-index: expected I/M with 0 ≤ I < M (an Indexed Job's JOB_COMPLETION_INDEX), found {v:?}"
                            ))
                        }
                    }
                }
                f if file.is_none() && !f.starts_with("--") => file = Some(f.to_string()),
                other => return Err(format!("unexpected argument {other:?}\n{USAGE}")),
            }
            Ok(())
        })();
        if let Err(m) = r {
            return refuse(m);
        }
    }
    let (Some(file), Some(trials), Some(horizon)) = (file, trials, horizon) else {
        return refuse(format!("study needs FILE, --trials and --horizon\n{USAGE}"));
    };
    // Degenerate or huge requests are refused before anything is read or allocated.
    if trials == 0 {
        return refuse("--trials: must be at least 1");
    }
    if trials > MAX_TRIALS {
        return refuse(format!(
            "--trials: {trials} exceeds the limit of {MAX_TRIALS} trials"
        ));
    }
    let here = trials.div_ceil(shard.1);
    if here > MAX_TRIALS_HERE {
        return refuse(format!(
            "--trials: {here} trials in this process exceed the limit of {MAX_TRIALS_HERE}: split the study with --shard K/M (M ≥ {})",
            trials.div_ceil(MAX_TRIALS_HERE)
        ));
    }
    if horizon == Duration::ZERO {
        return refuse("--horizon: must be longer than 0s");
    }
    if threads == Some(0) {
        return refuse("--threads: must be at least 1");
    }
    let text = match super::read_input(&file) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let scenario = match sim::scenario::parse(&text) {
        Ok(s) => s,
        Err(e) => return refuse(format!("{file}: {e}")),
    };
    let seed = seed.unwrap_or(scenario.seed);
    // Every trial is the scenario over the horizon: refused once, naming the horizon.
    if let Err(e) = trial_scenario(&scenario, seed, horizon) {
        let e = e.to_string();
        return match e.strip_prefix("duration: ") {
            Some(m) => refuse(format!("--horizon: {m}")),
            None => refuse(format!("{file}: {e}")),
        };
    }
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u64));
    let numbers: Vec<u64> = shard_trials(trials, shard.0, shard.1).collect();
    let results = run_trials(
        &scenario,
        seed,
        horizon,
        &numbers,
        threads as usize,
        shortcut,
    );
    let mut report = StudyReport::new(
        &scenario.name,
        trials,
        horizon,
        seed,
        format!("{}/{}", shard.0, shard.1),
        results,
    );
    report.document = Some(scenario.to_compact_json());
    print(&report, json)
}

/// `A/B` as two whole numbers.
fn pair(v: &str) -> Option<(u64, u64)> {
    let (a, b) = v.split_once('/')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

fn count(flag: &str, v: &str) -> Result<u64, String> {
    v.parse()
        .map_err(|_| format!("{flag}: expected a whole number, found {v:?}"))
}

/// Runs the trials `numbers` on `threads` threads; each thread takes the next trial not yet
/// taken, so the set of results is the same whatever the thread count.
fn run_trials(
    s: &Scenario,
    seed: u64,
    horizon: Duration,
    numbers: &[u64],
    threads: usize,
    shortcut: Shortcut,
) -> Vec<Trial> {
    let next = AtomicUsize::new(0);
    let out = Mutex::new(Vec::with_capacity(numbers.len()));
    // On a terminal, a line of progress (trials done, time left) rewritten as trials finish.
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads.min(numbers.len()).max(1) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = numbers.get(k) else { return };
                let t = run_trial_with(s, seed, i, horizon, shortcut);
                let mut done = out.lock().unwrap_or_else(|e| e.into_inner());
                done.push(t);
                if progress {
                    let (n, all) = (done.len(), numbers.len());
                    let left = started.elapsed().as_secs_f64() / n as f64 * (all - n) as f64;
                    eprint!("\rclustersim: {n} of {all} trials done, about {left:.0} s left   ");
                    if n == all {
                        eprintln!();
                    }
                }
            });
        }
    });
    out.into_inner().unwrap_or_else(|e| e.into_inner())
}

fn merge(args: &[String]) -> ExitCode {
    let json = args.iter().any(|a| a == "--json");
    let files: Vec<&String> = args.iter().filter(|a| *a != "--json").collect();
    if files.is_empty() {
        return refuse(format!("study merge needs shard reports\n{USAGE}"));
    }
    let mut shards = Vec::new();
    for f in &files {
        let text = match super::read_input(f) {
            Ok(t) => t,
            Err(code) => return code,
        };
        match serde_json::from_str::<StudyReport>(&text) {
            Ok(s) => shards.push(s),
            Err(e) => return refuse(format!("{f}: not a study report: {e}")),
        }
    }
    match StudyReport::merge(shards) {
        Ok(r) => print(&r, json),
        Err(MergeError {
            shard: Some(i),
            message,
        }) => refuse(format!("{}: {message}", files[i])),
        Err(MergeError { message, .. }) => refuse(message),
    }
}

/// The share link's fragment of a trial (`#s=1.…`), when the page can run it (at most 7 days).
fn trial_fragment(s: &Scenario, seed: u64, horizon_s: f64) -> Option<String> {
    let horizon = Duration::from_millis((horizon_s * 1000.0).round() as u64);
    let t = with_seed_and_horizon(s, seed, horizon);
    t.validate().ok()?;
    let packed = miniz_oxide::deflate::compress_to_vec(t.to_compact_json().as_bytes(), 9);
    Some(format!("#s={ENCODING}.{}", base64url_encode(&packed)))
}

fn print(r: &StudyReport, json: bool) -> ExitCode {
    if json {
        super::out(&r.to_json());
        return ExitCode::SUCCESS;
    }
    let pct = |e: &sim::study::Estimate| {
        format!(
            "{:.4} %  (95 % CI {:.4} – {:.4} %)",
            e.mean * 100.0,
            e.ci95[0] * 100.0,
            e.ci95[1] * 100.0
        )
    };
    let mut lines = vec![
        format!(
            "{}: {} trials of {} s (seed {}, shard {}, {} here)",
            r.scenario,
            r.trials,
            r.horizon_s,
            r.seed,
            r.shard,
            r.per_trial.len()
        ),
        format!(
            "etcd quorum unavailable   {}",
            pct(&r.etcd.quorum_unavailability)
        ),
    ];
    if let Some(api) = &r.api {
        lines.push(format!(
            "API writes unavailable    {}",
            pct(&api.write_unavailability)
        ));
    }
    for (name, s) in &r.services {
        lines.push(format!("service {name:<17} {}", pct(&s.unavailability)));
    }
    // The study's own scenario, to link its worst trials.
    let scenario = (r.document.as_deref()).and_then(|d| sim::scenario::parse(d).ok());
    for w in &r.worst {
        lines.push(format!(
            "worst: trial {} (seed {}) lost quorum {} s: clustersim run FILE --seed {} --duration {}s",
            w.trial, w.seed, w.etcd_quorum_lost_s, w.seed, r.horizon_s
        ));
        if let Some(f) = (scenario.as_ref()).and_then(|s| trial_fragment(s, w.seed, r.horizon_s)) {
            lines.push(format!(
                "  watch it in the playground: append {f} to its address"
            ));
        }
    }
    super::out(&lines.join("\n"));
    ExitCode::SUCCESS
}

/// The study targets: 1,000 simulated years of 3 etcd members (MTBF 100 h, MTTR 10 h; ≤ 10 s),
/// and 10 years of 3 stacked control-plane hosts and 10 spot workers with 3 workloads (host MTBF
/// 30 days, MTTR 1 h, a spot interruption every 14 days, replaced after 5 min; the target is
/// 100 years ≤ 60 s, so 10 years ≤ 6 s), on every core.
pub fn bench() {
    let etcd = r#"{"version":1,"name":"bench: 3 etcd members, MTBF 100h, MTTR 10h","duration":"1h",
        "hosts":[{"name":"etcd-1","roles":["etcd"]},{"name":"etcd-2","roles":["etcd"]},{"name":"etcd-3","roles":["etcd"]}],
        "faults":[{"hosts":"all","mtbf":"100h","mttr":"10h"}]}"#;
    let mut hosts: Vec<String> = (1..=3)
        .map(|i| format!(r#"{{"name":"m{i}","roles":["control-plane","etcd"]}}"#))
        .collect();
    hosts.extend((1..=10).map(|i| format!(r#"{{"name":"w{i}","roles":["worker"],"spot":true}}"#)));
    hosts.push(
        r#"{"name":"lb","roles":["load-balancer"]},{"name":"users","roles":["client"]}"#.into(),
    );
    let cluster = format!(
        r#"{{"version":1,"name":"bench: 3 stacked + 10 spot workers, host MTBF 30 days, MTTR 1h, spot every 14 days, replaced in 5 min","duration":"1h",
        "hosts":[{}],
        "workloads":[{{"kind":"Deployment","name":"web","replicas":3,"service":true}},
                     {{"kind":"Deployment","name":"api","replicas":2,"service":true}},
                     {{"kind":"StatefulSet","name":"db","replicas":1}}],
        "faults":[{{"hosts":"all","mtbf":"720h","mttr":"1h"}},
                  {{"hosts":"spot","spot_interruptions_every":"336h","replace_after":"5m"}}]}}"#,
        hosts.join(",")
    );
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let year = Duration::from_secs(365 * 86400);
    for (json, trials, years, target, key) in [
        (etcd, 100, 10, "≤ 10 s", "STUDY_ETCD_1000_YEARS_S"),
        (
            cluster.as_str(),
            2,
            5,
            "≤ 6 s (100 years ≤ 60 s)",
            "STUDY_CLUSTER_10_YEARS_S",
        ),
    ] {
        let s = sim::scenario::parse(json).expect("the study reference is valid");
        let numbers: Vec<u64> = (0..trials).collect();
        let horizon = Duration(year.0 * years);
        let started = std::time::Instant::now();
        let results = run_trials(&s, 1, horizon, &numbers, threads, Shortcut::On);
        let wall = started.elapsed().as_secs_f64();
        let r = StudyReport::new(&s.name, trials, horizon, 1, "1/1".into(), results);
        let q = &r.etcd.quorum_unavailability;
        println!(
            "{}: {} years ({trials} trials of {years}) in {wall:.1} s on {threads} threads (target {target}); quorum unavailable {:.3} % (95 % CI {:.3}–{:.3} %)",
            s.name,
            trials * years,
            q.mean * 100.0,
            q.ci95[0] * 100.0,
            q.ci95[1] * 100.0
        );
        println!("  {key}={wall:.1}");
    }
}
