//! `use_width`: an element's width in pixels, for the drawings that flow to the room they have
//! (the topology, the charts).

use yew::prelude::*;

/// The width of an element, kept up to date on window resizes.
#[hook]
pub fn use_width(node: NodeRef) -> f64 {
    let width = use_state(|| 0.0f64);
    {
        let width = width.clone();
        use_effect_with((), move |_| {
            let measure = {
                let node = node.clone();
                move || {
                    if let Some(el) = node.cast::<web_sys::Element>() {
                        let w = el.client_width() as f64;
                        if w > 0.0 && (w - *width).abs() >= 1.0 {
                            width.set(w);
                        }
                    }
                }
            };
            measure();
            let listener =
                gloo_events::EventListener::new(&gloo_utils::window(), "resize", move |_| {
                    measure()
                });
            move || drop(listener)
        });
    }
    *width
}
