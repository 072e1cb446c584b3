//! The wasm entry point Trunk builds: reads the link (decompressing it takes the browser a
//! moment), then mounts the playground on `<body>`. The same module runs the simulation's
//! Web Worker (`app::worker::engine_main`): there, with no window, there is nothing to mount.
fn main() {
    if web_sys::window().is_none() {
        return;
    }
    app::worker::Link::prestart();
    wasm_bindgen_futures::spawn_local(async {
        let start = std::rc::Rc::new(app::boot().await);
        yew::Renderer::<app::App>::with_props(app::AppProps { start }).render();
    });
}
