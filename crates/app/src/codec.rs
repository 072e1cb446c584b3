//! The share link: the URL fragment that holds the current scenario (and the time looked at).
//!
//! Grammar: `#` then `&`-separated parameters, in any order:
//! - `s=1.<payload>`: the scenario. `1` is the encoding version; its payload is base64url
//!   (no padding) of the raw-DEFLATE-compressed canonical JSON with insignificant whitespace
//!   removed. A later encoding gets a new number; this code keeps reading `1` forever.
//! - `c=1.<payload>`: a second scenario shown beside the first (the compare view), encoded
//!   the same way (optional).
//! - `t=<seconds>`: the simulated time shown (optional).
//! - `embed`: the embed view (no editor chrome, for iframes in documentation).
//!
//! Decoding is an input boundary: every failure is a sentence for the person who opened the
//! link, naming what is wrong, and the page falls back to an intact default scenario.

use crate::fmt::Short;
use sim::scenario::{self, Scenario};

pub use sim::scenario::link::{base64url_decode, base64url_encode, B64Error, ENCODING};

/// What a fragment says. `problem` is set when the link was meant for us but could not be used.
#[derive(Debug, Default)]
pub struct Link {
    pub scenario: Option<Scenario>,
    /// `s=`'s value as the link has it (a valid one needs no encoding again).
    pub encoded: Option<String>,
    /// `c=`'s value, when it was valid.
    pub compare_encoded: Option<String>,
    /// `c=`: the scenario to compare with.
    pub compare: Option<Scenario>,
    pub t: Option<f64>,
    pub embed: bool,
    pub problem: Option<String>,
}

/// `1.<base64url(deflate(compact json))>`; an error is a sentence for the page (a browser
/// without `CompressionStream`).
pub async fn encode_scenario(s: &Scenario) -> Result<String, String> {
    let json = s.to_compact_json();
    let packed = deflate::deflate(json.as_bytes()).await?;
    Ok(format!("{ENCODING}.{}", base64url_encode(&packed)))
}

pub use deflate::deflate;

/// What a browser without `CompressionStream` is told when a link is to be made or read.
pub const UNSUPPORTED: &str = "This browser cannot make or read share links: it lacks CompressionStream (Chrome 103, Firefox 113 and Safari 16.4 have it).";

/// Raw DEFLATE (RFC 1951, no zlib header) by the browser's `CompressionStream("deflate-raw")`:
/// a compressor of our own took 15 KB of the page's download. Native builds (tests, tools) use
/// miniz_oxide; any DEFLATE decoder reads either's output.
#[cfg(target_arch = "wasm32")]
mod deflate {
    use js_sys::{Array, Reflect, Uint8Array};
    use wasm_bindgen::prelude::wasm_bindgen;
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;
    use web_sys::{
        Blob, ReadableStream, ReadableStreamDefaultReader, ReadableWritablePair, WritableStream,
    };

    // web-sys has these behind `--cfg=web_sys_unstable_apis` only (a flag for every crate of
    // the build); the two constructors and their streams are all the page needs.
    #[wasm_bindgen]
    extern "C" {
        type CompressionStream;
        #[wasm_bindgen(constructor, catch)]
        fn new(format: &str) -> Result<CompressionStream, JsValue>;
        #[wasm_bindgen(method, getter)]
        fn readable(this: &CompressionStream) -> ReadableStream;
        #[wasm_bindgen(method, getter)]
        fn writable(this: &CompressionStream) -> WritableStream;

        type DecompressionStream;
        #[wasm_bindgen(constructor, catch)]
        fn new(format: &str) -> Result<DecompressionStream, JsValue>;
        #[wasm_bindgen(method, getter)]
        fn readable(this: &DecompressionStream) -> ReadableStream;
        #[wasm_bindgen(method, getter)]
        fn writable(this: &DecompressionStream) -> WritableStream;
    }

    use super::UNSUPPORTED;

    fn stream_of(bytes: &[u8]) -> Result<ReadableStream, JsValue> {
        let parts = Array::of1(&Uint8Array::from(bytes));
        Ok(Blob::new_with_u8_array_sequence(&parts)?.stream())
    }

    /// Every chunk of `s`, or `None` once more than `limit` bytes came (the rest is dropped).
    async fn read_all(s: ReadableStream, limit: usize) -> Result<Option<Vec<u8>>, JsValue> {
        let reader: ReadableStreamDefaultReader = s.get_reader().unchecked_into();
        let mut out = Vec::new();
        loop {
            let r = JsFuture::from(reader.read()).await?;
            if Reflect::get(&r, &"done".into())?.is_truthy() {
                return Ok(Some(out));
            }
            let chunk: Uint8Array = Reflect::get(&r, &"value".into())?.unchecked_into();
            out.extend(chunk.to_vec());
            if out.len() > limit {
                let _ = reader.cancel();
                return Ok(None);
            }
        }
    }

