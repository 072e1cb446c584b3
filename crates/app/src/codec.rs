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

use sim::scenario::{self, Scenario};

/// The encoding this build writes.
pub const ENCODING: u32 = 1;

/// What a fragment says. `problem` is set when the link was meant for us but could not be used.
#[derive(Debug, Default)]
pub struct Link {
    pub scenario: Option<Scenario>,
    /// `c=`: the scenario to compare with.
    pub compare: Option<Scenario>,
    pub t: Option<f64>,
    pub embed: bool,
    pub problem: Option<String>,
}

/// `1.<base64url(deflate(compact json))>`
pub fn encode_scenario(s: &Scenario) -> String {
    let json = s.to_compact_json();
    format!("{ENCODING}.{}", base64url_encode(&deflate(json.as_bytes())))
}

/// Raw DEFLATE (RFC 1951, no zlib header). Level 9: links are made rarely and read by
/// people; smaller is worth the microseconds.
pub fn deflate(bytes: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec(bytes, 9)
}

/// The fragment (with `#`) for a scenario and, optionally, the time shown.
pub fn fragment(s: &Scenario, t: Option<f64>) -> String {
    fragment_of(&encode_scenario(s), None, t, false)
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
        f.push_str(&format!("&t={}", (t * 1000.0).round() / 1000.0));
    }
    if embed {
        f.push_str("&embed");
    }
    f
}

/// Reads `s=`'s value. Errors are whole sentences for the page.
pub fn decode_scenario(value: &str) -> Result<Scenario, String> {
    let Some((version, payload)) = value.split_once('.') else {
        return Err(
            "The scenario in this link is damaged: it lacks the encoding version \
                    (expected s=1.…)."
                .into(),
        );
    };
    if version != ENCODING.to_string() {
        let shown: String = version.chars().take(12).collect();
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
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(
        &packed,
        scenario::MAX_INPUT_BYTES,
    )
    .map_err(|_| {
        "The scenario in this link is damaged: its compressed data is incomplete or corrupt. \
             Was the link cut while copying?"
            .to_string()
    })?;
    let json = String::from_utf8(json)
        .map_err(|_| "The scenario in this link is damaged: it is not text.".to_string())?;
    scenario::parse(&json).map_err(|e| format!("The scenario in this link is not valid: {e}."))
}

/// Parses a whole fragment (`location.hash`, with or without the `#`).
pub fn decode_fragment(hash: &str) -> Link {
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
                match decode_scenario(value) {
                    Ok(s) => link.scenario = Some(s),
                    Err(m) => link.problem = Some(m),
                }
            }
            "c" => match decode_scenario(value) {
                Ok(s) => link.compare = Some(s),
                Err(m) => {
                    link.problem = Some(format!("{m} (That is the scenario to compare with, c=.)"))
                }
            },
            "t" => {
                understood = true;
                match value.parse::<f64>() {
                    Ok(t) if t.is_finite() && t >= 0.0 => link.t = Some(t),
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

/// Untrusted text inside a message: cut short, so a long fragment gives a one-line message.
fn clip(s: &str) -> String {
    const MAX: usize = 40;
    let mut t: String = s.chars().take(MAX).collect();
    if s.chars().nth(MAX).is_some() {
        t.push('…');
    }
    t
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url without padding (RFC 4648 §5): safe in a fragment without escaping.
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

#[derive(Debug, PartialEq, Eq)]
pub enum B64Error {
    /// The index of the first character outside the alphabet.
    BadChar(usize),
    /// A length no encoder produces: the text was cut.
    Truncated,
}

/// Decodes base64url (padding and the standard alphabet's `+/` tolerated).
pub fn base64url_decode(s: &str) -> Result<Vec<u8>, B64Error> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for (i, c) in s.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return Err(B64Error::BadChar(i)),
        };
        acc = acc << 6 | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // One leftover character (6 bits) cannot be a whole byte: the text was cut.
    if s.len() % 4 == 1 {
        return Err(B64Error::Truncated);
    }
    Ok(out)
}
