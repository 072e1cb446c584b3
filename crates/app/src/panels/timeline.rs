//! What happened over time: the charts under the topology and the event log beside it. Both
//! read the report computed ahead, and a click on either moves the cursor there.

use crate::charts::Charts;
use crate::log::EventLog;
use crate::session::{use_session, Session};
use crate::shared::Shared;
use yew::prelude::*;

fn seek(session: &Session) -> Callback<f64> {
    let session = session.clone();
    Callback::from(move |t: f64| session.seek(t))
}

#[function_component(ChartsPanel)]
pub fn charts_panel() -> Html {
    let session = use_session();
    let run = session.sim.borrow();
    html! {
        <Charts report={Shared::new(run.report())} report_version={run.report_version()}
            duration={run.duration_s()} cursor={run.view_t()} computed={run.computed_s()}
            lanes={session.lanes.clone()} on_seek={seek(&session)} />
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
