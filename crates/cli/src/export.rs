//! `clustersim export kind FILE --out DIR`: the scenario's kind files (`import::kind`) written
//! to DIR.

use std::process::ExitCode;

pub fn export(args: &[String]) -> ExitCode {
    let usage = "usage: clustersim export kind FILE --out DIR";
    let (file, out) = match args {
        [kind, file, flag, dir] if kind == "kind" && flag == "--out" => (file, dir),
        _ => return refuse(usage),
    };
    let text = match super::read_input(file) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let files = match sim::scenario::parse(&text)
        .map_err(|e| e.to_string())
        .and_then(|s| import::kind::export(&s))
    {
        Ok(f) => f,
        Err(e) => return refuse(&format!("{file}: {e}")),
    };
    if let Err(e) = std::fs::create_dir_all(out) {
        return refuse(&format!("{out}: {e}"));
    }
    for (name, content) in files {
        let path = std::path::Path::new(out).join(name);
        if let Err(e) = std::fs::write(&path, content) {
            return refuse(&format!("{}: {e}", path.display()));
        }
    }
    eprintln!("clustersim: wrote kind.yaml, workloads.yaml, faults.sh, expected.md and README.md to {out}");
    ExitCode::SUCCESS
}

fn refuse(m: &str) -> ExitCode {
    eprintln!("clustersim: {m}");
    ExitCode::from(2)
}
