//! The session: the simulation ([`Sim`]) and the UI reducer ([`UiState`]) behind one handle
//! that `App` provides as a Yew context, plus the verbs that change both. Panels read it with
//! [`use_session`] and build their own callbacks from the verbs, so adding a panel needs no
//! wiring through `App`. Playback (the frame loop) and the URL fragment live here too: they
//! follow the session, not any one panel.

use crate::boot::Boot;
use crate::catalog::Ready;
use crate::charts::Lanes;
use crate::codec;
use crate::fmt::{fmt_t, fmt_t_precise};
use crate::gesture::{self, Item, Target};
use crate::hook::{use_simulation, Sim};
use crate::language::{t as tr, tf as trf, ts as trs};
use crate::mirror::Mirror;
use crate::ui::{Notice, UiAction, UiState};
use sim::scenario::{Action, Scenario};
use sim::view::Snapshot;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Clone)]
pub struct Session {
    pub sim: Sim,
    pub ui: UseReducerHandle<UiState>,
    /// The ready scenario the run is, unchanged (its question and what to watch), if any.
    pub ready: Option<&'static Ready>,
    /// Shared by the topology (desired replicas) and the charts (one lane per possible leader).
    pub lanes: Rc<Lanes>,
    /// The scenario's share-link encoding: DEFLATE is done once per scenario (by the browser,
    /// awaited: empty until the first is done, or when the browser cannot), the time changes
    /// far more often.
    pub encoded: Rc<String>,
    /// The scenario shown beside this one (the link's `c=`), if any.
    pub compare: Option<Compare>,
    set_compare: UseStateHandle<Option<Compare>>,
}

/// A second scenario shown beside the first (the compare view): its own run, computed ahead
/// by the engine for its charts; the first run's cursor is its cursor too.
#[derive(Clone)]
pub struct Compare {
    pub run: Rc<RefCell<Mirror>>,
    pub encoded: Rc<String>,
}

impl PartialEq for Compare {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.run, &other.run)
    }
}

impl PartialEq for Session {
    fn eq(&self, other: &Self) -> bool {
        // `ready` and `lanes` follow the scenario, and a new scenario bumps the sim's version:
        // comparing them too would only cost (`Lanes` compares by value). `encoded` arrives
        // later than its scenario (the browser compresses it).
        self.sim == other.sim
            && Rc::ptr_eq(&self.encoded, &other.encoded)
            && self.ui == other.ui
            && self.compare == other.compare
            && self
                .compare
                .as_ref()
                .map(|c| c.run.borrow().report_version())
                == other
                    .compare
                    .as_ref()
                    .map(|c| c.run.borrow().report_version())
    }
}

/// The session provided by `App`; every panel renders inside it.
#[hook]
pub fn use_session() -> Session {
    use_context::<Session>().expect("panels render inside App's ContextProvider<Session>")
}

/// Owns the session for the page's life (called once, by `App`): starts from `start`, drives
/// playback and keeps the URL fragment up to date.
#[hook]
pub fn use_root_session(start: Rc<Boot>) -> Session {
    let sim = use_simulation({
        let (s, t) = (start.scenario.clone(), start.t);
        move || (s, t)
    });
    let ui = use_reducer({
        let start = start.clone();
        move || {
            let mut s = UiState::new(start.scenario.duration.as_secs_f64(), start.t);
            s.notice = start.problem.clone().map(Notice::error);
            s.embed = start.embed;
            s
        }
    });
    let compare = use_state({
        let (c, sim) = (start.compare.clone(), sim.clone());
        move || {
            c.and_then(|(s, encoded)| {
                Some(Compare {
                    run: sim.compare_with(Some(s))?,
                    encoded: Rc::new(encoded),
                })
            })
        }
    });
    let scenario = sim.borrow().scenario_rc();
    use_frame_loop(&sim, &ui);
    let encoded = use_encoded(
        sim.scenario_version,
        scenario.clone(),
        start.encoded.clone(),
    );
    // A link that could not be used stays in the address bar (to copy, to report) until the
    // person changes the scenario shown instead.
    let keep_broken_link = start.problem.is_some();
    let compared = compare.as_ref().map(|c| c.encoded.clone());
    use_share_fragment(&sim, encoded.clone(), compared, &ui, keep_broken_link);
    let ready = use_memo(sim.scenario_version, {
        let s = scenario.clone();
        move |_| Ready::matching(&s)
    });
    let lanes = use_memo(sim.scenario_version, move |_| Lanes::of(&scenario));
    Session {
        sim,
        ui,
        ready: *ready,
        lanes,
        encoded,
        compare: (*compare).clone(),
        set_compare: compare,
    }
}

