//! The simulation as the page drives it: a scenario and two worlds run from it.
//!
//! - `ahead` computes the whole run toward the scenario's end in budgeted slices; its report
//!   feeds the charts and the event log, so the story is visible before it is played.
//! - `view` is the world at the time the person looks at (the cursor); the topology draws its
//!   snapshot.
//!
//! Seeking replays at most one checkpoint interval, or about [`REPLAY_MS`] of computing (more once
//! the run has reached its cap, below). While `ahead` computes, it keeps a clone of itself at 0:00
//! (the settled cluster; none while it boots), then an interval after the last one
//! ([`checkpoint_interval`], chosen from the scenario's size so they fit [`checkpoint_budget`]),
//! or sooner once it has computed that long (a busy stretch); at [`checkpoint_cap`] the one whose
//! neighbours are the cheapest to replay between goes, so a long run's checkpoints stay spread
//! over all of it, about equally costly to replay from:
//! `World` is `Clone`, and a clone continues exactly like the original, so replaying from a
//! checkpoint gives the same world as replaying from the start (runs are deterministic and
//! prefix-stable).
//!
//! A seek takes the latest world not past the target: the view itself, a spare (a world left
//! behind by a seek back, or the `ahead` world once it has reached the end; at most [`SPARES`],
//! moved, not copied), or a clone of a checkpoint when that is clearly later (a clone costs about
//! as much as replaying a simulated minute of a large cluster). So scrubbing to the end of a
//! computed run, or back and forth between two times, costs no replay at all. A seek past what
//! `ahead` has computed (a link's time) lets `ahead` compute up to it and clones it into the view,
//! so no stretch of the run is computed twice.
//!
//! The report is rebuilt from the `ahead` world only when asked ([`Run::publish_report`]):
//! building it copies every event and series, too costly to do after every slice.
//!
//! Editing records a scenario event at the cursor. Events after the cursor are dropped (the
//! timeline forks there), so the new run agrees with what was shown up to the cursor.
//! No simulation logic lives here: only scheduling of the core's own `run_until`.

use crate::fmt::{now_ms, Fixed};
use crate::stills::Stills;
use sim::report::Report;
use sim::scenario::{Action, Event, Scenario};
use sim::time::{Duration, SimTime};
use sim::view::Snapshot;
use sim::world::{ViewCache, World};
use std::rc::Rc;

/// Worlds kept for reuse by seeks (besides the view and the one computing ahead).
pub const SPARES: usize = 2;
/// Estimated bytes all checkpoints of a run may take together, at least.
pub const CHECKPOINT_BUDGET: f64 = 128e6;
/// A large cluster replays more slowly between two checkpoints, so it may keep more of them:
/// this many bytes per host, up to [`CHECKPOINT_BUDGET_MAX`].
const CHECKPOINT_BYTES_PER_HOST: f64 = 500e3;
const CHECKPOINT_BUDGET_MAX: f64 = 512e6;
/// At most this many checkpoints, whatever the run's length.
pub const MAX_CHECKPOINTS: usize = 60;
/// Checkpoint intervals tried, shortest first (simulated minutes).
const INTERVALS_MIN: [u64; 12] = [1, 2, 5, 10, 15, 20, 30, 60, 120, 240, 480, 1440];

/// What a run's world size depends on: its hosts, and how much happens to them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Size {
    pub hosts: usize,
    /// Faults and repairs its fault processes are expected to draw, and its scenario events, per
    /// second of the run: each leaves records, a spot replacement a whole new host.
    pub churn: f64,
}

impl Size {
    pub fn of(s: &Scenario) -> Size {
        let draws = s.expected_fault_draws() + s.events.len() as f64;
        Size {
            hosts: s.hosts.len(),
            churn: draws / s.duration.as_secs_f64().max(1.0),
        }
    }
}

/// Estimated bytes of a world of `size` at report second `t`. Measured natively with a counting
/// allocator on clones of the reference clusters (≈ 10 pods a worker): 22–29 KB per host at the
/// start, then 236 KB (100 workers), 270 KB (1,000) and 170 KB (2,000 hosts, 6 pods each) per
/// simulated hour whatever the size (the per-second series of the record). Churn adds to that:
/// with every worker of the 1,000 crashing once a day (10 minutes to repair) 2.7 KB per crash, with
/// every one a spot host interrupted once a day and replaced 5 minutes later 14 KB per
/// interruption (each replacement is a new host). The model rounds up: 40 KB for each of the first
/// 100 hosts, 25 KB for each further one, 500 KB per hour, 20 KB per fault, repair or scenario event.
pub fn world_bytes(size: Size, t: f64) -> f64 {
    let hosts = size.hosts.max(1) as f64;
    hosts.min(100.0) * 40e3
        + (hosts - 100.0).max(0.0) * 25e3
        + 500e3 * t / 3600.0
        + 20e3 * size.churn * t
}

/// Most wall time (ms) a seek should replay from a checkpoint: the run ahead keeps one each time it
/// has computed this long, so a busy stretch (a large cluster's split, whose events cost two to
/// three times a quiet stretch's) gets its checkpoints closer together than the interval.
pub const REPLAY_MS: f64 = 150.0;

/// The most of the run's computing that building and comparing its stills may take: past it,
/// every other one goes and the interval doubles (in the page a 1,000-host still takes about as
/// long as computing 7 simulated seconds of it: one a minute would be 11 %).
const STILLS_SHARE: f64 = 0.05;
/// Computing (ms) after which the stills' share is judged.
const STILLS_JUDGED_AFTER_MS: f64 = 2_000.0;

/// A clone of a checkpoint costs about as much as replaying this many events per host of the
/// cluster (natively 19 ms for a 1,000-worker world, ≈ 0.35 µs an event in a quiet stretch).
const CLONE_EVENTS_PER_HOST: u64 = 50;

