//! The wasm entry point Trunk builds: reads the link (decompressing it takes the browser a
//! moment), then mounts the playground on `<body>`. The same module runs the simulation's
//! Web Worker (`engine_main`): there, with no window, there is nothing to mount.
use wasm_bindgen::prelude::wasm_bindgen;

/// The simulation worker's entry point, called by its script (see `app::worker`).
#[wasm_bindgen]
pub fn engine_main() {
    app::worker::engine_main();
}

fn main() {
    if web_sys::window().is_none() {
        return;
    }
    app::worker::Link::prestart();
    wasm_bindgen_futures::spawn_local(async {
        let language_problem = app::language::choose().await;
        let mut start = app::boot().await;
        if let Some(p) = language_problem {
            start.problem = Some(match start.problem {
                Some(q) => format!("{q} {p}"),
                None => p,
            });
        }
        let start = app::shared::Shared::new(std::rc::Rc::new(start));
        // The page is drawn in a task of its own, after the link's scenario was read: together
        // they held the page for over 100 ms.
        gloo_timers::callback::Timeout::new(0, move || {
            yew::Renderer::<app::App>::with_props(app::AppProps { start }).render();
        })
        .forget();
    });
}
