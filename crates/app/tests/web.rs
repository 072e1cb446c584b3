//! Component tests in a real headless browser (wasm-bindgen-test + Chromium).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn mount() -> web_sys::Element {
    let document = gloo_utils::document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    root
}

async fn settle() {
    // Yew renders on its own scheduler; give it a turn of the event loop.
    yew::platform::time::sleep(std::time::Duration::from_millis(10)).await;
}

#[wasm_bindgen_test]
async fn app_renders_title_and_quorum_table() {
    let root = mount();
    yew::Renderer::<app::App>::with_root(root.clone()).render();
    settle().await;
    let text = root.text_content().unwrap_or_default();
    assert!(text.contains("Kubernetes HA Playground"), "page text: {text}");
    let row = root.query_selector("tr[data-members='3']").unwrap().expect("row for 3 members");
    // 3 members: quorum 2, one failure tolerated (k8s-ha-facts.md).
    assert_eq!(row.text_content().unwrap(), "321");
    let row4 = root.query_selector("tr[data-members='4']").unwrap().expect("row for 4 members");
    assert_eq!(row4.text_content().unwrap(), "431");
}
