//! `clustersim import FILE… [--name NAME]`: a real cluster's objects as a scenario on stdout,
//! each thing not carried over one line on stderr (docs/scenario-format.md, "Import a real
//! cluster").

use std::process::ExitCode;

pub fn import(args: &[String]) -> ExitCode {
    let mut files = Vec::new();
    let mut name = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--name" => match it.next() {
                Some(n) => name = Some(n.clone()),
                None => return refuse("--name: missing value"),
            },
            f if !f.starts_with("--") || f == "-" => files.push(f.to_string()),
            other => {
                return refuse(&format!(
                    "unexpected argument {other:?}\nusage: clustersim import FILE… [--name NAME]"
                ))
            }
        }
    }
    if files.is_empty() {
        return refuse("import needs at least one FILE (kubectl get nodes,deployments,statefulsets,daemonsets,services,poddisruptionbudgets -A -o yaml > cluster.yaml)");
    }
    let mut texts = Vec::new();
    for f in &files {
        match super::read_input(f) {
            Ok(t) => texts.push((if f == "-" { "stdin" } else { f.as_str() }, t)),
            Err(code) => return code,
        }
    }
    let borrowed: Vec<(&str, &str)> = texts.iter().map(|(f, t)| (*f, t.as_str())).collect();
    match ::import::import(&borrowed, name.as_deref()) {
        Ok(imported) => {
            for note in &imported.notes {
                eprintln!("clustersim: import: {note}");
            }
            println!("{}", imported.scenario.to_json());
            ExitCode::SUCCESS
        }
        Err(e) => refuse(&e.to_string()),
    }
}

fn refuse(m: &str) -> ExitCode {
    eprintln!("clustersim: {m}");
    ExitCode::from(2)
}
