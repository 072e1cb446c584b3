//! The importer on hostile input: arbitrary text, damaged dumps, every spelling of a quantity, a
//! very long name. Never a panic; a refusal names the file; whatever is imported is a scenario
//! the runner takes.

use proptest::prelude::*;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/clusters/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn check(text: &str) -> Result<(), TestCaseError> {
    match import::import(&[("dump.yaml", text)], None) {
        Ok(imported) => {
            prop_assert!(sim::scenario::parse(&imported.scenario.to_json()).is_ok());
        }
        Err(e) => prop_assert!(e.to_string().starts_with("dump.yaml"), "{e}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_text_is_imported_or_refused_naming_the_file(text in "\\PC{0,300}") {
        check(&text)?;
    }

    /// The kubeadm dump with a line dropped, repeated or cut: every document either still reads
    /// or is named with its line.
    #[test]
    fn a_damaged_dump_is_imported_or_refused(line in 0usize..200, how in 0u8..3, at in 0usize..40) {
        let text = fixture("kubeadm.yaml");
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        let i = line % lines.len();
        match how {
            0 => { lines.remove(i); }
            1 => { let l = lines[i].clone(); lines.insert(i, l); }
            _ => { let l = &lines[i]; let cut = at.min(l.len()); lines[i] = l.chars().take(cut).collect(); }
        }
        check(&lines.join("\n"))?;
    }
}

fn node_with(cpu: &str, memory: &str, name: &str) -> String {
    format!(
        "kind: Node\nmetadata: {{name: \"{name}\"}}\nstatus: {{allocatable: {{cpu: \"{cpu}\", memory: \"{memory}\"}}}}\n"
    )
}

fn host(text: &str) -> (serde_json::Value, Vec<String>) {
    let imported = import::import(&[("n.yaml", text)], None).unwrap();
    let s: serde_json::Value = serde_json::from_str(&imported.scenario.to_json()).unwrap();
    (s["hosts"][0].clone(), imported.notes)
}

#[test]
fn every_legal_spelling_of_a_quantity_is_read_and_an_illegal_one_named() {
    use sim::scenario::quantity::{parse_cpu, parse_memory};
    for (cpu, milli) in [
        ("2", 2000),
        ("0.5", 500),
        ("500m", 500),
        ("1.5", 1500),
        ("2000m", 2000),
    ] {
        let (h, notes) = host(&node_with(cpu, "1Gi", "a"));
        assert_eq!(
            parse_cpu(h["cpu"].as_str().unwrap()),
            Ok(milli),
            "{cpu}: {h}"
        );
        assert!(
            !notes.iter().any(|n| n.contains("allocatable")),
            "{notes:?}"
        );
    }
    for (memory, bytes) in [
        ("1Gi", 1u64 << 30),
        ("1024Mi", 1 << 30),
        ("1G", 1_000_000_000),
        ("1073741824", 1 << 30),
        ("16130364Ki", 16_130_364 * 1024),
        ("1e9", 1_000_000_000),
    ] {
        let (h, _) = host(&node_with("1", memory, "a"));
        assert_eq!(
            parse_memory(h["memory"].as_str().unwrap()),
            Ok(bytes),
            "{memory}: {h}"
        );
    }
    for bad in ["1.5.5", "-1", "abc", "1Zi"] {
        let (h, notes) = host(&node_with("1", bad, "a"));
        assert!(h.get("memory").is_none(), "{bad}: {h}");
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("node a: allocatable memory: ")),
            "{bad}: {notes:?}"
        );
    }
}

#[test]
fn a_name_of_300_characters_becomes_a_host_of_63() {
    let long = "n".repeat(300);
    let (h, notes) = host(&node_with("1", "1Gi", &long));
    assert_eq!(h["name"].as_str().unwrap(), "n".repeat(63));
    assert!(notes.iter().any(|n| n.contains(" is host ")), "{notes:?}");
}
