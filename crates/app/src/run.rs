//! The simulation as the page drives it: a scenario and two worlds run from it.
//!
//! - `ahead` computes the whole run toward the scenario's end in budgeted slices; its report
//!   feeds the charts and the event log, so the story is visible before it is played.
//! - `view` is the world at the time the person looks at (the cursor); the topology draws its
//!   snapshot. Going back in time rebuilds it from scratch and replays: runs are deterministic
//!   and prefix-stable, so that is the same world, and it is how the core is meant to be used.
//!
//! Seeking reuses worlds instead of discarding them: a world left behind by a seek back, and
//! the `ahead` world once it has reached the end, are kept as spares (at most [`SPARES`]);
//! a seek takes the world that is latest without being past the target, so scrubbing to the
//! end of a computed run, or back and forth between two times, costs no replay.
//!
//! The report is rebuilt from the `ahead` world only when asked ([`Run::publish_report`]):
//! building it copies every event and series, too costly to do after every slice.
//!
//! Editing records a scenario event at the cursor. Events after the cursor are dropped (the
//! timeline forks there), so the new run agrees with what was shown up to the cursor.
//! No simulation logic lives here: only scheduling of the core's own `run_until`.

use sim::report::Report;
use sim::scenario::{Action, Event, Scenario};
use sim::time::Duration;
use sim::view::Snapshot;
use sim::world::World;
use std::rc::Rc;

/// Worlds kept for reuse by seeks (besides the view and the one computing ahead).
pub const SPARES: usize = 2;

pub struct Run {
    scenario: Scenario,
    /// Computes the whole run toward the end; `None` once done (it became a spare).
    ahead: Option<World>,
    /// Report seconds `ahead` had reached when the report was last built.
    published_s: f64,
    report: Rc<Report>,
    /// Bumped whenever `report` changes, so views can memoise on it.
    report_version: u64,
    view: World,
    spares: Vec<World>,
    /// Report seconds the view is asked to reach.
    target: f64,
}

/// An accepted edit: the new scenario, and how many later events the fork dropped.
pub struct Edit {
    pub scenario: Scenario,
    pub at: f64,
    pub dropped: usize,
}

impl Run {
    pub fn new(scenario: Scenario) -> Run {
        let ahead = World::new(scenario.clone());
        let report = Rc::new(ahead.report());
        let view = World::new(scenario.clone());
        Run {
            scenario,
            ahead: Some(ahead),
            published_s: 0.0,
            report,
            report_version: 0,
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

    pub fn report_version(&self) -> u64 {
        self.report_version
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

    pub fn snapshot(&self) -> Snapshot {
        self.view.snapshot()
    }

    /// Whether a slice of work remains (the view short of its target, or the run not computed).
    pub fn busy(&self) -> bool {
        !self.complete() || self.view_behind()
    }

    fn view_behind(&self) -> bool {
        self.view.now() < self.view.at_report_secs(self.target)
    }

    /// Asks the view for report second `t` (clamped to the run). Going back rebuilds it.
    /// Asks the view for report second `t` (clamped to the run). The view becomes the kept
    /// world latest at or before `t` (the current view, a spare), or a fresh one.
    pub fn seek(&mut self, t: f64) {
        let t = t.clamp(0.0, self.duration_s());
        let at = self.view.at_report_secs(t);
        let best = self
            .spares
            .iter()
            .enumerate()
            .filter(|(_, w)| w.now() <= at)
            .max_by_key(|(_, w)| w.now())
            .map(|(i, w)| (i, w.now()));
        let view_ok = self.view.now() <= at;
        match best {
            Some((i, now)) if !view_ok || now > self.view.now() => {
                let w = self.spares.swap_remove(i);
                let old = std::mem::replace(&mut self.view, w);
                self.keep(old);
            }
            _ if !view_ok => {
                let old = std::mem::replace(&mut self.view, World::new(self.scenario.clone()));
                self.keep(old);
            }
            _ => {}
        }
        self.target = t;
    }

    /// Playback: moves the view's target forward to `t` on the same world (no jump to a kept
    /// world ahead, so every second is played). Going back is a [`Run::seek`].
    pub fn advance_to(&mut self, t: f64) {
        let t = t.clamp(0.0, self.duration_s());
        if self.view.now() <= self.view.at_report_secs(t) {
            self.target = t;
        } else {
            self.seek(t);
        }
    }

    /// Keeps a world as a spare, dropping the earliest one beyond [`SPARES`].
    fn keep(&mut self, w: World) {
        self.spares.push(w);
        if self.spares.len() > SPARES {
            let earliest = (0..self.spares.len()).min_by_key(|&i| self.spares[i].now()).unwrap_or(0);
            self.spares.swap_remove(earliest);
        }
    }

    /// Processes at most `budget` simulation events: first toward the view's target (what the
    /// person looks at), then ahead. Returns whether work remains.
    pub fn work(&mut self, budget: u64) -> bool {
        if self.view_behind() {
            let until = self.view.at_report_secs(self.target);
            self.view.run_until(until, budget);
        } else if let Some(ahead) = &mut self.ahead {
            let end = ahead.end();
            if !ahead.run_until(end, budget) {
                // Done: publish the final report, and keep the world (it is the run's end).
                self.publish(true);
                if let Some(done) = self.ahead.take() {
                    self.keep(done);
                }
            }
        }
        self.busy()
    }

    /// Whether `ahead` has computed more than the published report shows.
    pub fn report_stale(&self) -> bool {
        self.ahead.as_ref().is_some_and(|a| a.elapsed_s().min(self.duration_s()) > self.published_s)
    }

    /// Rebuilds the report from what `ahead` has computed (the charts and the log read it).
    pub fn publish_report(&mut self) {
        self.publish(false);
    }

    fn publish(&mut self, done: bool) {
        if let Some(ahead) = &self.ahead {
            self.report = Rc::new(ahead.report());
            self.report_version += 1;
            self.published_s = if done { self.duration_s() } else { ahead.elapsed_s().min(self.duration_s()) };
        }
    }

    /// The scenario with `action` recorded at report second `at` (rounded down to the
    /// millisecond, so the event is never after the time shown), and every event after `at`
    /// dropped. Refused with the core's message (`events[3].host: ...`) when invalid.
    pub fn edited(&self, at: f64, action: Action) -> Result<Edit, String> {
        let ms = (at.clamp(0.0, self.duration_s()) * 1000.0).floor() as u64;
        let at_d = Duration::from_millis(ms).min(self.scenario.duration);
        let mut scenario = self.scenario.clone();
        let before = scenario.events.len();
        scenario.events.retain(|e| e.at <= at_d);
        let dropped = before - scenario.events.len();
        scenario.events.push(Event { at: at_d, action });
        scenario.validate().map_err(|e| e.to_string())?;
        Ok(Edit { scenario, at: at_d.as_secs_f64(), dropped })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str) -> Run {
        Run::new(crate::catalog::Ready::by_id(id).unwrap().scenario())
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

    #[test]
    fn an_edit_forks_the_timeline_at_the_cursor() {
        let r = run("etcd-leader-dies");
        let edit = r.edited(45.5, Action::Heal).unwrap();
        assert_eq!(edit.dropped, 1, "the restart at 90 s is after the cursor");
        assert_eq!(edit.scenario.events.len(), 2);
        assert_eq!(edit.at, 45.5);
        // Crashing a crashed host is refused with the core's message, naming the event.
        let err = r.edited(40.0, Action::Crash { host: "etcd-3".into() }).err().unwrap();
        assert!(err.starts_with("events[1].host: host \"etcd-3\" is already crashed"), "{err}");
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
}
