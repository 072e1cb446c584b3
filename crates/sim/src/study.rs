//! Availability studies: many independent trials of one scenario and its fault processes, each
//! an ordinary run of `horizon` with a seed of its own, summarised as the mean unavailability
//! (of etcd quorum, of API writes, of each Service) with a 95 % confidence interval, and the
//! trials with the most quorum loss, to replay as plain runs.
//!
//! A trial's seed depends only on the study's seed and the trial's number, so a study split in
//! shards (any trial to any machine or thread) gives the same trials; the figures are computed
//! from the trials in number order, so merged shards give exactly the unsharded report.
//!
//! Years of simulated time are reached by a shortcut through settled stretches (see
//! [`run_trial_with`]); without clients the services' figures are absent, without an apiserver
//! the API's.

use crate::kernel::chunked::Chunked;
use crate::kernel::decimal::Fixed;
use crate::kernel::rng::Rng;
use crate::kernel::time::{Duration, SimTime};
use crate::scenario::{Scenario, ScenarioError, MAX_DURATION};
use crate::world::{Quiet, World};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How many of the worst trials a study lists.
pub const WORST: usize = 5;
/// The most trials a study may have (one process runs at most a million of them: shard it).
pub const MAX_TRIALS: u64 = 1_000_000_000;

/// One trial's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trial {
    pub trial: u64,
    pub seed: u64,
    pub etcd_quorum_lost_s: f64,
    /// Fraction of the API write probe's writes that failed (absent without an apiserver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_write_unavailability: Option<f64>,
    /// Per Service, the fraction of the users' requests that failed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, f64>,
}

/// The seed of trial `i` of a study with seed `seed`: the same whatever the sharding.
pub fn trial_seed(seed: u64, i: u64) -> u64 {
    Rng::new(seed).fork(&format!("trial/{i}")).next_u64()
}

/// `s` with a trial's seed, over the horizon (not validated): what
/// `clustersim run FILE --seed SEED --duration D` replays.
pub fn with_seed_and_horizon(s: &Scenario, seed: u64, horizon: Duration) -> Scenario {
    let mut t = s.clone();
    t.seed = seed;
    t.duration = horizon;
    t
}

/// The scenario a trial runs, checked: as a run of at most [`MAX_DURATION`], then for the
/// horizon's own limits.
pub fn trial_scenario(
    s: &Scenario,
    seed: u64,
    horizon: Duration,
) -> Result<Scenario, ScenarioError> {
    let mut t = with_seed_and_horizon(s, seed, horizon.min(MAX_DURATION));
    t.validate()?;
    t.duration = horizon;
    if horizon > MAX_HORIZON {
        let e = format!("{horizon} exceeds the limit of {MAX_HORIZON} (1,000 years)");
        return Err(ScenarioError::new("duration", e));
    }
    let draws = t.expected_fault_draws();
    if draws > MAX_TRIAL_DRAWS {
        let e = format!(
            "the fault processes would draw about {} faults and repairs in {horizon}; the limit for a trial is {}",
            Fixed(draws, 0),
            Fixed(MAX_TRIAL_DRAWS, 0)
        );
        return Err(ScenarioError::new("duration", e));
    }
    Ok(t)
}

/// The longest horizon of a trial: 1,000 years.
pub const MAX_HORIZON: Duration = Duration::from_secs(1_000 * 365 * 24 * 3600);
/// Most faults and repairs a trial may be expected to draw (they are held in memory).
pub const MAX_TRIAL_DRAWS: f64 = 10_000_000.0;

/// Whether a trial may move time forward through settled stretches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shortcut {
    On,
    /// Every second simulated: what `clustersim run` does, and the check of the shortcut.
    Off,
}

/// Runs trial `i` (the scenario is one [`trial_scenario`] accepted), with the shortcut.
pub fn run_trial(s: &Scenario, study_seed: u64, i: u64, horizon: Duration) -> Trial {
    run_trial_with(s, study_seed, i, horizon, Shortcut::On)
}

