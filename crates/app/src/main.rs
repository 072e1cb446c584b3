//! The wasm entry point Trunk builds: reads the link (decompressing it takes the browser a
//! moment), then mounts the playground on `<body>`.
fn main() {
    wasm_bindgen_futures::spawn_local(async {
        let start = std::rc::Rc::new(app::boot().await);
        yew::Renderer::<app::App>::with_props(app::AppProps { start }).render();
    });
}
