//! A report as a trace: one line per fact, in the manner of etcd-raft's `testdata` traces, so
//! that a change of behaviour reads as a diff. The top-level fields and the summary as
//! `path value` lines, each series as runs of equal values (`from..to value`), then one line
//! per event: `t kind field=value …: text`.
//!
//! Rendered from the report's JSON form, so every field the report has is in the trace, with
//! the JSON spelling of its value: two reports with the same trace are the same report.

use super::Report;
use serde_json::Value;
use std::fmt::Write;

impl Report {
    pub fn to_trace(&self) -> String {
        let v = serde_json::to_value(self).expect("a report always serialises");
        let mut out = String::new();
        let Value::Object(top) = &v else {
            unreachable!("a report is an object")
        };
        for (k, x) in top {
            if !matches!(k.as_str(), "summary" | "series" | "events") {
                line(&mut out, k, x);
            }
        }
        flatten(&mut out, "summary", &v["summary"]);
        series(&mut out, &v["series"]);
        for e in v["events"].as_array().into_iter().flatten() {
            event(&mut out, e);
        }
        out
    }
}

fn line(out: &mut String, path: &str, x: &Value) {
    let _ = writeln!(out, "{path} {x}");
}

/// Objects become one line per leaf, `a.b.c value`; an array of objects one line per element,
/// `a[i] k=v …`.
fn flatten(out: &mut String, path: &str, x: &Value) {
    match x {
        Value::Object(m) => {
            for (k, y) in m {
                flatten(out, &format!("{path}.{k}"), y);
            }
        }
        Value::Array(items) if items.iter().all(Value::is_object) && !items.is_empty() => {
            for (i, y) in items.iter().enumerate() {
                let _ = writeln!(out, "{path}[{i}] {}", fields(y, &[]));
            }
        }
        _ => line(out, path, x),
    }
}

/// `k=v` for every field of an object but those in `skip`, in the JSON's key order.
fn fields(x: &Value, skip: &[&str]) -> String {
    let mut s = String::new();
    for (k, y) in x.as_object().into_iter().flatten() {
        if !skip.contains(&k.as_str()) {
            let _ = write!(s, "{}{k}={y}", if s.is_empty() { "" } else { " " });
        }
    }
    s
}

/// Each per-second series as runs of equal values over the sample times `t`.
fn series(out: &mut String, s: &Value) {
    let t: Vec<&Value> = s["t"].as_array().into_iter().flatten().collect();
    let secs: Vec<f64> = t.iter().filter_map(|x| x.as_f64()).collect();
    // Samples come once a second: said in one line when they do, listed when they do not.
    let every_second = secs.len() == t.len() && secs.windows(2).all(|w| w[1] - w[0] == 1.0);
    match (t.first(), t.last()) {
        (Some(a), Some(b)) if every_second => {
            let _ = writeln!(out, "series.t {a}..{b} every second ({} samples)", t.len());
        }
        _ => line(out, "series.t", &s["t"]),
    }
    for (k, x) in s.as_object().into_iter().flatten() {
        match x {
            _ if k == "t" => {}
            Value::Array(values) => runs(out, &format!("series.{k}"), &t, values),
            Value::Object(m) => {
                for (name, y) in m {
                    let values = y.as_array().map(Vec::as_slice).unwrap_or(&[]);
                    runs(out, &format!("series.{k}.{name}"), &t, values);
                }
            }
            _ => line(out, &format!("series.{k}"), x),
        }
    }
}

fn runs(out: &mut String, path: &str, t: &[&Value], values: &[Value]) {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let mut j = i;
        while j + 1 < values.len() && values[j + 1] == values[i] {
            j += 1;
        }
        let at = |k: usize| t.get(k).map_or_else(|| format!("#{k}"), |x| x.to_string());
        parts.push(format!("{}..{} {}", at(i), at(j), values[i]));
        i = j + 1;
    }
    let _ = writeln!(out, "{path} {}", parts.join(", "));
}

fn event(out: &mut String, e: &Value) {
    let rest = fields(e, &["t", "kind", "text"]);
    let _ = writeln!(
        out,
        "{} {}{}{}: {}",
        e["t"],
        e["kind"].as_str().unwrap_or("?"),
        if rest.is_empty() { "" } else { " " },
        rest,
        e["text"].as_str().unwrap_or("")
    );
}