/// Estimated bytes a checkpoint holds beyond what it shares with the run ahead and the other
/// checkpoints: the parts of the world that changed between them. What only grows (etcd's log,
/// the record) is shared, so a checkpoint costs about the same late in a run as early. Measured
/// natively (64-bit, more than the page's 32-bit memory) with `clustersim bench-checkpoints`:
/// 0.4 MB (18 hosts), 0.9 MB (38), 1.3-3.8 MB (108, one every 2 minutes to one an hour),
/// 4.7 MB (308) and 8.3-10.8 MB (1,008 hosts). What changed grows with the time between two
/// checkpoints and levels off past an hour, whatever the cluster's size: 15 hosts over a week
/// (the study's cluster), 1.1 MB a copy 10 minutes apart, 3.4-4.2 MB an hour or more apart. The
/// model rounds up: 40 KB for each of the first 100 hosts, 10 KB for each further one, at least
/// [`LEVELLED_OFF_BYTES`]. Churn adds 20 KB per fault, repair or scenario event so far (as
/// [`world_bytes`] does): a day of 100 spot workers each interrupted about daily (some 270
/// faults and repairs) held 1.3 MB more a copy than a calm day (5.1 MB against 3.7 MB, a copy an
/// hour), where the model adds 2.8 MB on average.
pub fn checkpoint_bytes(size: Size, t: f64) -> f64 {
    let hosts = size.hosts.max(1) as f64;
    let held = hosts.min(100.0) * 40e3 + (hosts - 100.0).max(0.0) * 10e3;
    held.max(LEVELLED_OFF_BYTES) + 20e3 * size.churn * t
}

/// The least a checkpoint is counted at, whatever the cluster's size: a small cluster's copies an
/// hour or more apart held 3.4-4.2 MB each of their own (see [`checkpoint_bytes`]).
const LEVELLED_OFF_BYTES: f64 = 4.5e6;

/// The most checkpoints a run may keep: as many as 512 MB holds (or what the page's budget leaves
/// beside the view, the run ahead and the spares at their size at the run's end, and the stills
/// at their most), each counted at what it holds of its own. The regular ones
/// ([`checkpoint_interval`]) are spaced as if each were a whole world, within the run's smaller
/// budget; those a busy stretch adds fill the rest.
pub fn checkpoint_cap(duration_s: f64, size: Size) -> usize {
    let left = BROWSER_BUDGET
        - (2 + SPARES) as f64 * world_bytes(size, duration_s)
        - crate::stills::MOST_BYTES;
    let budget = CHECKPOINT_BUDGET_MAX.min(left);
    ((budget / checkpoint_bytes(size, duration_s)).max(0.0) as usize).min(MAX_CHECKPOINTS)
}

/// The most memory a run may take in the page: the run computed ahead and the view (two worlds
/// at the run's end at worst), the checkpoints, and room for the report. wasm32 gives a page at
/// most 4 GB, but a tab of gigabytes starves the rest of the machine (and a phone kills it).
pub const BROWSER_BUDGET: f64 = 1e9;

/// Whether a scenario's run fits the page's memory; if not, a sentence with its estimated size
/// and how to run it natively instead. Checked before a run starts, so a tab never crashes.
pub fn fits_browser(s: &Scenario) -> Result<(), String> {
    let d = s.duration.as_secs_f64();
    let need = 2.0 * world_bytes(Size::of(s), d) + CHECKPOINT_BUDGET;
    if need <= BROWSER_BUDGET {
        return Ok(());
    }
    Err(format!(
        "{} hosts for {} would need about {} GB of memory in the page, more than its {} GB: \
         save the scenario as JSON and run it natively with \
         `cargo run --release -p clustersim -- run scenario.json`",
        s.hosts.len(),
        s.duration,
        Fixed(need / 1e9, 1),
        Fixed(BROWSER_BUDGET / 1e9, 1)
    ))
}

/// The bytes a run's checkpoints may take: [`CHECKPOINT_BUDGET`], or 500 KB per host up to 512 MB,
/// within what the page's budget leaves beside the two worlds of [`fits_browser`].
pub fn checkpoint_budget(duration_s: f64, size: Size) -> f64 {
    let left = BROWSER_BUDGET - 2.0 * world_bytes(size, duration_s);
    (size.hosts as f64 * CHECKPOINT_BYTES_PER_HOST)
        .min(CHECKPOINT_BUDGET_MAX)
        .min(left)
        .max(CHECKPOINT_BUDGET)
}

/// The shortest checkpoint interval (report seconds) whose checkpoints, at every multiple of it
/// before the end, fit [`checkpoint_budget`] and [`MAX_CHECKPOINTS`]. A 15-minute ready scenario
/// gets one a minute, the 100-worker hour one every 5 minutes, the 1,000-worker hour one every
/// 5 minutes too, the 100-worker day one every 2 hours. A run of days too large for the budget
/// at any interval gets one a day, as many as the page holds ([`checkpoint_cap`]; thinned as
/// the run goes on): without any, going back in a week replays it from its start. `None` for a
/// run shorter than the first interval that fits.
pub fn checkpoint_interval(duration_s: f64, size: Size) -> Option<f64> {
    let budget = checkpoint_budget(duration_s, size);
    let day = 86_400.0;
    INTERVALS_MIN
        .iter()
        .map(|m| (m * 60) as f64)
        .find(|&every| {
            let n = ((duration_s / every).ceil() as usize).saturating_sub(1);
            // (Beside the one at 0:00, the smallest: a settled cluster with no history yet.)
            let bytes: f64 = (1..=n).map(|k| world_bytes(size, k as f64 * every)).sum();
            (1..=MAX_CHECKPOINTS).contains(&n) && bytes <= budget
        })
        .or((duration_s > day).then_some(day))
}