/// Runs trial `i`. With the shortcut, whenever the cluster is settled (quiet, see
/// [`World::quiet`], at two checks in a row, and every per-second figure the study reads
/// unchanged for [`quiet_settle_time`]: quorum, leaders, pods running, probe writes, users'
/// requests; or, not quiet, unchanged for [`settle_time`]), the world is left as it is and
/// everything still to come of its own accord comes that much earlier: the fault draws, the
/// hosts' scheduled changes (a spot notice's termination), the controller-manager's clocks (a
/// silent node's grace period, a tainted node's tolerations). The skip reaches at most the
/// next of them, and the skipped seconds count with the figures of the settled state. Nothing
/// observable changes in a settled stretch, so the figures are those of the plain run; only the
/// timing of a process's next periodic step (a renewal, a heartbeat, a controller's pass)
/// relative to what comes next is not the same, which moves the outcome by a fraction of such
/// a period.
pub fn run_trial_with(
    s: &Scenario,
    study_seed: u64,
    i: u64,
    horizon: Duration,
    shortcut: Shortcut,
) -> Trial {
    run_trial_traced(s, study_seed, i, horizon, shortcut, &mut |_| {}).0
}

/// When a trial first lost each figure, in whole seconds from its start (a second's sample, so
/// within a second of the loss): where to look when the trial is replayed as a run (the page
/// opens it there).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FirstLosses {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quorum: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<f64>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, f64>,
}

/// [`run_trial_with`], telling `progress` how far into the horizon the trial is (0 to 1) at
/// every step (the page's progress bar while a long trial runs), with when the trial first
/// lost each figure.
pub fn run_trial_traced(
    s: &Scenario,
    study_seed: u64,
    i: u64,
    horizon: Duration,
    shortcut: Shortcut,
    progress: &mut dyn FnMut(f64),
) -> (Trial, FirstLosses) {
    let seed = trial_seed(study_seed, i);
    let t = with_seed_and_horizon(s, seed, horizon);
    let (quiet_settle, settle) = (quiet_settle_time(&t), settle_time(&t));
    let (mut phases, spread) = (Rng::new(seed).fork("study/phase"), phase_spread(&t));
    let kubernetes = t.hosts.iter().any(|h| h.is_node());
    // Scenario events keep their times: no skip before the last has applied.
    let last_event = t
        .events
        .iter()
        .map(|e| e.at)
        .max()
        .unwrap_or(Duration::ZERO);
    let mut w = World::new(t);
    // With Kubernetes, quiet at two checks in a row, 2 s apart: a change a controller or the
    // scheduler has seen waits for its next pass (every second) before its reaction is on its
    // way, where `World::quiet` sees it (a write, a binding, a pod created, a container starting).
    let check = Duration::from_secs(if kubernetes { 2 } else { 1 });
    let keep_quiet = if kubernetes { check } else { Duration::ZERO };
    let mut skipped = Skipped::default();
    let end_at = |w: &World, shift: Duration| w.end() - shift;
    // The first of the next change, the controller-manager's reaction and the end.
    let first_of = |change: Option<SimTime>, reaction: Option<SimTime>, end: SimTime| {
        [change, reaction]
            .into_iter()
            .flatten()
            .fold(end, SimTime::min)
    };
    // When the last fault (or scenario event) applied: the figures must have been unchanged since
    // a settle time after it, not merely since before it (a sample may precede it at one instant).
    let mut last_change = w.at_report_secs(last_event.as_secs_f64());
    // Since when the world has been quiet (checked after each step), if it is; and when the
    // controller-manager will act of its own accord, if it will (see `Quiet::Until`).
    let mut quiet_since: Option<SimTime> = None;
    let mut reaction: Option<SimTime> = None;
    let (settle_d, quiet_d) = (
        Duration::from_secs(settle),
        Duration::from_secs(quiet_settle),
    );
    loop {
        let end = end_at(&w, skipped.shift);
        if w.now() >= end {
            break;
        }
        progress((w.elapsed_s() + skipped.shift.as_secs_f64()) / horizon.as_secs_f64().max(1.0));
        // Up to the next change or reaction at most, so a step meets at most one; straight to
        // the end of the settle time after a change, since nothing can be settled before.
        let next_before = w.next_change_at();
        let due = first_of(next_before, reaction, end);
        let settled_from = last_change + quiet_d;
        let step = if w.now() < settled_from {
            settled_from
        } else {
            w.now() + check
        };
        let timer_due = w.own_timer_due();
        w.run_until(step.min(due), u64::MAX);
        let now = w.now();
        // A fault applied, a host's scheduled change came (a spot termination), the
        // controller-manager's reaction is due, or a timer of the world's own came (an etcd
        // membership change): a change, whose effect the last samples may not show yet.
        let next_change = w.next_change_at();
        if next_change != next_before {
            // Made at the step's end (a step ends at the next change at the latest).
            last_change = now;
            quiet_since = None;
        } else if let Some(r) = reaction.filter(|&r| now >= r) {
            last_change = r;
            quiet_since = None;
        } else if timer_due && !w.own_timer_due() {
            last_change = now;
            quiet_since = None;
        }
        reaction = None;
        if shortcut == Shortcut::Off || now >= end || now < last_change + quiet_d {
            continue;
        }
        // Quiet (nothing on its way, or only the controller-manager's reaction at a known
        // time): the short settle time is enough; else the long one.
        let quiet = w.quiet();
        if let Quiet::Until(t) = quiet {
            reaction = Some(t);
        }
        quiet_since = (quiet != Quiet::No).then(|| quiet_since.unwrap_or(now));
        let quiet_long_enough = quiet_since.is_some_and(|q| now >= q + keep_quiet);
        let n = if quiet_long_enough {
            quiet_settle
        } else {
            settle
        };
        if !quiet_long_enough && now < last_change + settle_d {
            continue;
        }
        // Up to the next change or reaction: the world is settled, so it meets it as the plain
        // run has it.
        let to = first_of(w.next_change_at(), reaction, end);
        // Short of it by a random part of the longest period of the processes' periodic steps:
        // the world then reaches it at any phase of them, as the plain run does (the moment a
        // skip ends is otherwise tied to them, through the checks).
        let short = Duration(match spread.as_micros() {
            0 => 0,
            n => phases.below(n),
        });
        if to > now + check + short && !w.own_timer_due() && settled(&w, n) {
            let d = Duration((to - now).0 - short.0);
            skipped.credit(&w, d);
            w.skip(d);
            reaction = reaction.map(|r| r - d);
        }
    }
    // The plain run resolves the probe's last writes after the end; so does the trial.
    let end = w.now();
    let lost = w.quorum_lost_s() + skipped.quorum_lost;
    w.resolve_probes();
    let end_s = w.obs.secs(end);
    (
        skipped.figures(&w, end_s, i, seed, lost),
        skipped.first_losses(&w, end_s),
    )
}