impl Session {
    /// Moves the cursor, and the view with it, to `t`.
    pub fn seek(&self, t: f64) {
        self.ui.dispatch(UiAction::Seek(t));
        self.sim.seek(t);
    }

    /// Records `action` at the view's time (the timeline forks there), and says so; a refused
    /// action leaves the scenario as it was, and says why.
    pub fn apply(&self, action: Action) {
        let what = gesture::describe(&action);
        // At the moment drawn, which the gesture was made on.
        let t = self.sim.borrow().shown_t();
        match self.sim.apply(t, action) {
            Ok(edit) => {
                self.ui.dispatch(UiAction::Loaded {
                    duration: edit.scenario.duration.as_secs_f64(),
                    cursor: edit.at,
                });
                let mut dropped = edit.dropped;
                sim::kernel::sort::sort_by_key(&mut dropped, |e| e.at);
                let fork = if dropped.is_empty() {
                    String::new()
                } else {
                    let list: Vec<String> = dropped
                        .iter()
                        .map(|e| {
                            format!(
                                "{} {}",
                                fmt_t(e.at.as_secs_f64()),
                                gesture::describe(&e.action)
                            )
                        })
                        .collect();
                    let list = list.join("; ");
                    if dropped.len() == 1 {
                        trf(format_args!(
                            "The timeline forks here and drops the scenario's later event: {list}."
                        ))
                    } else {
                        trf(format_args!("The timeline forks here and drops the scenario's later events: {list}."))
                    }
                };
                let mut notice = Notice::info(
                    [
                        trf(format_args!(
                            "Recorded at {}: {what}.",
                            fmt_t_precise(edit.at)
                        )),
                        fork,
                    ]
                    .join(" ")
                    .trim_end()
                    .to_string(),
                    true,
                );
                notice.dropped = dropped;
                self.ui.dispatch(UiAction::Notify(Some(notice)));
            }
            Err(m) => {
                self.ui.dispatch(UiAction::Select(None));
                self.ui
                    .dispatch(UiAction::Notify(Some(Notice::error(trf(format_args!(
                        "Not recorded ({what}): {m}. The scenario is unchanged."
                    ))))));
            }
        }
    }

    /// Shows a copy of this run beside it (or, with `false`, stops): later changes to this run
    /// are compared with the copy.
    pub fn compare_with_copy(&self, on: bool) {
        let scenario = on.then(|| self.sim.borrow().scenario().clone());
        let copy = self.sim.compare_with(scenario).map(|run| Compare {
            run,
            encoded: self.encoded.clone(),
        });
        self.set_compare.set(copy);
        let text = if on {
            tr("Comparing: the charts of a copy of this run are below this run's. Change this run (edit the topology, drag, crash, a setting): the first moment the two differ is marked on both.")
        } else {
            tr("Stopped comparing.")
        };
        self.ui
            .dispatch(UiAction::Notify(Some(Notice::info(text.to_string(), true))));
    }

    /// Puts back later events a fork dropped, keeping what was recorded; refused (and said
    /// so) when they no longer fit the scenario.
    pub fn keep_events(&self, events: Vec<sim::scenario::Event>) {
        let mut s = self.sim.borrow().scenario().clone();
        let n = events.len();
        s.events.extend(events);
        match s.validate() {
            Ok(()) => {
                let t = self.ui.cursor;
                self.sim.restore(s, t);
                self.ui.dispatch(UiAction::Notify(Some(Notice::info(
                    if n == 1 {
                        trs("Kept the later event: the run replays with it.")
                    } else {
                        trf(format_args!(
                            "Kept the {n} later events: the run replays with them."
                        ))
                    },
                    true,
                ))));
            }
            Err(e) => self
                .ui
                .dispatch(UiAction::Notify(Some(Notice::error(trf(format_args!(
                    "The later events cannot be kept: {e}. The scenario is unchanged."
                )))))),
        }
    }

