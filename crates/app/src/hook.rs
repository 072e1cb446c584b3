//! `use_simulation`: the one hook that owns the simulation ([`Run`]) and exposes verbs.
//! Components never touch a `World`; they call these verbs and read plain data back.
//! Work is sliced by wall time so a frame never stalls, whatever the scenario's size.

use crate::fmt::now_ms;
use crate::run::{Edit, Run};
use sim::scenario::{Action, Scenario};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use yew::prelude::*;

/// Simulation events per call into the core at first; then adapted so a call takes about
/// [`SLICE_MS`] (events differ a lot in cost: a partition of a large cluster makes each one heavier).
pub const SLICE: u64 = 2_000;
const SLICE_MS: f64 = 1.5;
/// At most this many earlier scenarios are kept for "Undo".
const UNDO_DEPTH: usize = 50;
/// The charts and the log are refreshed at most this often (ms) while the run is computed
/// ahead: rebuilding the report copies every event and series.
const PUBLISH_EVERY_MS: f64 = 250.0;

#[derive(Clone)]
pub struct Sim {
    run: Rc<RefCell<Run>>,
    /// Events per call into the core (adapted to the measured time per event).
    slice: Rc<Cell<u64>>,
    /// When the report was last published (wall ms).
    published_at: Rc<Cell<f64>>,
    undo: Rc<RefCell<Vec<Scenario>>>,
    /// Bumped by every verb, so components re-render (and `PartialEq` sees a change).
    version: u64,
    /// Bumped when the scenario changes (the share link must be re-encoded).
    pub scenario_version: u64,
    refresh: Callback<bool>,
}

impl PartialEq for Sim {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.run, &other.run) && self.version == other.version
    }
}

#[hook]
pub fn use_simulation(init: impl FnOnce() -> Scenario) -> Sim {
    let run = use_mut_ref(|| Run::new(init()));
    let undo = use_mut_ref(Vec::new);
    let published_at = (*use_memo((), |_| Rc::new(Cell::new(0.0f64)))).clone();
    let slice = (*use_memo((), |_| Rc::new(Cell::new(SLICE)))).clone();
    // Counters live in a cell (several verbs may run in one event handler) and a forced
    // re-render publishes them.
    let versions = use_mut_ref(|| (0u64, 0u64));
    let force = use_force_update();
    let refresh = {
        let versions = versions.clone();
        // `true`: the scenario changed too.
        Callback::from(move |scenario_changed: bool| {
            let mut v = versions.borrow_mut();
            v.0 += 1;
            v.1 += scenario_changed as u64;
            force.force_update();
        })
    };
    let versions = *versions.borrow();
    Sim {
        run,
        slice,
        published_at,
        undo,
        version: versions.0,
        scenario_version: versions.1,
        refresh,
    }
}

impl Sim {
    pub fn borrow(&self) -> std::cell::Ref<'_, Run> {
        self.run.borrow()
    }

    /// Does up to `ms` of simulation work; returns whether more remains.
    pub fn work_for(&self, ms: f64) -> bool {
        let busy = work_for(
            &mut self.run.borrow_mut(),
            ms,
            &self.slice,
            &self.published_at,
        );
        self.refresh.emit(false);
        busy
    }

    /// Replaces the scenario (picker, link): a fresh run, the view at `t`. Clears "Undo".
    pub fn load(&self, scenario: Scenario, t: f64) {
        self.undo.borrow_mut().clear();
        self.replace(scenario, t);
    }

    fn replace(&self, scenario: Scenario, t: f64) {
        let mut run = Run::new(scenario);
        run.seek(t);
        *self.run.borrow_mut() = run;
        self.refresh.emit(true);
        self.work_for(30.0);
    }

    /// Moves the view to `t` (rebuilding and replaying when going back).
    pub fn seek(&self, t: f64) {
        self.run.borrow_mut().seek(t);
        self.work_for(12.0);
    }

    /// Sets where the view should go without working toward it yet (the frame loop will).
    pub fn set_target(&self, t: f64) {
        self.run.borrow_mut().advance_to(t);
    }

    /// Records `action` at `t`: forks the timeline there. On refusal the run is unchanged.
    pub fn apply(&self, t: f64, action: Action) -> Result<Edit, String> {
        let edit = self.run.borrow().edited(t, action)?;
        self.remember_for_undo();
        self.replace(edit.scenario.clone(), edit.at);
        Ok(edit)
    }

    /// Replaces the scenario by one with more events, the view staying at `t` (undoable).
    pub fn restore(&self, scenario: Scenario, t: f64) {
        self.remember_for_undo();
        self.replace(scenario, t);
    }

    /// Replaces the scenario by an edited one (the topology editor): the run restarts from
    /// t = 0, since the scenario changed from its start. The caller has validated it.
    pub fn edit(&self, scenario: Scenario) {
        self.remember_for_undo();
        self.replace(scenario, 0.0);
    }

    /// Pushes the current scenario on the undo stack (the oldest goes past `UNDO_DEPTH`).
    fn remember_for_undo(&self) {
        let old = self.run.borrow().scenario().clone();
        let mut undo = self.undo.borrow_mut();
        if undo.len() == UNDO_DEPTH {
            undo.remove(0);
        }
        undo.push(old);
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.borrow().is_empty()
    }

    /// Puts back the scenario before the last edit, the view at `t`.
    pub fn undo(&self, t: f64) -> bool {
        let Some(prev) = self.undo.borrow_mut().pop() else {
            return false;
        };
        self.replace(prev, t);
        true
    }
}

/// Runs `run` for up to `ms` of wall time, in slices of events adapted to take about
/// [`SLICE_MS`] each (`slice` keeps the size between calls), then publishes its report if it is
/// stale and the last one (`published_at`) is [`PUBLISH_EVERY_MS`] old. Whether work remains.
pub fn work_for(run: &mut Run, ms: f64, slice: &Cell<u64>, published_at: &Cell<f64>) -> bool {
    let start = now_ms();
    let mut at = start;
    loop {
        let n = slice.get();
        let more = run.work(n);
        let now = now_ms();
        // Only full slices say how long an event takes (a slice may stop at a target).
        let took = now - at;
        if run.last_events() == n && took > 0.05 {
            let next = (n as f64 * SLICE_MS / took).clamp(n as f64 / 2.0, n as f64 * 2.0);
            slice.set((next as u64).clamp(100, 50_000));
        }
        at = now;
        if !more || now - start >= ms {
            break;
        }
    }
    let now = now_ms();
    if run.report_stale() && now - published_at.get() >= PUBLISH_EVERY_MS {
        run.publish_report();
        published_at.set(now);
    }
    run.busy()
}
