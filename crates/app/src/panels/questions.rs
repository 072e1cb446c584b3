//! The start page's questions: the page opens on a Kubernetes sandbox under the questions
//! people ask about HA clusters; each opens its ready scenario at the moment that answers it.
//! Shown while the default sandbox is loaded unchanged.

use crate::catalog::{Ready, READY};
use crate::fmt::fmt_t;
use crate::language::{t, tf};
use crate::session::use_session;
use yew::prelude::*;

/// The questions shown first, in the order people ask them (ids of [`READY`]).
const LEAD: &[&str] = &[
    "1-only-master-dies",
    "3-three-masters-two-die",
    "4-rack-split",
    "6-spot-two-interruptions",
    "5-four-masters-lose-two",
    "2-three-masters-one-dies",
    "7-worker-dies",
    "9-grow-one-master-to-three",
];

#[function_component(Questions)]
pub fn questions() -> Html {
    let session = use_session();
    if session.ready.map(|r| r.id) != Some(READY[0].id) {
        return html! {};
    }
    let button = |r: &'static Ready| {
        let session = session.clone();
        let onclick = Callback::from(move |_| session.pick(r.id));
        let at = if r.moment > 0.0 {
            tf(format_args!("opens at {}", fmt_t(r.moment)))
        } else {
            String::new()
        };
        html! {
            <li><button class="question" data-ready={r.id} data-moment={crate::fmt::Short(r.moment, 3).to_string()} {onclick}>
                <span class="q">{ t(r.question) }</span>
                if !at.is_empty() { <small>{ at }</small> }
            </button></li>
        }
    };
    let lead = LEAD.iter().filter_map(|id| Ready::by_id(id));
    let more = READY
        .iter()
        .skip(1)
        .filter(|r| !LEAD.contains(&r.id) && !r.id.starts_with("etcd") && r.id != "three-zones");
    let etcd = READY
        .iter()
        .filter(|r| r.id.starts_with("etcd") || r.id == "three-zones");
    html! {
        <section class="questions" aria-labelledby="questions-title">
            <h2 id="questions-title">{ t("What do you want to see? Each question opens a run at the moment that answers it.") }</h2>
            <ul class="lead">{ for lead.map(button) }</ul>
            <details>
                <summary>{ t("More questions, and etcd on its own") }</summary>
                <ul>{ for more.map(button) }</ul>
                <ul class="etcd">{ for etcd.map(button) }</ul>
            </details>
            <p class="hint">{ t("Or break the cluster below yourself: click a host to crash it, drag a zone onto “new island” to cut it off.") }</p>
        </section>
    }
}
