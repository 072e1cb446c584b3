//! `use_frames_passed`: drawing a large page in steps, one animation frame apart, so that no
//! step is a long task for the browser (a click waits for the task under way to end).

use yew::prelude::*;

/// Whether `frames` animation frames have passed since the component was first drawn. Frames,
/// not a timeout: timeouts that fell due while the page was busy all fire before the next
/// frame, together.
#[hook]
pub fn use_frames_passed(frames: usize) -> bool {
    let wait = use_state(|| frames);
    {
        let wait = wait.clone();
        use_effect_with(*wait, move |&n| {
            let frame =
                (n > 0).then(|| gloo_render::request_animation_frame(move |_| wait.set(n - 1)));
            move || drop(frame)
        });
    }
    *wait == 0
}
