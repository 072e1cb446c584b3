//! The event log: the report's events with their one-sentence explanations. Events up to the
//! cursor are "past", later ones (already computed) are dimmed; clicking one moves the cursor.

use crate::fmt::fmt_t_precise;
use sim::report::Report;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Rows drawn at most; a long run shows the window around the cursor.
const MAX_ROWS: usize = 400;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub report: crate::shared::Shared<Report>,
    pub cursor: f64,
    pub on_seek: Callback<f64>,
}

#[function_component(EventLog)]
pub fn event_log(props: &Props) -> Html {
    let events = &props.report.events;
    // The latest event at or before the cursor is "now".
    let now = events.partition_point(|e| e.t <= props.cursor + 1e-9);
    let from = now.saturating_sub(MAX_ROWS / 2).min(events.len().saturating_sub(MAX_ROWS));
    let to = (from + MAX_ROWS).min(events.len());
    // Keep "now" in view inside the log's own scroll box (never scrolling the page).
    let list = use_node_ref();
    {
        let list = list.clone();
        use_effect_with(now, move |_| {
            // The list is its own scroll box (the heading stays put).
            let Some(box_) = list.cast::<web_sys::HtmlElement>() else { return };
            let Ok(Some(cur)) = box_.query_selector("[aria-current='true']") else { return };
            let Ok(cur) = cur.dyn_into::<web_sys::HtmlElement>() else { return };
            // `position: relative` on the list makes it the items' offset parent.
            let top = cur.offset_top();
            let (view, h) = (box_.scroll_top(), box_.client_height());
            if top < view || top + cur.offset_height() > view + h {
                box_.set_scroll_top((top - h / 3).max(0));
            }
        });
    }
    // The rows change only when the report or "now" does (not on every frame of playback).
    let rows = use_memo((props.report.clone(), now), {
        let report = props.report.clone();
        let on_seek = props.on_seek.clone();
        move |_| {
            let events = &report.events;
            html! {
                { for events[from..to].iter().enumerate().map(|(k, e)| {
                    let i = from + k;
                    let t = e.t;
                    let on_seek = on_seek.clone();
                    let class = classes!(
                        "event",
                        if i < now { "past" } else { "future" },
                        e.kind.replace('.', "-"),
                        (e.ok == Some(false)).then_some("failed")
                    );
                    let current = (i + 1 == now).then_some("true");
                    html! {
                        <li class={class} aria-current={current}>
                            <button onclick={Callback::from(move |_| on_seek.emit(t))}
                                    aria-label={format!("Go to {}: {}", fmt_t_precise(t), e.text)}>
                                <span class="when">{ fmt_t_precise(t) }</span>
                                <span class="what">{ &e.text }</span>
                            </button>
                        </li>
                    }
                }) }
            }
        }
    });
    html! {
        <section class="log" aria-labelledby="log-title">
            <h2 id="log-title">{ "What happened" }</h2>
            <p class="hint">{ "Click an event to go to that moment. Greyed: later in the run." }</p>
            if events.is_empty() {
                <p class="empty">{ "No events yet." }</p>
            }
            <ol ref={list}>
                { (*rows).clone() }
            </ol>
            if events.len() > MAX_ROWS {
                <p class="hint">{ format!("Showing {} of {} events, around the cursor.", to - from, events.len()) }</p>
            }
            if props.report.events_dropped > 0 {
                <p class="hint">{ format!("{} more events were not kept (report limit).", props.report.events_dropped) }</p>
            }
        </section>
    }
}
