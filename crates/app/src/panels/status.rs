//! The state line above the topology: the simulated clock, etcd's quorum, the leader and the
//! network, in words (the quorum badge is a live region).

use crate::fmt::{fmt_t, fmt_t_precise};
use crate::gesture;
use crate::language::{tf, ts};
use crate::session::use_session;
use yew::prelude::*;

#[function_component(StatusBar)]
pub fn status_bar() -> Html {
    let session = use_session();
    // `going`: a link or a seek past what is computed, where the view is on its way to (the run
    // is computed up to there first, a minute for the fifth day of a week; the clock stays where
    // the view is meanwhile); or a seek between two stills of a long run, the earlier drawn
    // while the world is replayed to the time asked.
    let (snapshot, view_t, duration, started, awaiting, failed, going) = {
        let run = session.sim.borrow();
        let awaiting = run.awaiting();
        let earlier_drawn = run.status().still_every > 0.0 && run.shown_t() != run.view_t();
        let going = if awaiting && (run.computed_s() < run.view_t() || earlier_drawn) {
            format!(" → {}", fmt_t(run.view_t()))
        } else {
            String::new()
        };
        (
            run.snapshot(),
            run.shown_t(),
            run.duration_s(),
            run.started(),
            awaiting,
            run.failed.clone(),
            going,
        )
    };
    let e = &snapshot.etcd;
    let (quorum_class, quorum) = match (started, e.has_quorum) {
        // Until the simulation's first state arrives (a moment after the page opens).
        (false, _) => ("badge starting", ts("starting the simulation…")),
        // The cluster's boot, before the run's 0:00 (a second or so of a large cluster's start,
        // drawn as it goes: hosts without pods yet).
        _ if snapshot.t < 0.0 => ("badge starting", ts("starting the cluster…")),
        (true, true) => ("badge ok", quorum_words(e)),
        (true, false) => ("badge lost", quorum_words(e)),
    };
    let leader = match &e.leader {
        Some(l) => tf(format_args!("leader: {l} (term {})", e.term)),
        None => ts("leader: none"),
    };
    let islands = gesture::islands(&snapshot).len();
    let network = if islands > 1 {
        tf(format_args!("network: split into {islands} islands"))
    } else if snapshot.network_faulty {
        ts("network: faults in force")
    } else {
        ts("network: whole")
    };
    html! {
        // Busy while the view is on its way to the time asked (a seek, a fork, a new run).
        <div class="status" aria-busy={awaiting.to_string()}>
            <span class="clock" aria-label={tf(format_args!("Simulated time {} of {}", fmt_t_precise(view_t), fmt_t(duration)))}>
                { format!("t = {}{going}", fmt_t_precise(view_t)) }<small>{ format!(" / {}", fmt_t(duration)) }</small>
            </span>
            <span class={quorum_class} role="status" aria-live="polite" data-testid="quorum">{ quorum }</span>
            if started && e.has_quorum {
                <span class="tolerance">{ match e.tolerates() {
                    0 => ts("tolerates no more failures"),
                    1 => ts("tolerates 1 more failure"),
                    k => tf(format_args!("tolerates {k} more failures")),
                } }</span>
            }
            <span class="leader" data-testid="leader">{ leader }</span>
            <span class="network">{ network }</span>
            // The engine said it cannot go on (its worker stopped, a message was unreadable).
            if let Some(f) = failed {
                <span class="badge lost" role="alert">{ tf(format_args!("Simulation error: {f}")) }</span>
            }
        </div>
    }
}

/// The quorum badge: etcd's own label ([`sim::view::EtcdView::label`]) in the page's language.
fn quorum_words(e: &sim::view::EtcdView) -> String {
    let (n, of) = (e.connected, e.voters);
    if e.has_quorum {
        tf(format_args!("etcd: {n} of {of} — quorum"))
    } else {
        tf(format_args!("etcd: {n} of {of} — NO QUORUM"))
    }
}
