//! Tidy: the core's invariants that a compiler does not check (ARCHITECTURE.md, 1).
//! No web or ambient-randomness dependency, no wall clock, no HashMap iteration order.

use std::path::{Path, PathBuf};

fn sim_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn the_core_depends_on_nothing_web_or_random() {
    let manifest = std::fs::read_to_string(sim_dir().join("Cargo.toml")).unwrap();
    let deps = manifest.split("[dependencies]").nth(1).unwrap_or("");
    for banned in [
        "yew",
        "web-sys",
        "js-sys",
        "wasm-bindgen",
        "getrandom",
        "rand",
        "gloo",
    ] {
        assert!(
            !deps.lines().any(|l| l.trim_start().starts_with(banned)),
            "crates/sim must not depend on {banned}"
        );
    }
}

#[test]
fn the_core_reads_no_clock_and_no_ambient_randomness() {
    let mut files = Vec::new();
    rust_files(&sim_dir().join("src"), &mut files);
    assert!(files.len() > 5);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        // The one hash map is the key index of `keymap.rs`, checked below.
        let hashed = f.ends_with("keymap.rs");
        for banned in [
            "Instant::now",
            "SystemTime",
            "HashMap",
            "HashSet",
            "thread_rng",
            "RandomState",
            "std::thread",
        ] {
            if hashed && banned == "HashMap" {
                continue;
            }
            assert!(!text.contains(banned), "{} uses {banned}", f.display());
        }
    }
}

#[test]
fn the_key_index_is_only_looked_up_never_walked() {
    // Its hasher is fixed (no RandomState), but a walk would follow the hash order.
    let text = std::fs::read_to_string(sim_dir().join("src/keymap.rs")).unwrap();
    assert!(text.contains("by_key: FxHashMap<"));
    let uses: Vec<&str> = text.split("by_key.").skip(1).collect();
    assert!(uses.len() >= 3);
    for rest in uses {
        assert!(
            ["get(", "insert(", "remove(", "contains_key("]
                .iter()
                .any(|op| rest.starts_with(op)),
            "keymap.rs walks or drains its hash index: by_key.{}",
            &rest[..rest.len().min(20)]
        );
    }
}
