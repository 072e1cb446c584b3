//! The engine: the page's simulation, run where it cannot stall the page (a Web Worker, see
//! [`crate::worker`]). It owns the runs ([`Run`]: the one shown, and the one it is compared
//! with) and speaks in messages: the page sends [`Verb`]s (load, seek, play to, a console
//! command) and receives [`News`] (where the view is, what was computed, the snapshot to draw,
//! what the report gained since the last news, console output). Both are plain data, sent as
//! bytes ([`crate::wire`]).
//!
//! The engine works in ticks of wall time while a run is busy, the view first (what the person
//! looks at), and sends news only when something the page shows changed.

use crate::fmt::now_ms;
use crate::run::Run;
use crate::wire::{self, Reader, ReportDelta, Wire};
use sim::report::Report;
use sim::view::Snapshot;
use std::cell::Cell;
use std::rc::Rc;

/// Work per tick (ms of wall time): verbs are handled between ticks.
pub const TICK_MS: f64 = 12.0;
/// Simulation events per call into the core at first; then adapted so a call takes about
/// [`SLICE_MS`] (events differ a lot in cost: a partition of a large cluster makes each one heavier).
pub const SLICE: u64 = 2_000;
const SLICE_MS: f64 = 1.5;
/// The report is rebuilt at most this often (ms) while a run is computed ahead: rebuilding it
/// copies every event and series, and the page redraws its charts and log from each.
const PUBLISH_EVERY_MS: f64 = 250.0;
/// And only after this many times as long as the last rebuild took: a rebuild copies the whole
/// history (0.3 s natively at the fifth day of a week's run), so at a fixed pace it would take
/// most of the time computing ahead as the run grows.
const PUBLISH_COST_FACTOR: f64 = 5.0;
/// Playing, a snapshot on the way is sent only after this many times as long as the last one
/// took to build: a large cluster's costs a good part of a frame, and answering every frame's ask
/// with one left the simulation little of the worker's time (at 1,000 workers, playing at max
/// went three times slower once the page asked every 16 ms instead of every 33).
const SNAPSHOT_COST_FACTOR: f64 = 3.0;
/// Slot of the run shown; the run it is compared with is slot [`COMPARED`].
pub const SHOWN: u8 = 0;
pub const COMPARED: u8 = 1;
/// The `gen` of news about the engine itself (every run shows it).
pub const EVERY_RUN: u32 = u32::MAX;

/// What the page asks of the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Verb {
    /// A new run of `scenario` (its JSON) in `slot`, the view at `t`; `gen` tags its news.
    Load {
        slot: u8,
        gen: u32,
        scenario: String,
        t: f64,
    },
    /// The slot's run is no longer shown.
    Close { slot: u8 },
    /// The shown run's view jumps to `t` (see [`Run::seek`]).
    Seek { t: f64 },
    /// Playback: the shown run's view plays on to `t`.
    Advance { t: f64 },
    /// A console command from host `from`, against the view.
    Console { id: u32, from: u32, line: String },
}

/// What the engine tells the page.
#[derive(Clone, Debug, PartialEq)]
pub enum News {
    /// A run's state changed: its status, and what changed of its report and (shown run) view.
    State {
        slot: u8,
        gen: u32,
        status: Status,
        report: Option<Box<ReportDelta>>,
        snapshot: Option<Rc<Snapshot>>,
    },
    /// A console command's output.
    Console { id: u32, reply: Reply },
    /// A run could not be loaded (the page sends only valid scenarios: this is a bug's message).
    Failed { slot: u8, gen: u32, message: String },
}

/// A run's progress, as the page's controls and charts read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Status {
    /// Report seconds the view is asked to reach (it has reached its snapshot's time).
    pub target: f64,
    /// Report seconds computed ahead (published in the report).
    pub computed_s: f64,
    pub complete: bool,
    pub busy: bool,
    pub view_behind: bool,
    pub checkpoints: usize,
    /// Seconds between checkpoints (0: none kept).
    pub every: f64,
    /// Stills kept so far, and the seconds between them (0: none kept): the scrubber's step.
    pub stills: usize,
    pub still_every: f64,
    /// The engine's wasm memory (MB).
    pub memory_mb: u32,
}

/// A console command's output ([`console::Output`]). A command that changed the cluster comes
/// with the run's scenario, that change recorded at the view's time (as JSON: the page reads
/// scenarios already, a second format for one action would cost the bundle more).
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    pub stdout: String,
    pub stderr: String,
    pub status: i32,
    pub took_s: f64,
    pub recorded: Option<String>,
}