/// The longest period of the periodic steps a skip's end must not be tied to: with Kubernetes,
/// node lease renewals (10 s; the node monitor's passes, load balancer checks and leader
/// renewals, samples and users' requests divide it; so do the kubelet's status loop and the
/// apiserver's liveness probe, also 10 s). Longer loops keep part of the phase they had: the
/// pod garbage collector's 20 s (with a cloud-controller-manager) and the 30 s heartbeat on
/// idle watches, which a client's silence check counts from. Nothing for etcd alone: its
/// figure, quorum lost, starts with a fault whatever the phase of the heartbeats (and is the
/// plain run's to the millisecond).
pub fn phase_spread(s: &Scenario) -> Duration {
    Duration::from_secs(if s.hosts.iter().any(|h| h.is_node()) {
        10
    } else {
        0
    })
}

/// How long every figure must stay unchanged before a trial may skip when the world is quiet
/// ([`World::quiet`]: nothing on its way, leaders, routes and load balancers in line with what
/// runs): ten samples of every figure with Kubernetes (the probes write once a second, the users
/// send ten requests a second); for etcd alone, 3 s (a quiet cluster has its leader).
pub fn quiet_settle_time(s: &Scenario) -> u64 {
    if s.hosts.iter().any(|h| h.is_node()) {
        10
    } else {
        3
    }
}

/// How long every figure must stay unchanged before a trial may skip: longer than the slowest
/// reaction of the cluster to a fault (a NotReady node's pods are evicted after the grace
/// period and the tolerations), or five election timeouts for etcd alone (an election takes at
/// most two, and a split vote another two).
pub fn settle_time(s: &Scenario) -> u64 {
    let k = &s.settings;
    if s.hosts.iter().any(|h| h.is_node()) {
        let d = k.node_monitor_grace_period + k.toleration_seconds + k.lease_duration;
        d.as_secs_f64() as u64 + 60
    } else {
        (5.0 * k.etcd_election_timeout.as_secs_f64()).ceil() as u64
    }
}

