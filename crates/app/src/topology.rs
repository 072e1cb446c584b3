//! The topology (SVG): network islands as regions, zones as columns inside them, hosts as
//! boxes with their state and etcd member. Drag a host or a zone header (pointer events) onto
//! another island or onto "new island"; click or press Enter on either for its menu, which
//! has the same moves as buttons. Drawn 1:1 (no viewBox scaling) so menus can sit on it.

use crate::gesture::{island_label, islands, Item, Target};
use sim::view::{HostView, Snapshot};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

const PAD: f64 = 12.0;
const COL_W: f64 = 190.0;
const HOST_W: f64 = 174.0;
const HOST_H: f64 = 78.0;
const HOST_GAP: f64 = 10.0;
const HEADER_H: f64 = 28.0;
const LABEL_H: f64 = 40.0;
const ISLAND_GAP: f64 = 14.0;
const NEW_W: f64 = 150.0;
/// Pointer travel (px) before a press becomes a drag rather than a click.
const DRAG_SLOP: f64 = 5.0;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x && x <= self.x + self.w && y >= self.y && y <= self.y + self.h
    }
}

pub struct Column {
    pub zone: String,
    pub header: Rect,
    pub hosts: Vec<(usize, Rect)>,
}

pub struct IslandBox {
    pub id: u32,
    pub label: String,
    pub detail: String,
    pub rect: Rect,
    pub columns: Vec<Column>,
}

pub struct Layout {
    pub width: f64,
    pub height: f64,
    pub partitioned: bool,
    pub islands: Vec<IslandBox>,
    pub new_island: Rect,
}

/// Where everything goes: islands left to right, in each the zones (in scenario order) that
/// have hosts there, hosts stacked in each zone column.
pub fn layout(snap: &Snapshot) -> Layout {
    let groups = islands(snap);
    let partitioned = groups.len() > 1;
    let tallest = groups
        .iter()
        .flat_map(|(_, members)| {
            snap.zones.iter().map(move |z| members.iter().filter(|&&i| &snap.hosts[i].zone == z).count())
        })
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let island_h = LABEL_H + HEADER_H + tallest * (HOST_H + HOST_GAP) + PAD;
    let top = PAD;
    let mut x = PAD;
    let mut boxes = Vec::new();
    for (n, (id, members)) in groups.iter().enumerate() {
        let x0 = x;
        x += PAD;
        let mut columns = Vec::new();
        for z in &snap.zones {
            let hosts: Vec<usize> = members.iter().copied().filter(|&i| &snap.hosts[i].zone == z).collect();
            if hosts.is_empty() {
                continue;
            }
            let cx = x + (COL_W - HOST_W) / 2.0;
            let header = Rect { x: cx, y: top + LABEL_H, w: HOST_W, h: HEADER_H - 6.0 };
            let hosts = hosts
                .iter()
                .enumerate()
                .map(|(k, &i)| {
                    let y = top + LABEL_H + HEADER_H + k as f64 * (HOST_H + HOST_GAP);
                    (i, Rect { x: cx, y, w: HOST_W, h: HOST_H })
                })
                .collect();
            columns.push(Column { zone: z.clone(), header, hosts });
            x += COL_W;
        }
        x += PAD;
        let (label, detail) = if partitioned {
            let voters = members
                .iter()
                .filter(|&&i| {
                    let h = &snap.hosts[i];
                    h.state == "up" && !h.isolated && h.etcd.as_ref().is_some_and(|m| m.voter)
                })
                .count();
            let s = if voters == 1 { "" } else { "s" };
            (format!("Island {}", island_label(n)), format!("{voters} of {} etcd voter{s} up here", snap.etcd.voters))
        } else {
            ("One network".to_string(), "every host reaches every other".to_string())
        };
        boxes.push(IslandBox { id: *id, label, detail, rect: Rect { x: x0, y: top, w: x - x0, h: island_h }, columns });
        x += ISLAND_GAP;
    }
    let new_island = Rect { x, y: top, w: NEW_W, h: island_h };
    Layout { width: x + NEW_W + PAD, height: top + island_h + PAD, partitioned, islands: boxes, new_island }
}

