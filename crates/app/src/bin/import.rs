//! The import page's wasm entry point (`import/index.html`, built by `cargo xtask dist`): picks
//! the reader's language, then mounts the page on `<body>`.

fn main() {
    if web_sys::window().is_none() {
        return;
    }
    wasm_bindgen_futures::spawn_local(async {
        app::language::choose_in("../lang/").await;
        yew::Renderer::<app::cluster_import::ImportPage>::new().render();
    });
}
