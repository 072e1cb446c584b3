//! The Yew UI of the playground: renders the core's plain-data observations and turns
//! gestures into scenario events. Thin by design: no simulation logic here.
//!
//! Code map: [`ui`] the reducer (playback, selection, notices); [`hook`] the one hook that
//! owns the simulation ([`run`]); [`topology`], [`menu`] and [`gesture`] the cluster you break;
//! [`charts`] and [`log`] what happened over time; [`codec`] the share link; [`catalog`] the
//! ready scenarios. This file wires them: every verb goes through `App`.

pub mod catalog;
pub mod charts;
pub mod codec;
pub mod editor;
pub mod fmt;
pub mod gesture;
pub mod hook;
pub mod log;
pub mod menu;
pub mod run;
pub mod shared;
pub mod topology;
pub mod ui;

use catalog::{Ready, READY};
use fmt::{fmt_t, fmt_t_precise};
use gesture::{Item, Target};
use hook::{use_simulation, Sim};
use sim::quorum::{failures_tolerated, quorum};
use sim::scenario::{Action, Scenario};
use std::rc::Rc;
use ui::{Notice, NoticeKind, Selection, Speed, UiAction, UiState};
use yew::prelude::*;

/// What the page starts from: the link's scenario, or the default one and the link's problem.
struct Boot {
    scenario: Scenario,
    t: f64,
    problem: Option<String>,
    embed: bool,
}

fn boot() -> Boot {
    let hash = gloo_utils::window().location().hash().unwrap_or_default();
    let link = codec::decode_fragment(&hash);
    let fallback = if link.scenario.is_none() {
        " Showing the default scenario instead."
    } else {
        ""
    };
    let problem = link.problem.map(|p| format!("{p}{fallback}"));
    let embed = link.embed;
    match link.scenario {
        Some(s) => Boot {
            scenario: s,
            t: link.t.unwrap_or(0.0),
            problem,
            embed,
        },
        None => Boot {
            scenario: catalog::default_scenario(),
            t: 0.0,
            problem,
            embed,
        },
    }
}

fn info(text: String, undo: bool) -> Option<Notice> {
    Some(Notice {
        kind: NoticeKind::Info,
        text,
        undo,
    })
}

fn error(text: String) -> Option<Notice> {
    Some(Notice {
        kind: NoticeKind::Error,
        text,
        undo: false,
    })
}

