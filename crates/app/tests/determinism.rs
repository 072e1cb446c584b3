//! Determinism across platforms: the simulation core compiled to wasm and run in
//! headless Chromium gives the native goldens byte for byte.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

macro_rules! case {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!("../../../tests/scenarios/", $name, ".json")),
            include_str!(concat!("../../../tests/golden/", $name, ".trace")),
        )
    };
}

const CASES: &[(&str, &str, &str)] = &[
    case!("etcd-leader-dies"),
    case!("etcd-rack-split"),
    case!("etcd-two-of-three-die"),
    case!("k8s-rack-split"),
];

#[wasm_bindgen_test]
fn wasm_reports_equal_the_native_goldens() {
    for (name, scenario, golden) in CASES {
        let report = sim::run_scenario(scenario)
            .expect("valid scenario")
            .to_trace();
        assert!(
            report == *golden,
            "{name}: the wasm report differs from the native golden"
        );
    }
}
