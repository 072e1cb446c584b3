fn main() {
    yew::Renderer::<app::App>::new().render();
}
