//! The JSON tree a document is read into and written from: like `serde_json::Value`, but
//! objects keep their key order and duplicated keys, so "duplicate field" can be reported and
//! output order does not depend on serde_json features. Reading it is typed, and every type
//! error names the field's path.

use crate::kernel::members::MemberSet;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::error::{fail, key_path, quote, ScenarioError, R};
use super::limits::check_count;
use crate::kernel::time::{parse_duration, Duration};

#[derive(Clone, Debug, PartialEq)]
pub(super) enum J {
    Null,
    Bool(bool),
    U(u64),
    I(i64),
    F(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    /// "found ..." in a type error. Values are not echoed: they may be huge.
    pub(super) fn found(&self) -> &'static str {
        match self {
            J::Null => "null",
            J::Bool(_) => "a boolean",
            J::U(_) => "a number",
            J::I(_) => "a negative number",
            J::F(_) => "a fractional number",
            J::Str(_) => "a string",
            J::Arr(_) => "an array",
            J::Obj(_) => "an object",
        }
    }
    pub(super) fn obj(fields: Vec<(&str, J)>) -> J {
        J::Obj(
            fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }
    pub(super) fn str(s: &str) -> J {
        J::Str(s.to_string())
    }
}

impl<'de> Deserialize<'de> for J {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<J, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = J;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<J, E> {
                Ok(J::Null)
            }
            fn visit_none<E>(self) -> Result<J, E> {
                Ok(J::Null)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<J, D::Error> {
                J::deserialize(d)
            }
            fn visit_bool<E>(self, b: bool) -> Result<J, E> {
                Ok(J::Bool(b))
            }
            fn visit_u64<E>(self, n: u64) -> Result<J, E> {
                Ok(J::U(n))
            }
            fn visit_i64<E>(self, n: i64) -> Result<J, E> {
                Ok(if n >= 0 { J::U(n as u64) } else { J::I(n) })
            }
            fn visit_f64<E>(self, n: f64) -> Result<J, E> {
                Ok(J::F(n))
            }
            fn visit_str<E>(self, s: &str) -> Result<J, E> {
                Ok(J::Str(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> Result<J, E> {
                Ok(J::Str(s))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<J, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = seq.next_element::<J>()? {
                    v.push(x);
                }
                Ok(J::Arr(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<J, A::Error> {
                let mut v = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    let x = map.next_value::<J>()?;
                    v.push((k, x));
                }
                Ok(J::Obj(v))
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for J {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            J::Null => s.serialize_unit(),
            J::Bool(b) => s.serialize_bool(*b),
            J::U(n) => s.serialize_u64(*n),
            J::I(n) => s.serialize_i64(*n),
            // A scenario writes its fractions as strings ("0.5", "1.5s"): only a document read in
            // holds one, and writing it would take a float formatter into the page.
            J::F(_) => Err(serde::ser::Error::custom(
                "a fractional number is never written",
            )),
            J::Str(x) => s.serialize_str(x),
            J::Arr(v) => {
                let mut seq = s.serialize_seq(Some(v.len()))?;
                for x in v {
                    seq.serialize_element(x)?;
                }
                seq.end()
            }
            J::Obj(v) => {
                let mut map = s.serialize_map(Some(v.len()))?;
                for (k, x) in v {
                    map.serialize_entry(k, x)?;
                }
                map.end()
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Walking the tree: typed access with path-naming errors
// ---------------------------------------------------------------------------------------------

/// An object being read: duplicates are refused up front, fields are looked up by name.
pub(super) struct Obj<'a> {
    path: String,
    pub(super) items: &'a [(String, J)],
}

impl<'a> Obj<'a> {
    /// `what` names the expected object in the type error ("a host object").
    pub(super) fn new(j: &'a J, path: &str, what: &str) -> R<Obj<'a>> {
        let J::Obj(items) = j else {
            return fail(path, format!("expected {what}, found {}", j.found()));
        };
        let mut seen = MemberSet::new();
        for (k, _) in items {
            if !seen.insert(k.as_str()) {
                return fail(key_path(path, k), "duplicate field");
            }
        }
        Ok(Obj {
            path: path.to_string(),
            items,
        })
    }

    /// Refuses fields outside `known`.
    pub(super) fn only(&self, known: &[&str], context: &str) -> R<()> {
        for (k, _) in self.items {
            if !known.contains(&k.as_str()) {
                let list = if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                };
                return fail(
                    self.at(k),
                    format!("unknown field{context} (known: {list})"),
                );
            }
        }
        Ok(())
    }

    pub(super) fn get(&self, key: &str) -> Option<&'a J> {
        self.items.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub(super) fn req(&self, key: &str) -> R<&'a J> {
        self.get(key)
            .ok_or_else(|| ScenarioError::new(self.at(key), "missing required field"))
    }

    pub(super) fn at(&self, key: &str) -> String {
        key_path(&self.path, key)
    }
}

pub(super) fn as_str<'a>(j: &'a J, path: &str, what: &str) -> R<&'a str> {
    match j {
        J::Str(s) => Ok(s),
        _ => fail(path, format!("expected {what}, found {}", j.found())),
    }
}

pub(super) fn as_string(j: &J, path: &str) -> R<String> {
    as_str(j, path, "a string").map(str::to_string)
}

pub(super) fn as_bool(j: &J, path: &str) -> R<bool> {
    match j {
        J::Bool(b) => Ok(*b),
        _ => fail(path, format!("expected true or false, found {}", j.found())),
    }
}

pub(super) fn as_u64(j: &J, path: &str) -> R<u64> {
    match j {
        J::U(n) => Ok(*n),
        _ => fail(
            path,
            format!("expected a whole number ≥ 0, found {}", j.found()),
        ),
    }
}

pub(super) fn as_u32(j: &J, path: &str) -> R<u32> {
    let n = as_u64(j, path)?;
    u32::try_from(n).map_err(|_| ScenarioError::new(path, format!("{n} is too large")))
}

pub(super) fn as_arr<'a>(j: &'a J, path: &str, what: &str) -> R<&'a [J]> {
    match j {
        J::Arr(v) => Ok(v),
        _ => fail(path, format!("expected {what}, found {}", j.found())),
    }
}

/// An array, refused beyond `max` entries before any entry is read.
pub(super) fn as_bounded_arr<'a>(
    j: &'a J,
    path: &str,
    what: &str,
    max: usize,
    noun: &str,
) -> R<&'a [J]> {
    let v = as_arr(j, path, what)?;
    check_count(path, v.len(), max, noun)?;
    Ok(v)
}

/// A Go-form duration string (`"1h30m"`); `parse_duration` refuses negatives, missing units
/// and absurd sizes. Its messages quote the input, so odd inputs are refused before it.
pub(super) fn as_duration(j: &J, path: &str) -> R<Duration> {
    let s = as_str(j, path, "a duration string like \"40s\"")?;
    if s.chars().count() > 64 || s.chars().any(char::is_control) {
        return fail(path, format!("invalid duration {}", quote(s)));
    }
    parse_duration(s).map_err(|m| ScenarioError::new(path, m))
}

/// The form [`as_duration`] reads.
pub(super) fn dur(d: Duration) -> J {
    J::Str(d.to_string())
}
