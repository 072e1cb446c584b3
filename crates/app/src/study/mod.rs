//! The study page (`study/`): a scenario's availability over many random trials, in the
//! browser. The user picks the fault processes (the scenario's own, or a preset), a design to
//! compare with, how many trials of which length; the trials run in Web Workers ([`pool`]), and
//! the page shows each figure with its 95 % confidence interval, the spread of downtime over the
//! trials, and the worst trials to open in the playground. The figures are `sim::study`'s, as
//! `clustersim study` prints them for the same seed.
//!
//! A page of its own, built as a second binary of this crate: the playground's bundle does not
//! carry the study's code; it links here with its scenario.

pub mod plan;
pub mod pool;

use crate::codec;
use crate::language::{query, t, tf, translate};
use crate::shared::Shared;
use plan::{
    Preset, Settings, Variant, HORIZONS_DAYS, MAX_TRIALS, OPENABLE_DAYS, PRESETS, VARIANTS,
};
use sim::scenario::Scenario;
use sim::study::{Estimate, FirstLosses, StudyReport, Trial};
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// What the study page starts from.
pub struct StudyBoot {
    pub scenario: Scenario,
    /// The link's `s=` value (or the default scenario's encoding).
    pub encoded: String,
    pub settings: Settings,
    pub problem: Option<String>,
}

/// Reads the link: its scenario (else the playground's default one) and the study's settings.
pub async fn boot() -> StudyBoot {
    let hash = gloo_utils::window().location().hash().unwrap_or_default();
    // Without `s=` the study is of the default scenario, which is no problem of the link's.
    let has_scenario = hash
        .trim_start_matches('#')
        .split('&')
        .any(|p| p.starts_with("s="));
    let link = if has_scenario {
        codec::decode_fragment(&hash).await
    } else {
        codec::Link::default()
    };
    let mut problem = link.problem;
    let (scenario, encoded) = match (link.scenario, link.encoded) {
        (Some(s), Some(e)) => (s, e),
        _ => {
            let s = crate::catalog::default_scenario();
            let e = codec::encode_scenario(&s).await.unwrap_or_default();
            (s, e)
        }
    };
    let mut settings = Settings::for_scenario(&scenario);
    let mut refused = settings.read(&hash);
    // A design to compare with that this cluster has no such change for (5 masters of 5). The
    // faults are not looked at: the variant changes machines or settings only.
    if settings.variant != Variant::None && plan::variant_of(&scenario, settings.variant).is_none()
    {
        refused.push(format!("vs={}", settings.variant.key()));
        settings.variant = Variant::None;
    }
    if !refused.is_empty() && problem.is_none() {
        problem = Some(format!(
            "This link's study settings were not understood ({}): the defaults are used instead.",
            refused.join(", ")
        ));
    }
    StudyBoot {
        scenario,
        encoded,
        settings,
        problem,
    }
}

/// One design's study: its scenario and report.
#[derive(PartialEq)]
struct Outcome {
    scenario: Scenario,
    /// What the page calls the design: "this cluster", or the change compared with.
    label: String,
    report: StudyReport,
    /// By trial number: when it first lost each figure.
    first: BTreeMap<u64, FirstLosses>,
}

#[derive(Clone, PartialEq)]
enum Phase {
    Idle,
    Running {
        done: u64,
        total: u64,
        fraction: f64,
        started_ms: f64,
        now_ms: f64,
    },
    Done(Rc<Vec<Outcome>>),
    Failed(String),
}

#[derive(Properties, PartialEq)]
pub struct StudyProps {
    pub start: Shared<StudyBoot>,
}

/// Refused before it starts: a design the core does not accept for a trial, named.
fn check(designs: &[Scenario], st: &Settings) -> Result<(), String> {
    for d in designs {
        sim::study::trial_scenario(d, st.seed, st.horizon()).map_err(|e| e.to_string())?;
        if d.faults.is_empty() {
            return Err(t("This scenario has no random faults: choose a preset.").into());
        }
    }
    Ok(())
}

const TOO_LONG_S: f64 = 15.0 * 60.0;