/// Whether the last `n` seconds of every figure a study reads are the same.
fn settled(w: &World, n: u64) -> bool {
    let n = n as usize;
    let r = w.record();
    let s = r.series;
    fn flat<T: PartialEq>(v: &Chunked<T>, n: usize) -> bool {
        let mut last = v.range(v.len().saturating_sub(n)..);
        let first = last.next();
        v.len() > n && last.all(|x| Some(x) == first)
    }
    // The probes' known outcomes of the last n seconds: all the same (the latest are in flight).
    let probe = |v: &Chunked<Option<bool>>| {
        let known: Vec<bool> = (v.range(v.len().saturating_sub(n)..))
            .flatten()
            .copied()
            .collect();
        known.len() * 2 >= n && known.windows(2).all(|p| p[0] == p[1])
    };
    // Users' requests: each second all succeeded, or all failed, the same way throughout.
    let requests = |v: &Chunked<(u32, u32)>| {
        let class = |&(ok, total): &(u32, u32)| (ok == total, ok == 0);
        let first = v.range(v.len().saturating_sub(n)..).next().map(class);
        v.len() > n
            && (v.range(v.len() - n..)).all(|x| Some(class(x)) == first && (x.0 == x.1 || x.0 == 0))
    };
    flat(&s.etcd_quorum, n)
        && flat(s.etcd_leader.codes(), n)
        && flat(s.controller_manager_leader.codes(), n)
        && flat(s.scheduler_leader.codes(), n)
        && s.running_pods.values().all(|v| flat(v, n))
        && probe(r.etcd_writes)
        && r.api_writes.is_none_or(probe)
        && r.traffic.per_second.iter().all(requests)
}

/// What the skipped stretches add to a trial's figures.
#[derive(Default)]
struct Skipped {
    shift: Duration,
    /// At each skip: the report second reached, and the seconds skipped by then.
    skips: Vec<(f64, f64)>,
    quorum_lost: f64,
    api_known: f64,
    api_failed: f64,
    /// Per Service: requests that succeeded, requests sent.
    requests: Vec<(f64, f64)>,
}

impl Skipped {
    /// `d` more of the state the world is settled in.
    fn credit(&mut self, w: &World, d: Duration) {
        let secs = d.as_secs_f64();
        let r = w.record();
        self.shift = self.shift + d;
        self.skips.push((w.elapsed_s(), self.shift.as_secs_f64()));
        if r.series.etcd_quorum.last() == Some(&false) {
            self.quorum_lost += secs;
        }
        if let Some(ok) = r
            .api_writes
            .and_then(|v| (0..v.len()).rev().find_map(|i| v[i]))
        {
            self.api_known += secs;
            self.api_failed += if ok { 0.0 } else { secs };
        }
        let per_second = &r.traffic.per_second;
        self.requests.resize(per_second.len(), (0.0, 0.0));
        for (acc, v) in self.requests.iter_mut().zip(per_second) {
            // The last whole second (the current one is still being counted).
            let (ok, total) = v.len().checked_sub(2).map_or((0, 0), |i| v[i]);
            acc.0 += ok as f64 * secs;
            acc.1 += total as f64 * secs;
        }
    }

    /// When the figures were first lost, up to report second `end_s`, in the trial's seconds
    /// (the simulated ones and those skipped before).
    fn first_losses(&self, w: &World, end_s: f64) -> FirstLosses {
        let r = w.record();
        let at = |second: f64| {
            let skipped = self.skips.iter().rev().find(|(from, _)| *from <= second);
            (second + skipped.map_or(0.0, |s| s.1)).floor()
        };
        let first = |lost: &mut dyn Iterator<Item = (f64, bool)>| {
            lost.take_while(|&(t, _)| t <= end_s)
                .find(|&(_, lost)| lost)
                .map(|(t, _)| at(t))
        };
        let seconds = |n: usize| (0..n).map(|k| k as f64);
        let s = &r.series;
        let quorum = first(&mut s.t.iter().copied().zip(s.etcd_quorum.iter().map(|q| !q)));
        let api = r
            .api_writes
            .and_then(|v| first(&mut seconds(v.len()).zip(v.iter().map(|x| *x == Some(false)))));
        let clients = w.scenario().hosts.iter().any(|h| h.is_client());
        let services = (r.traffic.services.iter().zip(&r.traffic.per_second))
            .filter(|_| clients)
            .filter_map(|(name, v)| {
                let failed = v.iter().map(|&(ok, total)| ok < total);
                Some((name.clone(), first(&mut seconds(v.len()).zip(failed))?))
            })
            .collect();
        FirstLosses {
            quorum,
            api,
            services,
        }
    }

