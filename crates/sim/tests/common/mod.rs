//! The seed-sweep harness shared by the sweeps (in the manner of TigerBeetle's VOPR): many
//! generated scenarios checked in parallel, one replayed by seed, and on failure the seed and
//! the one command that reproduces it.

use sim::report::Report;
use sim::world::World;

pub struct Sweep {
    /// Shown in the summary line ("sweep", "k8s sweep").
    pub label: &'static str,
    /// The integration test's name, for the reproduce command.
    pub test: &'static str,
    pub count_var: &'static str,
    pub seed_var: &'static str,
    pub debug_count: u64,
    pub release_count: u64,
}

/// Parses and runs a generated scenario; an error for a refused scenario or a broken invariant.
/// (The drain sweep steps its runs itself, to look at every second.)
#[allow(dead_code)]
pub fn run_checked(json: &str) -> Result<Report, String> {
    let scenario =
        sim::scenario::parse(json).map_err(|e| format!("generated scenario refused: {e}"))?;
    let mut world = World::new(scenario);
    world.run_to_end();
    let report = sim::report(&world);
    match report.summary.violations.first() {
        Some(v) => Err(format!("violation at {} s: {} — {}", v.t, v.kind, v.text)),
        None => Ok(report),
    }
}

/// Runs `check` over the sweep's seeds (or replays the one in `seed_var`) and fails with the
/// first failing seed and the command that reproduces it.
pub fn run(sweep: &Sweep, schedule: fn(u64) -> String, check: fn(u64) -> Option<String>) {
    if let Some(seed) = std::env::var(sweep.seed_var)
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
    {
        println!("{}", schedule(seed));
        if let Some(problem) = check(seed) {
            panic!("SEED={seed}: {problem}");
        }
        return;
    }
    let default = if cfg!(debug_assertions) {
        sweep.debug_count
    } else {
        sweep.release_count
    };
    let n = std::env::var(sweep.count_var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    let threads = std::thread::available_parallelism()
        .map_or(2, |p| p.get())
        .min(4) as u64;
    let started = std::time::Instant::now();
    let failures: Vec<(u64, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|k| {
                scope.spawn(move || {
                    (0..n)
                        .filter(|s| s % threads == k)
                        .filter_map(|s| check(s).map(|p| (s, p)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("sweep thread"))
            .collect()
    });
    println!(
        "{}: {n} schedules in {:.1} s, {} failed",
        sweep.label,
        started.elapsed().as_secs_f64(),
        failures.len()
    );
    if let Some((seed, problem)) = failures.iter().min_by_key(|(s, _)| *s) {
        for (s, p) in failures.iter().take(10) {
            eprintln!("SEED={s}: {p}");
        }
        panic!(
            "{} of {n} schedules failed; first SEED={seed}: {problem}\n\
             reproduce: {}={seed} cargo test --release -p sim --test {} -- --nocapture",
            failures.len(),
            sweep.seed_var,
            sweep.test
        );
    }
}
