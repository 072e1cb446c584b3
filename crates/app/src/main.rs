//! The wasm entry point Trunk builds: mounts the playground on `<body>`.
fn main() {
    yew::Renderer::<app::App>::new().render();
}