    /// Names the scenario (its old description goes: it described what the scenario was).
    pub fn rename(&self, name: &str) {
        let mut s = self.sim.borrow().scenario().clone();
        s.name = name.trim().to_string();
        s.description = None;
        match s.validate() {
            Ok(()) => {
                self.sim.restore(s, self.ui.cursor);
                self.ui.dispatch(UiAction::Notify(Some(Notice::info(
                    trf(format_args!(
                        "Renamed: “{}”. The link carries the new name.",
                        name.trim()
                    )),
                    true,
                ))));
            }
            Err(e) => self
                .ui
                .dispatch(UiAction::Notify(Some(Notice::error(trf(format_args!(
                    "Not renamed: {e}."
                )))))),
        }
    }

    /// A drag (or a menu's "move to island") onto `target`, read against the `snapshot` the
    /// person saw: a partition or a heal, or nothing when the item is already there.
    pub fn move_item(&self, snapshot: &Snapshot, item: Item, target: Target) {
        match gesture::move_action(snapshot, &item, target) {
            Some(action) => self.apply(action),
            None => {
                self.ui.dispatch(UiAction::Select(None));
                self.ui.dispatch(UiAction::Notify(Some(Notice::info(
                    trf(format_args!(
                        "{} is already there: nothing to change.",
                        item.name()
                    )),
                    false,
                ))));
            }
        }
    }

    pub fn toggle_play(&self) {
        // Play at the end plays it again: the view starts over with the cursor.
        if !self.ui.playing && self.ui.at_end() {
            self.sim.seek(0.0);
        }
        self.ui.dispatch(UiAction::TogglePlay);
    }

    /// One simulated second on, paused.
    pub fn step(&self) {
        self.ui.dispatch(UiAction::Pause);
        self.seek((self.ui.cursor + 1.0).min(self.ui.duration));
    }

    /// Puts back the scenario before the last change; the cursor stays where it is.
    pub fn undo(&self) {
        let t = self.ui.cursor;
        if self.sim.undo(t) {
            let d = self.sim.borrow().duration_s();
            self.ui.dispatch(UiAction::Loaded {
                duration: d,
                cursor: t,
            });
            self.ui.dispatch(UiAction::Notify(Some(Notice::info(
                trs("Undone: the scenario is back as it was before the last change."),
                false,
            ))));
        }
    }

    /// Loads the ready scenario `id` with the cursor at the moment that answers its question,
    /// whether it was picked from the drop-down or from its card (an unknown id changes nothing).
    pub fn pick(&self, id: &str) {
        if let Some(r) = Ready::by_id(id) {
            let t = r.moment;
            let s = r.scenario();
            let d = s.duration.as_secs_f64();
            self.sim.load(s, t);
            self.ui.dispatch(UiAction::Loaded {
                duration: d,
                cursor: t,
            });
            self.ui.dispatch(UiAction::Notify(None));
        }
    }

    /// Replaces the scenario by the editor's (validated) one: `what` changed, so the run
    /// restarts from 0:00.
    pub fn edit(&self, scenario: Scenario, what: String) {
        let d = scenario.duration.as_secs_f64();
        self.sim.edit(scenario);
        self.ui.dispatch(UiAction::Loaded {
            duration: d,
            cursor: 0.0,
        });
        self.ui.dispatch(UiAction::Notify(Some(Notice::info(
            trf(format_args!(
                "Scenario changed ({what}): the run restarts from 0:00."
            )),
            true,
        ))));
    }

    /// For the benchmark and for curious readers of the DOM: where the engine runs, its
    /// checkpoints and stills, and its wasm memory.
    pub fn diag(&self) -> String {
        let run = self.sim.borrow();
        let s = run.status();
        format!(
            "engine={} checkpoints={} every={} stills={} still_every={} memory_mb={}",
            if self.sim.in_worker() {
                "worker"
            } else {
                "page"
            },
            s.checkpoints,
            crate::fmt::Short(s.every, 3),
            s.stills,
            crate::fmt::Short(s.still_every, 0),
            s.memory_mb
        )
    }
}

