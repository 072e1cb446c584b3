//! `use_simulation`: the one hook that owns the page's side of the simulation: the run as the
//! page knows it ([`Mirror`]) and the link to the engine that computes it ([`crate::engine`],
//! in a Web Worker). Components never touch a `World`; they call these verbs, which update the
//! mirror and tell the engine, and read plain data back; the engine's news re-renders them.

use crate::engine::{News, Verb, COMPARED, SHOWN};
use crate::mirror::Mirror;
use crate::run::Edit;
use crate::worker::Link;
use sim::scenario::{Action, Scenario};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use yew::prelude::*;

/// At most this many earlier scenarios are kept for "Undo".
const UNDO_DEPTH: usize = 50;

type Replies = Rc<RefCell<Vec<(u32, Box<dyn FnOnce(console::Output)>)>>>;

#[derive(Clone)]
pub struct Sim {
    run: Rc<RefCell<Mirror>>,
    /// The run shown beside it (the compare view), if any.
    compared: Rc<RefCell<Option<Rc<RefCell<Mirror>>>>>,
    link: Rc<Link>,
    /// Tags each run loaded into the engine (its news carry it).
    gen: Rc<Cell<u32>>,
    /// Console commands waiting for their output, by id.
    replies: Replies,
    undo: Rc<RefCell<Vec<Scenario>>>,
    /// Bumped by every verb and every news, so components re-render (and `PartialEq` sees a change).
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

/// `init`: the first scenario, and the time to show first.
#[hook]
pub fn use_simulation(init: impl FnOnce() -> (Scenario, f64)) -> Sim {
    let gen: Rc<Cell<u32>> = (*use_memo((), |_| Rc::new(Cell::new(0u32)))).clone();
    let undo = use_mut_ref(Vec::new);
    let compared = use_mut_ref(|| None::<Rc<RefCell<Mirror>>>);
    let replies: Replies = use_mut_ref(Vec::new);
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
    let first_t = use_mut_ref(|| 0.0);
    let run = use_mut_ref(|| {
        let (s, t) = init();
        *first_t.borrow_mut() = t;
        Mirror::new(s, 0, t)
    });
    let link = {
        let (run, compared, replies, refresh) = (
            run.clone(),
            compared.clone(),
            replies.clone(),
            refresh.clone(),
        );
        (*use_memo((), move |_| {
            let first = run.borrow().scenario().to_compact_json();
            let t = *first_t.borrow();
            let link = Link::start(move |news: News| {
                let changed = match &news {
                    News::Console { id, .. } => {
                        let id = *id;
                        let waiting = {
                            let mut r = replies.borrow_mut();
                            r.iter().position(|(i, _)| *i == id).map(|k| r.remove(k))
                        };
                        if let (Some((_, reply_to)), News::Console { reply, .. }) = (waiting, news)
                        {
                            reply_to(reply.output());
                        }
                        return;
                    }
                    News::State { slot, .. } | News::Failed { slot, .. } if *slot == COMPARED => {
                        let c = compared.borrow().clone();
                        c.is_some_and(|c| c.borrow_mut().take(news))
                    }
                    _ => run.borrow_mut().take(news),
                };
                if changed {
                    refresh.emit(false);
                }
            });
            link.post(&Verb::Load {
                slot: SHOWN,
                gen: 0,
                scenario: first,
                t,
            });
            link
        }))
        .clone()
    };
    let versions = *versions.borrow();
    Sim {
        run,
        compared,
        link,
        gen,
        replies,
        undo,
        version: versions.0,
        scenario_version: versions.1,
        refresh,
    }
}

impl Sim {
    pub fn borrow(&self) -> std::cell::Ref<'_, Mirror> {
        self.run.borrow()
    }

    /// Whether the engine runs in a Web Worker (else on the page's thread).
    pub fn in_worker(&self) -> bool {
        self.link.in_worker()
    }

    fn next_gen(&self) -> u32 {
        self.gen.set(self.gen.get() + 1);
        self.gen.get()
    }

    /// Replaces the scenario (picker, link): a fresh run, the view at `t`. Clears "Undo".
    pub fn load(&self, scenario: Scenario, t: f64) {
        self.undo.borrow_mut().clear();
        self.replace(scenario, t);
    }

    fn replace(&self, scenario: Scenario, t: f64) {
        let gen = self.next_gen();
        self.link.post(&Verb::Load {
            slot: SHOWN,
            gen,
            scenario: scenario.to_compact_json(),
            t,
        });
        self.run.borrow_mut().reset(scenario, gen, t);
        self.refresh.emit(true);
    }

    /// Shows a run of `scenario` beside this one (the compare view), or none: its mirror.
    pub fn compare_with(&self, scenario: Option<Scenario>) -> Option<Rc<RefCell<Mirror>>> {
        let mirror = scenario.map(|s| {
            let gen = self.next_gen();
            self.link.post(&Verb::Load {
                slot: COMPARED,
                gen,
                scenario: s.to_compact_json(),
                t: 0.0,
            });
            Rc::new(RefCell::new(Mirror::new(s, gen, 0.0)))
        });
        if mirror.is_none() {
            self.link.post(&Verb::Close { slot: COMPARED });
        }
        *self.compared.borrow_mut() = mirror.clone();
        mirror
    }

    /// Moves the view to `t` (rebuilding and replaying when going back).
    pub fn seek(&self, t: f64) {
        self.run.borrow_mut().seek(t);
        self.link.post(&Verb::Seek { t });
    }

    /// Playback: the view plays on to `t`.
    pub fn set_target(&self, t: f64) {
        self.link.post(&Verb::Advance { t });
    }

    /// Runs a console command from host `from` against the view; `reply` gets its output.
    pub fn console(&self, from: u32, line: String, reply: impl FnOnce(console::Output) + 'static) {
        let id = self.next_gen();
        self.replies.borrow_mut().push((id, Box::new(reply)));
        self.link.post(&Verb::Console { id, from, line });
    }

    /// Records `action` at `t`: forks the timeline there. On refusal the run is unchanged.
    pub fn apply(&self, t: f64, action: Action) -> Result<Edit, String> {
        let edit = crate::run::edited(self.run.borrow().scenario(), t, action)?;
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