#[function_component(App)]
pub fn app() -> Html {
    let start = use_memo((), |_| boot());
    let sim = use_simulation({
        let s = start.scenario.clone();
        move || s
    });
    let ui = use_reducer({
        let start = start.clone();
        move || {
            let mut s = UiState::new(start.scenario.duration.as_secs_f64(), start.t);
            s.notice = start.problem.clone().and_then(error);
            s.embed = start.embed;
            s
        }
    });
    // The link's time: the view goes there once, on mount.
    {
        let sim = sim.clone();
        let t = start.t;
        use_effect_with((), move |_| sim.seek(t));
    }

    let run = sim.borrow();
    let snapshot = run.snapshot();
    let report = shared::Shared::new(run.report());
    let report_version = run.report_version();
    let duration = run.duration_s();
    let computed = run.computed_s();
    let view_t = run.view_t();
    let busy = run.busy();
    let scenario = run.scenario_rc();
    // For the benchmark and for curious readers of the DOM: checkpoints kept, and wasm memory.
    let diag = format!(
        "checkpoints={} every={} memory_mb={}",
        run.checkpoints(),
        run.checkpoint_every().unwrap_or(0.0),
        wasm_memory_mb()
    );
    drop(run);

    use_frame_loop(&sim, &ui, busy);
    // Encoding (DEFLATE) is done once per scenario; the time changes far more often.
    let encoded = use_memo(sim.scenario_version, {
        let scenario = scenario.clone();
        move |_| codec::encode_scenario(&scenario)
    });
    use_share_fragment(&sim, encoded.clone(), &ui);

    // ---- verbs -----------------------------------------------------------------------
    let seek = {
        let (sim, ui) = (sim.clone(), ui.clone());
        Callback::from(move |t: f64| {
            ui.dispatch(UiAction::Seek(t));
            sim.seek(t);
        })
    };
    let apply = {
        let (sim, ui) = (sim.clone(), ui.clone());
        Callback::from(move |action: Action| {
            let what = gesture::describe(&action);
            let t = sim.borrow().view_t();
            match sim.apply(t, action) {
                Ok(edit) => {
                    ui.dispatch(UiAction::Loaded {
                        duration: edit.scenario.duration.as_secs_f64(),
                        cursor: edit.at,
                    });
                    let fork = match edit.dropped {
                        0 => String::new(),
                        1 => " The timeline forks here: the 1 later event of the scenario was dropped.".into(),
                        n => format!(" The timeline forks here: the {n} later events of the scenario were dropped."),
                    };
                    ui.dispatch(UiAction::Notify(info(
                        format!("Recorded at {}: {what}.{fork}", fmt_t_precise(edit.at)),
                        true,
                    )));
                }
                Err(m) => {
                    ui.dispatch(UiAction::Select(None));
                    ui.dispatch(UiAction::Notify(error(format!(
                        "Not recorded ({what}): {m}. The scenario is unchanged."
                    ))));
                }
            }
        })
    };
    let move_item = {
        let (apply, ui, snapshot) = (apply.clone(), ui.clone(), snapshot.clone());
        Callback::from(move |(item, target): (Item, Target)| {
            match gesture::move_action(&snapshot, &item, target) {
                Some(action) => apply.emit(action),
                None => {
                    ui.dispatch(UiAction::Select(None));
                    ui.dispatch(UiAction::Notify(info(
                        format!("{} is already there: nothing to change.", item.name()),
                        false,
                    )));
                }
            }
        })
    };
    let select = {
        let ui = ui.clone();
        Callback::from(move |item: Item| {
            ui.dispatch(UiAction::Pause);
            ui.dispatch(UiAction::Select(Some(match item {
                Item::Host(h) => Selection::Host(h),
                Item::Zone(z) => Selection::Zone(z),
            })));
        })
    };
    let close_menu = {
        let ui = ui.clone();
        Callback::from(move |_| ui.dispatch(UiAction::Select(None)))
    };
    let toggle_play = {
        let (sim, ui) = (sim.clone(), ui.clone());
        Callback::from(move |_: MouseEvent| {
            if !ui.playing && ui.at_end() {
                sim.seek(0.0);
            }
            ui.dispatch(UiAction::TogglePlay);
        })
    };
    let step = {
        let (seek, ui) = (seek.clone(), ui.clone());
        Callback::from(move |_: MouseEvent| {
            ui.dispatch(UiAction::Pause);
            seek.emit((ui.cursor + 1.0).min(ui.duration));
        })
    };
    let set_speed = {
        let ui = ui.clone();
        Callback::from(move |e: Event| {
            let v = e
                .target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value();
            if let Some(s) = Speed::from_label(&v) {
                ui.dispatch(UiAction::SetSpeed(s));
            }
        })
    };
    let scrub = {
        let seek = seek.clone();
        Callback::from(move |e: InputEvent| {
            let v = e
                .target_unchecked_into::<web_sys::HtmlInputElement>()
                .value_as_number();
            if v.is_finite() {
                seek.emit(v);
            }
        })
    };
    let heal = {
        let apply = apply.clone();
        Callback::from(move |_: MouseEvent| apply.emit(Action::Heal))
    };
    let undo = {
        let (sim, ui) = (sim.clone(), ui.clone());
        Callback::from(move |_: MouseEvent| {
            let t = ui.cursor;
            if sim.undo(t) {
                let d = sim.borrow().duration_s();
                ui.dispatch(UiAction::Loaded {
                    duration: d,
                    cursor: t,
                });
                ui.dispatch(UiAction::Notify(info(
                    "Undone: the scenario is back as it was before the last change.".into(),
                    false,
                )));
            }
        })
    };
    let pick = {
        let (sim, ui) = (sim.clone(), ui.clone());
        Callback::from(move |e: Event| {
            let id = e
                .target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value();
            if let Some(r) = Ready::by_id(&id) {
                let s = r.scenario();
                let d = s.duration.as_secs_f64();
                sim.load(s, 0.0);
                ui.dispatch(UiAction::Loaded {
                    duration: d,
                    cursor: 0.0,
                });
                ui.dispatch(UiAction::Notify(None));
            }
        })
    };
    let dismiss = {
        let ui = ui.clone();
        Callback::from(move |_: MouseEvent| ui.dispatch(UiAction::Notify(None)))
    };

    // ---- view ------------------------------------------------------------------------
    let ready = use_memo(sim.scenario_version, {
        let s = scenario.clone();
        move |_| Ready::matching(&s)
    });
    let lanes = use_memo(sim.scenario_version, {
        let s = scenario.clone();
        move |_| charts::Lanes::of(&s)
    });

    let notice = ui.notice.as_ref().map(|n| {
        let class = classes!("notice", if n.kind == NoticeKind::Error { "error" } else { "info" });
        let role = if n.kind == NoticeKind::Error { "alert" } else { "status" };
        html! {
            <div class={class} role={role}>
                <span>{ &n.text }</span>
                if n.undo && sim.can_undo() {
                    <button onclick={undo.clone()}>{ "Undo" }</button>
                }
                <button class="dismiss" aria-label="Dismiss message" onclick={dismiss.clone()}>{ "×" }</button>
            </div>
        }
    });

    let picker = html! {
        <section class="scenario" aria-labelledby="scenario-title">
            <h2 id="scenario-title" class="visually-hidden">{ "Scenario" }</h2>
            <label class="pick">
                <span>{ "Scenario" }</span>
                <select onchange={pick} aria-label="Ready scenario">
                    if ready.is_none() {
                        <option value="" selected=true>{ format!("Your scenario: {}", scenario.name) }</option>
                    }
                    { for READY.iter().map(|r| html! {
                        <option value={r.id} selected={ready.is_some_and(|x| x.id == r.id)}>{ r.question }</option>
                    }) }
                </select>
            </label>
            <div class="about">
                if let Some(r) = *ready {
                    { {
                        let (context, watch) = r.texts(&scenario);
                        html! {
                            <>
                                <p class="name"><strong>{ &scenario.name }</strong>
                                    { if context.is_empty() { String::new() } else { format!(" — {context}") } }</p>
                                <p class="watch"><strong>{ "What to watch: " }</strong>{ watch }</p>
                            </>
                        }
                    } }
                } else {
                    <p class="name"><strong>{ &scenario.name }</strong>
                        { scenario.description.as_ref().map(|d| format!(" — {d}")).unwrap_or_default() }</p>
                    <p class="watch"><strong>{ "Your own run: " }</strong>
                        { format!("{} scheduled event{}. Every change you make is recorded in the link (Share).", scenario.events.len(), if scenario.events.len() == 1 { "" } else { "s" }) }</p>
                }
            </div>
        </section>
    };

    let e = &snapshot.etcd;
    let quorum_class = if e.has_quorum {
        "badge ok"
    } else {
        "badge lost"
    };
    let leader = match &e.leader {
        Some(l) => format!("leader: {l} (term {})", e.term),
        None => "leader: none".to_string(),
    };
    let islands = gesture::islands(&snapshot).len();
    let network = if islands > 1 {
        format!("network: split into {islands} islands")
    } else if snapshot.network_faulty {
        "network: faults in force".to_string()
    } else {
        "network: whole".to_string()
    };
    let status = html! {
        <div class="status">
            <span class="clock" aria-label={format!("Simulated time {} of {}", fmt_t_precise(view_t), fmt_t(duration))}>
                { format!("t = {}", fmt_t_precise(view_t)) }<small>{ format!(" / {}", fmt_t(duration)) }</small>
            </span>
            <span class={quorum_class} role="status" aria-live="polite" data-testid="quorum">{ e.label() }</span>
            <span class="leader" data-testid="leader">{ leader }</span>
            <span class="network">{ network }</span>
        </div>
    };

    let menu = ui.selection.as_ref().map(|sel| {
        html! {
            <menu::Menu snapshot={snapshot.clone()} selection={sel.clone()}
                when={AttrValue::from(fmt_t_precise(view_t))}
                on_action={apply.clone()} on_move={move_item.clone()} on_close={close_menu.clone()} />
        }
    });
    let workloads = Rc::new(topology::workload_infos(&scenario, &lanes, view_t));

    let controls = html! {
        <div class="controls" role="group" aria-label="Playback">
            <button class="play" onclick={toggle_play} aria-label={if ui.playing { "Pause" } else { "Play" }}>
                { if ui.playing { "❚❚ Pause" } else { "▶ Play" } }
            </button>
            <button onclick={step} aria-label="Step forward one second">{ "+1 s" }</button>
            <label class="speed">{ "Speed " }
                <select onchange={set_speed} aria-label="Playback speed">
                    { for Speed::ALL.iter().map(|s| html! { <option value={s.label()} selected={*s == ui.speed}>{ s.label() }</option> }) }
                </select>
            </label>
            <input type="range" class="scrubber" min="0" max={duration.to_string()} step="0.1"
                value={ui.cursor.to_string()} oninput={scrub}
                aria-label="Simulated time" aria-valuetext={format!("{} of {}", fmt_t_precise(ui.cursor), fmt_t(duration))} />
            if !ui.embed {
                <button onclick={heal} disabled={!snapshot.network_faulty}>{ "Heal network" }</button>
                if sim.can_undo() {
                    <button onclick={undo.clone()}>{ "Undo" }</button>
                }
            }
        </div>
    };

    let scenario_rc = scenario.clone();
    let on_edit = {
        let (sim, ui) = (sim.clone(), ui.clone());
        Callback::from(move |(s, what): (Scenario, String)| {
            let d = s.duration.as_secs_f64();
            sim.edit(s);
            ui.dispatch(UiAction::Loaded {
                duration: d,
                cursor: 0.0,
            });
            ui.dispatch(UiAction::Notify(info(
                format!("Scenario changed ({what}): the run restarts from 0:00."),
                true,
            )));
        })
    };
    let toggle_editor = {
        let ui = ui.clone();
        Callback::from(move |_: MouseEvent| ui.dispatch(UiAction::ToggleEditor))
    };

    if ui.embed {
        // The run without editor chrome: a title, the state, the topology (view only), playback
        // and the charts. A link opens the same run in the full playground.
        let base = web_sys::window()
            .and_then(|w| w.location().href().ok())
            .unwrap_or_default();
        let base = base.split('#').next().unwrap_or_default();
        let t = (!ui.playing).then_some(ui.cursor).filter(|&t| t > 0.0);
        let full = format!("{base}{}", codec::fragment_of(&encoded, t, false));
        let about = ready
            .map(|r| r.texts(&scenario).1)
            .or_else(|| scenario.description.clone())
            .unwrap_or_default();
        return html! {
            <main class="page embed">
                <header class="embed-top">
                    <h1>{ &scenario.name }</h1>
                    <a href={full} target="_blank" rel="noopener">{ "Open in the Kubernetes HA Playground ↗" }</a>
                </header>
                if !about.is_empty() {
                    <p class="embed-about">{ about }</p>
                }
                { for notice }
                { status }
                <topology::Topology snapshot={shared::Shared::new(snapshot.clone())} workloads={workloads.clone()} selection={None::<Selection>}
                    interactive={false} on_select={Callback::noop()} on_move={Callback::noop()} on_background={Callback::noop()}>
                    <></>
                </topology::Topology>
                { controls }
                <charts::Charts report={report.clone()} {report_version} {duration} cursor={view_t} {computed}
                    lanes={lanes.clone()} on_seek={seek.clone()} />
            </main>
        };
    }

    let editor = html! {
        <section class={classes!("editor", ui.editor_open.then_some("open"))} aria-labelledby="editor-title">
            <h2 id="editor-title">
                <button class="disclosure" aria-expanded={ui.editor_open.to_string()} aria-controls="editor-body" onclick={toggle_editor}>
                    { if ui.editor_open { "▾ " } else { "▸ " } }{ "Edit the topology: hosts, zones, workloads, settings" }
                </button>
            </h2>
            if ui.editor_open {
                <div id="editor-body">
                    <editor::Editor scenario={scenario_rc.clone()} on_change={on_edit} />
                </div>
            }
        </section>
    };

    html! {
        <main class="page" data-diag={diag}>
            <header class="top">
                <div>
                    <h1>{ "Kubernetes HA Playground" }</h1>
                    <p class="tagline">{ "Break a cluster and watch what really happens. Drag a zone or host to split the network; click a host to crash it." }</p>
                </div>
                <Share sim={sim.clone()} cursor={ui.cursor} />
            </header>
            { for notice }
            { picker }
            { editor }
            <div class="workspace">
                <div class="main-col">
                    { status }
                    <topology::Topology snapshot={shared::Shared::new(snapshot.clone())} workloads={workloads.clone()} selection={ui.selection.clone()}
                        on_select={select} on_move={move_item} on_background={close_menu.clone()}>
                        { for menu }
                    </topology::Topology>
                    { controls }
                    <charts::Charts report={report.clone()} {report_version} {duration} cursor={view_t} {computed}
                        lanes={lanes.clone()} on_seek={seek.clone()} />
                </div>
                <aside class="side-col">
                    <log::EventLog report={report} cursor={view_t} on_seek={seek} />
                </aside>
            </div>
            <details class="facts">
                <summary>{ "etcd quorum by cluster size" }</summary>
                <QuorumTable />
            </details>
        </main>
    }
}