/// State → (css class, words). The words are always drawn: colour is never the only signal.
fn state_words(h: &HostView) -> (&'static str, String) {
    let mut words = match h.state {
        "up" => "up".to_string(),
        "down" => "DOWN (crashed)".to_string(),
        "terminated" => "terminated (spot)".to_string(),
        "standby" => "standby, not joined".to_string(),
        other => other.to_string(),
    };
    if h.isolated {
        words.push_str(" · isolated");
    }
    let class = match h.state {
        "up" if h.isolated => "isolated",
        "up" => "up",
        "down" => "down",
        "terminated" => "terminated",
        _ => "standby",
    };
    (class, words)
}

/// One line for the etcd member, and its role class.
fn etcd_words(h: &HostView) -> Option<(&'static str, String)> {
    let m = h.etcd.as_ref()?;
    let class = match m.role {
        "leader" => "leader",
        "follower" => "follower",
        "candidate" | "pre-candidate" => "candidate",
        _ => "inactive",
    };
    let voter = if m.voter || m.role == "stopped" { "" } else { " (not a voter)" };
    Some((class, format!("etcd {}, term {}{voter}", m.role, m.term)))
}

/// The sentence a screen reader hears for a host.
pub fn host_aria(h: &HostView) -> String {
    let (_, state) = state_words(h);
    let roles = h.roles.join(", ");
    let etcd = etcd_words(h).map(|(_, w)| format!(", {w}")).unwrap_or_default();
    let spot = if h.spot { ", spot instance" } else { "" };
    format!("{} ({roles}) in {}: {state}{etcd}{spot}. Press Enter for actions; drag to move it to another network island.", h.name, h.zone)
}

struct Drag {
    item: Item,
    pointer: i32,
    x0: f64,
    y0: f64,
    x: f64,
    y: f64,
    moved: bool,
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub snapshot: Rc<Snapshot>,
    pub selection: Option<crate::ui::Selection>,
    /// A press without a drag, or Enter: open the item's menu.
    pub on_select: Callback<Item>,
    /// A press on empty space: close any menu.
    pub on_background: Callback<()>,
    /// A drop onto an island or onto "new island".
    pub on_move: Callback<(Item, Target)>,
    /// The menu for the selected item (rendered by the parent, placed here).
    pub children: Html,
}