impl Reply {
    fn of(out: console::Output, run: &Run) -> Reply {
        let mut stderr = out.stderr;
        let recorded = out.record.and_then(|action| {
            match crate::run::edited(run.scenario(), run.view_t(), action) {
                Ok(edit) => Some(edit.scenario.to_compact_json()),
                Err(e) => {
                    stderr.push_str(&format!("(not recorded in the scenario: {e})\n"));
                    None
                }
            }
        });
        Reply {
            stdout: out.stdout,
            stderr,
            status: out.status,
            took_s: out.took_s,
            recorded,
        }
    }

    /// The output as the console shows it, its record the action the scenario gained last.
    pub fn output(self) -> console::Output {
        console::Output {
            stdout: self.stdout,
            stderr: self.stderr,
            status: self.status,
            took_s: self.took_s,
            record: self
                .recorded
                .and_then(|s| sim::scenario::parse(&s).ok())
                .and_then(|mut s| s.events.pop())
                .map(|e| e.action),
        }
    }
}

wire::wire_struct! {
    Status { target, computed_s, complete, busy, view_behind, checkpoints, every, stills, still_every, memory_mb }
    Reply { stdout, stderr, status, took_s, recorded }
}

impl<T: Wire> Wire for Box<T> {
    fn put(&self, w: &mut Vec<u8>) {
        (**self).put(w)
    }
    fn get(r: &mut Reader) -> Self {
        Box::new(T::get(r))
    }
}

impl<T: Wire> Wire for Rc<T> {
    fn put(&self, w: &mut Vec<u8>) {
        (**self).put(w)
    }
    fn get(r: &mut Reader) -> Self {
        Rc::new(T::get(r))
    }
}

// A message is a tag, then its fields in order (a struct literal reads its fields in the order
// written).
impl Wire for Verb {
    fn put(&self, w: &mut Vec<u8>) {
        match self {
            Verb::Load {
                slot,
                gen,
                scenario,
                t,
            } => {
                w.push(0);
                slot.put(w);
                gen.put(w);
                scenario.put(w);
                t.put(w);
            }
            Verb::Close { slot } => {
                w.push(1);
                slot.put(w);
            }
            Verb::Seek { t } => {
                w.push(2);
                t.put(w);
            }
            Verb::Advance { t } => {
                w.push(3);
                t.put(w);
            }
            Verb::Console { id, from, line } => {
                w.push(4);
                id.put(w);
                from.put(w);
                line.put(w);
            }
        }
    }
    fn get(r: &mut Reader) -> Self {
        match u8::get(r) {
            0 => Verb::Load {
                slot: Wire::get(r),
                gen: Wire::get(r),
                scenario: Wire::get(r),
                t: Wire::get(r),
            },
            1 => Verb::Close { slot: Wire::get(r) },
            2 => Verb::Seek { t: Wire::get(r) },
            3 => Verb::Advance { t: Wire::get(r) },
            4 => Verb::Console {
                id: Wire::get(r),
                from: Wire::get(r),
                line: Wire::get(r),
            },
            _ => {
                r.bad = true;
                Verb::Close { slot: 0 }
            }
        }
    }
}

impl Wire for News {
    fn put(&self, w: &mut Vec<u8>) {
        match self {
            News::State {
                slot,
                gen,
                status,
                report,
                snapshot,
            } => {
                w.push(0);
                slot.put(w);
                gen.put(w);
                status.put(w);
                report.put(w);
                snapshot.put(w);
            }
            News::Console { id, reply } => {
                w.push(1);
                id.put(w);
                reply.put(w);
            }
            News::Failed { slot, gen, message } => {
                w.push(2);
                slot.put(w);
                gen.put(w);
                message.put(w);
            }
        }
    }
    fn get(r: &mut Reader) -> Self {
        match u8::get(r) {
            0 => News::State {
                slot: Wire::get(r),
                gen: Wire::get(r),
                status: Wire::get(r),
                report: Wire::get(r),
                snapshot: Wire::get(r),
            },
            1 => News::Console {
                id: Wire::get(r),
                reply: Wire::get(r),
            },
            2 => News::Failed {
                slot: Wire::get(r),
                gen: Wire::get(r),
                message: Wire::get(r),
            },
            _ => {
                r.bad = true;
                News::Console {
                    id: 0,
                    reply: Reply::get(r),
                }
            }
        }
    }
}

