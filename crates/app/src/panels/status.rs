//! The state line above the topology: the simulated clock, etcd's quorum, the leader and the
//! network, in words (the quorum badge is a live region).

use crate::fmt::{fmt_t, fmt_t_precise};
use crate::gesture;
use crate::session::use_session;
use yew::prelude::*;

#[function_component(StatusBar)]
pub fn status_bar() -> Html {
    let session = use_session();
    let (snapshot, view_t, duration, started, awaiting, failed) = {
        let run = session.sim.borrow();
        (
            run.snapshot(),
            run.shown_t(),
            run.duration_s(),
            run.started(),
            run.awaiting(),
            run.failed.clone(),
        )
    };
    let e = &snapshot.etcd;
    let (quorum_class, quorum) = match (started, e.has_quorum) {
        // Until the simulation's first state arrives (a moment after the page opens).
        (false, _) => ("badge starting", "starting the simulation…".to_string()),
        (true, true) => ("badge ok", e.label()),
        (true, false) => ("badge lost", e.label()),
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
    html! {
        // Busy while the view is on its way to the time asked (a seek, a fork, a new run).
        <div class="status" aria-busy={awaiting.to_string()}>
            <span class="clock" aria-label={format!("Simulated time {} of {}", fmt_t_precise(view_t), fmt_t(duration))}>
                { format!("t = {}", fmt_t_precise(view_t)) }<small>{ format!(" / {}", fmt_t(duration)) }</small>
            </span>
            <span class={quorum_class} role="status" aria-live="polite" data-testid="quorum">{ quorum }</span>
            <span class="leader" data-testid="leader">{ leader }</span>
            <span class="network">{ network }</span>
            // The engine said it cannot go on (its worker stopped, a message was unreadable).
            if let Some(f) = failed {
                <span class="badge lost" role="alert">{ format!("Simulation error: {f}") }</span>
            }
        </div>
    }
}