/// The wasm linear memory (MB): it only grows, so this is the peak so far.
fn wasm_memory_mb() -> usize {
    #[cfg(target_arch = "wasm32")]
    return core::arch::wasm32::memory_size(0) * 65536 / 1_000_000;
    #[cfg(not(target_arch = "wasm32"))]
    0
}

/// Simulation work per animation frame (ms): at most, and at least (when frames run late).
const WORK_MS_MAX: f64 = 8.0;
const WORK_MS_MIN: f64 = 3.0;
/// Work per frame while a seek is replayed (paused).
const WORK_MS_SEEK: f64 = 30.0;

/// Advances playback and background computation on animation frames: one frame is scheduled
/// per render while there is something to do; each frame reports back with a `Tick`.
#[hook]
fn use_frame_loop(sim: &Sim, ui: &UseReducerHandle<UiState>, busy: bool) {
    let pending = use_mut_ref(|| None::<gloo_render::AnimationFrame>);
    let last = use_mut_ref(|| None::<f64>);
    // Simulation work per frame (ms), adapted to keep frames at the display's rate: the page's
    // own rendering (the topology of a large cluster) takes its share of the frame too.
    let budget = use_mut_ref(|| WORK_MS_MAX);
    let (sim, ui) = (sim.clone(), ui.clone());
    // The cursor is a dependency so a seek during playback re-arms the loop from the new time
    // (an in-flight frame would otherwise carry the old cursor back).
    use_effect_with(
        (ui.playing, ui.frame, busy, ui.cursor.to_bits()),
        move |&(playing, _, busy, _)| {
            if !playing && !busy {
                *last.borrow_mut() = None;
                pending.borrow_mut().take();
                return;
            }
            let last2 = last.clone();
            let budget = budget.clone();
            *pending.borrow_mut() = Some(gloo_render::request_animation_frame(move |ts| {
                let dt = last2.borrow().map_or(16.0, |l| ts - l);
                *last2.borrow_mut() = Some(ts);
                if playing {
                    // A frame missed (more than a 60 Hz interval): less work; else a little more.
                    let mut b = budget.borrow_mut();
                    *b = if dt > 20.0 {
                        (*b * 0.75).max(WORK_MS_MIN)
                    } else {
                        (*b + 0.5).min(WORK_MS_MAX)
                    };
                }
                if playing {
                    let target = ui.play_target(dt).unwrap_or(ui.duration);
                    sim.set_target(target);
                }
                // At most about half a frame of work: the page stays responsive at any scenario size.
                // A seek being replayed while paused: its intermediate states are not worth drawing,
                // so frames do more work (the page still answers input between them).
                // Paused, computing ahead: the full budget (nothing moves on screen but the charts).
                let ms = match (playing, sim.borrow().view_behind()) {
                    (true, _) => *budget.borrow(),
                    (false, true) => WORK_MS_SEEK,
                    (false, false) => WORK_MS_MAX,
                };
                sim.work_for(ms);
                let reached = sim.borrow().view_t();
                ui.dispatch(UiAction::Tick { reached });
            }));
        },
    );
}

