//! The small menus on a host or a zone: every fault and operator action of the scenario format
//! that applies to it, and "move to island" buttons, the keyboard equivalent of dragging.
//! Each button records one scenario event at the current time (the parent validates it).

use crate::gesture::{island_label, islands, Item, Target};
use crate::language::{t, tf, ts};
use crate::ui::Selection;
use sim::scenario::{Action, DEFAULT_REBOOT_DOWNTIME};
use sim::view::{HostState, HostView, Snapshot};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: Rc<Snapshot>,
    pub selection: Selection,
    /// The time label shown in the title ("at 0:42").
    pub when: AttrValue,
    pub on_action: Callback<Action>,
    pub on_move: Callback<(Item, Target)>,
    pub on_close: Callback<()>,
    /// A zone's zoom in or out of its cells (the label, and what it does), when it has cells.
    #[prop_or_default]
    pub zoom: Option<(AttrValue, Callback<()>)>,
}

#[function_component(Menu)]
pub fn menu(props: &Props) -> Html {
    let first = use_node_ref();
    {
        // Focus the first action when the menu opens, so the keyboard can go on from there.
        let first = first.clone();
        use_effect_with(props.selection.clone(), move |_| {
            if let Some(el) = first.cast::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        });
    }
    let snap = &props.snapshot;
    // After an action or on closing, the focus goes back to the host or zone the menu belongs to.
    let selector = match &props.selection {
        Selection::Host(h) => format!("[data-host=\"{}\"]", h.replace('"', "")),
        Selection::Zone(z) => format!("[data-zone=\"{}\"]", z.replace('"', "")),
    };
    let act = |label: String, action: Action| {
        let (on_action, selector) = (props.on_action.clone(), selector.clone());
        (
            label,
            Callback::from(move |_: MouseEvent| {
                on_action.emit(action.clone());
                focus_selector(&selector);
            }),
        )
    };
    let mv = |label: String, item: Item, target: Target| {
        let (on_move, selector) = (props.on_move.clone(), selector.clone());
        (
            label,
            Callback::from(move |_: MouseEvent| {
                on_move.emit((item.clone(), target));
                focus_selector(&selector);
            }),
        )
    };

    let (title, item, mut buttons) = match &props.selection {
        Selection::Host(name) => {
            let Some(h) = snap.hosts.iter().find(|h| &h.name == name) else {
                return html! {};
            };
            let b = (host_actions(h).into_iter())
                .map(|(label, a)| act(label, a))
                .collect();
            (format!("{name} ({})", h.zone), Item::Host(name.clone()), b)
        }
        Selection::Zone(z) => {
            let mut b = Vec::new();
            if let Some((label, zoom)) = &props.zoom {
                let (zoom, selector) = (zoom.clone(), selector.clone());
                b.push((
                    label.to_string(),
                    Callback::from(move |_: MouseEvent| {
                        zoom.emit(());
                        focus_selector(&selector);
                    }),
                ));
            }
            (tf(format_args!("zone {z}")), Item::Zone(z.clone()), b)
        }
    };
    for (label, target) in island_moves(snap, &item) {
        buttons.push(mv(label, item.clone(), target));
    }

    let close = {
        let on_close = props.on_close.clone();
        move || {
            on_close.emit(());
            focus_selector(&selector);
        }
    };
    let menu_ref = use_node_ref();
    let onkeydown = {
        let close = close.clone();
        let menu_ref = menu_ref.clone();
        Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
            "Escape" => {
                e.prevent_default();
                close();
            }
            // Arrow keys move between the items (the menu pattern); Tab works too.
            "ArrowDown" | "ArrowUp" | "Home" | "End" => {
                e.prevent_default();
                move_focus(&menu_ref, &e.key());
            }
            _ => {}
        })
    };
    html! {
        <div class="menu" role="menu" aria-label={tf(format_args!("Actions for {title}"))} ref={menu_ref} {onkeydown}>
            <div class="menu-title">{ tf(format_args!("{title} — at {}", props.when)) }</div>
            { for buttons.into_iter().enumerate().map(|(i, (label, onclick))| {
                let r = if i == 0 { first.clone() } else { NodeRef::default() };
                html! { <button ref={r} role="menuitem" {onclick}>{ label }</button> }
            }) }
            <button class="close" role="menuitem" onclick={Callback::from(move |_| close())}>{ t("Close (Esc)") }</button>
        </div>
    }
}

/// What can happen to a host in its state: crash, reboot, isolate, restart, join, a spot
/// interruption, and its etcd member's changes.
fn host_actions(h: &HostView) -> Vec<(String, Action)> {
    let host = || h.name.clone();
    let mut b = Vec::new();
    match h.state {
        HostState::Up => {
            b.push((ts("Crash"), Action::Crash { host: host() }));
            b.push((
                tf(format_args!("Reboot ({} down)", DEFAULT_REBOOT_DOWNTIME)),
                Action::Reboot {
                    host: host(),
                    downtime: DEFAULT_REBOOT_DOWNTIME,
                },
            ));
            if !h.isolated {
                b.push((
                    ts("Isolate from the network"),
                    Action::Isolate { host: host() },
                ));
            }
        }
        HostState::Down => b.push((ts("Restart"), Action::Restart { host: host() })),
        HostState::Standby => b.push((
            ts("Join the cluster (kubeadm join)"),
            Action::Join { host: host() },
        )),
        _ => {}
    }
    if h.spot && h.state != HostState::Terminated {
        b.push((
            ts("Spot interruption (2-minute notice)"),
            Action::SpotInterrupt { host: host() },
        ));
    }
    if h.state != HostState::Terminated {
        b.extend(etcd_actions(h));
    }
    b
}