pub struct Run {
    /// Shared with the page, which reads it on every frame (a copy of 1,000 hosts is not free).
    scenario: Rc<Scenario>,
    /// Computes the whole run toward the end; `None` once done (it became a spare).
    ahead: Option<World>,
    /// Report seconds `ahead` had reached when the report was last built.
    published_s: f64,
    report: Rc<Report>,
    view: World,
    spares: Vec<World>,
    /// Report seconds the view is asked to reach.
    target: f64,
    /// Report seconds between checkpoints (`None`: the run is too large for any).
    every: Option<f64>,
    /// Clones of `ahead` (sorted by time), never modified: one an interval after the last, or
    /// sooner once it has cost [`Run::replay`] to compute since, at most [`Run::cap`].
    checkpoints: Vec<World>,
    /// What computing `ahead` had cost at each checkpoint (ms, by [`Run::clock`]).
    costs: Vec<f64>,
    /// Report seconds of the next checkpoint by time.
    next_checkpoint_s: f64,
    /// What computing `ahead` has cost so far (ms).
    ahead_cost: f64,
    /// Wall-clock ms ([`now_ms`]; the tests count calls instead, to be deterministic).
    clock: fn() -> f64,
    /// The cost after which a checkpoint is taken, whatever the time ([`REPLAY_MS`]; raised at
    /// the cap to the cheapest replay between two kept ones).
    replay: f64,
    /// Most checkpoints kept ([`checkpoint_cap`]).
    cap: usize,
    /// Simulation events the last [`Run::work`] processed.
    last_events: u64,
    /// Whether the view's target was set by a seek (not by playback).
    seeking: bool,
    /// The time `ahead` is computing to for the view (see [`Run::work`]).
    lead_to: Option<SimTime>,
    /// The last snapshot of the view, and the view's (time, events processed) it was taken at.
    snapshot_cache: std::cell::RefCell<Option<SnapshotKey>>,
    /// What the view's snapshots, and the stills', share with the next ones.
    view_drawn: ViewCache,
    stills_drawn: ViewCache,
    /// The view kept at regular instants by `ahead`, when seeks may replay long ([`Stills`]).
    stills: Option<Stills>,
    /// What keeping stills has cost so far (ms, by [`Run::clock`]).
    stills_cost: f64,
    /// The still last drawn while a seek is replayed, and its time (thinning moves indexes).
    preview_cache: std::cell::RefCell<Option<(f64, Rc<Snapshot>)>>,
    /// Each vantage host's console jobs (a port-forward left running in the background).
    jobs: Vec<(u32, console::Jobs)>,
}

/// A snapshot and the view's (time, events processed) it was taken at.
type SnapshotKey = ((SimTime, u64), Rc<Snapshot>);

/// An accepted edit: the new scenario, and the later events the fork dropped.
pub struct Edit {
    pub scenario: Scenario,
    pub at: f64,
    /// The scenario's events after `at`, left out of the fork.
    pub dropped: Vec<Event>,
}

