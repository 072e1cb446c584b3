//! The study page's wasm entry point (`study/index.html`, built by `cargo xtask dist`): reads
//! the link, then mounts the study on `<body>`. The same module runs the study's Web Workers
//! (`study_worker_main`): there, with no window, there is nothing to mount.
use wasm_bindgen::prelude::wasm_bindgen;

/// A study worker's entry point, called by its script (see `app::study::pool`).
#[wasm_bindgen]
pub fn study_worker_main() {
    app::study::pool::worker_main();
}

fn main() {
    if web_sys::window().is_none() {
        return;
    }
    wasm_bindgen_futures::spawn_local(async {
        let language_problem = app::language::choose_in("../lang/").await;
        let mut start = app::study::boot().await;
        if let Some(p) = language_problem {
            start.problem.get_or_insert(p);
        }
        let start = app::shared::Shared::new(std::rc::Rc::new(start));
        yew::Renderer::<app::study::StudyPage>::with_props(app::study::StudyProps { start })
            .render();
    });
}
