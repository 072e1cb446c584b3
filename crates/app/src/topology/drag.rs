//! Dragging a host or a zone header onto an island (pointer events): a press becomes a drag
//! after [`DRAG_SLOP`] of travel, else it is a click that opens the item's menu. While a drag is
//! on, "new island" is also a dock fixed at the bottom of the window, so it can be reached from
//! anywhere in a tall topology.

use super::Rect;
use crate::gesture::{Item, Target};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// Pointer travel (px) before a press becomes a drag rather than a click.
const DRAG_SLOP: f64 = 5.0;

struct Drag {
    item: Item,
    pointer: i32,
    x0: f64,
    y0: f64,
    x: f64,
    y: f64,
    /// The pointer in the window (for the "new island" dock, which is fixed there).
    client: (f64, f64),
    moved: bool,
}

/// What the topology wires into its SVG and draws while a drag is on.
pub struct DragKit {
    /// A press on an item (a host box, a zone header) starts its drag.
    pub start: Rc<dyn Fn(Item) -> Callback<PointerEvent>>,
    pub onpointermove: Callback<PointerEvent>,
    pub onpointerup: Callback<PointerEvent>,
    pub onpointercancel: Callback<PointerEvent>,
    /// The SVG the pointer's coordinates are measured in.
    pub svg_ref: NodeRef,
    /// The "new island" dock shown while dragging.
    pub dock_ref: NodeRef,
    /// The item being dragged and where (in the SVG, and in the window), once it moved.
    pub dragging: Option<(Item, f64, f64, (f64, f64))>,
    /// The drop target under the pointer.
    pub hover: Option<Target>,
}

/// The pointer's place in the SVG of `svg_ref`.
fn svg_xy(svg_ref: &NodeRef, e: &PointerEvent) -> (f64, f64) {
    let rect = svg_ref
        .cast::<web_sys::Element>()
        .map(|el| el.get_bounding_client_rect());
    rect.map_or((0.0, 0.0), |r| {
        (
            e.client_x() as f64 - r.left(),
            e.client_y() as f64 - r.top(),
        )
    })
}

/// The drop target at SVG point (x, y), the window point `client` on the dock first.
fn hit(
    targets: &[(Target, Rect)],
    dock_ref: &NodeRef,
    x: f64,
    y: f64,
    (cx, cy): (f64, f64),
) -> Option<Target> {
    let on_dock = dock_ref.cast::<web_sys::Element>().is_some_and(|el| {
        let r = el.get_bounding_client_rect();
        cx >= r.left() && cx <= r.right() && cy >= r.top() && cy <= r.bottom()
    });
    if on_dock {
        return Some(Target::NewIsland);
    }
    targets
        .iter()
        .find(|(_, r)| r.contains(x, y))
        .map(|(t, _)| *t)
}

/// A drag over `targets` (each island, and "new island"): a click selects the item, a drop on
/// a target moves it there, a drop elsewhere is a miss.
#[hook]
pub fn use_drag(
    targets: Vec<(Target, Rect)>,
    on_select: Callback<Item>,
    on_move: Callback<(Item, Target)>,
    on_miss: Callback<Item>,
) -> DragKit {
    let svg_ref = use_node_ref();
    let dock_ref = use_node_ref();
    let drag: Rc<RefCell<Option<Drag>>> = use_mut_ref(|| None);
    let force = use_force_update();
    let targets = Rc::new(targets);

    let start = {
        let (drag, svg_ref) = (drag.clone(), svg_ref.clone());
        Rc::new(move |item: Item| {
            let (drag, svg_ref) = (drag.clone(), svg_ref.clone());
            Callback::from(move |e: PointerEvent| {
                if e.button() != 0 {
                    return;
                }
                e.prevent_default();
                let (x, y) = svg_xy(&svg_ref, &e);
                if let Some(svg) = svg_ref.cast::<web_sys::Element>() {
                    // Keep receiving moves even when the pointer leaves the SVG.
                    let _ = svg.set_pointer_capture(e.pointer_id());
                }
                *drag.borrow_mut() = Some(Drag {
                    item: item.clone(),
                    pointer: e.pointer_id(),
                    x0: x,
                    y0: y,
                    x,
                    y,
                    client: (e.client_x() as f64, e.client_y() as f64),
                    moved: false,
                });
            })
        })
    };
    let onpointermove = {
        let (drag, force, svg_ref) = (drag.clone(), force.clone(), svg_ref.clone());
        Callback::from(move |e: PointerEvent| {
            let mut d = drag.borrow_mut();
            let Some(d) = d.as_mut().filter(|d| d.pointer == e.pointer_id()) else {
                return;
            };
            let (x, y) = svg_xy(&svg_ref, &e);
            d.x = x;
            d.y = y;
            d.client = (e.client_x() as f64, e.client_y() as f64);
            if !d.moved && ((x - d.x0).abs() > DRAG_SLOP || (y - d.y0).abs() > DRAG_SLOP) {
                d.moved = true;
            }
            if d.moved {
                force.force_update();
            }
        })
    };
    let onpointerup = {
        let (drag, force, svg_ref) = (drag.clone(), force.clone(), svg_ref.clone());
        let (targets, dock_ref) = (targets.clone(), dock_ref.clone());
        Callback::from(move |e: PointerEvent| {
            let Some(d) = drag.borrow_mut().take() else {
                return;
            };
            if d.pointer != e.pointer_id() {
                return;
            }
            let (x, y) = svg_xy(&svg_ref, &e);
            let client = (e.client_x() as f64, e.client_y() as f64);
            if !d.moved {
                on_select.emit(d.item);
            } else if let Some(t) = hit(&targets, &dock_ref, x, y, client) {
                on_move.emit((d.item, t));
            } else {
                on_miss.emit(d.item);
            }
            force.force_update();
        })
    };
    let onpointercancel = {
        let (drag, force) = (drag.clone(), force.clone());
        Callback::from(move |_: PointerEvent| {
            drag.borrow_mut().take();
            force.force_update();
        })
    };
    let dragging = drag
        .borrow()
        .as_ref()
        .filter(|d| d.moved)
        .map(|d| (d.item.clone(), d.x, d.y, d.client));
    let hover = dragging
        .as_ref()
        .and_then(|(_, x, y, c)| hit(&targets, &dock_ref, *x, *y, *c));
    DragKit {
        start,
        onpointermove,
        onpointerup,
        onpointercancel,
        svg_ref,
        dock_ref,
        dragging,
        hover,
    }
}