/// Keeps the URL fragment equal to the current scenario (and the time, when paused), without
/// adding history entries. The scenario's encoding is cached: time changes far more often.
#[hook]
fn use_share_fragment(sim: &Sim, encoded: Rc<String>, ui: &UseReducerHandle<UiState>) {
    let t = (!ui.playing).then_some(ui.cursor);
    let embed = ui.embed;
    use_effect_with((sim.scenario_version, t.map(f64::to_bits)), move |_| {
        let frag = codec::fragment_of(&encoded, t.filter(|&t| t > 0.0), embed);
        let _ = gloo_utils::history().replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&frag),
        );
    });
}

#[derive(Properties, PartialEq)]
struct ShareProps {
    sim: Sim,
    cursor: f64,
}

/// What the share box shows: the link, or the embed code.
#[derive(Clone, PartialEq)]
enum Shown {
    Link(String),
    Embed(String),
}

/// "Share": shows the link of this run at this time, selected, and copies it; "Copy embed
/// code" does the same with an `<iframe>` of the embed view.
#[function_component(Share)]
fn share(props: &ShareProps) -> Html {
    let shown = use_state(|| None::<Shown>);
    let link_of = {
        let (sim, cursor) = (props.sim.clone(), props.cursor);
        move |embed: bool| -> Option<String> {
            let w = web_sys::window()?;
            let href = w.location().href().unwrap_or_default();
            let base = href.split('#').next().unwrap_or_default().to_string();
            let enc = codec::encode_scenario(sim.borrow().scenario());
            Some(format!(
                "{base}{}",
                codec::fragment_of(&enc, Some(cursor).filter(|&t| t > 0.0), embed)
            ))
        }
    };
    let copy = |text: &str| {
        // Best effort: the clipboard needs a secure context and permission.
        if let Some(w) = web_sys::window() {
            let _ = w.navigator().clipboard().write_text(text);
        }
    };
    let on_link = {
        let (shown, link_of) = (shown.clone(), link_of.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(link) = link_of(false) {
                copy(&link);
                shown.set(Some(Shown::Link(link)));
            }
        })
    };
    let on_embed = {
        let (shown, link_of, sim) = (shown.clone(), link_of.clone(), props.sim.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(link) = link_of(true) {
                let title = sim
                    .borrow()
                    .scenario()
                    .name
                    .replace('"', "&quot;")
                    .replace('<', "&lt;");
                let code = format!(
                    "<iframe src=\"{}\" title=\"Kubernetes HA Playground: {title}\" width=\"100%\" height=\"760\" style=\"border:1px solid #c9c9ce;border-radius:8px\" loading=\"lazy\"></iframe>",
                    link.replace('&', "&amp;").replace('"', "&quot;")
                );
                copy(&code);
                shown.set(Some(Shown::Embed(code)));
            }
        })
    };
    let close = {
        let shown = shown.clone();
        Callback::from(move |_: MouseEvent| shown.set(None))
    };
    let onkeydown = {
        let shown = shown.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                shown.set(None);
                menu::focus_selector(".share > .share-buttons > button");
            }
        })
    };
    let select_all = Callback::from(|e: FocusEvent| {
        e.target_unchecked_into::<web_sys::HtmlInputElement>()
            .select()
    });
    html! {
        <div class="share">
            <div class="share-buttons">
                <button onclick={on_link}>{ "Share this run" }</button>
                <button class="secondary" onclick={on_embed}>{ "Copy embed code" }</button>
            </div>
            if let Some(s) = (*shown).clone() {
                <div class="share-box" {onkeydown}>
                    { match s {
                        Shown::Link(link) => html! {
                            <label>{ "Link to this run at this moment (copied):" }
                                <input type="text" readonly=true value={link} aria-label="Share link" onfocus={select_all} />
                            </label>
                        },
                        Shown::Embed(code) => html! {
                            <label>{ "Embed code for a web page (copied):" }
                                <textarea readonly=true rows="4" aria-label="Embed code" onfocus={select_all} value={code} />
                            </label>
                        },
                    } }
                    <button onclick={close} aria-label="Close share box">{ "×" }</button>
                </div>
            }
        </div>
    }
}

/// How many etcd members can fail, for cluster sizes 1 to 7 (from `sim::quorum`).
#[function_component(QuorumTable)]
pub fn quorum_table() -> Html {
    html! {
        <table class="quorum">
            <thead>
                <tr><th>{ "members" }</th><th>{ "quorum" }</th><th>{ "failures tolerated" }</th></tr>
            </thead>
            <tbody>
                { for (1..=7).map(|n| html! {
                    <tr data-members={n.to_string()}>
                        <td>{ n }</td><td>{ quorum(n) }</td><td>{ failures_tolerated(n) }</td>
                    </tr>
                }) }
            </tbody>
        </table>
    }
}
