//! Simulated time as people read it ("1:05", "1:05.3", "1:02:03"), the page's other numbers, and
//! text put into markup.
//!
//! No `f64` is written with `{}`: core's float formatting (Grisu with a Dragon fallback) would
//! add 14 KB to the page. Numbers go through `sim::kernel::decimal` instead.

pub use sim::kernel::decimal::{Fixed, Short};

/// An SVG coordinate or length: at most two decimals ("12", "3.5", "0.33").
pub trait Px {
    fn px(self) -> String;
}

impl Px for f64 {
    fn px(self) -> String {
        Short(self, 2).to_string()
    }
}

/// Text for markup (an element's content or an attribute's value): `&`, `<`, `>` and `"` escaped.
pub fn escape(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(['&', '<', '>', '"']) {
        return s.into();
    }
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .into()
}

/// Whole seconds: "0:42", "12:00", "1:02:03".
pub fn fmt_t(t: f64) -> String {
    let s = t.max(0.0).floor() as u64;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// Tenths of a second: "0:42.5" (what the cursor and the event log show).
pub fn fmt_t_precise(t: f64) -> String {
    let tenths = (t.max(0.0) * 10.0).floor() as u64;
    format!("{}.{}", fmt_t((tenths / 10) as f64), tenths % 10)
}

/// Wall-clock milliseconds, in the page and in the simulation's worker alike (natively, since
/// the first call: the engine's tests time their ticks too).
pub fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::JsCast;
        js_sys::Reflect::get(&js_sys::global(), &"performance".into())
            .ok()
            .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
            .map_or(0.0, |p| p.now())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::OnceLock;
        static START: OnceLock<std::time::Instant> = OnceLock::new();
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_secs_f64()
            * 1000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_text_is_escaped_and_plain_text_is_not_copied() {
        assert_eq!(escape(r#"a<b & "c">"#), "a&lt;b &amp; &quot;c&quot;&gt;");
        assert!(matches!(
            escape("w12: Ready, 11 pods"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