#[function_component(StudyPage)]
pub fn study_page(props: &StudyProps) -> Html {
    let start = props.start.clone();
    let settings = use_state(|| start.settings.clone());
    let phase = use_state(|| Phase::Idle);
    let pool = use_mut_ref(|| None::<pool::Pool>);
    let chart_metric = use_state(|| usize::MAX);
    let st = (*settings).clone();
    // Progress re-renders the page many times a second: the designs are made once per setting.
    let made = {
        let base = start.clone();
        use_memo(st.clone(), move |st| {
            let designs = plan::designs(&base.scenario, st);
            let checked = check(&designs, st);
            (designs, checked)
        })
    };
    // Found by comparing whole scenarios: once per scenario or settings, not per render.
    let title = {
        let base = start.clone();
        use_memo((), move |_| scenario_title(&base.scenario))
    };
    let ready = {
        let base = start.clone();
        use_memo(st.clone(), move |st| ready_study(&base.scenario, st))
    };
    let designs = &made.0;
    let workers = pool::workers_for(st.trials * designs.len() as u64);
    let estimate = plan::estimate_seconds(&designs[0], st.trials, st.horizon(), workers)
        * designs.len() as f64;

    // A study that ended stops its workers (not from their own message handler, which is running).
    {
        let pool = pool.clone();
        let over = matches!(*phase, Phase::Done(_) | Phase::Failed(_));
        use_effect_with(over, move |over| {
            if *over {
                pool.borrow_mut().take();
            }
        });
    }

    // The link keeps the study's settings.
    {
        let encoded = start.encoded.clone();
        use_effect_with(st.clone(), move |st| {
            let f = format!("#s={encoded}&{}", st.write());
            if let Ok(h) = gloo_utils::window().history() {
                let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&f));
            }
        });
    }

    let set = {
        let (settings, phase, pool) = (settings.clone(), phase.clone(), pool.clone());
        move |f: fn(&mut Settings, String)| {
            let (settings, phase, pool) = (settings.clone(), phase.clone(), pool.clone());
            Callback::from(move |e: Event| {
                let value = e
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                    .map(|i| i.value())
                    .or_else(|| {
                        e.target()
                            .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
                            .map(|s| s.value())
                    })
                    .unwrap_or_default();
                let mut s = (*settings).clone();
                f(&mut s, value);
                pool.borrow_mut().take();
                phase.set(Phase::Idle);
                settings.set(s);
            })
        }
    };
    let on_preset = set(|s, v| s.preset = Preset::from_key(&v).unwrap_or(s.preset));
    let on_variant = set(|s, v| s.variant = Variant::from_key(&v).unwrap_or(s.variant));
    let on_trials = set(|s, v| {
        if let Ok(n) = v.trim().parse::<u64>() {
            s.trials = n.clamp(1, MAX_TRIALS);
        }
    });
    let on_days = set(|s, v| {
        if let Ok(d) = v.parse::<u64>() {
            s.days = d;
        }
    });
    let on_seed = set(|s, v| {
        if let Ok(n) = v.trim().parse::<u64>() {
            s.seed = n;
        }
    });
    let spot = SpotControls {
        on_rate: set(|s, v| s.spot.rate = plan::SpotRate::from_key(&v).unwrap_or(s.spot.rate)),
        on_replacement: set(|s, v| {
            s.spot.replacement = plan::Replacement::from_key(&v).unwrap_or(s.spot.replacement)
        }),
        on_minutes: set(|s, v| {
            if let Ok(m) = v.trim().parse::<u64>() {
                s.spot.replace_after_min = m.clamp(1, 1440);
            }
        }),
    };

    let run = run_study(phase.clone(), pool.clone(), designs.clone(), st.clone());
    let cancel = {
        let (phase, pool) = (phase.clone(), pool.clone());
        Callback::from(move |_: MouseEvent| {
            pool.borrow_mut().take();
            phase.set(Phase::Idle);
        })
    };

    let back = format!("../{}#s={}", query(), start.encoded);
    let running = matches!(*phase, Phase::Running { .. });
    let controls = Controls {
        on_preset,
        on_variant,
        on_trials,
        on_days,
        on_seed,
        spot,
        run,
        cancel,
        workers,
        estimate,
    };
    html! {
        <main class="study">
            <header class="study-head">
                <h1>{ t("Availability study") }</h1>
                <p class="tagline">{ tf(format_args!("of “{}”: how often it is down, over many random trials", *title)) }</p>
                <a class="back" href={back}>{ t("← Back to the playground") }</a>
                { crate::language::picker() }
            </header>
            if let Some(p) = &start.problem {
                <div class="notice error" role="alert"><span>{ translate(p) }</span></div>
            }
            { ready_picker(*ready, running) }
            { settings_view(&start.scenario, &st, &made, &controls, running) }
            { progress_view(&phase) }
            if let Phase::Done(outcomes) = &*phase {
                <ResultsView outcomes={outcomes.clone()} metric={chart_metric.clone()} days={st.days} variant={st.variant} />
            }
        </main>
    }
}

/// Run: the trials of every design in the page's workers, the phase following their news.
fn run_study(
    phase: UseStateHandle<Phase>,
    pool: Rc<std::cell::RefCell<Option<pool::Pool>>>,
    designs: Vec<Scenario>,
    st: Settings,
) -> Callback<MouseEvent> {
    Callback::from(move |_: MouseEvent| {
        let started_ms = js_sys::Date::now();
        let on = {
            let (phase, designs, st) = (phase.clone(), designs.clone(), st.clone());
            Rc::new(move |news: pool::News| match news {
                pool::News::Progress {
                    done,
                    total,
                    fraction,
                } => phase.set(Phase::Running {
                    done,
                    total,
                    fraction,
                    started_ms,
                    now_ms: js_sys::Date::now(),
                }),
                pool::News::Finished(results) => {
                    let outcomes = outcomes(&designs, results, &st);
                    phase.set(Phase::Done(Rc::new(outcomes)));
                }
                pool::News::Failed(why) => phase.set(Phase::Failed(why)),
            }) as Rc<dyn Fn(pool::News)>
        };
        match pool::start(&designs, st.seed, st.trials, st.horizon(), on) {
            Ok(p) => {
                *pool.borrow_mut() = Some(p);
                phase.set(Phase::Running {
                    done: 0,
                    total: st.trials * designs.len() as u64,
                    fraction: 0.0,
                    started_ms,
                    now_ms: started_ms,
                });
            }
            Err(why) => phase.set(Phase::Failed(why)),
        }
    })
}

/// What the study page's settings call back, and what it works out from them.
struct Controls {
    on_preset: Callback<Event>,
    on_variant: Callback<Event>,
    on_trials: Callback<Event>,
    on_days: Callback<Event>,
    on_seed: Callback<Event>,
    spot: SpotControls,
    run: Callback<MouseEvent>,
    cancel: Callback<MouseEvent>,
    workers: u64,
    /// Seconds the study should take here.
    estimate: f64,
}

