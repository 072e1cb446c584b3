//! The error of a refused document, and how its message names the field and quotes what the
//! document says there.

use std::fmt;

/// A refused document: the field's path (`hosts[3].zone`, empty for the whole document) and
/// what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    /// `hosts[3].zone: unknown zone "rack-c"`; just the message when the path is empty
    /// (malformed JSON, a document over the size limit).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

pub(super) type R<T> = Result<T, ScenarioError>;

pub(super) fn fail<T>(path: impl Into<String>, message: impl Into<String>) -> R<T> {
    Err(ScenarioError::new(path, message))
}

// ---------------------------------------------------------------------------------------------
// Paths and quoting in messages
// ---------------------------------------------------------------------------------------------

/// A user string inside a message: JSON-quoted (so control characters and quotes are escaped)
/// and cut to 40 characters, so a hostile 10k-character name gives a one-line message.
pub(super) fn quote(s: &str) -> String {
    const MAX: usize = 40;
    let mut t: String = s.chars().take(MAX).collect();
    if s.chars().nth(MAX).is_some() {
        t.push('…');
    }
    serde_json::to_string(&t).unwrap_or_default()
}

/// `parent.key`, or `parent["odd key"]` when the key is not a plain identifier.
pub(super) fn key_path(parent: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key.len() <= 64
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    match (parent.is_empty(), plain) {
        (true, true) => key.to_string(),
        (false, true) => format!("{parent}.{key}"),
        (_, false) => format!("{parent}[{}]", quote(key)),
    }
}

pub(super) fn index_path(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}
