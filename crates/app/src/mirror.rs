//! The page's copy of a run: its scenario (the page's own, changed at once by an edit) and what
//! the engine last said of its run (progress, the report so far, the snapshot at the view).
//! Panels read it as they would read the run itself; it changes only when news arrives.
//!
//! A new run keeps showing the last report and snapshot until its own first news: a fork at the
//! cursor then redraws without a blank moment.

use crate::engine::{News, Status, EVERY_RUN};
use sim::report::{EtcdSummary, Report, Summary};
use sim::scenario::Scenario;
use sim::view::{EtcdView, Snapshot};
use std::rc::Rc;

pub struct Mirror {
    scenario: Rc<Scenario>,
    /// The engine's tag for this run: news of earlier runs are ignored.
    gen: u32,
    status: Status,
    report: Rc<Report>,
    /// Bumped whenever `report` changes, so views can memoise on it.
    report_version: u64,
    snapshot: Rc<Snapshot>,
    /// A problem the engine reported with this run.
    pub failed: Option<String>,
    /// No snapshot of this run has arrived yet (the one shown is an earlier run's, or none).
    fresh: bool,
    /// The time the view was asked for (a new run, a seek), until the engine says it is there.
    awaited_t: Option<f64>,
}

impl Mirror {
    /// A run not heard of yet: an empty report and topology.
    pub fn new(scenario: Scenario, gen: u32, t: f64) -> Mirror {
        let report = Report {
            scenario: scenario.name.clone(),
            seed: scenario.seed,
            duration_s: scenario.duration.as_secs_f64(),
            summary: Summary {
                etcd: EtcdSummary {
                    quorum_lost_s: 0.0,
                    leader_changes: 0,
                    writes_ok: 0,
                    writes_failed: 0,
                },
                api: None,
                leaders: Default::default(),
                services: Default::default(),
                workloads: Default::default(),
                operations: Vec::new(),
                violations: Vec::new(),
            },
            series: Default::default(),
            events: Vec::new(),
            events_dropped: 0,
        };
        let snapshot = Snapshot {
            t: 0.0,
            zones: scenario.zones.clone(),
            hosts: Vec::new(),
            etcd: EtcdView {
                voters: 0,
                connected: 0,
                quorum_size: 0,
                has_quorum: false,
                leader: None,
                term: 0,
            },
            network_faulty: false,
            pending: Vec::new(),
        };
        let mut m = Mirror {
            scenario: Rc::new(scenario),
            gen,
            status: Status::default(),
            report: Rc::new(report),
            report_version: 0,
            snapshot: Rc::new(snapshot),
            failed: None,
            awaited_t: None,
            fresh: true,
        };
        m.reset_status(t);
        m
    }

    /// A new run of `scenario` (tagged `gen`), its view asked for `t`.
    pub fn reset(&mut self, scenario: Scenario, gen: u32, t: f64) {
        self.scenario = Rc::new(scenario);
        self.gen = gen;
        self.failed = None;
        self.fresh = true;
        self.reset_status(t);
    }

    fn reset_status(&mut self, t: f64) {
        let t = t.max(0.0).min(self.duration_s());
        self.awaited_t = Some(t);
        self.status = Status {
            target: t,
            busy: true,
            ..Status::default()
        };
    }

    /// Takes the engine's news of this run (news of another run is ignored); whether it did.
    pub fn take(&mut self, news: News) -> bool {
        match news {
            News::State {
                gen,
                status,
                report,
                snapshot,
                ..
            } if gen == self.gen => {
                if self
                    .awaited_t
                    .is_some_and(|t| !status.view_behind && status.target == t)
                {
                    self.awaited_t = None;
                }
                self.status = status;
                if let Some(delta) = report {
                    (*delta).apply(Rc::make_mut(&mut self.report));
                    self.report_version += 1;
                }
                if let Some(s) = snapshot {
                    self.snapshot = s;
                    self.fresh = false;
                }
                true
            }
            News::Failed { gen, message, .. } if gen == self.gen || gen == EVERY_RUN => {
                self.failed = Some(message);
                self.status.busy = false;
                true
            }
            _ => false,
        }
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The scenario, shared (no copy).
    pub fn scenario_rc(&self) -> Rc<Scenario> {
        self.scenario.clone()
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
        self.status.computed_s
    }

    /// Whether the whole run has been computed and its report published.
    pub fn complete(&self) -> bool {
        self.status.complete
    }

    /// A seek: the view goes to `t` (the engine is told by the caller).
    pub fn seek(&mut self, t: f64) {
        let t = t.max(0.0).min(self.duration_s());
        self.awaited_t = Some(t);
        self.status.target = t;
    }

    /// Report seconds the view is at or on its way to (a seek's time at once): the cursor's time.
    pub fn view_t(&self) -> f64 {
        self.awaited_t.unwrap_or_else(|| self.shown_t())
    }

    /// Report seconds of the snapshot drawn. A fork's new run shows the earlier run's snapshot,
    /// taken at the time asked, until its own arrives; a link's first run shows nothing before
    /// its first snapshot, which may be of an earlier time than the link's (it is on its way).
    pub fn shown_t(&self) -> f64 {
        match self.awaited_t {
            Some(t) if self.fresh && self.started() => t,
            _ => self.snapshot.t.max(0.0).min(self.duration_s()),
        }
    }

    /// Whether a seek or a new run's first state is on its way (playback waits for it).
    pub fn awaiting(&self) -> bool {
        self.awaited_t.is_some()
    }

    /// Whether a snapshot of the cluster has arrived yet (the page has drawn none before).
    pub fn started(&self) -> bool {
        !self.snapshot.hosts.is_empty()
    }

    pub fn target(&self) -> f64 {
        self.status.target
    }

    /// What the topology draws: the view's snapshot.
    pub fn snapshot(&self) -> Rc<Snapshot> {
        self.snapshot.clone()
    }

    /// Whether the engine still works on this run.
    pub fn busy(&self) -> bool {
        self.status.busy
    }

    pub fn status(&self) -> &Status {
        &self.status
    }
}