    pub async fn deflate(bytes: &[u8]) -> Result<Vec<u8>, String> {
        let run = async {
            let c = CompressionStream::new("deflate-raw")?;
            let pair = ReadableWritablePair::new(&c.readable(), &c.writable());
            read_all(stream_of(bytes)?.pipe_through(&pair), usize::MAX).await
        };
        match run.await {
            Ok(Some(out)) => Ok(out),
            _ => Err(UNSUPPORTED.to_string()),
        }
    }

    /// `Ok(None)`: more than `limit` bytes; `Err(None)`: not valid DEFLATE; `Err(Some(why))`:
    /// the browser cannot decompress.
    pub async fn inflate(
        bytes: &[u8],
        limit: usize,
    ) -> Result<Option<Vec<u8>>, Option<&'static str>> {
        let Ok(d) = DecompressionStream::new("deflate-raw") else {
            return Err(Some(UNSUPPORTED));
        };
        let pair = ReadableWritablePair::new(&d.readable(), &d.writable());
        let out = async { read_all(stream_of(bytes)?.pipe_through(&pair), limit).await };
        out.await.map_err(|_| None)
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod deflate {
    pub async fn deflate(bytes: &[u8]) -> Result<Vec<u8>, String> {
        Ok(miniz_oxide::deflate::compress_to_vec(bytes, 9))
    }

    pub async fn inflate(
        bytes: &[u8],
        limit: usize,
    ) -> Result<Option<Vec<u8>>, Option<&'static str>> {
        use miniz_oxide::inflate::{decompress_to_vec_with_limit, TINFLStatus};
        match decompress_to_vec_with_limit(bytes, limit) {
            Ok(v) => Ok(Some(v)),
            Err(e) if e.status == TINFLStatus::HasMoreOutput => Ok(None),
            Err(_) => Err(None),
        }
    }
}

/// The fragment (with `#`) for a scenario and, optionally, the time shown.
pub async fn fragment(s: &Scenario, t: Option<f64>) -> Result<String, String> {
    Ok(fragment_of(&encode_scenario(s).await?, None, t, false))
}

/// The fragment from an already encoded scenario (`1.…`), the one compared with, the time
/// shown, and the embed flag.
pub fn fragment_of(encoded: &str, compare: Option<&str>, t: Option<f64>, embed: bool) -> String {
    let mut f = format!("#s={encoded}");
    if let Some(c) = compare {
        f.push_str(&format!("&c={c}"));
    }
    if let Some(t) = t {
        // Milliseconds are the finest step the UI records events at.
        f.push_str(&format!("&t={}", Short(t, 3)));
    }
    if embed {
        f.push_str("&embed");
    }
    f
}

/// Reads `s=`'s value. Errors are whole sentences for the page.
pub async fn decode_scenario(value: &str) -> Result<Scenario, String> {
    let Some((version, payload)) = value.split_once('.') else {
        return Err(
            "The scenario in this link is damaged: it lacks the encoding version \
                    (expected s=1.…)."
                .into(),
        );
    };
    if version != ENCODING.to_string() {
        let shown = clip(version);
        return Err(format!(
            "This link uses scenario encoding \"{shown}\", but this playground reads encoding \
             {ENCODING}. It may come from a newer version of the playground."
        ));
    }
    let packed = base64url_decode(payload).map_err(|e| match e {
        B64Error::BadChar(at) => format!(
            "The scenario in this link is damaged: character {} is not valid in the encoding. \
             Was the link changed while copying?",
            at + 1
        ),
        B64Error::Truncated => "The scenario in this link is damaged: it is cut short. \
                                Was the link cut while copying?"
            .to_string(),
    })?;
    // Bounded like a scenario file, so a hostile link cannot exhaust memory.
    let json = match deflate::inflate(&packed, scenario::MAX_INPUT_BYTES).await {
        Ok(Some(json)) => json,
        Ok(None) => {
            return Err(format!(
                "The scenario in this link is larger than {} bytes once unpacked; \
                 the limit is {}.",
                scenario::MAX_INPUT_BYTES,
                scenario::MAX_INPUT_BYTES
            ))
        }
        Err(Some(why)) => return Err(why.to_string()),
        Err(None) => {
            return Err(
                "The scenario in this link is damaged: its compressed data is incomplete or \
                 corrupt. Was the link cut while copying?"
                    .to_string(),
            )
        }
    };
    let json = String::from_utf8(json).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        format!("The scenario in this link is damaged: it is not text (an invalid byte at byte offset {at}).")
    })?;
    scenario::parse(&json).map_err(|e| format!("The scenario in this link is not valid: {e}."))
}

