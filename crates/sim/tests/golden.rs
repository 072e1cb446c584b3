//! Golden reports, determinism and prefix stability.
//!
//! Each scenario in `tests/scenarios/` has its report in `tests/golden/`, as a trace (one
//! line per summary fact, series run and event: `Report::to_trace`). The goldens pin the exact
//! run (the wasm build is compared against the same files in Chromium); the facts they show
//! are asserted separately in `etcd.rs`. After an intended change, regenerate with
//! `UPDATE_GOLDEN=1 cargo test -p sim --test golden` and review the diff.

use sim::run_scenario;
use sim::world::World;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scenarios() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(root().join("tests/scenarios"))
        .expect("tests/scenarios")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    assert!(!out.is_empty());
    out
}

#[test]
fn reports_match_the_goldens() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut mismatched = Vec::new();
    for (name, json) in scenarios() {
        let report = run_scenario(&json)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .to_trace();
        let path = root().join(format!("tests/golden/{name}.trace"));
        if update {
            std::fs::write(&path, &report).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(golden) if golden == report => {}
            Ok(_) => mismatched.push(format!("{name}: report differs from {}", path.display())),
            Err(_) => mismatched.push(format!("{name}: no golden at {}", path.display())),
        }
    }
    assert!(
        mismatched.is_empty(),
        "{}\nif the change is intended: UPDATE_GOLDEN=1 cargo test -p sim --test golden, then review the diff",
        mismatched.join("\n")
    );
}

#[test]
fn the_same_scenario_gives_the_same_bytes() {
    for (name, json) in scenarios() {
        let a = run_scenario(&json).unwrap().to_json();
        let b = run_scenario(&json).unwrap().to_json();
        assert!(a == b, "{name}: two runs differ");
    }
}

fn with_duration(json: &str, duration: &str) -> sim::scenario::Scenario {
    let mut s = sim::scenario::parse(json).unwrap();
    s.duration = sim::time::parse_duration(duration).unwrap();
    // A run to T has the events up to T (later ones could not be in a scenario that ends at T).
    let end = s.duration;
    s.events.retain(|e| e.at <= end);
    s
}

fn run(s: sim::scenario::Scenario) -> sim::report::Report {
    let mut w = World::new(s);
    w.run_to_end();
    sim::report(&w)
}

/// Everything strictly before `secs` agrees in two reports: series samples and events.
fn assert_same_prefix(
    short: &sim::report::Report,
    long: &sim::report::Report,
    secs: f64,
    what: &str,
) {
    let n = short.series.t.iter().filter(|&&t| t < secs).count();
    assert!(n > 0);
    assert_eq!(short.series.t[..n], long.series.t[..n], "{what}: t");
    assert_eq!(
        short.series.etcd_quorum[..n],
        long.series.etcd_quorum[..n],
        "{what}: etcd_quorum"
    );
    assert!(
        short
            .series
            .etcd_leader
            .iter()
            .take(n)
            .eq(long.series.etcd_leader.iter().take(n)),
        "{what}: etcd_leader"
    );
    assert_eq!(
        short.series.etcd_term[..n],
        long.series.etcd_term[..n],
        "{what}: etcd_term"
    );
    assert_eq!(
        short.series.etcd_writable[..n],
        long.series.etcd_writable[..n],
        "{what}: etcd_writable"
    );
    let before = |r: &sim::report::Report| {
        r.events
            .iter()
            .filter(|e| e.t < secs)
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(
        before(short),
        before(long),
        "{what}: events before {secs} s"
    );
}

#[test]
fn a_shorter_run_is_a_prefix_of_a_longer_one() {
    for (name, json) in scenarios() {
        let short = run(with_duration(&json, "45s"));
        let long = run(with_duration(&json, "3m"));
        assert_same_prefix(&short, &long, 45.0, &name);
    }
}

#[test]
fn an_event_appended_at_t_changes_nothing_before_t() {
    for (name, json) in scenarios() {
        let base = with_duration(&json, "3m");
        let mut forked = base.clone();
        let at = sim::time::parse_duration("50s").unwrap();
        let first = base.hosts[0].name.clone();
        forked.events.push(sim::scenario::Event {
            at,
            action: sim::scenario::Action::Isolate { host: first },
        });
        forked.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        let a = run(base);
        let b = run(forked);
        assert_same_prefix(&a, &b, 50.0, &name);
        assert_ne!(
            a.events, b.events,
            "{name}: the appended event must change the run after 50 s"
        );
    }
}

/// A snapshot shares each host's pods with the one before while its kubelet's containers stay
/// the same; it is always what a snapshot built afresh shows, every 5 s of every ready scenario,
/// its faults and restarts included.
#[test]
fn snapshots_share_unchanged_pods_and_show_every_change() {
    for (name, json) in scenarios() {
        let mut world = World::new(sim::scenario::parse(&json).unwrap());
        let drawn = sim::world::ViewCache::default();
        let (mut shared, mut pods, mut before) = (0, 0, world.snapshot_with(&drawn));
        while world.now() < world.end() {
            let next = world.now() + sim::time::Duration::from_secs(5);
            world.run_until(next.min(world.end()), u64::MAX);
            let snapshot = world.snapshot_with(&drawn);
            assert!(snapshot == world.snapshot(), "{name} at {}", snapshot.t);
            pods += snapshot.hosts.iter().filter(|h| !h.pods.is_empty()).count();
            shared += (snapshot.hosts.iter().zip(&before.hosts))
                .filter(|(a, b)| !a.pods.is_empty() && std::rc::Rc::ptr_eq(&a.pods, &b.pods))
                .count();
            before = snapshot;
        }
        assert!(pods == 0 || shared > 0, "{name}: no host's pods shared");
    }
}

/// A world cloned mid-run (a checkpoint, for instant scrubbing in the playground) continues
/// exactly as the original does.
#[test]
fn a_cloned_world_continues_exactly_like_the_original() {
    for (name, json) in scenarios() {
        let mut original = World::new(sim::scenario::parse(&json).unwrap());
        original.run_until(original.at_report_secs(70.0), u64::MAX);
        let mut copy = original.clone();
        original.run_to_end();
        copy.run_to_end();
        assert!(
            sim::report(&original).to_json() == sim::report(&copy).to_json(),
            "{name}: the clone diverged"
        );
        let fresh = run_scenario(&json).unwrap().to_json();
        assert!(
            sim::report(&copy).to_json() == fresh,
            "{name}: a clone's run differs from an uninterrupted one"
        );
    }
}
