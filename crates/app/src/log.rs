//! The event log: the report's events with their one-sentence explanations. Events up to the
//! cursor are "past", later ones (already computed) are dimmed; clicking one moves the cursor.

use crate::fmt::{fmt_t_precise, now_ms};
use crate::language::{t as tr, tf as trf, translate};
use gloo_timers::callback::Timeout;
use sim::report::Report;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Rows drawn at most; a long run shows the window around the cursor. Not more: a scrub moves
/// the whole window and a large cluster's split adds hundreds of events at once, and drawing 400
/// new rows was a task of 50 to 80 ms at 1,000 workers.
const MAX_ROWS: usize = 100;
/// The log scrolls to follow the cursor at most this often (ms).
const FOLLOW_MS: f64 = 150.0;

/// Scrolls the list so its current row is in view (when it is not).
fn scroll_to_current(list: &NodeRef) {
    let Some(box_) = list.cast::<web_sys::HtmlElement>() else {
        return;
    };
    let Ok(Some(cur)) = box_.query_selector("[aria-current='true']") else {
        return;
    };
    let Ok(cur) = cur.dyn_into::<web_sys::HtmlElement>() else {
        return;
    };
    // `position: relative` on the list makes it the items' offset parent.
    let top = cur.offset_top();
    let (view, h) = (box_.scroll_top(), box_.client_height());
    if top < view || top + cur.offset_height() > view + h {
        box_.set_scroll_top((top - h / 3).max(0));
    }
}

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
    let from = now
        .saturating_sub(MAX_ROWS / 2)
        .min(events.len().saturating_sub(MAX_ROWS));
    let to = (from + MAX_ROWS).min(events.len());
    // Keep "now" in view inside the log's own scroll box (never scrolling the page). Reading
    // positions forces a layout of the page, so while "now" moves on every frame (playback)
    // this runs at most every [`FOLLOW_MS`], and once more at the end; always in a task of its
    // own, after the browser has laid out what the render changed, never inside the render.
    let list = use_node_ref();
    // When "now" was last followed (wall ms), and whether a follow-up is due. The follow-up
    // shares only this cell, not its own handle, so dropping the log drops (cancels) it.
    let followed = use_mut_ref(|| (f64::NEG_INFINITY, false));
    let later = use_mut_ref(|| None::<Timeout>);
    {
        let list = list.clone();
        // Also when the window of rows moves (the report grew): the current row moves in the box.
        use_effect_with((now, from), move |_| {
            let (last, pending) = *followed.borrow();
            if pending {
                return;
            }
            followed.borrow_mut().1 = true;
            let wait = (FOLLOW_MS - (now_ms() - last)).max(0.0) as u32;
            // The one this replaces has fired (nothing was pending): dropping it is a no-op.
            *later.borrow_mut() = Some(Timeout::new(wait, move || {
                *followed.borrow_mut() = (now_ms(), false);
                scroll_to_current(&list);
                // Rows out of view are laid out only once they come into it (`content-visibility`
                // in the stylesheet): their real heights may move the current row, so it is looked
                // at once more after they were.
                Timeout::new(50, move || scroll_to_current(&list)).forget();
            }));
        });
    }
    // One component per row: as the cursor moves, only rows that become past or current are
    // drawn again (at max speed "now" moves on almost every frame). The callback is stable so
    // it does not make every row differ.
    let on_seek_now = use_mut_ref(|| props.on_seek.clone());
    *on_seek_now.borrow_mut() = props.on_seek.clone();
    let on_seek = use_callback((), move |t: f64, _| {
        let cb = on_seek_now.borrow().clone();
        cb.emit(t);
    });
    let rows = (from..to).map(|i| {
        html! {
            <Row key={i} report={props.report.clone()} {i} past={i < now} current={i + 1 == now} on_seek={on_seek.clone()} />
        }
    });
    html! {
        <section class="log" aria-labelledby="log-title">
            <h2 id="log-title">{ tr("What happened") }</h2>
            <p class="hint">{ tr("Click an event to go to that moment. Greyed: later in the run.") }</p>
            if events.is_empty() {
                <p class="empty">{ tr("No events yet.") }</p>
            }
            <ol ref={list}>
                { for rows }
            </ol>
            if events.len() > MAX_ROWS {
                <p class="hint">{ trf(format_args!("Showing {} of {} events, around the cursor.", to - from, events.len())) }</p>
            }
            if props.report.events_dropped > 0 {
                <p class="hint">{ format!("{} more events were not kept (report limit).", props.report.events_dropped) }</p>
            }
        </section>
    }
}

#[derive(Properties)]
struct RowProps {
    report: crate::shared::Shared<Report>,
    i: usize,
    past: bool,
    current: bool,
    on_seek: Callback<f64>,
}

/// A row is the same while its event and its place are: a run computing ahead publishes a new
/// report a few times a second, and drawing every row again for each took a good part of the
/// page's task (up to 400 rows).
impl PartialEq for RowProps {
    fn eq(&self, o: &Self) -> bool {
        (self.i, self.past, self.current) == (o.i, o.past, o.current)
            && self.report.events[self.i] == o.report.events[o.i]
            && self.on_seek == o.on_seek
    }
}

#[function_component(Row)]
fn row(p: &RowProps) -> Html {
    let e = &p.report.events[p.i];
    let t = e.t;
    let class = classes!(
        "event",
        if p.past { "past" } else { "future" },
        e.kind.as_str().replace('.', "-"),
        (e.ok == Some(false)).then_some("failed")
    );
    let on_seek = p.on_seek.clone();
    html! {
        <li class={class} aria-current={p.current.then_some("true")}>
            <button onclick={Callback::from(move |_| on_seek.emit(t))}
                    aria-label={format!("{} {}: {}", tr("Go to"), fmt_t_precise(t), translate(&e.text))}>
                <span class="when">{ fmt_t_precise(t) }</span>
                <span class="what">{ translate(&e.text) }</span>
            </button>
        </li>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared::Shared;
    use sim::world::World;
    use std::rc::Rc;

    /// The report at report second `t` of a ready scenario.
    fn report_at(t: f64) -> Shared<Report> {
        let s = crate::catalog::Ready::by_id("4-rack-split")
            .unwrap()
            .scenario();
        let mut w = World::new(s);
        let until = w.at_report_secs(t);
        w.run_until(until, u64::MAX);
        Shared::new(Rc::new(sim::report(&w)))
    }

    /// A new report (the run computed further) leaves the rows it did not change alone.
    #[test]
    fn a_row_is_drawn_again_only_when_its_event_or_its_place_changes() {
        let (early, later) = (report_at(60.0), report_at(600.0));
        assert!(later.events.len() > early.events.len() && !early.events.is_empty());
        let on_seek = Callback::from(|_: f64| {});
        let row = |report: &Shared<Report>, i, past| RowProps {
            report: report.clone(),
            i,
            past,
            current: false,
            on_seek: on_seek.clone(),
        };
        assert!(row(&early, 0, false) == row(&later, 0, false));
        assert!(row(&early, 0, false) != row(&later, 0, true));
        assert!(row(&early, 0, false) != row(&later, 1, false));
        let mut changed = (*later).clone();
        changed.events[0].text.push_str(" (changed)");
        assert!(row(&later, 0, false) != row(&Shared::new(Rc::new(changed)), 0, false));
    }
}