/// One run and what the page has been told of it.
struct Slot {
    gen: u32,
    run: Run,
    slice: Cell<u64>,
    /// Wall time (ms) before which the report is not rebuilt again (see [`work_for`]).
    publish_due: Cell<f64>,
    sent_report: Option<Rc<Report>>,
    sent_snapshot: Option<Rc<Snapshot>>,
    sent_status: Option<Status>,
    /// A verb moved the view: the page hears back even if nothing it shows changed (it waits
    /// for the view to be where it asked).
    asked: bool,
    /// Wall time (ms) before which no snapshot is sent on the way ([`SNAPSHOT_COST_FACTOR`]).
    snapshot_due: f64,
}

impl Slot {
    /// What changed since the last news, if anything did.
    fn news(&mut self, slot: u8) -> Option<News> {
        let status = status_of(&self.run);
        let report = self.run.report();
        let report = match &self.sent_report {
            Some(sent) if Rc::ptr_eq(sent, &report) => None,
            sent => {
                let delta = Box::new(ReportDelta::between(sent.as_deref(), &report));
                self.sent_report = Some(report);
                Some(delta)
            }
        };
        // The compared run is drawn by its charts only. A seek's replay is shown once done (a
        // still meanwhile, when the run keeps them), but a new run's first state at once (a large
        // cluster takes a while to boot to t = 0).
        // Playing, the page asks once a frame and draws once a frame: on the way to the target,
        // one snapshot per ask (a 1,000-host snapshot is 280 KB to decode), then the target's.
        let replaying = self.run.view_behind()
            && self.sent_snapshot.is_some()
            && (self.run.seeking() || !self.asked || now_ms() < self.snapshot_due);
        let snapshot = match (slot == SHOWN, replaying) {
            (false, _) => None,
            (true, true) => self.run.preview(),
            (true, false) => {
                let start = now_ms();
                let s = self.run.snapshot();
                self.snapshot_due = start + (now_ms() - start) * (1.0 + SNAPSHOT_COST_FACTOR);
                Some(s)
            }
        }
        // (Nor the same again: the target's own once the still there was sent.)
        .filter(|s| !(self.sent_snapshot.as_ref()).is_some_and(|o| Rc::ptr_eq(o, s) || **o == **s));
        if let Some(s) = &snapshot {
            self.sent_snapshot = Some(s.clone());
        }
        // The memory alone is not worth a re-render of the page.
        let same = self.sent_status.as_ref().is_some_and(|s| {
            *s == Status {
                memory_mb: s.memory_mb,
                ..status.clone()
            }
        });
        if report.is_none() && snapshot.is_none() && same && !self.asked {
            return None;
        }
        self.asked = false;
        self.sent_status = Some(status.clone());
        Some(News::State {
            slot,
            gen: self.gen,
            status,
            report,
            snapshot,
        })
    }
}

fn status_of(run: &Run) -> Status {
    Status {
        target: run.target(),
        computed_s: run.computed_s(),
        complete: run.complete(),
        busy: run.busy(),
        view_behind: run.view_behind(),
        checkpoints: run.checkpoints(),
        every: run.checkpoint_every().unwrap_or(0.0),
        stills: run.stills_kept(),
        still_every: run.still_every().unwrap_or(0.0),
        memory_mb: wasm_memory_mb(),
    }
}

/// The wasm linear memory (MB): it only grows, so this is the peak so far.
fn wasm_memory_mb() -> u32 {
    #[cfg(target_arch = "wasm32")]
    return (core::arch::wasm32::memory_size(0) * 65536 / 1_000_000) as u32;
    #[cfg(not(target_arch = "wasm32"))]
    0
}

#[derive(Default)]
pub struct Engine {
    slots: [Option<Slot>; 2],
    /// Console commands asked while a seek is replayed, in order: answered once the view is where
    /// it was asked (a still may show that time already; the answer is about it too).
    waiting: Vec<Waiting>,
}

/// A console command waiting for the view, and the run it was asked of.
struct Waiting {
    gen: u32,
    id: u32,
    from: u32,
    line: String,
}