/// The study's settings: the faults (a preset, the spot model), the design to compare with,
/// the trials, the estimate, and Run (or the runner's command, when too long for a tab).
fn settings_view(
    base: &Scenario,
    st: &Settings,
    (designs, checked): &(Vec<Scenario>, Result<(), String>),
    c: &Controls,
    running: bool,
) -> Html {
    let too_long = c.estimate > TOO_LONG_S;
    html! {
        <section class="study-settings" aria-label={t("Study settings")}>
            <label>{ t("Faults") }
                <select onchange={c.on_preset.clone()} disabled={running}>
                    { for PRESETS.into_iter().map(|p| html! {
                        <option value={p.key()} selected={p == st.preset}>{ preset_name(p) }</option>
                    }) }
                </select>
            </label>
            <ul class="faults">
                { for designs[0].faults.iter().map(|f| html! { <li>{ fault_words(f) }</li> }) }
                if designs[0].faults.is_empty() {
                    <li>{ t("none: choose a preset, or add random faults in the playground's editor") }</li>
                }
            </ul>
            if plan::has_spot_faults(&designs[0]) {
                { spot_settings(&st.spot, &plan::with_preset(base, st.preset), &c.spot, running) }
            }
            <label>{ t("Compare with") }
                <select onchange={c.on_variant.clone()} disabled={running}>
                    { for VARIANTS.into_iter().map(|v| {
                        let applies = v == Variant::None || plan::variant_of(&designs[0], v).is_some();
                        html! { <option value={v.key()} selected={v == st.variant} disabled={!applies}>{ variant_name(v, plan::kubernetes(&designs[0])) }</option> }
                    }) }
                </select>
            </label>
            <div class="study-size">
                <label>{ t("Trials") }
                    <input type="number" min="1" max={MAX_TRIALS.to_string()} value={st.trials.to_string()} onchange={c.on_trials.clone()} disabled={running} />
                </label>
                <label>{ t("Each trial lasts") }
                    <select onchange={c.on_days.clone()} disabled={running}>
                        { for HORIZONS_DAYS.into_iter().map(|d| html! {
                            <option value={d.to_string()} selected={d == st.days}>{ days_name(d) }</option>
                        }) }
                    </select>
                </label>
                <label>{ t("Seed") }
                    <input type="number" min="0" value={st.seed.to_string()} onchange={c.on_seed.clone()} disabled={running} />
                </label>
            </div>
            <p class="study-estimate">{ tf(format_args!(
                "{} simulated years per design, on {} workers: about {}.",
                years(st.trials * st.days), c.workers, duration_words(c.estimate)
            )) }</p>
            if let Err(why) = &checked {
                <p class="notice error" role="alert">{ translate(why) }</p>
            } else if too_long && !running {
                <div class="notice info too-long" role="status">
                    <span>{ t("This study is long for a browser tab. Run it natively instead, with the scenario saved as scenario.json:") }</span>
                    <code>{ plan::runner_command(st) }</code>
                    <span>{ t("Or split it over a Kubernetes cluster as an Indexed Job, one shard per pod, from a clone of the playground's repository (its README says how to build the image):") }</span>
                    <code class="job">{ plan::job_command(st, plan::job_shards(c.estimate, c.workers, st.trials, TOO_LONG_S)) }</code>
                    <a download="scenario.json" href={json_href(&designs[0])}>{ t("Save scenario.json") }</a>
                </div>
            }
            <div class="study-run">
                if running {
                    <button class="cancel" onclick={c.cancel.clone()}>{ t("Cancel") }</button>
                } else {
                    <button class="primary" onclick={c.run.clone()} disabled={checked.is_err()}>
                        { if too_long { t("Run it here anyway") } else { t("Run the study") } }
                    </button>
                }
            </div>
        </section>
    }
}

/// The designs' outcomes from their trials' results, as the page shows them.
fn outcomes(
    designs: &[Scenario],
    results: Vec<Vec<(Trial, FirstLosses)>>,
    st: &Settings,
) -> Vec<Outcome> {
    designs
        .iter()
        .zip(results)
        .enumerate()
        .map(|(i, (d, results))| {
            let first = (results.iter())
                .map(|(tr, f)| (tr.trial, f.clone()))
                .collect();
            let trials = results.into_iter().map(|(tr, _)| tr).collect();
            Outcome {
                scenario: d.clone(),
                label: design_label(i, st.variant, plan::kubernetes(d)),
                report: StudyReport::new(
                    &d.name,
                    st.trials,
                    st.horizon(),
                    st.seed,
                    "1/1".into(),
                    trials,
                ),
                first,
            }
        })
        .collect()
}

/// The ready study (its id) these settings of this scenario are, if any.
fn ready_study(scenario: &Scenario, st: &Settings) -> Option<&'static str> {
    let r = plan::ready_studies().into_iter().find(|r| {
        r.settings == *st
            && crate::catalog::Ready::by_id(r.scenario).is_some_and(|x| x.scenario() == *scenario)
    })?;
    Some(r.id)
}

/// The ready studies by the question each answers: choosing one opens it (its scenario and
/// settings in the link); the one shown (`current`) says what it shows.
fn ready_picker(current: Option<&'static str>, running: bool) -> Html {
    let shown = plan::ready_studies()
        .into_iter()
        .find(|r| Some(r.id) == current);
    let on_pick = Callback::from(|e: Event| {
        let id = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
            .map(|s| s.value())
            .unwrap_or_default();
        let Some(r) = plan::ready_studies().into_iter().find(|r| r.id == id) else {
            return;
        };
        let Some(ready) = crate::catalog::Ready::by_id(r.scenario) else {
            return;
        };
        let s = ready.scenario();
        wasm_bindgen_futures::spawn_local(async move {
            if let Ok(encoded) = codec::encode_scenario(&s).await {
                let location = gloo_utils::window().location();
                let _ = location.set_hash(&format!("s={encoded}&{}", r.settings.write()));
                let _ = location.reload();
            }
        });
    });
    html! {
        <section class="ready-studies" aria-label={t("Ready studies")}>
            <label>{ t("Ready studies") }
                <select onchange={on_pick} disabled={running}>
                    <option value="" selected={current.is_none()}>{ t("choose a question…") }</option>
                    { for plan::ready_studies().into_iter().map(|r| html! {
                        <option value={r.id} selected={current == Some(r.id)}>{ t(r.question) }</option>
                    }) }
                </select>
            </label>
            if let Some(r) = shown {
                <p class="ready-answer"><strong>{ t("What it shows:") }</strong>{ " " }{ t(r.answer) }</p>
            }
        </section>
    }
}

