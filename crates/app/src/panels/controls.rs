//! Playback: play/pause, one second on, the speed, the scrubber; in the full page also "Heal
//! network" and "Undo", the two verbs that take a fault or a change back.

use crate::fmt::{fmt_t, fmt_t_precise, Short};
use crate::language::{t, tf};
use crate::session::use_session;
use crate::ui::{Speed, UiAction};
use sim::scenario::Action;
use yew::prelude::*;

#[function_component(Controls)]
pub fn controls() -> Html {
    let session = use_session();
    let ui = &session.ui;
    // A long run that keeps stills scrubs from one to the next: each is drawn at once. (A range
    // input only takes multiples of its step: the end must be one to stay reachable.)
    let (duration, network_faulty, scrub_step) = {
        let run = session.sim.borrow();
        let every = run.status().still_every;
        let step = if every > 0.0 && (run.duration_s() / every).fract() == 0.0 {
            Short(every, 0).to_string()
        } else {
            "0.1".into()
        };
        (run.duration_s(), run.snapshot().network_faulty, step)
    };
    let toggle_play = {
        let session = session.clone();
        Callback::from(move |_: MouseEvent| session.toggle_play())
    };
    let step = {
        let session = session.clone();
        Callback::from(move |_: MouseEvent| session.step())
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
        let session = session.clone();
        Callback::from(move |e: InputEvent| {
            let v = e
                .target_unchecked_into::<web_sys::HtmlInputElement>()
                .value_as_number();
            if v.is_finite() {
                session.seek(v);
            }
        })
    };
    let heal = {
        let session = session.clone();
        Callback::from(move |_: MouseEvent| session.apply(Action::Heal))
    };
    let undo = {
        let session = session.clone();
        Callback::from(move |_: MouseEvent| session.undo())
    };
    html! {
        <div class="controls" role="group" aria-label={t("Playback")}>
            <button class="play" onclick={toggle_play} aria-label={if ui.playing { t("Pause") } else { t("Play") }}>
                { if ui.playing { "❚❚ " } else { "▶ " } }{ if ui.playing { t("Pause") } else { t("Play") } }
            </button>
            <button onclick={step} aria-label={t("Step forward one second")}>{ "+1 s" }</button>
            <label class="speed">{ t("Speed") }{ " " }
                <select onchange={set_speed} aria-label={t("Playback speed")}>
                    { for Speed::ALL.iter().map(|s| crate::option::option(s.label(), s.label(), *s == ui.speed)) }
                </select>
            </label>
            <input type="range" class="scrubber" min="0" max={Short(duration, 3).to_string()} step={scrub_step}
                value={Short(ui.cursor, 3).to_string()} oninput={scrub}
                aria-label={t("Simulated time")} aria-valuetext={tf(format_args!("{} of {}", fmt_t_precise(ui.cursor), fmt_t(duration)))} />
            if !ui.embed {
                <button onclick={heal} disabled={!network_faulty}>{ t("Heal network") }</button>
                if session.sim.can_undo() {
                    <button onclick={undo}>{ t("Undo") }</button>
                }
            }
        </div>
    }
}
