//! The Yew UI of the playground: renders the core's plain-data observations and turns
//! gestures into scenario events. Thin by design: no simulation logic here.
//!
//! Code map: [`ui`] the reducer (playback, selection, notices); [`hook`] the one hook that
//! owns the simulation ([`run`]); [`session`] both behind one context, with the verbs that
//! change them, the frame loop and the URL fragment; [`panels`] the parts of the page, each
//! reading the session and building its own callbacks; [`topology`], [`menu`] and [`gesture`]
//! the cluster you break; [`charts`] and [`log`] what happened over time; [`frames`] drawing a
//! large page in steps; [`editor`] the topology editor; [`codec`] the share link; [`catalog`]
//! the ready scenarios; [`language`] the page's language and `t` for its texts. This file boots
//! from the URL and lays the panels out: a new panel is a component in [`panels`] and one line
//! in `App`.

// `f64::clamp` asserts its bounds with a message that formats floats, which alone would bring
// core's float formatting (14 KB) into the page: `max(lo).min(hi)` instead.
#![allow(clippy::manual_clamp)]

pub mod catalog;
pub mod charts;
pub mod codec;
pub mod editor;
pub mod engine;
pub mod fmt;
pub mod frames;
pub mod gesture;
pub mod hook;
pub mod language;
pub mod log;
pub mod menu;
pub mod mirror;
pub mod panels;
pub mod run;
pub mod session;
pub mod shared;
pub mod study;
pub mod topology;
pub mod ui;
pub mod width;
pub mod wire;
pub mod worker;

use panels::{
    ChartsPanel, ClusterPanel, ConsolePanel, Controls, EditorPanel, EmbedHeader, Facts, Header,
    LogPanel, NoticeBar, Questions, ScenarioPicker, StatusBar,
};
use session::{use_root_session, Session};
use sim::scenario::Scenario;
use yew::prelude::*;

/// What the page starts from: the link's scenario, or the default one and the link's problem.
pub struct Boot {
    pub scenario: Scenario,
    /// The link's `s=` when the page shows that scenario (its encoding, to keep).
    pub encoded: Option<String>,
    /// The link's `c=`: a scenario to show beside it, and its encoding.
    pub compare: Option<(Scenario, String)>,
    pub t: f64,
    pub problem: Option<String>,
    pub embed: bool,
}

/// What the page starts from: the link's scenario (decoded: it may take the browser a moment to
/// decompress), or the default.
pub async fn boot() -> Boot {
    let hash = gloo_utils::window().location().hash().unwrap_or_default();
    let link = codec::decode_fragment(&hash).await;
    let fallback = if link.scenario.is_none() {
        " Showing the default scenario instead."
    } else {
        ""
    };
    let mut problem = link.problem.map(|p| format!("{p}{fallback}"));
    let embed = link.embed;
    let too_large = |s: &Scenario| run::fits_browser(s).err();
    let scenario = match link.scenario {
        Some(s) => match too_large(&s) {
            Some(e) => {
                problem = Some(format!("This link's scenario is too large for the page: {e}. Showing the default scenario instead."));
                None
            }
            None => Some(s),
        },
        None => None,
    };
    let compare_encoded = link.compare_encoded.unwrap_or_default();
    let compare = link
        .compare
        .filter(|c| {
            let e = too_large(c);
            if let Some(e) = &e {
                problem.get_or_insert_with(|| {
                    format!("The scenario to compare with is too large for the page: {e}.")
                });
            }
            e.is_none()
        })
        .map(|c| (c, compare_encoded));
    match scenario {
        Some(s) => {
            let end = s.duration.as_secs_f64();
            let t = link.t.unwrap_or(0.0);
            let problem = problem.or_else(|| {
                (t > end).then(|| {
                    format!(
                        "This link's time (t={}) is past the end of its run ({}): showing the end.",
                        fmt::Short(t, 3),
                        fmt::fmt_t(end)
                    )
                })
            });
            Boot {
                scenario: s,
                encoded: link.encoded,
                compare,
                t: t.min(end),
                problem,
                embed,
            }
        }
        None => Boot {
            scenario: catalog::default_scenario(),
            encoded: None,
            compare: None,
            t: 0.0,
            problem,
            embed,
        },
    }
}

#[derive(Properties, PartialEq)]
pub struct AppProps {
    pub start: shared::Shared<Boot>,
}

#[function_component(App)]
pub fn app(props: &AppProps) -> Html {
    let session = use_root_session(props.start.0.clone());
    use_embed_height(session.ui.embed);
    let page = if session.ui.embed {
        // The run without editor chrome: a title, the state, the topology (view only), playback
        // and the charts. A link opens the same run in the full playground.
        html! {
            <main class="page embed">
                <EmbedHeader />
                <NoticeBar />
                <StatusBar />
                <ClusterPanel />
                <Controls />
                <ChartsPanel />
            </main>
        }
    } else {
        html! {
            <main class="page" data-diag={session.diag()}>
                <Header />
                <NoticeBar />
                <Questions />
                <ScenarioPicker />
                <EditorPanel />
                <div class="workspace">
                    <div class="main-col">
                        <StatusBar />
                        <ClusterPanel />
                        <Controls />
                        <ChartsPanel />
                        <ConsolePanel />
                    </div>
                    <aside class="side-col">
                        <LogPanel />
                    </aside>
                </div>
                <Facts />
            </main>
        }
    };
    html! {
        <ContextProvider<Session> context={session}>
            { page }
        </ContextProvider<Session>>
    }
}

/// The message an embedded page posts to its parent: this prefix, then its height in pixels.
/// The embed code's listener sizes the iframe to it, so the run is never cut.
pub const EMBED_HEIGHT_MESSAGE: &str = "k8s-ha-playground:height:";

/// In the embed view, tells the parent page the document's height after each render that
/// changed it.
#[hook]
fn use_embed_height(embed: bool) {
    let last = use_mut_ref(|| 0i32);
    use_effect(move || {
        if !embed {
            return;
        }
        let window = gloo_utils::window();
        let height = gloo_utils::document()
            .document_element()
            .map_or(0, |e| e.scroll_height());
        if height != *last.borrow() {
            *last.borrow_mut() = height;
            if let Ok(Some(parent)) = window.parent() {
                let message =
                    wasm_bindgen::JsValue::from_str(&format!("{EMBED_HEIGHT_MESSAGE}{height}"));
                let _ = parent.post_message(&message, "*");
            }
        }
    });
}