/// Playback on animation frames: each frame asks the engine to play on by the frame's time and
/// moves the cursor to where the view has got (the engine's news re-render the page).
#[hook]
fn use_frame_loop(sim: &Sim, ui: &UseReducerHandle<UiState>) {
    let pending = use_mut_ref(|| None::<gloo_render::AnimationFrame>);
    let last = use_mut_ref(|| None::<f64>);
    let (sim, ui) = (sim.clone(), ui.clone());
    // The cursor is a dependency so a seek during playback re-arms the loop from the new time
    // (an in-flight frame would otherwise carry the old cursor back).
    use_effect_with(
        (ui.playing, ui.frame, ui.cursor.to_bits()),
        move |&(playing, _, _)| {
            if !playing {
                *last.borrow_mut() = None;
                pending.borrow_mut().take();
                return;
            }
            let last2 = last.clone();
            *pending.borrow_mut() = Some(gloo_render::request_animation_frame(move |ts| {
                let dt = last2.borrow().map_or(16.0, |l| ts - l);
                *last2.borrow_mut() = Some(ts);
                // After a seek, playback goes on from its time once the view is there.
                if !sim.borrow().awaiting() {
                    let target = ui.play_target(dt).unwrap_or(ui.duration);
                    sim.set_target(target);
                }
                let reached = sim.borrow().view_t();
                ui.dispatch(UiAction::Tick { reached });
            }));
        },
    );
}

/// The scenario's share-link encoding, redone (by the browser, awaited) when the scenario
/// changes; `link`: the encoding the page was opened with, kept until the first change. An
/// encoding finished after a later change is dropped.
#[hook]
fn use_encoded(version: u64, scenario: Rc<Scenario>, link: Option<String>) -> Rc<String> {
    let first = *use_memo((), |_| version);
    let encoded = use_state(|| Rc::new(link.clone().unwrap_or_default()));
    let latest = use_mut_ref(|| version);
    {
        let encoded = encoded.clone();
        use_effect_with(version, move |&v| {
            *latest.borrow_mut() = v;
            if v == first && link.is_some() {
                return;
            }
            wasm_bindgen_futures::spawn_local(async move {
                // Unsupported compression leaves it empty: no link is written.
                let e = codec::encode_scenario(&scenario).await.unwrap_or_default();
                if *latest.borrow() == v {
                    encoded.set(Rc::new(e));
                }
            });
        });
    }
    (*encoded).clone()
}

/// Keeps the URL fragment equal to the current scenario (and the time, when paused), without
/// adding history entries.
#[hook]
fn use_share_fragment(
    sim: &Sim,
    encoded: Rc<String>,
    compared: Option<Rc<String>>,
    ui: &UseReducerHandle<UiState>,
    keep_broken_link: bool,
) {
    let t = (!ui.playing).then_some(ui.cursor);
    let embed = ui.embed;
    let first_version = *use_memo((), |_| sim.scenario_version);
    let version = sim.scenario_version;
    let compared_key = compared.as_ref().map(|c| Rc::as_ptr(c) as usize);
    let encoded_key = Rc::as_ptr(&encoded) as usize;
    use_effect_with(
        (
            sim.scenario_version,
            t.map(f64::to_bits),
            compared_key,
            encoded_key,
        ),
        move |_| {
            if (keep_broken_link && version == first_version) || encoded.is_empty() {
                return;
            }
            let compared = compared.as_deref().map(String::as_str).filter(|_| !embed);
            let frag = codec::fragment_of(&encoded, compared, t.filter(|&t| t > 0.0), embed);
            let _ = gloo_utils::history().replace_state_with_url(
                &wasm_bindgen::JsValue::NULL,
                "",
                Some(&frag),
            );
        },
    );
}

/// The message an embedded page posts to its parent: this prefix, then its height in pixels.
/// The embed code's listener sizes the iframe to it, so the run is never cut.
pub const EMBED_HEIGHT_MESSAGE: &str = "k8s-ha-playground:height:";

/// In the embed view, tells the parent page the document's height after each render that
/// changed it.
#[hook]
pub fn use_embed_height(embed: bool) {
    let last = use_mut_ref(|| 0i32);
    use_effect(move || {
        if !embed {
            return;
        }
        let window = gloo_utils::window();
        let height = gloo_utils::document()
            .document_element()
            .map_or(0, |e| e.scroll_height());
        if height != *last.borrow() {
            *last.borrow_mut() = height;
            if let Ok(Some(parent)) = window.parent() {
                let message =
                    wasm_bindgen::JsValue::from_str(&format!("{EMBED_HEIGHT_MESSAGE}{height}"));
                let _ = parent.post_message(&message, "*");
            }
        }
    });
}
