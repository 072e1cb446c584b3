//! The simulation as the page drives it: a scenario and two worlds run from it.
//!
//! - `ahead` computes the whole run toward the scenario's end in budgeted slices; its report
//!   feeds the charts and the event log, so the story is visible before it is played.
//! - `view` is the world at the time the person looks at (the cursor); the topology draws its
//!   snapshot. Going back in time rebuilds it from scratch and replays: runs are deterministic
//!   and prefix-stable, so that is the same world, and it is how the core is meant to be used.
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

pub struct Run {
    scenario: Scenario,
    ahead: World,
    ahead_done: bool,
    report: Rc<Report>,
    /// Bumped whenever `report` changes, so views can memoise on it.
    report_version: u64,
    view: World,
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
        Run { scenario, ahead, ahead_done: false, report, report_version: 0, view, target: 0.0 }
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
        if self.ahead_done {
            self.duration_s()
        } else {
            self.ahead.elapsed_s().min(self.duration_s())
        }
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
        !self.ahead_done || self.view_behind()
    }

    fn view_behind(&self) -> bool {
        self.view.now() < self.view.at_report_secs(self.target)
    }

    /// Asks the view for report second `t` (clamped to the run). Going back rebuilds it.
    pub fn seek(&mut self, t: f64) {
        let t = t.clamp(0.0, self.duration_s());
        if self.view.now() > self.view.at_report_secs(t) {
            self.view = World::new(self.scenario.clone());
        }
        self.target = t;
    }

    /// Processes at most `budget` simulation events: first toward the view's target (what the
    /// person looks at), then ahead. Returns whether work remains.
    pub fn work(&mut self, budget: u64) -> bool {
        if self.view_behind() {
            let until = self.view.at_report_secs(self.target);
            self.view.run_until(until, budget);
        } else if !self.ahead_done {
            let end = self.ahead.end();
            let stopped = self.ahead.run_until(end, budget);
            self.ahead_done = !stopped;
            self.report = Rc::new(self.ahead.report());
            self.report_version += 1;
        }
        self.busy()
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
}