impl Run {
    pub fn new(scenario: Scenario) -> Run {
        let ahead = World::new(scenario.clone());
        let report = Rc::new(sim::report(&ahead));
        let view = World::new(scenario.clone());
        let (duration_s, size) = (scenario.duration.as_secs_f64(), Size::of(&scenario));
        let every = checkpoint_interval(duration_s, size);
        let cap = every.map_or(0, |_| checkpoint_cap(duration_s, size));
        Run {
            every,
            checkpoints: Vec::new(),
            // The first at 0:00, the settled cluster: going back to the start would otherwise
            // replay its boot (at 1,000 workers 94,000 events, more than the first minute after).
            next_checkpoint_s: every.map_or(f64::INFINITY, |_| 0.0),
            costs: Vec::new(),
            ahead_cost: 0.0,
            clock: now_ms,
            replay: REPLAY_MS,
            cap,
            stills: Stills::every_for(duration_s, size.hosts, cap).map(Stills::new),
            stills_cost: 0.0,
            preview_cache: Default::default(),
            last_events: 0,
            seeking: false,
            lead_to: None,
            snapshot_cache: Default::default(),
            view_drawn: ViewCache::default(),
            stills_drawn: ViewCache::default(),
            jobs: Vec::new(),
            scenario: Rc::new(scenario),
            ahead: Some(ahead),
            published_s: 0.0,
            report,
            view,
            spares: Vec::new(),
            target: 0.0,
        }
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn duration_s(&self) -> f64 {
        self.scenario.duration.as_secs_f64()
    }

    /// The report of everything computed so far (the charts and the log).
    pub fn report(&self) -> Rc<Report> {
        self.report.clone()
    }

    /// Report seconds computed ahead (the charts are drawn up to here).
    pub fn computed_s(&self) -> f64 {
        self.published_s
    }

    /// Whether the whole run has been computed and its report published.
    pub fn complete(&self) -> bool {
        self.ahead.is_none() && self.published_s >= self.duration_s()
    }

    /// Report seconds the view has reached (what the topology shows).
    pub fn view_t(&self) -> f64 {
        self.view.elapsed_s().min(self.duration_s())
    }

    pub fn target(&self) -> f64 {
        self.target
    }

    /// Whether the view's target was set by a seek (not by playback).
    pub fn seeking(&self) -> bool {
        self.seeking
    }

    /// A console command run from host `from` against the world the view shows (on a copy of
    /// it: looking never changes the run), with the jobs that host's earlier lines left running.
    pub fn console(&mut self, from: u32, line: &str) -> console::Output {
        let i = match self.jobs.iter().position(|(h, _)| *h == from) {
            Some(i) => i,
            None => {
                self.jobs.push((from, console::Jobs::default()));
                self.jobs.len() - 1
            }
        };
        console::exec_with(&self.view, from, line, &mut self.jobs[i].1)
    }

    /// What the topology draws: the view's snapshot, built again only when the view moved
    /// (the page renders on every frame, also while only the run ahead is being computed).
    pub fn snapshot(&self) -> Rc<Snapshot> {
        let key = (self.view.now(), self.view.events_processed());
        let mut cache = self.snapshot_cache.borrow_mut();
        match &*cache {
            Some((k, snap)) if *k == key => snap.clone(),
            _ => {
                let snap = Rc::new(self.view.snapshot_with(&self.view_drawn));
                *cache = Some((key, snap.clone()));
                snap
            }
        }
    }

    /// The report of the view world (what has happened up to the cursor).
    pub fn view_report(&self) -> Report {
        sim::report(&self.view)
    }

    /// While a seek is replayed: the latest still at or before the target that is later than
    /// the world being replayed, drawn meanwhile (exact when the target is its instant). None
    /// while `ahead` computes its way to the target (a link far into a run): each still on the
    /// way would be drawn, and the page shows where the view starts from until it is there.
    pub fn preview(&self) -> Option<Rc<Snapshot>> {
        if !self.replaying_seek() || self.lead_to.is_some() {
            return None;
        }
        let stills = self.stills.as_ref()?;
        let i = stills.latest(self.view.elapsed_s(), self.target)?;
        let t = stills.t(i);
        let mut cache = self.preview_cache.borrow_mut();
        match &*cache {
            Some((k, snap)) if *k == t => Some(snap.clone()),
            _ => {
                let snap = Rc::new(stills.snapshot(i));
                *cache = Some((t, snap.clone()));
                Some(snap)
            }
        }
    }

    /// Keeps no stills (a run whose view is never drawn).
    pub fn keep_no_stills(&mut self) {
        self.stills = None;
    }

    /// Keeps stills every `every` seconds whatever the run's size (a test's small run).
    #[cfg(test)]
    pub fn keep_stills(&mut self, every: f64) {
        self.stills = Some(Stills::new(every));
    }

    /// Report seconds between stills, if the run keeps them.
    pub fn still_every(&self) -> Option<f64> {
        self.stills.as_ref().map(Stills::every)
    }

    /// How many stills are kept so far.
    pub fn stills_kept(&self) -> usize {
        self.stills.as_ref().map_or(0, Stills::len)
    }

    /// Whether a slice of work remains (the view short of its target, or the run not computed).
    pub fn busy(&self) -> bool {
        !self.complete() || self.view_behind()
    }

    /// Whether a seek is being replayed: the view short of the time a seek asked (not playback).
    pub fn replaying_seek(&self) -> bool {
        self.seeking && self.view_behind()
    }

    /// Whether the view is short of its target (a seek being replayed, or playback on its way).
    pub fn view_behind(&self) -> bool {
        self.view.now() < self.view.at_report_secs(self.target)
    }

    /// Asks the view for report second `t` (clamped to the run). The view becomes the latest
    /// world at or before `t`: the current view, a spare, a clone of a checkpoint (when it is
    /// more than [`Run::clone_margin`] later than those), or a fresh one.
    pub fn seek(&mut self, t: f64) {
        let t = t.max(0.0).min(self.duration_s());
        let at = self.view.at_report_secs(t);
        let spare = self
            .spares
            .iter()
            .enumerate()
            .filter(|(_, w)| w.now() <= at)
            .max_by_key(|(_, w)| w.now())
            .map(|(i, w)| (i, w.now()));
        let view_now = (self.view.now() <= at).then(|| self.view.now());
        // The latest world that can be moved in without a copy (a fresh one starts at zero).
        let moved = [
            view_now.map(|_| &self.view),
            spare.map(|(i, _)| &self.spares[i]),
        ]
        .into_iter()
        .flatten()
        .max_by_key(|w| w.now());
        let (moved_now, moved_events) =
            moved.map_or((SimTime::ZERO, 0), |w| (w.now(), w.events_processed()));
        let checkpoint = self.checkpoints.iter().rposition(|w| w.now() <= at);
        // Clearly later: by time, or by the events a replay from the moved world would take.
        let later = |w: &World| {
            w.now() > moved_now + self.clone_margin()
                || w.events_processed()
                    > moved_events + CLONE_EVENTS_PER_HOST * self.scenario.hosts.len() as u64
        };
        match (checkpoint, spare) {
            (Some(k), _) if later(&self.checkpoints[k]) => {
                let w = self.checkpoints[k].clone();
                let old = std::mem::replace(&mut self.view, w);
                self.keep(old);
            }
            (_, Some((i, now))) if view_now.is_none_or(|v| now > v) => {
                let w = self.spares.swap_remove(i);
                let old = std::mem::replace(&mut self.view, w);
                self.keep(old);
            }
            _ if view_now.is_none() => {
                let old = std::mem::replace(&mut self.view, World::new((*self.scenario).clone()));
                self.keep(old);
            }
            _ => {}
        }
        self.target = t;
        self.seeking = true;
        self.lead_to = None;
    }

    /// How much later a checkpoint must be than a world that can be moved in for cloning it to
    /// pay: half an interval, at most a simulated minute (or the events a clone costs, [`CLONE_EVENTS_PER_HOST`]).
    fn clone_margin(&self) -> Duration {
        let s = self.every.map_or(0.0, |e| (e / 2.0).min(60.0));
        Duration::from_millis((s * 1000.0) as u64)
    }

    /// Report seconds between checkpoints, if the run keeps any.
    pub fn checkpoint_every(&self) -> Option<f64> {
        self.every
    }

    /// How many checkpoints are kept so far.
    pub fn checkpoints(&self) -> usize {
        self.checkpoints.len()
    }

    /// Playback: moves the view's target forward to `t` on the same world (no jump to a kept
    /// world ahead, so every second is played). Going back is a [`Run::seek`].
    pub fn advance_to(&mut self, t: f64) {
        let t = t.max(0.0).min(self.duration_s());
        if self.view.now() <= self.view.at_report_secs(t) {
            self.target = t;
            self.seeking = false;
            self.lead_to = None;
        } else {
            self.seek(t);
        }
    }

    /// Keeps a world as a spare, dropping the earliest one beyond [`SPARES`].
    fn keep(&mut self, w: World) {
        self.spares.push(w);
        if self.spares.len() > SPARES {
            let earliest = (0..self.spares.len())
                .min_by_key(|&i| self.spares[i].now())
                .unwrap_or(0);
            self.spares.swap_remove(earliest);
        }
    }

    /// Processes at most `budget` simulation events: first toward the view's target (what the
    /// person looks at), then ahead. Returns whether work remains.
    ///
    /// After a seek past what `ahead` has computed (a link's time, the scrubber dragged forward
    /// early), replaying the view would compute the same events twice: `ahead` is then advanced
    /// to the target instead (keeping its checkpoints on the way) and the view becomes a clone
    /// of it. Not during playback, which shows every second as the view reaches it.
    pub fn work(&mut self, budget: u64) -> bool {
        self.last_events = 0;
        let view_until = self
            .view_behind()
            .then(|| self.view.at_report_secs(self.target));
        let margin = self.clone_margin();
        let lead = match (view_until, &self.ahead) {
            (Some(until), Some(a)) => {
                self.seeking && a.now() >= self.view.now() && a.now() + margin < until
            }
            _ => false,
        };
        if let Some(until) = view_until.filter(|_| self.lead_to.is_none() && !lead) {
            let before = self.view.events_processed();
            self.view.run_until(until, budget);
            self.last_events = self.view.events_processed() - before;
            return self.busy();
        }
        // `ahead` leads the view to this time, once started (it stays the way until reached).
        if lead {
            self.lead_to = view_until;
        }
        let lead_to = self.lead_to;
        let Some(ahead) = &mut self.ahead else {
            return self.busy();
        };
        let before = ahead.events_processed();
        let end = ahead.end();
        let keeps = self.cap > 0;
        // Stop at the next checkpoint's time, if one is due before the end, and at the view's target.
        let next = Some(self.next_checkpoint_s)
            .filter(|s| keeps && s.is_finite())
            .map(|s| ahead.at_report_secs(s))
            .filter(|&c| c < end);
        // And at the next still's.
        let still = (self.stills.as_ref())
            .map(|s| ahead.at_report_secs(s.next_s()))
            .filter(|&c| c < end);
        let stop = [next, still, lead_to]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(end);
        // And once it has cost enough for a checkpoint whatever the time (checked after the slice).
        let started = (self.clock)();
        let reached = !ahead.run_until(stop, budget);
        self.last_events = ahead.events_processed() - before;
        self.ahead_cost += (self.clock)() - started;
        let since = self.ahead_cost - self.costs.last().unwrap_or(&0.0);
        let busy = keeps && since >= self.replay;
        let now = ahead.now();
        if let Some(stills) = self
            .stills
            .as_mut()
            .filter(|_| reached && still == Some(now))
        {
            // Exact: `reached` means every event of its instant has run, as for a seek to it.
            let started = (self.clock)();
            stills.keep(ahead.snapshot_with(&self.stills_drawn));
            self.stills_cost += (self.clock)() - started;
            // Judged once the run has computed long enough for its cost to be measured.
            if self.ahead_cost > STILLS_JUDGED_AFTER_MS
                && self.stills_cost > STILLS_SHARE * self.ahead_cost
            {
                stills.thin();
                self.stills_cost /= 2.0;
            }
        }
        if (reached && next == Some(now)) || (busy && now < end) {
            // The rest of this instant first: a seek to exactly `now` takes the checkpoint as
            // it is (the view is not behind), so it must hold every event of `now`.
            ahead.run_until(now, u64::MAX);
            self.last_events = ahead.events_processed() - before;
            // None while the cluster boots: the one at 0:00 serves every seek better.
            let booting = now < ahead.at_report_secs(0.0);
            if self.checkpoints.len() >= self.cap && !booting {
                let cheapest = thin(&mut self.checkpoints, &mut self.costs, self.ahead_cost);
                self.replay = self.replay.max(cheapest);
            }
            if self.checkpoints.len() < self.cap && !booting {
                self.checkpoints.push(ahead.clone());
                self.costs.push(self.ahead_cost);
            }
            self.next_checkpoint_s = if booting {
                0.0
            } else {
                ahead.elapsed_s() + self.every.unwrap_or(f64::INFINITY)
            };
        }
        if !reached {
            return self.busy();
        }
        let for_view = lead_to == Some(now);
        if for_view {
            self.lead_to = None;
        }
        if now >= end {
            // Done: publish the final report, and keep the world (it is the run's end).
            self.publish(true);
            if let Some(done) = self.ahead.take() {
                if for_view {
                    let old = std::mem::replace(&mut self.view, done);
                    self.keep(old);
                } else {
                    self.keep(done);
                }
            }
        } else if for_view {
            let w = ahead.clone();
            let old = std::mem::replace(&mut self.view, w);
            self.keep(old);
        }
        self.busy()
    }

    /// How many simulation events the last [`Run::work`] processed (its budget when it was cut
    /// short by it, fewer when it reached a target).
    pub fn last_events(&self) -> u64 {
        self.last_events
    }

    /// Whether `ahead` has computed more than the published report shows.
    pub fn report_stale(&self) -> bool {
        self.ahead
            .as_ref()
            .is_some_and(|a| a.elapsed_s().min(self.duration_s()) > self.published_s)
    }

    /// Rebuilds the report from what `ahead` has computed (the charts and the log read it).
    pub fn publish_report(&mut self) {
        self.publish(false);
    }

    fn publish(&mut self, done: bool) {
        if let Some(ahead) = &self.ahead {
            self.report = Rc::new(sim::report(ahead));
            self.published_s = if done {
                self.duration_s()
            } else {
                ahead.elapsed_s().min(self.duration_s())
            };
        }
    }
}

/// At the cap, before one is taken at cost `next`: drops the checkpoint whose neighbours are the
/// cheapest to replay between (never the first, the settled cluster), so those kept stay about
/// equally costly to replay from over the whole run, whatever its length. Returns the cheapest
/// replay between two of those left: taking the next one sooner would only get it dropped
/// (infinite when only the first is kept: no later one will be).
fn thin(checkpoints: &mut Vec<World>, costs: &mut Vec<f64>, next: f64) -> f64 {
    if checkpoints.len() < 2 {
        return f64::INFINITY;
    }
    costs.push(next);
    let (mut drop, mut least) = (0, f64::INFINITY);
    for i in 1..costs.len() - 1 {
        if costs[i + 1] - costs[i - 1] < least {
            (drop, least) = (i, costs[i + 1] - costs[i - 1]);
        }
    }
    checkpoints.remove(drop);
    costs.remove(drop);
    let mut cheapest = f64::INFINITY;
    for i in 1..costs.len() {
        cheapest = cheapest.min(costs[i] - costs[i - 1]);
    }
    costs.pop();
    cheapest
}

/// `scenario` with `action` recorded at report second `at` (rounded down to the millisecond,
/// so the event is never after the time shown), and every event after `at` dropped. Refused
/// with the core's message (`events[3].host: ...`) when invalid.
pub fn edited(scenario: &Scenario, at: f64, action: Action) -> Result<Edit, String> {
    let ms = (at.max(0.0).min(scenario.duration.as_secs_f64()) * 1000.0).floor() as u64;
    let at_d = Duration::from_millis(ms).min(scenario.duration);
    let mut scenario = scenario.clone();
    let (kept, dropped): (Vec<Event>, Vec<Event>) =
        scenario.events.drain(..).partition(|e| e.at <= at_d);
    scenario.events = kept;
    scenario.events.push(Event { at: at_d, action });
    scenario.validate().map_err(|e| e.to_string())?;
    Ok(Edit {
        scenario,
        at: at_d.as_secs_f64(),
        dropped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cluster where nothing happens but its own life.
    fn quiet(hosts: usize) -> Size {
        Size { hosts, churn: 0.0 }
    }

    #[test]
    fn runs_too_large_for_the_page_are_refused_with_their_size() {
        // `faults`: a fault process over every worker, or none.
        let cluster = |workers: usize, hours: u64, faults: &str| {
            let spot = !faults.is_empty();
            let mut hosts = r#"{"name":"m1","roles":["control-plane","etcd"]}"#.to_string();
            for i in 0..workers {
                hosts.push_str(&format!(
                    r#",{{"name":"w{i}","roles":["worker"],"spot":{spot}}}"#
                ));
            }
            let json = format!(
                r#"{{"version":1,"name":"big","seed":1,"duration":"{hours}h","hosts":[{hosts}],"faults":[{faults}]}}"#
            );
            sim::scenario::parse(&json).unwrap()
        };
        // The issue's playable sizes: 100 workers for 24 h, 1,000 workers for an hour; and the
        // largest quiet run the format allows, 2,000 hosts for 7 days (two worlds of 136 MB).
        assert!(fits_browser(&cluster(100, 24, "")).is_ok());
        assert!(fits_browser(&cluster(1_000, 1, "")).is_ok());
        assert!(fits_browser(&cluster(1_999, 168, "")).is_ok());
        // The same with every worker a spot host interrupted twice a day and replaced after 5
        // minutes: 55,434 interruptions and replacements expected, two worlds of 1.24 GB each.
        let spot = r#"{"hosts":"spot","spot_interruptions_every":"12h","replace_after":"5m"}"#;
        let e = fits_browser(&cluster(1_999, 168, spot)).unwrap_err();
        assert!(
            e.starts_with("2000 hosts for 168h would need about 2.6 GB of memory in the page, more than its 1.0 GB")
                && e.contains("clustersim -- run"),
            "{e}"
        );
    }

    /// A clock that moves one tick each time it is read: a `work` slice costs one.
    fn ticks() -> f64 {
        thread_local!(static T: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) });
        T.with(|t| {
            t.set(t.get() + 1.0);
            t.get()
        })
    }

    /// A ready scenario's run, its checkpoints by the clock of [`ticks`] (by wall time, a slow
    /// machine would take more of them).
    fn run(id: &str) -> Run {
        let mut r = Run::new(crate::catalog::Ready::by_id(id).unwrap().scenario());
        r.clock = ticks;
        r
    }

    fn finish(r: &mut Run) {
        while r.work(100_000) {}
    }

    #[test]
    fn computes_ahead_and_the_view_follows_the_cursor() {
        let mut r = run("etcd-leader-dies");
        finish(&mut r);
        assert_eq!(r.computed_s(), 120.0);
        assert_eq!(r.view_t(), 0.0);
        assert_eq!(r.snapshot().etcd.leader.as_deref(), Some("etcd-3"));
        r.seek(60.0);
        finish(&mut r);
        assert_eq!(r.view_t(), 60.0);
        assert_eq!(r.snapshot().etcd.leader.as_deref(), Some("etcd-1"));
        // Back in time: rebuilt and replayed, the same state as before.
        r.seek(10.0);
        finish(&mut r);
        assert_eq!(r.snapshot().etcd.leader.as_deref(), Some("etcd-3"));
    }

    /// A still is the view's snapshot at its instant, exact; a seek draws the latest one before
    /// its target, later than the world replayed, until the replay arrives.
    #[test]
    fn a_seek_draws_the_still_before_its_target_until_the_replay_arrives() {
        let mut r = run("etcd-leader-dies");
        r.keep_stills(10.0);
        finish(&mut r);
        assert_eq!(r.stills_kept(), 12, "0:00 to 1:50, the end being a spare");
        let stills = r.stills.as_ref().unwrap();
        for (i, t) in [(0, 0.0), (5, 50.0), (6, 60.0), (11, 110.0)] {
            let mut fresh = Run::new(r.scenario().clone());
            fresh.seek(t);
            finish(&mut fresh);
            assert_eq!(stills.snapshot(i), *fresh.snapshot(), "at {t} s");
        }
        // The view at 0:00, a checkpoint at 1:00: a seek to 0:55 replays from the view, the
        // still at 0:50 drawn meanwhile; to 1:05 from the checkpoint, no still in between.
        r.seek(55.0);
        assert!(r.view_behind());
        assert_eq!(r.preview().map(|s| s.t), Some(50.0));
        finish(&mut r);
        assert_eq!((r.preview(), r.snapshot().t), (None, 55.0));
        r.seek(65.0);
        assert!(r.view_behind() && r.preview().is_none());
        // Playing on is not a seek: every second is drawn as the view reaches it.
        finish(&mut r);
        r.advance_to(95.0);
        assert!(r.view_behind() && r.preview().is_none());
        // A seek past what `ahead` has computed: `ahead` leads the view there, and the stills it
        // keeps on the way are not drawn.
        let mut r = run("etcd-leader-dies");
        r.keep_stills(10.0);
        r.seek(100.0);
        while r.stills_kept() < 3 {
            r.work(500);
            assert!(r.view_behind() && r.preview().is_none());
        }
    }

    /// Stills that cost more than their share of the computing are thinned: every other goes,
    /// the interval doubles (each slice and each still cost one tick of [`ticks`]).
    #[test]
    fn stills_that_cost_too_much_are_thinned() {
        let mut r = run("4-rack-split");
        r.keep_stills(1.0);
        while r.work(20) {}
        let stills = r.stills.as_ref().unwrap();
        let every = stills.every();
        assert!(every >= 4.0, "{every}");
        assert!(
            r.stills_cost <= STILLS_SHARE * r.ahead_cost,
            "{} {}",
            r.stills_cost,
            r.ahead_cost
        );
        assert_eq!(
            stills.len(),
            (900.0 / every) as usize,
            "0:00 up to the end, on the grid"
        );
        let mut fresh = Run::new(r.scenario().clone());
        fresh.seek(2.0 * every);
        finish(&mut fresh);
        assert_eq!(stills.snapshot(2), *fresh.snapshot());
    }

    #[test]
    fn an_edit_forks_the_timeline_at_the_cursor() {
        let r = run("etcd-leader-dies");
        let edit = edited(r.scenario(), 45.5, Action::Heal).unwrap();
        assert_eq!(
            edit.dropped.len(),
            1,
            "the restart at 90 s is after the cursor"
        );
        assert_eq!(edit.dropped[0].at.as_secs_f64(), 90.0);
        assert_eq!(edit.scenario.events.len(), 2);
        assert_eq!(edit.at, 45.5);
        // Crashing a crashed host is refused with the core's message, naming the event.
        let err = edited(
            r.scenario(),
            40.0,
            Action::Crash {
                host: "etcd-3".into(),
            },
        )
        .err()
        .unwrap();
        assert!(
            err.starts_with("events[1].host: host \"etcd-3\" is already crashed"),
            "{err}"
        );
    }

    #[test]
    fn seeking_reuses_the_finished_run_and_the_world_left_behind() {
        let mut r = run("etcd-leader-dies");
        finish(&mut r);
        // The end: the world that computed ahead is taken as it is, no replay.
        r.seek(120.0);
        assert!(!r.busy(), "the finished run is reused for its end");
        assert_eq!(r.view_t(), 120.0);
        // Back to 60 s: replayed; then forward to the end again, the world at the end was kept.
        r.seek(60.0);
        finish(&mut r);
        assert_eq!(r.snapshot().etcd.leader.as_deref(), Some("etcd-1"));
        r.seek(120.0);
        assert!(!r.busy());
        // And back to 60 s: the world left there is a spare.
        r.seek(60.0);
        assert!(!r.busy());
        assert_eq!(r.view_t(), 60.0);
    }

    #[test]
    fn checkpoint_intervals_follow_the_size() {
        assert_eq!(checkpoint_interval(900.0, quiet(10)), Some(60.0));
        assert_eq!(
            checkpoint_interval(3600.0, quiet(108)),
            Some(300.0),
            "the 100-worker reference cluster"
        );
        // 1,000 workers replay ten times slower: they may keep 504 MB of checkpoints, not 128 MB
        // (with 128 MB, every 15 minutes).
        assert_eq!(checkpoint_budget(3600.0, quiet(1008)), 504e6);
        assert_eq!(
            checkpoint_interval(3600.0, quiet(1008)),
            Some(300.0),
            "the 1,000-worker reference cluster"
        );
        // 2,000 hosts for four days, a fault or a repair every half minute: 307 MB a world, so
        // the two worlds leave less than 512 MB of the page's 1 GB.
        let busy = Size {
            hosts: 2000,
            churn: 0.03,
        };
        let left = BROWSER_BUDGET - 2.0 * world_bytes(busy, 4.0 * 86400.0);
        assert_eq!(checkpoint_budget(4.0 * 86400.0, busy), left);
        assert!(left < CHECKPOINT_BUDGET_MAX && left > CHECKPOINT_BUDGET);
        assert_eq!(
            checkpoint_interval(86400.0, quiet(108)),
            Some(7200.0),
            "a day of the 100-worker reference cluster"
        );
        assert_eq!(
            checkpoint_interval(60.0, quiet(10)),
            None,
            "nothing before the end of a one-minute run"
        );
        // A week of 100 hosts is too large for the budget at any interval if each checkpoint
        // were a whole world (88 MB at the end): one a day, and those a busy stretch adds up to
        // MAX_CHECKPOINTS (512 MB would hold 128 of 4 MB of their own). The largest quiet run
        // the format allows (2,000 hosts for a week, 136 MB a world) keeps what the page's 1 GB
        // holds beside its four worlds and 64 MB of stills, 394 MB, of checkpoints of 23 MB: 17.
        let week = 7.0 * 86400.0;
        assert_eq!(checkpoint_interval(week, quiet(100)), Some(86400.0));
        assert_eq!(checkpoint_cap(week, quiet(100)), MAX_CHECKPOINTS);
        assert_eq!(checkpoint_cap(week, quiet(2000)), 17);
        // A day of a small cluster: at most MAX_CHECKPOINTS.
        let every = checkpoint_interval(86400.0, quiet(10)).unwrap();
        assert!(86400.0 / every <= MAX_CHECKPOINTS as f64 + 1.0, "{every}");
    }

    /// The state after a seek that starts from a checkpoint equals a fresh replay from 0:00.
    #[test]
    fn a_seek_from_a_checkpoint_equals_a_fresh_replay() {
        for id in ["4-rack-split", "7-worker-dies"] {
            let mut r = run(id);
            finish(&mut r);
            let every = r.checkpoint_every().unwrap();
            assert_eq!(
                r.checkpoints() as f64,
                (r.duration_s() / every).ceil(),
                "{id}: at 0:00 and every interval before the end"
            );
            for t in [
                every * 2.0 + 10.5,
                every * 5.0,
                r.duration_s() - 1.0,
                every * 3.0 + 0.25,
            ] {
                r.seek(t);
                // Started from the checkpoint at or before `t`, not from 0:00 or a spare.
                assert_eq!(
                    r.view_t(),
                    (t / every).floor() * every,
                    "{id} at {t}: from a checkpoint"
                );
                finish(&mut r);
                assert_eq!(r.view_t(), t);
                let s = r.scenario().clone();
                let mut fresh = World::new(s);
                let until = fresh.at_report_secs(t);
                while fresh.run_until(until, u64::MAX) {}
                assert_eq!(*r.snapshot(), fresh.snapshot(), "{id} at {t}: snapshot");
                assert_eq!(r.view_report(), sim::report(&fresh), "{id} at {t}: report");
            }
        }
    }

    /// A busy stretch gets checkpoints closer than the interval: never more than the replay cost
    /// (here 5,000 events) between two, at most the cap, and a seek from one equals a fresh
    /// replay, even when it was taken between two events of one instant.
    #[test]
    fn a_busy_run_keeps_a_checkpoint_every_so_many_events() {
        let mut r = run("4-rack-split");
        // A slice (1,000 events) costs one tick of the clock: 5,000 events.
        r.replay = 5.0;
        let mut taken = Vec::new();
        let mut last = 0;
        while r.work(1_000) {
            if r.checkpoints() > last {
                last = r.checkpoints();
                let c = &r.checkpoints[last - 1];
                taken.push((c.elapsed_s(), c.events_processed()));
            }
        }
        // None while the cluster boots (more than 5,000 events): the first is the settled
        // cluster at 0:00, with every event of that instant.
        let mut settled = World::new(r.scenario().clone());
        let origin = settled.at_report_secs(0.0);
        while settled.run_until(origin, u64::MAX) {}
        assert_eq!(taken[0], (0.0, settled.events_processed()));
        assert!(taken[0].1 > 5_000);
        let every = r.checkpoint_every().unwrap();
        assert!(
            taken.len() - 1 > (r.duration_s() / every) as usize,
            "{taken:?}"
        );
        for p in taken.windows(2) {
            // The bound, and the rest of the instant it was reached in.
            assert!(p[1].1 - p[0].1 <= 5_100, "{taken:?}");
            assert!(p[1].0 - p[0].0 <= every, "{taken:?}");
        }
        // Exactly at an event-based checkpoint (taken within an instant), and between them.
        let exact = taken
            .iter()
            .find(|c| c.0 % 1.0 != 0.0 || c.0 % every != 0.0)
            .unwrap()
            .0;
        for t in [exact, 130.0, 411.7, 899.0] {
            let from = taken.iter().rev().find(|c| c.0 <= t).unwrap().0;
            r.seek(t);
            assert_eq!(r.view_t(), from, "from the checkpoint before {t}");
            finish(&mut r);
            let mut fresh = World::new(r.scenario().clone());
            let until = fresh.at_report_secs(t);
            while fresh.run_until(until, u64::MAX) {}
            assert_eq!(*r.snapshot(), fresh.snapshot(), "at {t}: snapshot");
            assert_eq!(r.view_report(), sim::report(&fresh), "at {t}: report");
        }
        // At the cap, the one between the two closest neighbours goes: those kept stay spread
        // over the whole run, about equally costly to replay from (the first, the settled cluster,
        // always stays), and later ones are taken less often.
        let mut r = run("4-rack-split");
        r.replay = 1.0;
        r.cap = 7;
        finish(&mut r);
        let kept: Vec<(f64, u64)> = r
            .checkpoints
            .iter()
            .map(|c| (c.elapsed_s(), c.events_processed()))
            .collect();
        assert_eq!(kept.len(), 7, "{kept:?}");
        assert_eq!(kept[0], taken[0], "{kept:?}");
        assert!(kept[6].0 > 0.75 * r.duration_s(), "{kept:?}");
        let mut end = World::new(r.scenario().clone());
        let until = end.end();
        while end.run_until(until, u64::MAX) {}
        let mut bounds: Vec<u64> = kept.iter().map(|k| k.1).collect();
        bounds.push(end.events_processed());
        let gaps: Vec<u64> = bounds.windows(2).map(|w| w[1] - w[0]).collect();
        // A gap made by a merge is two gaps that were the cheapest of the 6 adjacent pairs then,
        // whose costs sum to at most twice the run's so far: so it is at most a third of the run
        // (7/3 of the mean gap). A gap never merged is below the replay threshold, far less here.
        let total = bounds[7] - bounds[0];
        assert!(
            gaps.iter().all(|&g| g <= 2 * total / 6),
            "no replay more than a third of the run: {gaps:?}"
        );
        assert!(r.replay > 1.0, "taken less often");
        // A cap of one keeps the settled cluster, and stops taking any after it.
        let mut r = run("4-rack-split");
        r.replay = 1.0;
        r.cap = 1;
        finish(&mut r);
        assert_eq!(r.checkpoints.len(), 1);
        assert_eq!(r.checkpoints[0].events_processed(), taken[0].1);
        assert_eq!(r.replay, f64::INFINITY);
    }

    #[test]
    fn the_cap_is_what_512_mb_holds_of_checkpoints_beside_the_worlds() {
        // 1,000 workers for an hour: 512 MB of checkpoints of 13.1 MB each of their own (4 MB
        // for the first 100 hosts, 9.1 MB for the 908 further ones).
        assert_eq!(checkpoint_cap(3600.0, quiet(1008)), 39);
        // A small cluster: at most MAX_CHECKPOINTS.
        assert_eq!(checkpoint_cap(900.0, quiet(10)), MAX_CHECKPOINTS);
    }

    /// The model of a checkpoint's own bytes is at least what `clustersim bench-checkpoints`
    /// measured (see `checkpoint_bytes`): (hosts, faults and repairs a second, report second the
    /// copies reach on average, MB a copy held).
    #[test]
    fn checkpoints_are_counted_at_no_less_than_they_were_measured() {
        let measured = [
            (18, 0.0, 1800.0, 0.4),
            (38, 0.0, 1800.0, 0.9),
            (108, 0.0, 1800.0, 3.8),
            (308, 0.0, 1800.0, 4.7),
            (1008, 0.0, 1800.0, 10.8),
            // The study's cluster, a copy an hour for a week.
            (15, 0.0, 3.5 * 86400.0, 4.2),
            // 100 spot workers each interrupted about daily, a copy an hour for a day.
            (105, 270.0 / 86400.0, 45_000.0, 5.1),
        ];
        for (hosts, churn, t, mb) in measured {
            let model = checkpoint_bytes(Size { hosts, churn }, t);
            assert!(
                model >= mb * 1e6,
                "{hosts} hosts: {model} bytes against {mb} MB measured"
            );
        }
    }

    /// A seek past what is computed (a link's time): `ahead` computes up to it, keeping its
    /// checkpoints, and the view is a clone of it; nothing is computed twice, and the state is
    /// the one a fresh replay gives.
    #[test]
    fn a_seek_ahead_of_the_computed_run_is_reached_by_the_run_ahead() {
        let mut r = run("4-rack-split");
        r.seek(250.5);
        let mut events = 0;
        while r.view_behind() {
            r.work(1_000);
            events += r.last_events();
        }
        assert_eq!(r.view_t(), 250.5);
        assert_eq!(
            r.checkpoints(),
            5,
            "checkpoints at 0:00, 1:00, 2:00, 3:00 and 4:00 on the way"
        );
        let mut fresh = World::new(r.scenario().clone());
        let until = fresh.at_report_secs(250.5);
        while fresh.run_until(until, u64::MAX) {}
        assert_eq!(*r.snapshot(), fresh.snapshot());
        assert_eq!(r.view_report(), sim::report(&fresh));
        assert!(
            events <= fresh.events_processed() + 1_000,
            "computed once: {events} for {}",
            fresh.events_processed()
        );
        // Playback from there runs the view itself, and the run ahead completes as before.
        r.advance_to(260.0);
        finish(&mut r);
        assert_eq!(r.view_t(), 260.0);
        assert_eq!(r.computed_s(), 900.0);
        let mut whole = World::new(r.scenario().clone());
        let end = whole.end();
        while whole.run_until(end, u64::MAX) {}
        assert_eq!(*r.report(), sim::report(&whole));
        // Seeking to the end before the run is computed: the finished run itself becomes the view.
        let mut r = run("4-rack-split");
        r.seek(900.0);
        finish(&mut r);
        assert_eq!(r.view_t(), 900.0);
        assert_eq!(*r.snapshot(), whole.snapshot());
    }
}