impl Engine {
    /// Handles one verb; a console command is answered at once.
    pub fn handle(&mut self, verb: Verb) -> Option<News> {
        let shown = self.slots[SHOWN as usize].as_mut().map(|s| {
            s.asked = true;
            &mut s.run
        });
        match verb {
            Verb::Load {
                slot,
                gen,
                scenario,
                t,
            } => {
                let i = slot.min(COMPARED) as usize;
                match sim::scenario::parse(&scenario) {
                    Ok(s) => {
                        let mut run = Run::new(s);
                        if i == COMPARED as usize {
                            // Drawn by its charts only: no snapshot of it is ever shown.
                            run.keep_no_stills();
                        }
                        run.seek(t);
                        self.slots[i] = Some(Slot {
                            gen,
                            run,
                            slice: Cell::new(SLICE),
                            publish_due: Cell::new(f64::NEG_INFINITY),
                            sent_report: None,
                            sent_snapshot: None,
                            snapshot_due: 0.0,
                            sent_status: None,
                            asked: true,
                        });
                    }
                    Err(e) => {
                        self.slots[i] = None;
                        return Some(News::Failed {
                            slot,
                            gen,
                            message: e.to_string(),
                        });
                    }
                }
            }
            Verb::Close { slot } => self.slots[slot.min(COMPARED) as usize] = None,
            Verb::Seek { t } => shown?.seek(t),
            Verb::Advance { t } => shown?.advance_to(t),
            Verb::Console { id, from, line } => {
                let run = shown?;
                // Behind the ones waiting, so the replies keep the commands' order.
                if run.replaying_seek() || !self.waiting.is_empty() {
                    let gen = self.slots[SHOWN as usize].as_ref().map_or(0, |s| s.gen);
                    self.waiting.push(Waiting {
                        gen,
                        id,
                        from,
                        line,
                    });
                    return None;
                }
                let reply = Reply::of(run.console(from, &line), run);
                return Some(News::Console { id, reply });
            }
        }
        None
    }

    /// Whether a run has work left, or a console command waits (the engine should tick again).
    pub fn busy(&self) -> bool {
        self.slots.iter().flatten().any(|s| s.run.busy()) || !self.waiting.is_empty()
    }

    /// Works for about `ms` (a compared run gets a third of it), then tells what changed.
    pub fn tick(&mut self, ms: f64) -> Vec<News> {
        let comparing = self.slots[COMPARED as usize]
            .as_ref()
            .is_some_and(|s| s.run.busy());
        let mut news = Vec::new();
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let Some(slot) = slot else { continue };
            let share = match (i as u8, comparing) {
                (SHOWN, true) => ms * 2.0 / 3.0,
                (SHOWN, false) => ms,
                _ => ms / 3.0,
            };
            if slot.run.busy() {
                work_for(&mut slot.run, share, &slot.slice, &slot.publish_due);
            }
            news.extend(slot.news(i as u8));
        }
        news.extend(self.answer_waiting());
        news
    }

    /// Answers the console commands waiting, in order, once the view is where it was asked; a
    /// command whose run was replaced or closed meanwhile is refused (not run against another).
    fn answer_waiting(&mut self) -> Vec<News> {
        let mut news = Vec::new();
        let mut shown = self.slots[SHOWN as usize].as_mut();
        let gen = shown.as_ref().map(|s| s.gen);
        let ready = shown.as_ref().is_none_or(|s| !s.run.replaying_seek());
        while let Some(w) = self.waiting.first() {
            let current = gen == Some(w.gen);
            if current && !ready {
                break;
            }
            let w = self.waiting.remove(0);
            let reply = match shown.as_mut().filter(|_| current) {
                Some(s) => Reply::of(s.run.console(w.from, &w.line), &s.run),
                None => Reply {
                    stdout: String::new(),
                    stderr: "not run: the run changed before the view reached the time asked\n"
                        .into(),
                    status: 1,
                    took_s: 0.0,
                    recorded: None,
                },
            };
            news.push(News::Console { id: w.id, reply });
        }
        news
    }
}