/// Parses a whole fragment (`location.hash`, with or without the `#`).
pub async fn decode_fragment(hash: &str) -> Link {
    let hash = hash.strip_prefix('#').unwrap_or(hash);
    let mut link = Link::default();
    if hash.is_empty() {
        return link;
    }
    let mut understood = false;
    for part in hash.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        match key {
            "s" => {
                understood = true;
                match decode_scenario(value).await {
                    Ok(s) => {
                        link.scenario = Some(s);
                        link.encoded = Some(value.to_string());
                    }
                    Err(m) => link.problem = Some(m),
                }
            }
            "c" => match decode_scenario(value).await {
                Ok(s) => {
                    link.compare = Some(s);
                    link.compare_encoded = Some(value.to_string());
                }
                Err(m) => {
                    link.problem = Some(format!("{m} (That is the scenario to compare with, c=.)"))
                }
            },
            "t" => {
                understood = true;
                match sim::kernel::decimal::parse_decimal(value) {
                    Some(t) if t.is_finite() => link.t = Some(t),
                    _ => {
                        link.problem.get_or_insert_with(|| {
                            format!(
                                "The time in this link (t={}) is not a number of seconds.",
                                clip(value)
                            )
                        });
                    }
                }
            }
            "embed" => {
                understood = true;
                link.embed = true;
            }
            _ => {}
        }
    }
    if !understood {
        link.problem = Some(format!(
            "This link's fragment (#{}) is not a playground scenario (expected #s=1.…).",
            clip(hash)
        ));
    }
    link
}

/// Untrusted text inside a message: cut short and its control characters escaped (`\n`), so a
/// long or broken fragment gives a one-line message.
fn clip(s: &str) -> String {
    const MAX: usize = 40;
    let mut t = String::new();
    for c in s.chars().take(MAX) {
        if c.is_control() {
            t.extend(c.escape_debug());
        } else {
            t.push(c);
        }
    }
    if s.chars().nth(MAX).is_some() {
        t.push('…');
    }
    t
}

/// Share links as anyone may type, cut or forge them (natively: the DEFLATE is miniz_oxide's).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod fuzz {
    use super::*;
    use proptest::prelude::*;
    use std::future::Future;
    use std::task::{Context, Poll, Waker};

    /// Natively nothing here waits: one poll finishes it.
    fn now<F: Future>(f: F) -> F::Output {
        match std::pin::pin!(f).poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(v) => v,
            Poll::Pending => panic!("native decoding never waits"),
        }
    }

    fn valid() -> String {
        let s = crate::catalog::default_scenario();
        now(fragment(&s, Some(12.5))).unwrap()
    }

    proptest! {
        #[test]
        fn any_fragment_is_read_or_named_in_one_line(text in "#?(s=1\\.)?[A-Za-z0-9_\\-=&.#%]{0,80}|\\PC{0,80}") {
            let link = now(decode_fragment(&text));
            if let Some(p) = &link.problem {
                prop_assert!(!p.contains('\n') && p.len() < 400, "{}", p);
            }
        }

        #[test]
        fn a_valid_link_changed_anywhere_is_read_or_named(edits in prop::collection::vec((any::<usize>(), any::<char>()), 1..4), cut in prop::option::of(any::<usize>())) {
            let mut chars: Vec<char> = valid().chars().collect();
            for (at, c) in edits {
                let at = at % chars.len();
                chars[at] = c;
            }
            if let Some(cut) = cut {
                chars.truncate(cut % (chars.len() + 1));
            }
            let text: String = chars.into_iter().collect();
            let link = now(decode_fragment(&text));
            // (Nothing left of it is the page without a link.)
            let nothing = text.trim_start_matches('#').is_empty();
            prop_assert!(nothing || link.scenario.is_some() || link.problem.is_some() || link.t.is_some(), "{}", text);
            if let Some(p) = &link.problem {
                prop_assert!(!p.contains('\n'), "{}", p);
            }
        }
    }

    #[test]
    fn the_valid_link_reads_back() {
        let link = now(decode_fragment(&valid()));
        assert_eq!(link.scenario, Some(crate::catalog::default_scenario()));
        assert_eq!((link.t, link.problem), (Some(12.5), None));
    }
}