    /// The trial's figures: the simulated seconds up to report second `end_s`, and the skipped ones.
    fn figures(&self, w: &World, end_s: f64, i: u64, seed: u64, quorum_lost: f64) -> Trial {
        let r = w.record();
        // Report seconds simulated (the samples at 0, 1, …, end_s).
        let n = r.series.t.iter().take_while(|&&t| t <= end_s).count();
        let api_write_unavailability = r.api_writes.map(|v| {
            let known: Vec<bool> = v.iter().take(n).flatten().copied().collect();
            let failed = known.iter().filter(|ok| !**ok).count() as f64 + self.api_failed;
            let all = known.len() as f64 + self.api_known;
            if all == 0.0 {
                0.0
            } else {
                failed / all
            }
        });
        let clients = w.scenario().hosts.iter().any(|h| h.is_client());
        let services = r
            .traffic
            .services
            .iter()
            .filter(|_| clients)
            .enumerate()
            .map(|(k, name)| {
                let (mut ok, mut total) = self.requests.get(k).copied().unwrap_or((0.0, 0.0));
                for &(o, t) in r.traffic.per_second[k].iter().take(n) {
                    ok += o as f64;
                    total += t as f64;
                }
                let failed = if total == 0.0 { 0.0 } else { 1.0 - ok / total };
                (name.clone(), failed)
            })
            .collect();
        Trial {
            trial: i,
            seed,
            // To the millisecond, as the run's report has it.
            etcd_quorum_lost_s: (quorum_lost * 1000.0).round() / 1000.0,
            api_write_unavailability,
            services,
        }
    }
}

/// A mean and its 95 % confidence interval over the trials (Student's t, clamped to [0, 1]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub mean: f64,
    pub ci95: [f64; 2],
}

impl Estimate {
    pub fn of(xs: &[f64]) -> Estimate {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n.max(1.0);
        let var = if xs.len() > 1 {
            xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        let half = t95(xs.len().saturating_sub(1)) * (var / n.max(1.0)).sqrt();
        Estimate {
            mean,
            ci95: [(mean - half).max(0.0), (mean + half).min(1.0)],
        }
    }

    pub fn contains(&self, x: f64) -> bool {
        self.ci95[0] <= x && x <= self.ci95[1]
    }
}

/// The two-sided 95 % quantile of Student's t with `df` degrees of freedom: a study of a few
/// trials gets the wider interval it deserves (1.96 would claim too much).
fn t95(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => 0.0,
        1..=30 => TABLE[df - 1],
        // Within 0.002 of the exact quantile from 30 degrees of freedom on.
        _ => 1.96 + 2.4 / df as f64,
    }
}

