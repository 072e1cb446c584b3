//! What happened over time: the charts under the topology and the event log beside it. Both
//! read the report computed ahead, and a click on either moves the cursor there.

use crate::charts::{first_difference, Charts, Lanes};
use crate::fmt::fmt_t;
use crate::language::{t, tf, ts};
use crate::log::EventLog;
use crate::session::{use_session, Session};
use crate::shared::Shared;
use std::rc::Rc;
use yew::prelude::*;

fn seek(session: &Session) -> Callback<f64> {
    let session = session.clone();
    Callback::from(move |t: f64| session.seek(t))
}

#[function_component(ChartsPanel)]
pub fn charts_panel() -> Html {
    let session = use_session();
    let run = session.sim.borrow();
    let report = run.report();
    let Some(compare) = &session.compare else {
        return html! {
            <Charts report={Shared::new(report)} report_version={run.report_version()}
                duration={run.duration_s()} cursor={run.view_t()} computed={run.computed_s()}
                lanes={session.lanes.clone()} on_seek={seek(&session)} />
        };
    };
    // The compare view: this run's charts, then the other's on the same time axis, the cursor
    // shared and the first moment they differ marked on both.
    let other = compare.run.borrow();
    let other_report = other.report();
    let computed = run.computed_s().min(other.computed_s());
    let difference = first_difference(&report.series, &other_report.series);
    let (mark, said) = match &difference {
        Some((at, row)) if *at <= computed => (
            Some((
                *at,
                tf(format_args!("first difference: {} ({row})", fmt_t(*at))),
            )),
            tf(format_args!("They first differ at {} ({row}).", fmt_t(*at))),
        ),
        _ if computed >= run.duration_s().min(other.duration_s()) => {
            (None, ts("Their charts do not differ."))
        }
        _ => (None, ts("No difference so far (still computing).")),
    };
    let duration = run.duration_s().max(other.duration_s());
    let stop = {
        let session = session.clone();
        Callback::from(move |_: MouseEvent| session.compare_with_copy(false))
    };
    html! {
        <section class="compare" aria-label={t("Compare view")}>
            <h2 class="compare-title">{ tf(format_args!("This run: {}", run.scenario().name)) }</h2>
            <Charts report={Shared::new(report.clone())} report_version={run.report_version()}
                duration={duration} cursor={run.view_t()} computed={run.computed_s()}
                lanes={session.lanes.clone()} on_seek={seek(&session)} mark={mark.clone()} />
            <h2 class="compare-title">{ tf(format_args!("Compared with: {}", other.scenario().name)) }
                <button class="secondary" onclick={stop}>{ t("Stop comparing") }</button></h2>
            <p class="compare-said" role="status">{ said }</p>
            <Charts report={Shared::new(other_report)} report_version={other.report_version()}
                duration={duration} cursor={run.view_t()} computed={other.computed_s()}
                lanes={Rc::new(Lanes::of(other.scenario()))} on_seek={seek(&session)} {mark} />
        </section>
    }
}

#[function_component(LogPanel)]
pub fn log_panel() -> Html {
    let session = use_session();
    let run = session.sim.borrow();
    html! {
        <EventLog report={Shared::new(run.report())} cursor={run.view_t()} on_seek={seek(&session)} />
    }
}