/// The callbacks of the spot model's controls.
struct SpotControls {
    on_rate: Callback<Event>,
    on_replacement: Callback<Event>,
    on_minutes: Callback<Event>,
}

/// The spot interruption model in the reader's terms: how many instances of the type are
/// interrupted a month (the buckets cloud providers quote), and how a reclaimed machine is
/// replaced. `base`: the scenario under the chosen faults, for what it says itself.
fn spot_settings(m: &plan::SpotModel, base: &Scenario, c: &SpotControls, running: bool) -> Html {
    use plan::{Replacement, SpotRate, SPOT_BUCKETS};
    let own = base.faults.iter().find_map(|f| match f.kind {
        sim::scenario::FaultKind::SpotInterruptions { every, .. } => Some(every),
        _ => None,
    });
    let bucket_name = |b: usize| -> String {
        match b {
            0 => t("under 5 % of instances a month").into(),
            4 => t("over 20 % of instances a month").into(),
            _ => {
                let lo = (SPOT_BUCKETS[b].1 * 100.0 - 2.5) as u32;
                tf(format_args!("{} – {} % of instances a month", lo, lo + 5))
            }
        }
    };
    let replacement_name = |r: Replacement| -> &'static str {
        match r {
            Replacement::Scenario => t("as the scenario says"),
            Replacement::None => t("never: the cluster shrinks"),
            Replacement::AfterTermination => t("after the termination (its etcd member removed then)"),
            Replacement::OnNotice => t("on the notice: its etcd member removed at once, a new machine after the termination"),
        }
    };
    let meaning = match m.rate {
        SpotRate::Bucket(b) => tf(format_args!(
            "Studied at {} % a month: each instance is interrupted every {} on average.",
            crate::fmt::Short(SPOT_BUCKETS[b].1 * 100.0, 1),
            span(SpotRate::mean_interval(SPOT_BUCKETS[b].1).as_secs_f64())
        )),
        SpotRate::Scenario => match own {
            Some(every) => tf(format_args!(
                "As the scenario says: each instance is interrupted every {} on average.",
                span(every.as_secs_f64())
            )),
            None => String::new(),
        },
    };
    html! {
        <fieldset class="spot-model">
            <legend>{ t("Spot instances") }</legend>
            <label>{ t("Interrupted") }
                <select onchange={c.on_rate.clone()} disabled={running}>
                    <option value="scenario" selected={m.rate == SpotRate::Scenario}>{ t("as the scenario says") }</option>
                    { for (0..SPOT_BUCKETS.len()).map(|b| html! {
                        <option value={SPOT_BUCKETS[b].0} selected={m.rate == SpotRate::Bucket(b)}>{ bucket_name(b) }</option>
                    }) }
                </select>
            </label>
            <label>{ t("Replaced") }
                <select onchange={c.on_replacement.clone()} disabled={running}>
                    { for Replacement::ALL.into_iter().map(|r| html! {
                        <option value={r.key()} selected={r == m.replacement}>{ replacement_name(r) }</option>
                    }) }
                </select>
            </label>
            if matches!(m.replacement, Replacement::AfterTermination | Replacement::OnNotice) {
                <label>{ t("The new machine joins, minutes after the termination") }
                    <input type="number" min="1" max="1440" value={m.replace_after_min.to_string()} onchange={c.on_minutes.clone()} disabled={running} />
                </label>
            }
            <p class="hint">{ meaning }{ " " }{ t("Cloud providers quote interruptions as the share of instances of a type interrupted in a month (AWS's Spot Instance Advisor: under 5 %, 5–10 %, 10–15 %, 15–20 %, over 20 %); every interruption comes with a 2-minute notice.") }</p>
        </fieldset>
    }
}

/// What the study is of: a ready scenario by the question it answers (in the reader's
/// language), another by its name.
fn scenario_title(s: &Scenario) -> String {
    crate::catalog::Ready::named(&s.name)
        .find(|r| r.scenario() == *s)
        .map_or_else(|| s.name.clone(), |r| t(r.question).to_string())
}

/// A fault process in the reader's words, its times with their units: "every host fails every
/// 30 d 0 h on average and is repaired in 1 h 0 min".
fn fault_words(f: &sim::scenario::Fault) -> String {
    use sim::scenario::{FaultKind, Selector};
    let hosts = match &f.targets {
        Selector::All => t("every host").to_string(),
        Selector::Spot => t("every spot host").to_string(),
        Selector::Role(r) => tf(format_args!("every host with the role {}", r.name())),
        Selector::Names(n) => n.join(", "),
    };
    let zones = match &f.targets {
        Selector::Names(n) => n.join(", "),
        _ => t("every zone").to_string(),
    };
    let d = |x: sim::kernel::time::Duration| span(x.as_secs_f64());
    match f.kind {
        FaultKind::HostFailures { mtbf, mttr } => tf(format_args!(
            "hosts ({hosts}): each fails every {} on average and is repaired in {}",
            d(mtbf),
            d(mttr)
        )),
        FaultKind::ZoneOutages { mtbf, mttr } => tf(format_args!(
            "zones ({zones}): each is cut off every {} on average, for {}",
            d(mtbf),
            d(mttr)
        )),
        FaultKind::SpotInterruptions {
            every,
            replace_after,
            remove_on_notice,
        } => {
            let then = match (replace_after, remove_on_notice) {
                (None, false) => t("never replaced").to_string(),
                (None, true) => {
                    t("its etcd member removed on the notice, never replaced").to_string()
                }
                (Some(r), false) => tf(format_args!("replaced {} after the termination", d(r))),
                (Some(r), true) => tf(format_args!(
                    "its etcd member removed on the notice, replaced {} after the termination",
                    d(r)
                )),
            };
            tf(format_args!(
                "spot hosts ({hosts}): each interrupted every {} on average (a 2-minute notice), {then}",
                d(every)
            ))
        }
    }
}

