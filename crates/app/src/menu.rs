//! The small menus on a host or a zone: every fault and operator action of the scenario format
//! that applies to it, and "move to island" buttons, the keyboard equivalent of dragging.
//! Each button records one scenario event at the current time (the parent validates it).

use crate::gesture::{island_label, islands, Item, Target};
use crate::ui::Selection;
use sim::scenario::{Action, DEFAULT_REBOOT_DOWNTIME};
use sim::view::Snapshot;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: Rc<Snapshot>,
    pub selection: Selection,
    pub at: (f64, f64),
    /// The time label shown in the title ("at 0:42").
    pub when: AttrValue,
    pub on_action: Callback<Action>,
    pub on_move: Callback<(Item, Target)>,
    pub on_close: Callback<()>,
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
    let act = |label: String, action: Action| {
        let on_action = props.on_action.clone();
        (label, Callback::from(move |_: MouseEvent| on_action.emit(action.clone())))
    };
    let mv = |label: String, item: Item, target: Target| {
        let on_move = props.on_move.clone();
        (label, Callback::from(move |_: MouseEvent| on_move.emit((item.clone(), target))))
    };

    let (title, item, mut buttons) = match &props.selection {
        Selection::Host(name) => {
            let Some(h) = snap.hosts.iter().find(|h| &h.name == name) else { return html! {} };
            let host = || name.clone();
            let mut b = Vec::new();
            match h.state {
                "up" => {
                    b.push(act("Crash".into(), Action::Crash { host: host() }));
                    b.push(act(
                        format!("Reboot ({} down)", DEFAULT_REBOOT_DOWNTIME),
                        Action::Reboot { host: host(), downtime: DEFAULT_REBOOT_DOWNTIME },
                    ));
                    if !h.isolated {
                        b.push(act("Isolate from the network".into(), Action::Isolate { host: host() }));
                    }
                }
                "down" => b.push(act("Restart".into(), Action::Restart { host: host() })),
                "standby" => b.push(act("Join the cluster (kubeadm join)".into(), Action::Join { host: host() })),
                _ => {}
            }
            if h.spot && h.state != "terminated" {
                b.push(act("Spot interruption (2-minute notice)".into(), Action::SpotInterrupt { host: host() }));
            }
            if h.roles.contains(&"etcd") && h.state != "terminated" {
                b.push(act("etcd: add this member".into(), Action::EtcdMemberAdd { host: host() }));
                b.push(act("etcd: remove this member".into(), Action::EtcdMemberRemove { host: host() }));
                b.push(act("etcd: force new cluster here".into(), Action::EtcdForceNewCluster { host: host() }));
            }
            (format!("{name} ({})", h.zone), Item::Host(name.clone()), b)
        }
        Selection::Zone(z) => (format!("zone {z}"), Item::Zone(z.clone()), Vec::new()),
    };
    // Moves: to every island the item is not wholly in already, and to a new one.
    let groups = islands(snap);
    let partitioned = groups.len() > 1;
    for (n, (id, members)) in groups.iter().enumerate() {
        let inside = |i: &usize| match &item {
            Item::Host(h) => &snap.hosts[*i].name == h,
            Item::Zone(z) => &snap.hosts[*i].zone == z,
        };
        let total = snap.hosts.iter().enumerate().filter(|(i, _)| inside(i)).count();
        if members.iter().filter(|i| inside(i)).count() == total {
            continue;
        }
        let label = if partitioned { format!("Move to island {}", island_label(n)) } else { "Move back".into() };
        buttons.push(mv(label, item.clone(), Target::Island(*id)));
    }
    buttons.push(mv("Move to a new island (cut it off)".into(), item.clone(), Target::NewIsland));

    let on_close = props.on_close.clone();
    let onkeydown = {
        let on_close = on_close.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                on_close.emit(());
            }
        })
    };
    let (x, y) = props.at;
    html! {
        <div class="menu" role="menu" aria-label={format!("Actions for {title}")}
             style={format!("left:{x}px;top:{y}px")} {onkeydown}>
            <div class="menu-title">{ format!("{title} — at {}", props.when) }</div>
            { for buttons.into_iter().enumerate().map(|(i, (label, onclick))| {
                let r = if i == 0 { first.clone() } else { NodeRef::default() };
                html! { <button ref={r} role="menuitem" {onclick}>{ label }</button> }
            }) }
            <button class="close" role="menuitem" onclick={Callback::from(move |_| on_close.emit(()))}>{ "Close" }</button>
        </div>
    }
}
