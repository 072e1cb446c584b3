//! The reference table at the foot of the page: etcd's quorum for cluster sizes 1 to 7, from
//! `sim::etcd::quorum` (the numbers the simulation itself uses).

use crate::language::t;
use sim::etcd::quorum::{failures_tolerated, quorum};
use yew::prelude::*;

#[function_component(Facts)]
pub fn facts() -> Html {
    html! {
        <details class="facts">
            <summary>{ t("etcd quorum by cluster size") }</summary>
            <QuorumTable />
        </details>
    }
}

/// How many etcd members can fail, for cluster sizes 1 to 7.
#[function_component(QuorumTable)]
pub fn quorum_table() -> Html {
    html! {
        <table class="quorum">
            <thead>
                <tr><th>{ t("members") }</th><th>{ t("quorum") }</th><th>{ t("failures tolerated") }</th></tr>
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
