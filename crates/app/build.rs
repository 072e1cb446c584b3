//! Compiles the ready scenarios in without the indentation their files keep for people
//! (about 0.5 KB of the bundle): whitespace outside strings is dropped, so
//! each document stays the same JSON.

use std::path::Path;

fn main() {
    // Read when the script runs, not when it was compiled: a script compiled for one checkout may
    // run for another that shares its target directory.
    let dir = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../../web/scenarios");
    println!("cargo:rerun-if-changed={}", dir.display());
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("scenarios");
    std::fs::create_dir_all(&out).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(out.join(path.file_name().unwrap()), compact(&text)).unwrap();
    }
}

fn compact(json: &str) -> String {
    let (mut out, mut in_string, mut escaped) = (String::new(), false, false);
    for c in json.chars() {
        if in_string {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if c.is_whitespace() {
            continue;
        } else {
            in_string = c == '"';
        }
        out.push(c);
    }
    out
}
