//! The share link's text form of a scenario (`docs/scenario-format.md`, "Canonical form and share
//! links"): `1.` then base64url, without padding, of the raw DEFLATE of the compact canonical
//! JSON. The DEFLATE is the caller's (the browser's `CompressionStream` in the page, miniz_oxide
//! in the runner): this module owns the version and the alphabet.

/// The encoding this build writes; a later one gets a new number, and `1` is read forever.
pub const ENCODING: u32 = 1;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips_every_length_and_names_damage() {
        for n in 0..40u8 {
            let bytes: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37).wrapping_add(n)).collect();
            let enc = base64url_encode(&bytes);
            assert!(enc.bytes().all(|b| B64.contains(&b)), "{enc}");
            assert_eq!(base64url_decode(&enc).unwrap(), bytes, "length {n}");
        }
        assert_eq!(base64url_decode("A"), Err(B64Error::Truncated));
        assert_eq!(base64url_decode("AB*D"), Err(B64Error::BadChar(2)));
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_round_trip_and_any_text_is_read_or_refused(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200), text in "\\PC{0,60}") {
            proptest::prop_assert_eq!(base64url_decode(&base64url_encode(&bytes)), Ok(bytes));
            // What is read writes back the same, but for what the decoder tolerates: padding,
            // the standard alphabet's `+/`, and unused low bits in a last character.
            if let Ok(read) = base64url_decode(&text) {
                let text = text.trim_end_matches('=').replace('+', "-").replace('/', "_");
                let again = base64url_encode(&read);
                proptest::prop_assert_eq!(again.len(), text.len());
                let cut = text.len().saturating_sub(1);
                proptest::prop_assert_eq!(&again[..cut], &text[..cut]);
            }
        }
    }
}