/// The page's name for design `i` of a study: the scenario itself, or the change compared
/// with (in the reader's language; the scenarios keep their own names for the runner and the
/// playground).
fn design_label(i: usize, v: Variant, kubernetes: bool) -> String {
    match i {
        0 => t("this cluster").into(),
        _ => variant_name(v, kubernetes).into(),
    }
}

fn preset_name(p: Preset) -> &'static str {
    match p {
        Preset::Scenario => t("the scenario's own random faults"),
        Preset::OnPremises => t("on-premises hardware"),
        Preset::CloudVms => t("cloud VMs"),
        Preset::Spot => t("spot workers"),
    }
}

fn variant_name(v: Variant, kubernetes: bool) -> &'static str {
    match v {
        Variant::None => t("nothing"),
        Variant::TwoMoreMasters if kubernetes => t("the same cluster with 5 masters"),
        Variant::TwoMoreMasters => t("the same cluster with 5 etcd members"),
        Variant::TcpCheck => t("the same cluster, load balancer checking TCP"),
        Variant::ExternalEtcd => t("the same cluster with external etcd"),
        Variant::OnNotice => t("the same cluster, each etcd member removed on its notice"),
    }
}

fn days_name(d: u64) -> String {
    match d {
        1 => t("a day").into(),
        365 => t("a year").into(),
        _ => tf(format_args!("{d} days")),
    }
}

fn years(days: u64) -> String {
    let tenths = (days * 10 + 182) / 365;
    format!("{}.{}", tenths / 10, tenths % 10)
}

fn duration_words(seconds: f64) -> String {
    if seconds < 60.0 {
        tf(format_args!("{} s", seconds.ceil() as u64))
    } else {
        tf(format_args!("{} min", (seconds / 60.0).ceil() as u64))
    }
}

/// The scenario as a file to save (a `data:` URL: no object URL to revoke).
fn json_href(s: &Scenario) -> String {
    let json = s.to_json();
    format!(
        "data:application/json;charset=utf-8,{}",
        js_sys::encode_uri_component(&json)
    )
}

fn progress_view(phase: &Phase) -> Html {
    match phase {
        Phase::Running {
            done,
            total,
            fraction,
            started_ms,
            now_ms,
        } => {
            let share = fraction / (*total).max(1) as f64;
            let elapsed = (now_ms - started_ms) / 1000.0;
            let left = if share > 0.0 {
                tf(format_args!(
                    "about {} left",
                    duration_words(elapsed * (1.0 - share) / share)
                ))
            } else {
                t("starting…").into()
            };
            html! {
                <section class="study-progress" aria-label={t("Progress")}>
                    <progress max="1000" value={((share * 1000.0) as u64).to_string()}></progress>
                    <span>{ tf(format_args!("{done} of {total} trials")) }{ " · " }{ left }</span>
                </section>
            }
        }
        Phase::Failed(why) => html! {
            <p class="notice error" role="alert">{ tf(format_args!("The study stopped: {why}.")) }</p>
        },
        _ => html! {},
    }
}

/// One trial's value of a figure (a fraction of time or requests).
#[derive(Clone, Copy)]
struct Point {
    trial: u64,
    seed: u64,
    value: f64,
    /// When the trial first lost it (seconds from its start).
    first: Option<f64>,
}

/// A figure's rows: its name, each design's estimate and each design's trials.
struct Metric {
    name: String,
    estimate: Vec<Option<Estimate>>,
    per_trial: Vec<Vec<Point>>,
}

impl Metric {
    fn values(&self, design: usize) -> Vec<f64> {
        self.per_trial[design].iter().map(|p| p.value).collect()
    }

    /// A design's trials with the most of it, most first (ties by trial number); none at 0.
    fn worst(&self, design: usize) -> Vec<Point> {
        let mut v: Vec<Point> = self.per_trial[design]
            .iter()
            .copied()
            .filter(|p| p.value > 0.0)
            .collect();
        sim::kernel::sort::sort_by(&mut v, |a, b| b.value.total_cmp(&a.value));
        v.truncate(sim::study::WORST);
        v
    }
}