/// The exact (Garwood) 95 % interval of a Poisson mean from `events` counted: the means under
/// which seeing that many or more (for the low end), or that many or fewer (for the high end),
/// has a chance of 2.5 %. For how often something rare happens (a first loss of quorum) from
/// how many times it did; with none seen, the high end is still a claim (3.69).
pub fn poisson_interval(events: u64) -> [f64; 2] {
    let k = events as f64;
    // P(X <= k) for X ~ Poisson(mu), its terms summed in logarithms (k may be thousands).
    let cdf = |k: u64, mu: f64| -> f64 {
        if mu <= 0.0 {
            return 1.0;
        }
        let (mut log_term, mut sum) = (-mu, 0.0);
        for i in 0..=k {
            if i > 0 {
                log_term += mu.ln() - (i as f64).ln();
            }
            sum += log_term.exp();
        }
        sum.min(1.0)
    };
    // The mean where `f` (falling in mu) crosses `p`, by bisection.
    let solve = |f: &dyn Fn(f64) -> f64, p: f64| -> f64 {
        let (mut lo, mut hi) = (0.0, k + 10.0 * (k + 1.0).sqrt() + 10.0);
        for _ in 0..100 {
            let mid = (lo + hi) / 2.0;
            if f(mid) > p {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        (lo + hi) / 2.0
    };
    let high = solve(&|mu| cdf(events, mu), 0.025);
    // P(X >= k) = 0.025 where P(X <= k - 1) = 0.975.
    let low = match events {
        0 => 0.0,
        _ => solve(&|mu| cdf(events - 1, mu), 0.975),
    };
    [low, high]
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EtcdFigures {
    pub quorum_unavailability: Estimate,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApiFigures {
    pub write_unavailability: Estimate,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServiceFigures {
    pub unavailability: Estimate,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Worst {
    pub trial: u64,
    pub seed: u64,
    pub etcd_quorum_lost_s: f64,
}

/// A study's report (`clustersim study … --json`): the figures of the trials it holds, and
/// the trials themselves (`per_trial`), from which merged shards recompute the figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyReport {
    pub scenario: String,
    /// Trials of the whole study (a shard holds some of them).
    pub trials: u64,
    pub horizon_s: f64,
    pub seed: u64,
    /// `K/M`: trials whose number is K − 1 modulo M.
    pub shard: String,
    pub etcd: EtcdFigures,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<ApiFigures>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, ServiceFigures>,
    pub worst: Vec<Worst>,
    pub per_trial: Vec<Trial>,
    /// The scenario studied, as compact JSON: `merge` checks that shards share it and links
    /// the worst trials from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<String>,
}

/// Why shards do not merge: the shard at fault (its place among those given), if one is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeError {
    pub shard: Option<usize>,
    pub message: String,
}

/// `K/M` of a shard field, 1 ≤ K ≤ M.
pub fn parse_shard(text: &str) -> Option<(u64, u64)> {
    let (k, m) = text.split_once('/')?;
    let (k, m): (u64, u64) = (k.parse().ok()?, m.parse().ok()?);
    (1 <= k && k <= m).then_some((k, m))
}

/// The trial numbers shard `k` of `m` (1-based) runs, of `trials`.
pub fn shard_trials(trials: u64, k: u64, m: u64) -> impl Iterator<Item = u64> {
    (k - 1..trials).step_by(m as usize)
}

impl StudyReport {
    /// The report of `results` (any order; sorted by trial number here).
    pub fn new(
        scenario: &str,
        trials: u64,
        horizon: Duration,
        seed: u64,
        shard: String,
        mut results: Vec<Trial>,
    ) -> StudyReport {
        crate::kernel::sort::sort_by_key(&mut results, |t| t.trial);
        let horizon_s = horizon.as_secs_f64();
        let column = |f: &dyn Fn(&Trial) -> Option<f64>| -> Option<Estimate> {
            let xs: Vec<f64> = results.iter().filter_map(f).collect();
            (!xs.is_empty()).then(|| Estimate::of(&xs))
        };
        let quorum = column(&|t| Some(t.etcd_quorum_lost_s / horizon_s))
            .unwrap_or_else(|| Estimate::of(&[]));
        let api = column(&|t| t.api_write_unavailability).map(|write_unavailability| ApiFigures {
            write_unavailability,
        });
        let names: Vec<String> = results
            .iter()
            .flat_map(|t| t.services.keys().cloned())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let services = names
            .into_iter()
            .filter_map(|name| {
                let e = column(&|t| t.services.get(&name).copied())?;
                Some((name, ServiceFigures { unavailability: e }))
            })
            .collect();
        let mut worst: Vec<&Trial> = results.iter().collect();
        // Most quorum loss first; ties by trial number (the sort is stable).
        crate::kernel::sort::sort_by(&mut worst, |a, b| {
            b.etcd_quorum_lost_s.total_cmp(&a.etcd_quorum_lost_s)
        });
        let worst = worst
            .into_iter()
            .take(WORST)
            .map(|t| Worst {
                trial: t.trial,
                seed: t.seed,
                etcd_quorum_lost_s: t.etcd_quorum_lost_s,
            })
            .collect();
        StudyReport {
            scenario: scenario.to_string(),
            trials,
            horizon_s,
            seed,
            shard,
            etcd: EtcdFigures {
                quorum_unavailability: quorum,
            },
            api,
            services,
            worst,
            per_trial: results,
            document: None,
        }
    }

    /// A shard as read from a file, checked against what a run of its study produces: a known
    /// shard of at most [`MAX_TRIALS`] trials over a horizon of whole milliseconds, and every
    /// trial of that shard once, in order, with the seed its number gives and figures within
    /// their bounds (quorum lost within the horizon, shares within [0, 1]). Err names the field.
    pub fn check(&self) -> Result<(), String> {
        if !(1..=MAX_TRIALS).contains(&self.trials) {
            return Err(format!(
                "trials: {} is not between 1 and {MAX_TRIALS}",
                self.trials
            ));
        }
        let max_s = MAX_HORIZON.as_micros() / 1_000_000;
        let whole_ms = (self.horizon_s * 1000.0).round() / 1000.0 == self.horizon_s;
        if !(self.horizon_s > 0.0 && self.horizon_s <= max_s as f64 && whole_ms) {
            return Err(format!(
                "horizon_s: {} is not a horizon of whole milliseconds up to {max_s} s",
                self.horizon_s
            ));
        }
        let Some((k, m)) = parse_shard(&self.shard) else {
            return Err(format!("shard: {:?} is not K/M with 1 ≤ K ≤ M", self.shard));
        };
        let expected = shard_trials(self.trials, k, m);
        for (i, (t, n)) in self.per_trial.iter().zip(expected).enumerate() {
            let at = |field: &str| format!("per_trial[{i}].{field}");
            if t.trial != n {
                return Err(format!(
                    "{}: {} is not the next trial of shard {} (expected {n})",
                    at("trial"),
                    t.trial,
                    self.shard
                ));
            }
            if t.seed != trial_seed(self.seed, n) {
                return Err(format!(
                    "{}: {} is not trial {n}'s seed in a study of seed {}",
                    at("seed"),
                    t.seed,
                    self.seed
                ));
            }
            if !(0.0..=self.horizon_s).contains(&t.etcd_quorum_lost_s) {
                return Err(format!(
                    "{}: {} is not within the horizon (0 – {} s)",
                    at("etcd_quorum_lost_s"),
                    t.etcd_quorum_lost_s,
                    self.horizon_s
                ));
            }
            let shares = (t.api_write_unavailability.iter())
                .map(|x| ("api_write_unavailability".to_string(), *x))
                .chain(
                    t.services
                        .iter()
                        .map(|(n, x)| (format!("services.{n}"), *x)),
                );
            for (field, x) in shares {
                if !(0.0..=1.0).contains(&x) {
                    return Err(format!("{}: {x} is not a share (0 – 1)", at(&field)));
                }
            }
        }
        let runs = shard_trials(self.trials, k, m).count();
        if self.per_trial.len() != runs {
            return Err(format!(
                "per_trial: {} trials, where shard {} of a study of {} runs {runs}",
                self.per_trial.len(),
                self.shard,
                self.trials
            ));
        }
        Ok(())
    }

    /// The unsharded report from shards of one study, each checked ([`StudyReport::check`]);
    /// refused (with a sentence, naming the shard at fault) when one is damaged, when they are
    /// of different studies, when a shard is given twice, or when trials are left out.
    pub fn merge(shards: Vec<StudyReport>) -> Result<StudyReport, MergeError> {
        let fault = |i: usize, message: String| MergeError {
            shard: Some(i),
            message,
        };
        let Some(first) = shards.first() else {
            return Err(MergeError {
                shard: None,
                message: "no shard to merge".into(),
            });
        };
        let study = |s: &StudyReport| {
            (
                s.scenario.clone(),
                s.trials,
                s.horizon_s,
                s.seed,
                s.document.clone(),
            )
        };
        let one = study(first);
        let (name, trials, horizon_s, seed, document) = one.clone();
        let mut given: Vec<(u64, u64, usize)> = Vec::new();
        let mut results = Vec::new();
        for (i, s) in shards.into_iter().enumerate() {
            s.check().map_err(|m| fault(i, m))?;
            if study(&s) != one {
                let what = if s.document != document && (&s.scenario, s.trials) == (&name, trials) {
                    "another scenario of that name".to_string()
                } else {
                    format!(
                        "{:?}, {} trials, horizon {} s, seed {}",
                        s.scenario, s.trials, s.horizon_s, s.seed
                    )
                };
                return Err(fault(i, format!(
                    "shard {} is of another study ({what}) than the first ({name:?}, {trials} trials, horizon {horizon_s} s, seed {seed})",
                    s.shard
                )));
            }
            let (k, m) = parse_shard(&s.shard).unwrap_or((1, 1));
            if let Some(&(_, _, j)) = given.iter().find(|(gk, gm, _)| (*gk, *gm) == (k, m)) {
                return Err(fault(
                    i,
                    format!(
                        "shard {} is given twice (also as shard number {})",
                        s.shard,
                        j + 1
                    ),
                ));
            }
            if let Some(&(gk, gm, j)) = given.iter().find(|(_, gm, _)| *gm != m) {
                return Err(fault(
                    i,
                    format!(
                        "shard {} splits the study in {m}, shard number {} ({gk}/{gm}) in {gm}",
                        s.shard,
                        j + 1
                    ),
                ));
            }
            given.push((k, m, i));
            results.extend(s.per_trial);
        }
        let parts = given.first().map_or(1, |g| g.1);
        if (given.len() as u64) < parts {
            let missing = (1..=parts)
                .find(|k| !given.iter().any(|g| g.0 == *k))
                .unwrap_or(1);
            let n = results.len() as u64;
            return Err(MergeError {
                shard: None,
                message: format!(
                    "{} of {trials} trials are missing (the first is trial {}): merge every shard ({missing}/{parts} is not here)",
                    trials - n,
                    missing - 1
                ),
            });
        }
        let horizon = Duration::from_millis((horizon_s * 1000.0).round() as u64);
        let mut merged = StudyReport::new(&name, trials, horizon, seed, "1/1".into(), results);
        merged.document = document;
        Ok(merged)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// A shard of a study of `trials` trials (seed 7, horizon 100 s) with figures of its own.
    fn shard(trials: u64, k: u64, m: u64) -> StudyReport {
        let results = shard_trials(trials, k, m)
            .map(|i| Trial {
                trial: i,
                seed: trial_seed(7, i),
                etcd_quorum_lost_s: (i % 5) as f64 * 12.5,
                api_write_unavailability: Some(1.0 / (i + 3) as f64),
                services: [("web".to_string(), (i % 3) as f64 / 7.0)].into(),
            })
            .collect();
        let horizon = Duration::from_secs(100);
        StudyReport::new("fuzz", trials, horizon, 7, format!("{k}/{m}"), results)
    }

    /// Shards changed anywhere (numbers made huge, negative, fractional or strings; strings
    /// made numbers or other words; fields dropped): merge never panics, and whatever it
    /// accepts is a report within its bounds. Fixed seed; the counts are printed.
    #[test]
    fn corrupted_shards_are_refused_or_merge_within_bounds() {
        let good: Vec<Value> = (1..=3)
            .map(|k| serde_json::from_str(&shard(8, k, 3).to_json()).unwrap())
            .collect();
        let mut rng = Rng::new(52);
        let (mut unread, mut refused, mut merged) = (0, 0, 0);
        for _ in 0..10_000 {
            let mut shards = good.clone();
            let i = (rng.next_u64() % 3) as usize;
            for _ in 0..1 + rng.next_u64() % 3 {
                corrupt(&mut shards[i], &mut rng);
            }
            let read: Result<Vec<StudyReport>, _> = shards
                .iter()
                .map(|v| serde_json::from_value::<StudyReport>(v.clone()))
                .collect();
            let Ok(read) = read else {
                unread += 1;
                continue;
            };
            match StudyReport::merge(read) {
                Err(e) => {
                    assert!(!e.message.contains('\n') && !e.message.is_empty());
                    refused += 1;
                }
                Ok(r) => {
                    let q = &r.etcd.quorum_unavailability;
                    assert!((0.0..=1.0).contains(&q.mean), "{q:?}");
                    assert_eq!(r.per_trial.len() as u64, r.trials);
                    merged += 1;
                }
            }
        }
        println!("corrupted shards: {unread} not read, {refused} refused, {merged} merged");
        assert!(
            refused > 1000 && merged > 100,
            "{unread} {refused} {merged}"
        );
    }

    /// Changes one value somewhere in `v`.
    fn corrupt(v: &mut Value, rng: &mut Rng) {
        let deeper = rng.next_u64() % 4 != 0;
        if let Value::Object(o) = v {
            if deeper && !o.is_empty() {
                let key = o
                    .keys()
                    .nth((rng.next_u64() % o.len() as u64) as usize)
                    .cloned();
                let key = key.unwrap_or_default();
                if rng.next_u64() % 20 == 0 {
                    o.remove(&key);
                } else if let Some(inner) = o.get_mut(&key) {
                    corrupt(inner, rng);
                }
                return;
            }
        }
        if let Value::Array(a) = v {
            if deeper && !a.is_empty() {
                let i = (rng.next_u64() % a.len() as u64) as usize;
                corrupt(&mut a[i], rng);
                return;
            }
        }
        let pick = rng.next_u64();
        *v = match (&*v, pick % 7) {
            // Mostly a value of the same type, so that the shard still reads.
            (Value::Number(_), 0) => Value::from(-1.0),
            (Value::Number(_), 1) => Value::from(1e300),
            (Value::Number(_), 2) => Value::from(u64::MAX),
            (Value::Number(_), 3) => Value::from(0.5),
            (Value::Number(_), 4) => Value::from(pick % 10),
            (Value::String(_), 0) => Value::from("7/2"),
            (Value::String(_), 1) => Value::from("0/0"),
            (Value::String(_), 2) => Value::from("1/1"),
            (Value::String(_), 3) => Value::from("2/3"),
            (Value::String(_), 4) => Value::from("other"),
            (_, 5) => Value::from(""),
            _ => Value::Null,
        };
    }

    /// Against published tables of the exact interval (e.g. Garwood 1936; Ulm 1990).
    #[test]
    fn the_poisson_interval_is_the_exact_one() {
        for (k, low, high) in [
            (0, 0.0, 3.689),
            (1, 0.0253, 5.572),
            (2, 0.2422, 7.225),
            (10, 4.795, 18.39),
            (100, 81.36, 121.63),
        ] {
            let [l, h] = poisson_interval(k);
            assert!(
                (l - low).abs() <= 0.001 * low.max(1.0),
                "{k}: low {l} against {low}"
            );
            assert!(
                (h - high).abs() <= 0.001 * high,
                "{k}: high {h} against {high}"
            );
        }
    }
}
