//! The top of the page: the playground's title with the share box, or, in the embed view, the
//! run's own title with a link that opens the same run in the full playground.

use super::Share;
use crate::codec;
use crate::language::{self, t};
use crate::session::use_session;
use yew::prelude::*;

#[function_component(Header)]
pub fn header() -> Html {
    html! {
        <header class="top">
            <div>
                <div class="headline">
                    <h1>{ t("Kubernetes HA Playground") }</h1>
                    { language::picker() }
                </div>
                <p class="tagline">{ t("Break a cluster and watch what really happens. Drag a zone or host to split the network; click a host to crash it.") }</p>
            </div>
            <Share />
        </header>
    }
}

#[function_component(EmbedHeader)]
pub fn embed_header() -> Html {
    let session = use_session();
    let ui = &session.ui;
    let scenario = session.sim.borrow().scenario_rc();
    let base = crate::language::page_base();
    // Playing, the time is a moving target: the link opens the run from its start.
    let at = (!ui.playing).then_some(ui.cursor).filter(|&t| t > 0.0);
    let full = format!(
        "{base}{}",
        codec::fragment_of(&session.encoded, None, at, false)
    );
    let about = session
        .ready
        .map(|r| r.texts(&scenario).1)
        .or_else(|| scenario.description.clone())
        .unwrap_or_default();
    html! {
        <>
            <header class="embed-top">
                <h1>{ &scenario.name }</h1>
                <a href={full} target="_blank" rel="noopener">{ t("Open in the Kubernetes HA Playground ↗") }</a>
            </header>
            if !about.is_empty() {
                <p class="embed-about">{ about }</p>
            }
        </>
    }
}