#[function_component(Topology)]
pub fn topology(props: &Props) -> Html {
    let snap = &props.snapshot;
    let lay = layout(snap);
    let svg_ref = use_node_ref();
    let drag: Rc<RefCell<Option<Drag>>> = use_mut_ref(|| None);
    let force = use_force_update();

    let svg_xy = {
        let svg_ref = svg_ref.clone();
        move |e: &PointerEvent| -> (f64, f64) {
            let rect = svg_ref.cast::<web_sys::Element>().map(|el| el.get_bounding_client_rect());
            rect.map_or((0.0, 0.0), |r| (e.client_x() as f64 - r.left(), e.client_y() as f64 - r.top()))
        }
    };
    let start = |item: Item| {
        let drag = drag.clone();
        let svg_ref = svg_ref.clone();
        let svg_xy = svg_xy.clone();
        Callback::from(move |e: PointerEvent| {
            if e.button() != 0 {
                return;
            }
            e.prevent_default();
            let (x, y) = svg_xy(&e);
            if let Some(svg) = svg_ref.cast::<web_sys::Element>() {
                // Keep receiving moves even when the pointer leaves the SVG.
                let _ = svg.set_pointer_capture(e.pointer_id());
            }
            *drag.borrow_mut() = Some(Drag { item: item.clone(), pointer: e.pointer_id(), x0: x, y0: y, x, y, moved: false });
        })
    };
    let onpointermove = {
        let drag = drag.clone();
        let force = force.clone();
        let svg_xy = svg_xy.clone();
        Callback::from(move |e: PointerEvent| {
            let mut d = drag.borrow_mut();
            let Some(d) = d.as_mut().filter(|d| d.pointer == e.pointer_id()) else { return };
            let (x, y) = svg_xy(&e);
            d.x = x;
            d.y = y;
            if !d.moved && ((x - d.x0).abs() > DRAG_SLOP || (y - d.y0).abs() > DRAG_SLOP) {
                d.moved = true;
            }
            if d.moved {
                force.force_update();
            }
        })
    };
    let targets: Vec<(Target, Rect)> = lay
        .islands
        .iter()
        .map(|i| (Target::Island(i.id), i.rect))
        .chain(std::iter::once((Target::NewIsland, lay.new_island)))
        .collect();
    let hit = {
        let targets = targets.clone();
        move |x: f64, y: f64| targets.iter().find(|(_, r)| r.contains(x, y)).map(|(t, _)| *t)
    };
    let onpointerup = {
        let drag = drag.clone();
        let force = force.clone();
        let on_select = props.on_select.clone();
        let on_move = props.on_move.clone();
        let hit = hit.clone();
        let svg_xy = svg_xy.clone();
        Callback::from(move |e: PointerEvent| {
            let Some(d) = drag.borrow_mut().take() else { return };
            if d.pointer != e.pointer_id() {
                return;
            }
            let (x, y) = svg_xy(&e);
            if !d.moved {
                on_select.emit(d.item);
            } else if let Some(t) = hit(x, y) {
                on_move.emit((d.item, t));
            }
            force.force_update();
        })
    };
    let onpointercancel = {
        let drag = drag.clone();
        let force = force.clone();
        Callback::from(move |_: PointerEvent| {
            drag.borrow_mut().take();
            force.force_update();
        })
    };
    let key = |item: Item| {
        let on_select = props.on_select.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" || e.key() == " " {
                e.prevent_default();
                on_select.emit(item.clone());
            }
        })
    };

    let dragging = drag.borrow().as_ref().filter(|d| d.moved).map(|d| (d.item.clone(), d.x, d.y));
    let hover = dragging.as_ref().and_then(|(_, x, y)| hit(*x, *y));
    let selected = |item: &Item| match (&props.selection, item) {
        (Some(crate::ui::Selection::Host(a)), Item::Host(b)) | (Some(crate::ui::Selection::Zone(a)), Item::Zone(b)) => a == b,
        _ => false,
    };

    let island_views = lay.islands.iter().enumerate().map(|(n, isl)| {
        let r = isl.rect;
        let class = classes!(
            "island",
            format!("island-{}", n % 4),
            (!lay.partitioned).then_some("whole"),
            (hover == Some(Target::Island(isl.id))).then_some("drop-hover")
        );
        let cols = isl.columns.iter().map(|c| {
            let item = Item::Zone(c.zone.clone());
            let h = c.header;
            let zone_aria = format!(
                "Zone {}: press Enter to move it to another network island, or drag it.",
                c.zone
            );
            let hosts = c.hosts.iter().map(|(i, r)| {
                let hv = &snap.hosts[*i];
                let item = Item::Host(hv.name.clone());
                let (state_class, state) = state_words(hv);
                let etcd = etcd_words(hv);
                let g_class = classes!("host", state_class, selected(&item).then_some("selected"));
                html! {
                    <g class={g_class} tabindex="0" role="button" aria-label={host_aria(hv)}
                       aria-haspopup="menu" data-host={hv.name.clone()}
                       onpointerdown={start(item.clone())} onkeydown={key(item.clone())}>
                        <rect class="box" x={r.x.to_string()} y={r.y.to_string()} width={r.w.to_string()} height={r.h.to_string()} rx="6" />
                        <text class="name" x={(r.x + 8.0).to_string()} y={(r.y + 17.0).to_string()}>{ &hv.name }</text>
                        if hv.spot {
                            <text class="tag" x={(r.x + r.w - 8.0).to_string()} y={(r.y + 17.0).to_string()} text-anchor="end">{ "spot" }</text>
                        }
                        <text class="roles" x={(r.x + 8.0).to_string()} y={(r.y + 31.0).to_string()}>{ hv.roles.join(" · ") }</text>
                        <text class="state" x={(r.x + 8.0).to_string()} y={(r.y + 48.0).to_string()}>{ state }</text>
                        if let Some((role_class, words)) = etcd {
                            <rect class={classes!("member", role_class)} x={(r.x + 4.0).to_string()} y={(r.y + 55.0).to_string()} width={(r.w - 8.0).to_string()} height="17" rx="3" />
                            <text class={classes!("member-text", role_class)} x={(r.x + 8.0).to_string()} y={(r.y + 67.5).to_string()}>{ words }</text>
                        }
                    </g>
                }
            });
            html! {
                <>
                    <g class={classes!("zone", selected(&item).then_some("selected"))} tabindex="0" role="button"
                       aria-label={zone_aria} aria-haspopup="menu" data-zone={c.zone.clone()}
                       onpointerdown={start(item.clone())} onkeydown={key(item.clone())}>
                        <rect x={h.x.to_string()} y={h.y.to_string()} width={h.w.to_string()} height={h.h.to_string()} rx="4" />
                        <text x={(h.x + h.w / 2.0).to_string()} y={(h.y + 16.0).to_string()} text-anchor="middle">{ format!("⠿ {}", c.zone) }</text>
                    </g>
                    { for hosts }
                </>
            }
        });
        html! {
            <g data-island={isl.label.clone()} aria-label={format!("{}: {}", isl.label, isl.detail)} role="group">
                <rect class={class} x={r.x.to_string()} y={r.y.to_string()} width={r.w.to_string()} height={r.h.to_string()} rx="10" />
                <text class="island-label" x={(r.x + 10.0).to_string()} y={(r.y + 17.0).to_string()}>{ &isl.label }</text>
                <text class="island-detail" x={(r.x + 10.0).to_string()} y={(r.y + 32.0).to_string()}>{ &isl.detail }</text>
                { for cols }
            </g>
        }
    });

    let n = lay.new_island;
    let new_class = classes!("new-island", dragging.is_some().then_some("active"), (hover == Some(Target::NewIsland)).then_some("drop-hover"));
    let ghost = dragging.as_ref().map(|(item, x, y)| {
        let label = match item {
            Item::Host(h) => h.clone(),
            Item::Zone(z) => format!("zone {z}"),
        };
        html! {
            <g class="ghost" pointer-events="none">
                <rect x={(x - 60.0).to_string()} y={(y - 14.0).to_string()} width="120" height="28" rx="6" />
                <text x={x.to_string()} y={(y + 5.0).to_string()} text-anchor="middle">{ label }</text>
            </g>
        }
    });

    html! {
        // The menu sits in the wrapper, outside the scrolling box, so it can overlap what is below.
        <div class="topology-wrap">
            <div class="topology-scroll">
                <svg ref={svg_ref.clone()} class="topology" width={lay.width.to_string()} height={lay.height.to_string()}
                     role="group" aria-label="Cluster topology: network islands, zones and hosts"
                     {onpointermove} {onpointerup} {onpointercancel}>
                    <rect class="background" x="0" y="0" width={lay.width.to_string()} height={lay.height.to_string()}
                          onpointerdown={props.on_background.reform(|_: PointerEvent| ())} />
                    { for island_views }
                    <g class={new_class}>
                        <rect x={n.x.to_string()} y={n.y.to_string()} width={n.w.to_string()} height={n.h.to_string()} rx="10" />
                        <text x={(n.x + n.w / 2.0).to_string()} y={(n.y + n.h / 2.0 - 8.0).to_string()} text-anchor="middle">{ "Drop here:" }</text>
                        <text x={(n.x + n.w / 2.0).to_string()} y={(n.y + n.h / 2.0 + 10.0).to_string()} text-anchor="middle">{ "new island" }</text>
                    </g>
                    { for ghost }
                </svg>
            </div>
            { props.children.clone() }
        </div>
    }
}

/// Where a menu for the selection goes: under the host box or zone header, in SVG pixels.
pub fn anchor(snap: &Snapshot, sel: &crate::ui::Selection) -> Option<(f64, f64)> {
    let lay = layout(snap);
    for isl in &lay.islands {
        for c in &isl.columns {
            match sel {
                crate::ui::Selection::Zone(z) if &c.zone == z => return Some((c.header.x, c.header.y + c.header.h + 2.0)),
                crate::ui::Selection::Host(h) => {
                    if let Some((_, r)) = c.hosts.iter().find(|(i, _)| &snap.hosts[*i].name == h) {
                        return Some((r.x, r.y + r.h - 4.0));
                    }
                }
                _ => {}
            }
        }
    }
    None
}