/// Where a host or zone can be dragged: to every island it is not wholly in already, and to
/// a new one.
fn island_moves(snap: &Snapshot, item: &Item) -> Vec<(String, Target)> {
    let groups = islands(snap);
    let partitioned = groups.len() > 1;
    let inside = |i: &usize| match item {
        Item::Host(h) => &snap.hosts[*i].name == h,
        Item::Zone(z) => &snap.hosts[*i].zone == z,
    };
    let total = (0..snap.hosts.len()).filter(inside).count();
    let mut moves = Vec::new();
    for (n, (id, members)) in groups.iter().enumerate() {
        if members.iter().filter(|i| inside(i)).count() == total {
            continue;
        }
        let label = if partitioned {
            tf(format_args!("Move to island {}", island_label(n)))
        } else {
            ts("Move back")
        };
        moves.push((label, Target::Island(*id)));
    }
    moves.push((ts("Move to a new island (cut it off)"), Target::NewIsland));
    moves
}

/// Focuses the first element matching `selector` (an SVG host or zone, or an HTML element).
pub fn focus_selector(selector: &str) {
    use wasm_bindgen::JsCast;
    if let Ok(Some(el)) = gloo_utils::document().query_selector(selector) {
        // `focus` is on HTMLElement and SVGElement alike; the call is structural.
        let _ = el.unchecked_ref::<web_sys::HtmlElement>().focus();
    }
}

fn move_focus(menu: &NodeRef, key: &str) {
    use wasm_bindgen::JsCast;
    let Some(menu) = menu.cast::<web_sys::Element>() else {
        return;
    };
    let Ok(items) = menu.query_selector_all("button[role='menuitem']") else {
        return;
    };
    let n = items.length();
    if n == 0 {
        return;
    }
    let active = gloo_utils::document().active_element();
    let current = (0..n).find(|&i| {
        let item = items.item(i);
        matches!((&item, &active), (Some(a), Some(b)) if a.is_same_node(Some(b.unchecked_ref())))
    });
    let next = match (key, current) {
        ("Home", _) => 0,
        ("End", _) => n - 1,
        ("ArrowDown", Some(i)) => (i + 1) % n,
        ("ArrowUp", Some(i)) => (i + n - 1) % n,
        ("ArrowUp", None) => n - 1,
        _ => 0,
    };
    if let Some(el) = items.item(next) {
        let _ = el.unchecked_ref::<web_sys::HtmlElement>().focus();
    }
}

/// The etcd membership changes that apply to `h` as its member stands: a host with the etcd
/// role and no member of the current cluster may be added; a learner promoted; a member of the
/// current cluster removed, or made a new cluster of one (the disaster recovery).
fn etcd_actions(h: &HostView) -> Vec<(String, Action)> {
    if !h.roles.contains(&"etcd") {
        return Vec::new();
    }
    let host = || h.name.clone();
    let member = h.etcd.as_ref().filter(|m| m.voter || m.learner);
    let Some(m) = member else {
        return vec![
            (
                ts("etcd: add this member"),
                Action::EtcdMemberAdd {
                    host: host(),
                    learner: false,
                },
            ),
            (
                ts("etcd: add this member as a learner"),
                Action::EtcdMemberAdd {
                    host: host(),
                    learner: true,
                },
            ),
        ];
    };
    let mut b = Vec::new();
    if m.learner {
        b.push((
            ts("etcd: promote this learner"),
            Action::EtcdMemberPromote { host: host() },
        ));
    }
    b.push((
        ts("etcd: remove this member"),
        Action::EtcdMemberRemove { host: host() },
    ));
    if m.voter {
        b.push((
            ts("etcd: force new cluster here"),
            Action::EtcdForceNewCluster { host: host() },
        ));
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::world::World;

    /// The etcd actions the menu offers on `host` at `t` seconds of `scenario`, by their words.
    fn offered(scenario: &str, host: &str, t: f64) -> Vec<String> {
        let mut w = World::new(sim::scenario::parse(scenario).unwrap());
        let until = w.at_report_secs(t);
        w.run_until(until, u64::MAX);
        let snap = w.snapshot();
        let h = snap.hosts.iter().find(|h| h.name == host).unwrap();
        etcd_actions(h).into_iter().map(|(w, _)| w).collect()
    }

    #[test]
    fn the_menu_offers_the_etcd_changes_that_apply_to_the_member_as_it_stands() {
        let grow = crate::catalog::Ready::by_id("9-grow-one-master-to-three")
            .unwrap()
            .json;
        // A voter: removed, or made a new cluster; not added again.
        assert_eq!(
            offered(grow, "m1", 30.0),
            ["etcd: remove this member", "etcd: force new cluster here"]
        );
        // A control-plane host not joined yet: no member, so it can only be added.
        assert_eq!(
            offered(grow, "m3", 30.0),
            [
                "etcd: add this member",
                "etcd: add this member as a learner"
            ]
        );
        // A worker has no etcd.
        assert!(offered(grow, "w1", 30.0).is_empty());
        // A learner can be promoted (or removed), not forced into a new cluster.
        let learner = r#"{"version": 1, "name": "learner", "seed": 1, "duration": "1m",
            "hosts": [{"name": "a", "roles": ["etcd"]}, {"name": "b", "roles": ["etcd"]},
                      {"name": "c", "roles": ["etcd"]}, {"name": "d", "roles": ["etcd"], "standby": true}],
            "events": [{"at": "10s", "action": "etcd_member_add", "host": "d", "learner": true}]}"#;
        assert_eq!(
            offered(learner, "d", 40.0),
            ["etcd: promote this learner", "etcd: remove this member"]
        );
    }
}
