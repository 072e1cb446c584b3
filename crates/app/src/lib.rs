//! The Yew UI of the playground: renders the core's plain-data observations and
//! turns gestures into scenario events. Thin by design: no simulation logic here.

use sim::quorum::{failures_tolerated, quorum};
use yew::prelude::*;

/// The page: title, what the playground is, and the quorum table computed by the core.
#[function_component(App)]
pub fn app() -> Html {
    html! {
        <main class="page">
            <header>
                <h1>{ "Kubernetes HA Playground" }</h1>
                <p class="tagline">
                    { "Break a highly-available Kubernetes cluster and watch what really happens: \
                       etcd quorum, leader elections, and whether your users' requests still succeed." }
                </p>
            </header>
            <QuorumTable />
        </main>
    }
}

/// How many etcd members can fail, for cluster sizes 1 to 7 (from `sim::quorum`).
#[function_component(QuorumTable)]
pub fn quorum_table() -> Html {
    html! {
        <section aria-labelledby="quorum-title">
            <h2 id="quorum-title">{ "etcd quorum by cluster size" }</h2>
            <table class="quorum">
                <thead>
                    <tr><th>{ "members" }</th><th>{ "quorum" }</th><th>{ "failures tolerated" }</th></tr>
                </thead>
                <tbody>
                    { for (1..=7).map(|n| html! {
                        <tr data-members={n.to_string()}>
                            <td>{ n }</td><td>{ quorum(n) }</td><td>{ failures_tolerated(n) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </section>
    }
}
