//! The topology editor behind its disclosure (the page opens on the run, the forms when asked
//! for); an accepted edit restarts the run with the edited scenario.

use crate::editor::Editor;
use crate::language::t;
use crate::session::use_session;
use crate::ui::UiAction;
use sim::scenario::Scenario;
use yew::prelude::*;

#[function_component(EditorPanel)]
pub fn editor_panel() -> Html {
    let session = use_session();
    let open = session.ui.editor_open;
    let scenario = session.sim.borrow().scenario_rc();
    let toggle = {
        let ui = session.ui.clone();
        Callback::from(move |_: MouseEvent| ui.dispatch(UiAction::ToggleEditor))
    };
    let on_change = {
        let session = session.clone();
        Callback::from(move |(s, what): (Scenario, String)| session.edit(s, what))
    };
    html! {
        <section class={classes!("editor", open.then_some("open"))} aria-labelledby="editor-title">
            <h2 id="editor-title">
                <button class="disclosure" aria-expanded={open.to_string()} aria-controls="editor-body" onclick={toggle}>
                    { if open { "▾ " } else { "▸ " } }{ t("Edit the topology: hosts, zones, workloads, settings") }
                </button>
            </h2>
            if open {
                <div id="editor-body">
                    <Editor {scenario} {on_change} />
                </div>
            }
        </section>
    }
}