/// Runs `run` for up to `ms` of wall time, in slices of events adapted to take about
/// [`SLICE_MS`] each (`slice` keeps the size between calls), then publishes its report if it is
/// stale and due (`publish_due`: [`PUBLISH_EVERY_MS`] after the last one, or
/// [`PUBLISH_COST_FACTOR`] times as long as it took). Whether work remains.
pub fn work_for(run: &mut Run, ms: f64, slice: &Cell<u64>, publish_due: &Cell<f64>) -> bool {
    let start = now_ms();
    let mut at = start;
    loop {
        let n = slice.get();
        let more = run.work(n);
        let now = now_ms();
        // Only full slices say how long an event takes (a slice may stop at a target).
        let took = now - at;
        if run.last_events() == n && took > 0.05 {
            let next = (n as f64 * SLICE_MS / took)
                .max(n as f64 / 2.0)
                .min(n as f64 * 2.0);
            slice.set((next as u64).clamp(100, 50_000));
        }
        at = now;
        if !more || now - start >= ms {
            break;
        }
    }
    let now = now_ms();
    if run.report_stale() && now >= publish_due.get() {
        run.publish_report();
        let took = now_ms() - now;
        publish_due.set(now + PUBLISH_EVERY_MS.max(took * PUBLISH_COST_FACTOR));
    }
    run.busy()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Ready;
    use crate::mirror::Mirror;
    use sim::world::World;

    /// Playing on: while the view is on its way to the target, one snapshot per ask of the page
    /// (it draws once a frame), not one per slice of work; then the one at the target.
    #[test]
    fn playback_sends_one_snapshot_per_ask_on_the_way() {
        let (s, mut engine) = computed("4-rack-split");
        let end = s.duration.as_secs_f64();
        engine.handle(Verb::Advance { t: end });
        let (mut ticks, mut short, mut at_end) = (0, 0, 0);
        while engine.busy() {
            ticks += 1;
            for news in engine.tick(0.1) {
                if let News::State {
                    snapshot: Some(snap),
                    ..
                } = news
                {
                    if snap.t < end {
                        short += 1;
                    } else {
                        at_end += 1;
                    }
                }
            }
        }
        assert!(ticks > 10, "the view took {ticks} slices to the end");
        assert_eq!((short, at_end), (1, 1), "snapshots on the way, at the end");
    }

    /// Playing, an ask made before the last snapshot's cost has been repaid gets the status
    /// (the page keeps its pace) but no snapshot on the way; the target's snapshot still comes.
    #[test]
    fn playback_skips_snapshots_on_the_way_until_their_cost_is_repaid() {
        let (s, mut engine) = computed("4-rack-split");
        let end = s.duration.as_secs_f64();
        let (mut answers, mut short, mut at_end) = (0, 0, 0);
        while engine.busy() || answers == 0 {
            engine.slots[0].as_mut().unwrap().snapshot_due = f64::INFINITY;
            engine.handle(Verb::Advance { t: end });
            for news in engine.tick(0.1) {
                if let News::State { snapshot, .. } = news {
                    answers += 1;
                    match snapshot {
                        Some(snap) if snap.t < end => short += 1,
                        Some(_) => at_end += 1,
                        None => {}
                    }
                }
            }
        }
        assert!(answers > 10, "every ask is answered: {answers}");
        assert_eq!((short, at_end), (0, 1), "snapshots on the way, at the end");
    }

    /// Through bytes, as between the page and the worker.
    fn sent<T: Wire>(v: &T) -> T {
        wire::decode(&wire::encode(v)).expect("decodes")
    }

    fn load(id: &str, gen: u32, t: f64) -> (sim::scenario::Scenario, Verb) {
        let s = Ready::by_id(id).unwrap().scenario();
        let verb = Verb::Load {
            slot: SHOWN,
            gen,
            scenario: s.to_compact_json(),
            t,
        };
        (s, verb)
    }

    /// An engine with a ready scenario's whole run computed, the view at 0:00.
    fn computed(id: &str) -> (sim::scenario::Scenario, Engine) {
        let (s, verb) = load(id, 1, 0.0);
        let mut engine = Engine::default();
        engine.handle(verb);
        while engine.busy() {
            engine.tick(5.0);
        }
        (s, engine)
    }

    /// Ticks until the engine rests, each news taken by `mirror`; the news count.
    fn settle(engine: &mut Engine, mirror: &mut Mirror) -> usize {
        let mut n = 0;
        loop {
            for news in engine.tick(2.0) {
                mirror.take(sent(&news));
                n += 1;
            }
            if !engine.busy() {
                return n;
            }
        }
    }

    fn world_at(s: &sim::scenario::Scenario, t: f64) -> World {
        let mut w = World::new(s.clone());
        let at = w.at_report_secs(t);
        while w.run_until(at, u64::MAX) {}
        w
    }

    /// The page's mirror, fed only the engine's news, ends with the run's whole report and the
    /// snapshot at the link's time, as computing them directly gives.
    #[test]
    fn the_mirror_fed_by_news_holds_the_run() {
        let (s, verb) = load("4-rack-split", 7, 250.5);
        let mut engine = Engine::default();
        assert_eq!(engine.handle(sent(&verb)), None);
        let mut mirror = Mirror::new(s.clone(), 7, 250.5);
        let news = settle(&mut engine, &mut mirror);
        assert!(news >= 2, "{news} news");
        assert!(mirror.complete() && !mirror.busy());
        assert_eq!(mirror.view_t(), 250.5);
        let mut whole = World::new(s.clone());
        let end = whole.end();
        while whole.run_until(end, u64::MAX) {}
        assert_eq!(*mirror.report(), sim::report(&whole));
        assert_eq!(*mirror.snapshot(), world_at(&s, 250.5).snapshot());
        // A seek back: only the snapshot and the view's status change. The mirror says where
        // the view goes at once, and when it is there.
        assert_eq!(engine.handle(sent(&Verb::Seek { t: 60.0 })), None);
        mirror.seek(60.0);
        assert!(mirror.awaiting() && mirror.view_t() == 60.0 && mirror.shown_t() == 250.5);
        let version = mirror.report_version();
        settle(&mut engine, &mut mirror);
        assert!(!mirror.awaiting());
        assert_eq!(mirror.shown_t(), 60.0);
        assert_eq!(mirror.report_version(), version, "no report resent");
        assert_eq!(*mirror.snapshot(), world_at(&s, 60.0).snapshot());
        // Nothing changed: no news. A seek to where the view is: news all the same (the page
        // waits for it).
        assert!(engine.tick(1.0).is_empty());
        engine.handle(Verb::Seek { t: 60.0 });
        mirror.seek(60.0);
        assert_eq!(settle(&mut engine, &mut mirror), 1);
        assert!(!mirror.awaiting());
    }

    /// A run that keeps stills: the first news after a seek draw the still before the target
    /// (the clock at its time, the page still waiting), the next the target's own snapshot.
    #[test]
    fn a_seek_shows_a_still_until_the_view_is_replayed() {
        let (s, verb) = load("4-rack-split", 1, 0.0);
        let mut engine = Engine::default();
        engine.handle(verb);
        let slot = engine.slots[SHOWN as usize].as_mut().unwrap();
        slot.run.keep_stills(10.0);
        let mut mirror = Mirror::new(s.clone(), 1, 0.0);
        settle(&mut engine, &mut mirror);
        assert_eq!(
            (mirror.status().stills, mirror.status().still_every),
            (90, 10.0)
        );
        // 8:55 replays from the checkpoint at 8:00 (one a minute), the still at 8:50 drawn.
        engine.handle(Verb::Seek { t: 535.0 });
        mirror.seek(535.0);
        let slot = engine.slots[SHOWN as usize].as_mut().unwrap();
        let still = slot.news(SHOWN).expect("news at once");
        mirror.take(sent(&still));
        assert!(mirror.awaiting() && mirror.status().view_behind);
        assert_eq!((mirror.shown_t(), mirror.view_t()), (530.0, 535.0));
        assert_eq!(*mirror.snapshot(), world_at(&s, 530.0).snapshot());
        // The console waits for the world there: its answer is about the time asked.
        let ask = Verb::Console {
            id: 9,
            from: 0,
            line: "kubectl get leases -n kube-node-lease -o yaml".into(),
        };
        assert_eq!(engine.handle(ask), None);
        let mut replies = Vec::new();
        while engine.busy() {
            for news in engine.tick(2.0) {
                match news {
                    News::Console { id: 9, reply } => replies.push(reply),
                    news => _ = mirror.take(sent(&news)),
                }
            }
        }
        assert!(!mirror.awaiting());
        assert_eq!(*mirror.snapshot(), world_at(&s, 535.0).snapshot());
        let at_target = console::exec(
            &world_at(&s, 535.0),
            0,
            "kubectl get leases -n kube-node-lease -o yaml",
        );
        assert_eq!(replies.len(), 1);
        assert_eq!(replies[0].stdout, at_target.stdout);
    }

    /// A link far into a run: its first state is the cluster as it starts, and the clock says
    /// so (the cursor is at the link's time at once); the link's time only once the view is there.
    #[test]
    fn a_link_far_ahead_shows_the_start_until_it_is_reached() {
        let (s, verb) = load("4-rack-split", 3, 250.5);
        let mut engine = Engine::default();
        engine.handle(verb);
        let mut mirror = Mirror::new(s, 3, 250.5);
        assert_eq!((mirror.view_t(), mirror.shown_t()), (250.5, 0.0));
        let mut first = engine.tick(0.01).into_iter();
        mirror.take(sent(&first.next().expect("the first state at once")));
        assert!(mirror.started() && mirror.awaiting());
        assert!(mirror.shown_t() < 250.5, "{}", mirror.shown_t());
        assert_eq!(mirror.view_t(), 250.5);
        settle(&mut engine, &mut mirror);
        assert_eq!((mirror.view_t(), mirror.shown_t()), (250.5, 250.5));
        // A fork at the cursor: the earlier run's snapshot stays, at the time asked.
        let (s, _) = load("4-rack-split", 4, 0.0);
        mirror.reset(s, 4, 250.5);
        assert_eq!(mirror.shown_t(), 250.5);
    }

    /// Console commands asked while a seek is replayed are answered in the order asked, even
    /// when the view is there before the next tick; one whose run is replaced meanwhile is refused,
    /// not run against the new run.
    #[test]
    fn waiting_console_commands_keep_their_order_and_end_with_their_run() {
        let (_, mut engine) = computed("4-rack-split");
        let ask = |id| Verb::Console {
            id,
            from: 0,
            line: "kubectl get nodes".into(),
        };
        let ids = |news: Vec<News>| -> Vec<(u32, i32)> {
            (news.into_iter())
                .filter_map(|n| match n {
                    News::Console { id, reply } => Some((id, reply.status)),
                    _ => None,
                })
                .collect()
        };
        // 8:55 replays from the checkpoint at 8:00; then back to 8:00, where the view is.
        engine.handle(Verb::Seek { t: 535.0 });
        assert_eq!(engine.handle(ask(1)), None);
        engine.handle(Verb::Seek { t: 480.0 });
        assert_eq!(engine.handle(ask(2)), None, "behind the first");
        assert_eq!(ids(engine.tick(1.0)), [(1, 0), (2, 0)]);
        assert!(matches!(
            engine.handle(ask(3)),
            Some(News::Console { id: 3, .. })
        ));
        // Replaced while it waits: refused.
        engine.handle(Verb::Seek { t: 700.0 });
        assert_eq!(engine.handle(ask(4)), None);
        engine.handle(load("etcd-leader-dies", 2, 0.0).1);
        let mut answered = Vec::new();
        while engine.busy() {
            answered.extend(ids(engine.tick(5.0)));
        }
        assert_eq!(answered, [(4, 1)]);
    }

    /// A week of 58 hosts keeps stills when shown, none when compared (its view is never drawn).
    #[test]
    fn only_the_shown_run_keeps_stills() {
        let mut hosts = r#"{"name":"m1","roles":["control-plane","etcd"]}"#.to_string();
        for i in 0..57 {
            hosts.push_str(&format!(r#",{{"name":"w{i}","roles":["worker"]}}"#));
        }
        let json = format!(
            r#"{{"version":1,"name":"week","seed":1,"duration":"168h","hosts":[{hosts}]}}"#
        );
        let mut engine = Engine::default();
        for slot in [SHOWN, COMPARED] {
            engine.handle(Verb::Load {
                slot,
                gen: 1,
                scenario: json.clone(),
                t: 0.0,
            });
        }
        let every = |slot: u8| {
            engine.slots[slot as usize]
                .as_ref()
                .unwrap()
                .run
                .still_every()
        };
        assert_eq!((every(SHOWN), every(COMPARED)), (Some(600.0), None));
    }

    /// A new run's news carry its tag; the mirror of a newer run ignores an older run's.
    #[test]
    fn news_of_an_earlier_run_are_ignored() {
        let (s, first) = load("etcd-leader-dies", 1, 0.0);
        let mut engine = Engine::default();
        engine.handle(first);
        let stale = engine.tick(5.0);
        assert!(!stale.is_empty());
        let (s2, second) = load("4-rack-split", 2, 0.0);
        engine.handle(second);
        let mut mirror = Mirror::new(s, 1, 0.0);
        let name = s2.name.clone();
        mirror.reset(s2, 2, 0.0);
        for news in stale {
            assert!(!mirror.take(news), "news of run 1 taken by run 2");
        }
        settle(&mut engine, &mut mirror);
        assert_eq!(mirror.report().scenario, name);
    }

    #[test]
    fn console_commands_run_against_the_view_and_bring_back_their_record() {
        let (_, mut engine) = computed("7-worker-dies");
        let ask = |engine: &mut Engine, line: &str| match engine.handle(sent(&Verb::Console {
            id: 3,
            from: 0,
            line: line.into(),
        })) {
            Some(News::Console { id: 3, reply }) => sent(&reply).output(),
            other => panic!("{other:?}"),
        };
        let out = ask(&mut engine, "kubectl get nodes");
        assert!(out.stdout.starts_with("NAME"), "{}", out.stdout);
        assert_eq!(out.record, None);
        let host = engine.slots[0].as_ref().unwrap().run.scenario().hosts[3]
            .name
            .clone();
        let out = ask(&mut engine, &format!("kubectl cordon {host}"));
        assert_eq!(
            out.record,
            Some(sim::scenario::Action::Cordon { host }),
            "{}{}",
            out.stdout,
            out.stderr
        );
    }

    #[test]
    fn verbs_round_trip_and_garbage_is_refused() {
        let verbs = [
            load("etcd-leader-dies", 4, 12.5).1,
            Verb::Close { slot: COMPARED },
            Verb::Seek { t: 1.25 },
            Verb::Advance { t: 99.0 },
            Verb::Console {
                id: 300,
                from: 2,
                line: "kubectl get pods -A".into(),
            },
        ];
        for v in &verbs {
            assert_eq!(&sent(v), v);
        }
        assert_eq!(wire::decode::<Verb>(&[9]), None);
        assert_eq!(wire::decode::<News>(&[]), None);
        // A scenario the core refuses is answered, not loaded.
        let bad = Verb::Load {
            slot: SHOWN,
            gen: 5,
            scenario: "{}".into(),
            t: 0.0,
        };
        let mut engine = Engine::default();
        let failed = engine.handle(bad).unwrap();
        assert!(matches!(failed, News::Failed { gen: 5, .. }));
        assert!(!engine.busy());
        // The page's mirror of that run keeps the message (the status line shows it), as it
        // does for news about the engine itself, whatever the run.
        let (s, _) = load("etcd-leader-dies", 5, 0.0);
        let mut mirror = Mirror::new(s.clone(), 5, 0.0);
        assert!(mirror.take(sent(&failed)) && mirror.failed.is_some() && !mirror.busy());
        let mut other = Mirror::new(s, 6, 0.0);
        assert!(!other.take(failed));
        let broken = News::Failed {
            slot: SHOWN,
            gen: EVERY_RUN,
            message: "the simulation worker stopped".into(),
        };
        assert!(other.take(broken) && other.failed.is_some());
    }
}

/// Not a check but a figure (BENCHMARKS.md): how long the engine takes to reach a link to the
/// fifth day of a week's run, and the news it sends on the way, then to go back to the start of
/// that day. Run with
/// `cargo test --release -p app --lib a_link_far_into_a_week -- --ignored --nocapture`.
#[cfg(test)]
mod bench {
    use super::*;
    use crate::catalog::Ready;
    use crate::study::plan::{with_preset, Preset};

    #[test]
    #[ignore]
    fn a_link_far_into_a_week() {
        // The study page's default cluster with spot workers, 7 days: the worst of six trials
        // (seed 1) first loses etcd's quorum at 134:29:19, and the page opens it 10 s before.
        let s = with_preset(
            &Ready::by_id("k8s-three-zones").unwrap().scenario(),
            Preset::Spot,
        );
        let s = sim::study::with_seed_and_horizon(
            &s,
            8880218605922484559,
            sim::kernel::time::Duration::from_secs(7 * 86_400),
        );
        let t = 134.0 * 3600.0 + 29.0 * 60.0 + 9.0;
        let mut engine = Engine::default();
        engine.handle(Verb::Load {
            slot: SHOWN,
            gen: 1,
            scenario: s.to_compact_json(),
            t,
        });
        let start = now_ms();
        let (mut news, mut bytes) = (0, 0);
        let run = loop {
            for n in engine.tick(TICK_MS) {
                bytes += wire::encode(&n).len();
                news += 1;
            }
            let run = &engine.slots[SHOWN as usize].as_ref().unwrap().run;
            if !run.view_behind() {
                break run;
            }
        };
        assert_eq!(run.view_t(), t);
        println!(
            "ENGINE_WEEK_LINK_MS={:.0} news={news} bytes={bytes} checkpoints={}",
            now_ms() - start,
            run.checkpoints()
        );
        // Back to the start of that day, while the rest of the week is computed.
        let back = 120.0 * 3600.0;
        engine.handle(Verb::Seek { t: back });
        let start = now_ms();
        loop {
            engine.tick(TICK_MS);
            let run = &engine.slots[SHOWN as usize].as_ref().unwrap().run;
            if !run.view_behind() {
                break;
            }
        }
        println!("ENGINE_WEEK_SEEK_BACK_MS={:.0}", now_ms() - start);
    }
}
