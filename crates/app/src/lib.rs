//! The Yew UI of the playground: renders the core's plain-data observations and turns
//! gestures into scenario events. Thin by design: no simulation logic here.
//!
//! Code map: [`ui`] the reducer (playback, selection, notices); [`hook`] the one hook that
//! owns the simulation ([`run`]); [`session`] both behind one context, with the verbs that
//! change them, the frame loop and the URL fragment; [`panels`] the parts of the page, each
//! reading the session and building its own callbacks; [`topology`], [`menu`] and [`gesture`]
//! the cluster you break; [`charts`] and [`log`] what happened over time; [`frames`] drawing a
//! large page in steps; [`stills`] the view kept at regular instants of a long run (quick seeks);
//! [`editor`] the topology editor; [`codec`] the share link; [`catalog`] the ready scenarios;
//! [`language`] the page's language and `t` for its texts; [`boot`] what the page starts from,
//! read from its URL. This file lays the panels out: a new panel is a
//! component in [`panels`] and one line in `App`.

// `f64::clamp` asserts its bounds with a message that formats floats, which alone would bring
// core's float formatting (14 KB) into the page: `max(lo).min(hi)` instead.
#![allow(clippy::manual_clamp)]

pub mod boot;
pub mod catalog;
pub mod charts;
pub mod cluster_import;
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
pub mod option;
pub mod panels;
pub mod run;
pub mod session;
pub mod shared;
pub mod stills;
pub mod study;
pub mod topology;
pub mod ui;
pub mod width;
pub mod wire;
pub mod worker;

pub use boot::{boot, Boot};
use panels::{
    ChartsPanel, ClusterPanel, ConsolePanel, Controls, EditorPanel, EmbedHeader, Facts, Header,
    LogPanel, NoticeBar, Questions, ScenarioPicker, StatusBar,
};
use session::{use_embed_height, use_root_session, Session};
use yew::prelude::*;

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
