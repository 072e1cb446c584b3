//! The topology panel: the cluster at the view's time, with its menu wiring. A press opens the
//! host's or zone's menu (pausing playback, so the menu acts on the moment shown), a drag moves
//! it between islands, a press on empty space closes the menu. In the embed view it is a
//! picture only.

use crate::fmt::fmt_t_precise;
use crate::gesture::{Item, Target};
use crate::language::{t, tf};
use crate::menu::Menu;
use crate::session::use_session;
use crate::shared::Shared;
use crate::topology::{workload_infos, Topology};
use crate::ui::{Selection, UiAction};
use sim::scenario::Action;
use std::rc::Rc;
use yew::prelude::*;

#[function_component(ClusterPanel)]
pub fn cluster_panel() -> Html {
    let session = use_session();
    let ui = &session.ui;
    let (snapshot, view_t, scenario) = {
        let run = session.sim.borrow();
        (run.snapshot(), run.shown_t(), run.scenario_rc())
    };
    let workloads = Rc::new(workload_infos(&scenario, &session.lanes, view_t));
    // The engine's news re-render the page several times a second while a run is computed; the
    // topology (a thousand hosts, each a component) is built again only when what it shows
    // changed, not for fresh callbacks.
    let key = (
        Shared::new(snapshot.clone()),
        ui.selection.clone(),
        workloads.clone(),
        ui.embed,
        session.sim.scenario_version,
        ui.zoomed.clone(),
    );
    let session = session.clone();
    (*use_memo(key, move |_| {
        topology(&session, snapshot, workloads, view_t)
    }))
    .clone()
}

fn topology(
    session: &crate::session::Session,
    snapshot: Rc<sim::view::Snapshot>,
    workloads: Rc<Vec<crate::topology::WorkloadInfo>>,
    view_t: f64,
) -> Html {
    let ui = &session.ui;
    if ui.embed {
        return html! {
            <Topology snapshot={Shared::new(snapshot)} {workloads} selection={None::<Selection>}
                interactive={false} on_select={Callback::noop()} on_move={Callback::noop()} on_background={Callback::noop()}>
                <></>
            </Topology>
        };
    }
    let on_select = {
        let ui = ui.clone();
        Callback::from(move |item: Item| {
            ui.dispatch(UiAction::Pause);
            ui.dispatch(UiAction::Select(Some(match item {
                Item::Host(h) => Selection::Host(h),
                Item::Zone(z) => Selection::Zone(z),
            })));
        })
    };
    let close_menu = {
        let ui = ui.clone();
        Callback::from(move |_| ui.dispatch(UiAction::Select(None)))
    };
    // Read against the snapshot drawn, the one the person dragged on.
    let on_move = {
        let (session, snapshot) = (session.clone(), snapshot.clone());
        Callback::from(move |(item, target): (Item, Target)| {
            session.move_item(&snapshot, item, target)
        })
    };
    let on_miss = {
        let ui = ui.clone();
        Callback::from(move |item: Item| {
            ui.dispatch(UiAction::Notify(Some(crate::ui::Notice::info(
                tf(format_args!(
                    "{} was dropped outside any island: nothing changed. Drop it on another island to move it there, or on “new island” to cut it off.",
                    item.name()
                )),
                false,
            ))))
        })
    };
    let on_action = {
        let session = session.clone();
        Callback::from(move |action: Action| session.apply(action))
    };
    let menu = ui.selection.as_ref().map(|sel| {
        // A zone of a cluster drawn in cells can be zoomed into: its workers one by one.
        let zoom = match sel {
            Selection::Zone(z) if crate::topology::draws_cells(&snapshot) => {
                let (ui, zoomed) = (ui.clone(), ui.zoomed.as_ref() == Some(z));
                let (label, next) = if zoomed {
                    (t("Show its workers as cells again"), None)
                } else {
                    (t("Zoom in: show each of its workers"), Some(z.clone()))
                };
                let zoom = Callback::from(move |()| {
                    ui.dispatch(UiAction::Zoom(next.clone()));
                    ui.dispatch(UiAction::Select(None));
                });
                Some((AttrValue::from(label), zoom))
            }
            _ => None,
        };
        html! {
            <Menu snapshot={snapshot.clone()} selection={sel.clone()}
                when={AttrValue::from(fmt_t_precise(view_t))}
                {on_action} on_move={on_move.clone()} on_close={close_menu.clone()} {zoom} />
        }
    });
    html! {
        <Topology snapshot={Shared::new(snapshot)} {workloads} selection={ui.selection.clone()}
            {on_select} {on_move} {on_miss} on_background={close_menu} zoomed={ui.zoomed.clone()}>
            { for menu }
        </Topology>
    }
}