fn metrics(outcomes: &[Outcome]) -> Vec<Metric> {
    type Value<'a> = &'a dyn Fn(&StudyReport, &Trial) -> Option<f64>;
    type First<'a> = &'a dyn Fn(&FirstLosses) -> Option<f64>;
    let column = |f: Value, first: First| -> Vec<Vec<Point>> {
        outcomes
            .iter()
            .map(|o| {
                o.report
                    .per_trial
                    .iter()
                    .filter_map(|tr| {
                        f(&o.report, tr).map(|value| Point {
                            trial: tr.trial,
                            seed: tr.seed,
                            value,
                            first: o.first.get(&tr.trial).and_then(first),
                        })
                    })
                    .collect()
            })
            .collect()
    };
    let mut out = vec![Metric {
        name: t("etcd quorum lost").into(),
        estimate: outcomes
            .iter()
            .map(|o| Some(o.report.etcd.quorum_unavailability.clone()))
            .collect(),
        per_trial: column(&|r, tr| Some(tr.etcd_quorum_lost_s / r.horizon_s), &|f| {
            f.quorum
        }),
    }];
    if outcomes[0].report.api.is_some() {
        out.push(Metric {
            name: t("API writes failed").into(),
            estimate: outcomes
                .iter()
                .map(|o| {
                    o.report
                        .api
                        .as_ref()
                        .map(|a| a.write_unavailability.clone())
                })
                .collect(),
            per_trial: column(&|_, tr| tr.api_write_unavailability, &|f| f.api),
        });
    }
    for name in outcomes[0].report.services.keys() {
        out.push(Metric {
            name: tf(format_args!("Service {name}: requests failed")),
            estimate: outcomes
                .iter()
                .map(|o| {
                    o.report
                        .services
                        .get(name)
                        .map(|s| s.unavailability.clone())
                })
                .collect(),
            per_trial: column(&|_, tr| tr.services.get(name).copied(), &|f| {
                f.services.get(name).copied()
            }),
        });
    }
    out
}

/// A fraction as a number of percent, in English: a piece of a translated text (a text made of
/// pieces already translated would have its numbers read twice).
fn pct(x: f64) -> String {
    let p = x * 100.0;
    if x == 0.0 {
        return "0".to_string();
    }
    // Three decimals, or as many as two significant digits of a small figure need.
    let decimals = (1.0 - p.log10().floor()).clamp(3.0, 12.0) as usize;
    format!("{p:.decimals$}")
}

fn percent(x: f64) -> String {
    tf(format_args!("{} %", pct(x)))
}

/// A fraction of the time as time down per year: "2 h 5 min", "40 s".
fn per_year(x: f64) -> String {
    let s = (x * 365.0 * 86_400.0).round() as u64;
    let (h, m) = (s / 3600, s % 3600 / 60);
    if h > 0 {
        tf(format_args!("{h} h {m} min"))
    } else if m > 0 {
        tf(format_args!("{m} min {} s", s % 60))
    } else {
        tf(format_args!("{s} s"))
    }
}

/// A stretch of time in words with its unit: "40 s", "5 min", "4 h 28 min", "2 d 5 h", "3 months",
/// "31 years".
fn span(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    let (d, h, m) = (s / 86_400, s % 86_400 / 3600, s % 3600 / 60);
    let years = seconds / plan::YEAR_S;
    if years >= 2.0 {
        tf(format_args!("{} years", significant(years)))
    } else if d >= 60 {
        tf(format_args!(
            "{} months",
            (seconds / (plan::YEAR_S / 12.0)).round() as u64
        ))
    } else if d > 0 && h > 0 {
        tf(format_args!("{d} d {h} h"))
    } else if d > 0 {
        tf(format_args!("{d} d"))
    } else if h > 0 && m > 0 {
        tf(format_args!("{h} h {m} min"))
    } else if h > 0 {
        tf(format_args!("{h} h"))
    } else if m > 0 && !s.is_multiple_of(60) {
        tf(format_args!("{m} min {} s", s % 60))
    } else if m > 0 {
        tf(format_args!("{m} min"))
    } else {
        tf(format_args!("{s} s"))
    }
}

/// Two significant digits (a figure with an interval claims no more), in English digits.
fn significant(x: f64) -> String {
    if x >= 100.0 {
        let scale = 10f64.powi(x.log10().floor() as i32 - 1);
        format!("{}", ((x / scale).round() * scale) as u64)
    } else if x >= 10.0 {
        format!("{}", x.round() as u64)
    } else {
        format!("{:.1}", x)
    }
}

/// How often design `i` first lost figure `m` (a trial that lost it without a known moment
/// counts as lost at its end).
fn first_loss(m: &Metric, i: usize, horizon_s: f64) -> plan::FirstLoss {
    let firsts = m.per_trial[i]
        .iter()
        .map(|p| (p.value > 0.0).then(|| p.first.unwrap_or(horizon_s)));
    plan::FirstLoss::of(firsts, horizon_s)
}

/// A share as a number of percent with the digits an interval's figure deserves: "100", "37",
/// "3.2", "0.012" (in English digits: a piece of a translated text).
fn share_pct(x: f64) -> String {
    let p = x * 100.0;
    if p <= 0.0 {
        "0".into()
    } else if p >= 10.0 {
        format!("{}", p.round() as u64)
    } else if p >= 1.0 {
        format!("{:.1}", p)
    } else {
        let decimals = (1.0 - p.log10().floor()).clamp(2.0, 12.0) as usize;
        format!("{p:.decimals$}")
    }
}

/// "etcd quorum lost: in 3.2 % of years [1.1 – 7.4 %]; mean time to the first loss 31 years
/// [13 – 90 years]", or, when no trial lost it, at most how often that can be.
fn how_often(name: &str, f: &plan::FirstLoss) -> String {
    let (share, [lo, hi]) = f.share_of_years();
    let in_years = |y: f64| span(y * plan::YEAR_S);
    match f.mean_years() {
        (Some(mean), [Some(short), Some(long)]) => tf(format_args!(
            "{name}: in {} % of years [{} – {} %]; mean time to the first loss {} [{} – {}]",
            share_pct(share),
            share_pct(lo),
            share_pct(hi),
            in_years(mean),
            in_years(short),
            in_years(long)
        )),
        (_, [short, _]) => tf(format_args!(
            "{name}: never, in {} simulated years: in at most {} % of years (95 %); mean time to the first loss more than {}",
            significant(f.watched_s / plan::YEAR_S),
            share_pct(hi),
            in_years(short.unwrap_or(0.0))
        )),
    }
}

