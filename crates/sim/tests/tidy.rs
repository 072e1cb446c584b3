//! Tidy: the core's invariants that a compiler does not check (ARCHITECTURE.md).
//! Layers that point one way; no web or ambient-randomness dependency, no wall clock, no
//! HashMap iteration order.

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
    let text = std::fs::read_to_string(sim_dir().join("src/kernel/keymap.rs")).unwrap();
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

/// The core's layers, in order, and the layers each may name (`crate::LAYER`). Anything else
/// is an arrow pointing the wrong way. `lib.rs` is the composition root and may name all.
const LAYERS: &[(&str, &[&str])] = &[
    ("kernel", &[]),
    ("scenario", &["kernel"]),
    ("etcd", &["kernel"]),
    ("k8s", &["kernel", "etcd"]),
    ("record", &["kernel", "etcd", "k8s"]),
    ("view", &[]),
    (
        "world",
        &["kernel", "etcd", "k8s", "record", "scenario", "view"],
    ),
    ("report", &["kernel", "record", "scenario"]),
    ("study", &["kernel", "scenario", "world", "report"]),
];

/// Every `crate::NAME` a line names (`use crate::x::…`, `crate::x::f()`), outside comments.
fn named_layers(line: &str) -> Vec<&str> {
    let code = line.split("//").next().unwrap_or("");
    code.match_indices("crate::")
        .filter(|(i, _)| {
            // Not the tail of a longer path such as `other_crate::`.
            code[..*i]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
        })
        .map(|(i, m)| {
            let rest = &code[i + m.len()..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

#[test]
fn layers_point_one_way() {
    let src = sim_dir().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    let mut layers_seen = std::collections::BTreeSet::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let layer = top.trim_end_matches(".rs").to_string();
        if layer == "lib" {
            continue;
        }
        let Some((_, allowed)) = LAYERS.iter().find(|(l, _)| *l == layer) else {
            panic!(
                "{} is in no layer: add `{layer}` to LAYERS in tidy.rs",
                rel.display()
            );
        };
        layers_seen.insert(layer.clone());
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            for named in named_layers(line) {
                if named != layer && !allowed.contains(&named) {
                    wrong.push(format!(
                        "{}:{}: `{layer}` names `{named}`: {}",
                        rel.display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert_eq!(
        layers_seen.len(),
        LAYERS.len(),
        "a layer of LAYERS has no files"
    );
    assert!(
        wrong.is_empty(),
        "imports against the layers (see ARCHITECTURE.md):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_layer_check_sees_paths_and_skips_comments() {
    assert_eq!(named_layers("use crate::k8s::wire::{Ctx};"), ["k8s"]);
    assert_eq!(
        named_layers("    let x = crate::world::f(crate::etcd::g());"),
        ["world", "etcd"]
    );
    assert!(named_layers("/// see crate::world").is_empty());
    assert!(named_layers("use other_crate::world;").is_empty());
}

/// The names of the upper layers' processes a kernel line's code uses (comments and string
/// literals aside): the kernel must name none, so adding a process edits its own layer.
fn process_names(line: &str) -> Vec<&'static str> {
    const NAMES: [&str; 14] = [
        "etcd",
        "raft",
        "apiserver",
        "kubelet",
        "scheduler",
        "controller",
        "lease",
        "vip",
        "keepalived",
        "proxy",
        "coredns",
        "terminal",
        "operator",
        "probe",
    ];
    let code = line.split("//").next().unwrap_or("");
    let code: String = code.split('"').step_by(2).collect::<Vec<_>>().join(" ");
    let code = code.to_lowercase();
    NAMES.into_iter().filter(|n| code.contains(n)).collect()
}

#[test]
fn the_kernel_names_no_process() {
    let mut files = Vec::new();
    rust_files(&sim_dir().join("src/kernel"), &mut files);
    let mut named = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            for name in process_names(line) {
                named.push(format!(
                    "{}:{}: `{name}`: {}",
                    f.display(),
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        named.is_empty(),
        "the kernel names processes of the layers above (each layer names its own ports and timers):\n{}",
        named.join("\n")
    );
}

#[test]
fn the_process_name_check_sees_code_not_comments_or_strings() {
    assert_eq!(process_names("    Etcd, // the etcd member"), ["etcd"]);
    assert_eq!(process_names("    Timer::RaftTick => {}"), ["raft"]);
    assert!(process_names(r#"    fork("etcd-1") // a probe"#).is_empty());
}

#[test]
fn the_world_only_wires() {
    // Each part of a run lives in a module of its own under world/; the World holds them.
    let text = std::fs::read_to_string(sim_dir().join("src/world/mod.rs")).unwrap();
    let body = text
        .split("pub struct World {")
        .nth(1)
        .and_then(|rest| rest.split("\n}").next())
        .expect("world/mod.rs defines `pub struct World`");
    let fields: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && l.contains(':') && l.ends_with(','))
        .collect();
    assert!(
        fields.len() <= 12,
        "World has {} fields (at most 12): {fields:?}",
        fields.len()
    );
}

/// The process types the world hands inputs to (the variants of `world::processes::Process`),
/// each as the type that must implement `SelfTimed`: a collection's element (a type alias of a
/// map is read as its last type argument), a `Leading<W>`'s work as well as `Leading`.
fn process_types(processes: &str, aliases: &str) -> Vec<String> {
    let body = processes
        .split("pub enum Process<'a> {")
        .nth(1)
        .and_then(|rest| rest.split("\n}").next())
        .expect("world/processes.rs defines `pub enum Process<'a>`");
    let alias = |name: &str| {
        let line = aliases
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("pub type {name} =")))?;
        let args = line.rsplit_once('<')?.1.trim_end_matches([';', '>']);
        Some(args.rsplit(',').next()?.trim().to_string())
    };
    let mut types = Vec::new();
    for line in body.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
        let Some(ty) = line
            .split_once("(&'a mut ")
            .map(|(_, t)| t.trim_end_matches("),"))
        else {
            continue;
        };
        match ty.strip_prefix("Leading<") {
            Some(work) => {
                types.push("Leading".to_string());
                types.push(work.trim_end_matches('>').to_string());
            }
            None => types.push(alias(ty).unwrap_or_else(|| ty.to_string())),
        }
    }
    types
}

/// The process types among `types` that no source implements `SelfTimed` for.
fn without_self_timed(types: &[String], sources: &[String]) -> Vec<String> {
    let implemented = |ty: &str| {
        sources.iter().any(|s| {
            s.lines().any(|l| {
                let l = l.trim_start();
                let names = |end: char| l.contains(&format!(" SelfTimed for {ty}{end}"));
                l.starts_with("impl") && (names(' ') || names('<'))
            })
        })
    };
    (types.iter())
        .filter(|t| !implemented(t))
        .cloned()
        .collect()
}

#[test]
fn every_process_says_what_it_does_of_its_own_accord() {
    // A study skips settled stretches by asking each process whether it is quiet and moving its
    // clocks on (k8s/self_timed.rs); a process that does not say would silently diverge from
    // the plain run.
    let read = |p: &str| std::fs::read_to_string(sim_dir().join(p)).unwrap();
    let mut files = Vec::new();
    rust_files(&sim_dir().join("src"), &mut files);
    let sources: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    let types = process_types(&read("src/world/processes.rs"), &sources.concat());
    assert!(types.len() >= 12, "found the processes: {types:?}");
    assert_eq!(without_self_timed(&types, &sources), Vec::<String>::new());
}

#[test]
fn the_self_timed_check_finds_a_process_without_it() {
    let processes = "pub enum Process<'a> {\n    Kubelet(&'a mut Kubelet),\n    Dns(&'a mut Servers),\n    Cm(&'a mut Leading<Controllers>),\n}\n";
    let aliases = "pub type Servers = crate::kernel::members::MemberMap<String, Server>;";
    let types = process_types(processes, aliases);
    assert_eq!(types, ["Kubelet", "Server", "Leading", "Controllers"]);
    let sources = [
        "impl SelfTimed for Kubelet {".to_string(),
        "impl<W: Work + Clone> SelfTimed for Leading<W> {".to_string(),
        "impl SelfTimed for Controllers {".to_string(),
    ];
    assert_eq!(without_self_timed(&types, &sources), ["Server"]);
}

/// The source files ARCHITECTURE.md does not name: each file is listed by its name in
/// backticks (`time.rs`, or with its folder, `panels/share.rs`), a folder's `mod.rs` by the
/// folder (`world/`); `lib.rs` and `main.rs` are their crate's row.
fn missing_from_map(map: &str, files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .filter(|f| {
            let name = f.file_name().unwrap().to_string_lossy();
            let folder = f.parent().unwrap().file_name().unwrap().to_string_lossy();
            match &*name {
                "lib.rs" | "main.rs" => false,
                "mod.rs" => !map.contains(&format!("{folder}/`")),
                _ => !map.contains(&format!("{name}`")),
            }
        })
        .map(|f| f.display().to_string())
        .collect()
}

#[test]
fn every_source_file_is_in_the_map() {
    let root = sim_dir().join("../..");
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let mut files = Vec::new();
    for krate in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        let src = krate.path().join("src");
        if src.is_dir() {
            rust_files(&src, &mut files);
        }
    }
    assert!(files.len() > 100, "{} source files", files.len());
    let missing = missing_from_map(&map, &files);
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md's code map does not name: {missing:?}"
    );
    // And the check sees a file that is not there.
    let new = PathBuf::from("crates/sim/src/kernel/brand_new_concept.rs");
    assert_eq!(missing_from_map(&map, &[new]).len(), 1);
}

/// The format's page lists every setting the parser takes, by its key.
#[test]
fn every_setting_is_documented() {
    let doc = std::fs::read_to_string(sim_dir().join("../../docs/scenario-format.md")).unwrap();
    let missing: Vec<&str> = (sim::scenario::SettingKey::ALL.iter())
        .map(|k| k.name())
        .filter(|name| !doc.contains(&format!("`{name}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "settings missing from docs/scenario-format.md: {missing:?}"
    );
}