/// Why a design compared with the scenario differs, whatever the figures say.
fn why(v: Variant) -> Option<&'static str> {
    match v {
        Variant::None => None,
        Variant::TwoMoreMasters => Some(t("Why: five members keep quorum with two lost at once, three with one; but five machines meet faults more often, and a member lost for good (a reclaimed spot instance) still counts until it is removed, which itself needs a quorum.")),
        Variant::ExternalEtcd => Some(t("Why: on machines of their own, etcd members no longer fall with a control-plane host, but there are more machines to fail.")),
        Variant::TcpCheck => Some(t("Why: a TCP check keeps sending requests to an apiserver that cannot serve them (its etcd lost quorum); /readyz takes it out of the balancer.")),
        Variant::OnNotice => Some(t("Why: removed on its notice, a doomed member leaves while every vote is still there; removed by its replacement after the termination, it leaves only if a quorum is left to remove it.")),
    }
}

/// The answer to "how often": for each design, the share of years in which quorum (and API
/// writes) were lost at least once and the mean time to the first loss, each with its 95 %
/// interval; then which design does better, when the intervals say so, and why such designs
/// differ.
fn answer(metrics: &[Metric], outcomes: &[Outcome], horizon_s: f64, variant: Variant) -> Html {
    let figures = &metrics[..metrics.len().min(2)];
    let verdict = (outcomes.len() == 2).then(|| {
        let (a, b) = (
            first_loss(&metrics[0], 0, horizon_s),
            first_loss(&metrics[0], 1, horizon_s),
        );
        let (n0, n1) = (&outcomes[0].label, &outcomes[1].label);
        let trials = metrics[0].per_trial[0].len();
        if a.less_often_than(&b) {
            tf(format_args!("“{n0}” loses quorum less often than “{n1}”: their intervals do not overlap."))
        } else if b.less_often_than(&a) {
            tf(format_args!("“{n1}” loses quorum less often than “{n0}”: their intervals do not overlap."))
        } else {
            tf(format_args!("With {trials} trials of each, “{n0}” and “{n1}” cannot be told apart: their intervals overlap. More trials, or longer ones, narrow them."))
        }
    });
    html! {
        <div class="study-answer" role="status">
            { for outcomes.iter().enumerate().map(|(i, o)| html! {
                <p><strong>{ o.label.clone() }</strong>
                    { for figures.iter().map(|m| html! { <><br />{ how_often(&m.name, &first_loss(m, i, horizon_s)) }</> }) }
                </p>
            }) }
            if let Some(v) = verdict {
                <p class="verdict">{ v }{ " " }{ why(variant).unwrap_or_default() }</p>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ResultsProps {
    outcomes: Rc<Vec<Outcome>>,
    metric: UseStateHandle<usize>,
    days: u64,
    variant: Variant,
}

#[function_component(ResultsView)]
fn results_view(p: &ResultsProps) -> Html {
    let outcomes = &p.outcomes;
    let metrics = metrics(outcomes);
    // Until the reader picks one: the first figure any trial lost something of.
    let chosen = match *p.metric {
        usize::MAX => metrics
            .iter()
            .position(|m| m.per_trial.iter().flatten().any(|p| p.value > 0.0))
            .unwrap_or(0),
        k => k.min(metrics.len() - 1),
    };
    let on_metric = {
        let metric = p.metric.clone();
        Callback::from(move |e: Event| {
            if let Some(s) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
            {
                metric.set(s.value().parse().unwrap_or(0));
            }
        })
    };
    let horizon_s = (p.days * 86_400) as f64;
    html! {
        <section class="study-results" aria-label={t("Results")}>
            <h2>{ t("Results") }</h2>
            { answer(&metrics, outcomes, horizon_s, p.variant) }
            <table class="study-figures">
                <thead><tr>
                    <th>{ t("unavailability, mean and 95 % confidence interval") }</th>
                    { for outcomes.iter().enumerate().map(|(i, o)| html! {
                        <th class={format!("d{i}")}>{ o.label.clone() }</th>
                    }) }
                </tr></thead>
                <tbody>
                    { for metrics.iter().map(|m| html! {
                        <tr>
                            <th scope="row">{ m.name.clone() }</th>
                            { for m.estimate.iter().map(|e| match e {
                                Some(e) => html! { <td>
                                    <strong>{ percent(e.mean) }</strong>
                                    <span class="ci">{ " " }{ tf(format_args!("[{} % – {} %]", pct(e.ci95[0]), pct(e.ci95[1]))) }</span>
                                    <span class="per-year">{ tf(format_args!("≈ {} a year", per_year(e.mean))) }</span>
                                </td> },
                                None => html! { <td>{ "—" }</td> },
                            }) }
                        </tr>
                    }) }
                </tbody>
            </table>
            <label class="chart-pick">{ t("Spread over the trials of") }
                <select onchange={on_metric}>
                    { for metrics.iter().enumerate().map(|(i, m)| html! {
                        <option value={i.to_string()} selected={i == chosen}>{ m.name.clone() }</option>
                    }) }
                </select>
            </label>
            { cdf_chart(&metrics[chosen], outcomes) }
            <h2>{ tf(format_args!("The worst trials: {}", metrics[chosen].name)) }</h2>
            <div class="worst">
                { for outcomes.iter().enumerate().map(|(i, o)| worst_view(i, o, &metrics[chosen], p.days)) }
            </div>
        </section>
    }
}

/// The share of trials (up) with at most each downtime (across), one line per design.
fn cdf_chart(m: &Metric, outcomes: &[Outcome]) -> Html {
    const W: f64 = 640.0;
    const H: f64 = 200.0;
    const PAD: f64 = 36.0;
    const LEFT: f64 = 52.0;
    let top = m
        .per_trial
        .iter()
        .flatten()
        .fold(0.0f64, |a, p| a.max(p.value));
    if top <= 0.0 {
        return html! { <p class="cdf-none">{ tf(format_args!("No trial had any: {}, 0 % in every trial.", m.name)) }</p> };
    }
    let x = |v: f64| LEFT + v / top * (W - LEFT - PAD);
    let y = |share: f64| H - PAD + -share * (H - 2.0 * PAD);
    let lines = (0..m.per_trial.len()).map(|i| {
        let values = m.values(i);
        let mut d = format!("M{:.1},{:.1}", x(0.0), y(0.0));
        let mut below = 0.0;
        for (v, share) in plan::cdf(&values) {
            d.push_str(&format!(
                " L{:.1},{:.1} L{:.1},{:.1}",
                x(v),
                y(below),
                x(v),
                y(share)
            ));
            below = share;
        }
        d.push_str(&format!(" L{:.1},{:.1}", x(top), y(below)));
        html! { <path class={format!("cdf d{i}")} d={d} /> }
    });
    let label = tf(format_args!(
        "Share of trials (up) with at most this much unavailability (across, up to {} %): {}",
        pct(top),
        m.name
    ));
    html! {
        <figure class="cdf-chart">
            <svg viewBox={format!("0 0 {W} {H}")} role="img" aria-label={label.clone()}>
                <line class="axis" x1={LEFT.to_string()} y1={(H - PAD).to_string()} x2={(W - PAD).to_string()} y2={(H - PAD).to_string()} />
                <line class="axis" x1={LEFT.to_string()} y1={PAD.to_string()} x2={LEFT.to_string()} y2={(H - PAD).to_string()} />
                <text x={(LEFT - 4.0).to_string()} y={(PAD + 4.0).to_string()} text-anchor="end">{ tf(format_args!("{} %", 100)) }</text>
                <text x={(LEFT - 4.0).to_string()} y={(H - PAD).to_string()} text-anchor="end">{ "0" }</text>
                <text x={(W - PAD).to_string()} y={(H - PAD + 16.0).to_string()} text-anchor="end">{ percent(top) }</text>
                <text x={LEFT.to_string()} y={(H - PAD + 16.0).to_string()}>{ percent(0.0) }</text>
                { for lines }
            </svg>
            <figcaption>
                { label }
                { for outcomes.iter().enumerate().map(|(i, o)| html! {
                    <span class={format!("key d{i}")}>{ o.label.clone() }</span>
                }) }
            </figcaption>
        </figure>
    }
}

/// How long before a worst trial's first loss the playground opens it.
const OPEN_BEFORE_S: f64 = 10.0;

fn worst_view(i: usize, o: &Outcome, m: &Metric, days: u64) -> Html {
    let worst = m.worst(i);
    let horizon = sim::kernel::time::Duration::from_secs(days * 86_400);
    html! {
        <div class={format!("worst-design d{i}")}>
            <h3>{ o.label.clone() }</h3>
            if days > OPENABLE_DAYS {
                <p>{ tf(format_args!("A trial of {} days is too long to open in the playground (at most {} days); replay one natively:", days, OPENABLE_DAYS)) }
                    { " " }<a download="scenario.json" href={json_href(&o.scenario)}>{ t("Save scenario.json") }</a></p>
            }
            <ol>
                if worst.is_empty() {
                    <li>{ t("none: no trial lost any") }</li>
                }
                { for worst.iter().map(|w| {
                    let what = tf(format_args!("trial {} (seed {}): {} %", w.trial, w.seed, pct(w.value)));
                    let when = w.first.map(|f| tf(format_args!("first lost after {}", span(f))));
                    let open = if days <= OPENABLE_DAYS {
                        let mut s = sim::study::with_seed_and_horizon(&o.scenario, w.seed, horizon);
                        // It says which trial it is, of which study, under which faults.
                        s.name = tf(format_args!("{} — trial {} of its study", o.scenario.name, w.trial));
                        let faults: Vec<String> = s.faults.iter().map(fault_words).collect();
                        s.description = Some(tf(format_args!(
                            "Trial {} (seed {}) of an availability study of “{}”, over {} days: {}. Its random faults: {}.",
                            w.trial, w.seed, o.scenario.name, days, m.name, faults.join("; ")
                        )));
                        // A little before the loss, to watch it come.
                        let at = w.first.map(|f| (f - OPEN_BEFORE_S).max(0.0));
                        let go = Callback::from(move |_: MouseEvent| {
                            let s = s.clone();
                            wasm_bindgen_futures::spawn_local(async move {
                                if let Ok(f) = codec::fragment(&s, at).await {
                                    let _ = gloo_utils::window().location().set_href(&format!("../{}{f}", query()));
                                }
                            });
                        });
                        html! { <button onclick={go}>{ t("Open it in the playground") }</button> }
                    } else {
                        html! { <code>{ format!("clustersim run scenario.json --seed {} --duration {}h", w.seed, days * 24) }</code> }
                    };
                    html! {
                        <li data-trial={w.trial.to_string()}>
                            <span>{ what }</span>
                            if let Some(when) = when { { ", " }<span class="first-lost" data-first-s={w.first.map(|f| f.to_string())}>{ when }</span> }
                            { " " }{ open }
                        </li>
                    }
                }) }
            </ol>
        </div>
    }
}
