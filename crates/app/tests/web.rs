//! Component tests in a real headless browser (wasm-bindgen-test + Chromium): the pure parts
//! of the UI (share-link codec, reducer, gestures, catalog) and the mounted app.
#![cfg(target_arch = "wasm32")]

use app::codec;
use app::gesture::{self, Item, Target};
use app::ui::{Selection, Speed, UiAction, UiState};
use sim::scenario::Action;
use std::rc::Rc;
use wasm_bindgen_test::*;
use yew::Reducible;

wasm_bindgen_test_configure!(run_in_browser);

/// The simulation worker's entry point, exported as the page's binary exports it.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn engine_main() {
    app::worker::engine_main();
}

fn mount() -> web_sys::Element {
    let document = gloo_utils::document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    root
}

async fn settle() {
    // Yew renders on its own scheduler; give it a turn of the event loop.
    yew::platform::time::sleep(std::time::Duration::from_millis(30)).await;
}

fn ready(id: &str) -> sim::scenario::Scenario {
    app::catalog::Ready::by_id(id).unwrap().scenario()
}

// ---- share link ------------------------------------------------------------------------

#[wasm_bindgen_test]
async fn every_ready_scenario_round_trips_through_the_link() {
    for r in app::catalog::READY {
        let s = r.scenario();
        let enc = codec::encode_scenario(&s).await.unwrap();
        assert!(enc.starts_with("1."), "{enc}");
        assert!(
            enc.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)),
            "URL-safe: {enc}"
        );
        assert_eq!(codec::decode_scenario(&enc).await.unwrap(), s, "{}", r.id);
        // Compression earns its bytes: the link is shorter than the compact JSON itself.
        assert!(
            enc.len() < s.to_compact_json().len(),
            "{}: {} chars",
            r.id,
            enc.len()
        );
    }
}

#[wasm_bindgen_test]
async fn a_fragment_carries_the_scenario_and_the_time() {
    let s = ready("etcd-rack-split");
    let frag = codec::fragment(&s, Some(75.25)).await.unwrap();
    let link = codec::decode_fragment(&frag).await;
    assert_eq!(link.scenario.as_ref(), Some(&s));
    assert_eq!(link.t, Some(75.25));
    assert!(!link.embed);
    assert!(link.problem.is_none());
    // Order does not matter, and `embed` (a later slice) is understood.
    let tail = frag.trim_start_matches('#');
    let link = codec::decode_fragment(&format!("#embed&t=3&{tail}")).await;
    assert!(link.embed && link.scenario.is_some());
    // The embed view writes its flag back into the fragment it keeps up to date.
    let enc = codec::encode_scenario(&s).await.unwrap();
    let link = codec::decode_fragment(&codec::fragment_of(&enc, None, Some(2.5), true)).await;
    assert!(link.embed);
    assert_eq!((link.t, link.scenario.as_ref()), (Some(2.5), Some(&s)));
    // The compare view: `c=` carries a second scenario the same way.
    let other = ready("etcd-leader-dies");
    let frag = codec::fragment_of(
        &enc,
        Some(&codec::encode_scenario(&other).await.unwrap()),
        Some(9.0),
        false,
    );
    let link = codec::decode_fragment(&frag).await;
    assert_eq!(
        (link.scenario.as_ref(), link.compare.as_ref()),
        (Some(&s), Some(&other))
    );
    assert!(link.problem.is_none());
    let broken = codec::decode_fragment(&format!("{frag}&c=1.AAAA$$$")).await;
    assert!(broken
        .problem
        .unwrap()
        .ends_with("(That is the scenario to compare with, c=.)"));
}

async fn problem(frag: &str) -> String {
    codec::decode_fragment(frag)
        .await
        .problem
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn broken_links_name_their_problem() {
    let good = codec::encode_scenario(&ready("etcd-leader-dies"))
        .await
        .unwrap();
    assert!(codec::decode_fragment("").await.problem.is_none());
    assert!(
        problem("#s=1.abc!def")
            .await
            .contains("character 4 is not valid"),
        "{}",
        problem("#s=1.abc!def").await
    );
    let cut = &good[..good.len() / 2];
    let p = problem(&format!("#s={cut}")).await;
    assert!(p.contains("damaged"), "{p}");
    // Compressed bytes that are not UTF-8: the first bad byte's offset is named.
    let packed = codec::deflate(b"{\"v\xff").await.unwrap();
    let not_text = format!("#s=1.{}", sim::scenario::link::base64url_encode(&packed));
    let p = problem(&not_text).await;
    assert!(
        p.contains("it is not text (an invalid byte at byte offset 3)"),
        "{p}"
    );
    assert!(
        problem("#s=2.AAAA").await.contains("encoding \"2\""),
        "{}",
        problem("#s=2.AAAA").await
    );
    assert!(problem("#s=AAAA")
        .await
        .contains("lacks the encoding version"));
    assert!(problem("#section-3")
        .await
        .contains("not a playground scenario"));
    assert!(problem(&format!("#s={good}&t=soon"))
        .await
        .contains("t=soon"));
    // Valid encoding of an invalid scenario: the core's message, naming the field.
    let bad = r#"{"version":1,"name":"x","duration":"1m","hosts":[{"name":"a","zone":"z","roles":["etcd"]}]}"#;
    let packed = codec::deflate(bad.as_bytes()).await.unwrap();
    let p = problem(&format!("#s=1.{}", codec::base64url_encode(&packed))).await;
    assert!(p.contains("hosts[0].zone: unknown zone \"z\""), "{p}");
    // A link that unpacks to more than a scenario may be is refused before it is all unpacked.
    let bomb = codec::deflate(&vec![b' '; sim::scenario::MAX_INPUT_BYTES + 1])
        .await
        .unwrap();
    let p = problem(&format!("#s=1.{}", codec::base64url_encode(&bomb))).await;
    assert!(
        p.contains("larger than 16777216 bytes once unpacked"),
        "{p}"
    );
    // A very long foreign fragment gives a short message.
    assert!(problem(&format!("#{}", "x".repeat(10_000))).await.len() < 200);
}

#[wasm_bindgen_test]
fn base64url_round_trips_every_length() {
    for n in 0..40u8 {
        let bytes: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37).wrapping_add(n)).collect();
        let enc = codec::base64url_encode(&bytes);
        assert_eq!(codec::base64url_decode(&enc).unwrap(), bytes, "length {n}");
    }
    assert_eq!(
        codec::base64url_decode("A"),
        Err(codec::B64Error::Truncated),
        "one character cannot be a byte"
    );
    assert_eq!(
        codec::base64url_decode("AB*D"),
        Err(codec::B64Error::BadChar(2))
    );
}

// ---- reducer ---------------------------------------------------------------------------

fn reduce(s: UiState, a: UiAction) -> UiState {
    (*Rc::new(s).reduce(a)).clone()
}

#[wasm_bindgen_test]
fn playback_moves_the_cursor_and_stops_at_the_end() {
    let mut s = UiState::new(120.0, 0.0);
    assert_eq!(s.speed, Speed::X10);
    s = reduce(s, UiAction::TogglePlay);
    assert!(s.playing);
    // 10× for 50 ms of wall time: half a simulated second; a stalled tab counts at most 100 ms.
    assert_eq!(s.play_target(50.0), Some(0.5));
    assert_eq!(s.play_target(5_000.0), Some(1.0));
    s = reduce(s, UiAction::Tick { reached: 0.5 });
    assert_eq!((s.cursor, s.frame), (0.5, 1));
    s = reduce(s, UiAction::SetSpeed(Speed::Max));
    assert_eq!(s.play_target(16.0), None, "max: as far as the budget goes");
    s = reduce(s, UiAction::Tick { reached: 120.0 });
    assert!(!s.playing && s.at_end());
    // Play at the end plays again from the start.
    s = reduce(s, UiAction::TogglePlay);
    assert!(s.playing);
    assert_eq!(s.cursor, 0.0);
}

#[wasm_bindgen_test]
fn ticks_while_paused_do_not_move_the_cursor_and_seeks_are_clamped() {
    let mut s = UiState::new(60.0, 10.0);
    s = reduce(s, UiAction::Tick { reached: 3.0 });
    assert_eq!(
        s.cursor, 10.0,
        "background work does not move what the person chose"
    );
    s = reduce(s, UiAction::Seek(99.0));
    assert_eq!(s.cursor, 60.0);
    s = reduce(s, UiAction::Seek(-1.0));
    assert_eq!(s.cursor, 0.0);
    s = reduce(s, UiAction::Select(Some(Selection::Host("etcd-1".into()))));
    assert_eq!(s.selection, Some(Selection::Host("etcd-1".into())));
    s = reduce(
        s,
        UiAction::Loaded {
            duration: 30.0,
            cursor: 45.0,
        },
    );
    assert_eq!(
        (s.duration, s.cursor, s.selection.clone()),
        (30.0, 30.0, None)
    );
}

// ---- gestures --------------------------------------------------------------------------

fn snapshot_of(id: &str) -> sim::view::Snapshot {
    let mut w = sim::world::World::new(ready(id));
    let t0 = w.at_report_secs(0.0);
    w.run_until(t0, u64::MAX);
    w.snapshot()
}

#[wasm_bindgen_test]
fn dragging_a_zone_to_empty_space_partitions_by_zone_names() {
    let snap = snapshot_of("three-zones");
    let a = gesture::move_action(&snap, &Item::Zone("zone-c".into()), Target::NewIsland).unwrap();
    assert_eq!(
        a,
        Action::Partition {
            groups: vec![
                vec!["zone-a".into(), "zone-b".into()],
                vec!["zone-c".into()]
            ]
        }
    );
    // A single host moved out of its zone is named by itself; the rest of its zone by host.
    let a = gesture::move_action(&snap, &Item::Host("etcd-3".into()), Target::NewIsland).unwrap();
    assert_eq!(
        a,
        Action::Partition {
            groups: vec![
                vec!["zone-a".into(), "zone-b".into(), "spare".into()],
                vec!["etcd-3".into()]
            ]
        }
    );
    // Already together: nothing to do.
    assert_eq!(
        gesture::move_action(&snap, &Item::Zone("zone-a".into()), Target::Island(0)),
        None
    );
}

#[wasm_bindgen_test]
fn moving_everything_back_together_heals() {
    let mut s = ready("three-zones");
    s.events.push(sim::scenario::Event {
        at: sim::time::Duration::ZERO,
        action: Action::Partition {
            groups: vec![
                vec!["zone-a".into()],
                vec!["zone-b".into(), "zone-c".into()],
            ],
        },
    });
    let mut w = sim::world::World::new(s);
    let t = w.at_report_secs(0.0);
    w.run_until(t, u64::MAX);
    let snap = w.snapshot();
    let other = snap
        .hosts
        .iter()
        .find(|h| h.name == "etcd-2")
        .unwrap()
        .island;
    assert_eq!(
        gesture::move_action(&snap, &Item::Zone("zone-a".into()), Target::Island(other)),
        Some(Action::Heal)
    );
}

// ---- the mounted app -------------------------------------------------------------------

#[wasm_bindgen_test]
async fn app_renders_the_default_scenario() {
    let root = mount();
    let start = std::rc::Rc::new(app::boot().await);
    yew::Renderer::<app::App>::with_root_and_props(
        root.clone(),
        app::AppProps {
            start: app::shared::Shared::new(start),
        },
    )
    .render();
    settle().await;
    let text = root.text_content().unwrap_or_default();
    assert!(
        text.contains("Kubernetes HA Playground"),
        "page text: {text}"
    );
    // The simulation's first state arrives from its worker a moment later.
    assert!(
        text.contains("starting the simulation…"),
        "page text: {text}"
    );
    let mut text = text;
    for _ in 0..200 {
        if text.contains("etcd: 3 of 3 — quorum") {
            break;
        }
        settle().await;
        text = root.text_content().unwrap_or_default();
    }
    assert!(text.contains("etcd: 3 of 3 — quorum"), "page text: {text}");
    let diag = root
        .query_selector("main")
        .unwrap()
        .and_then(|m| m.get_attribute("data-diag"))
        .unwrap_or_default();
    assert!(diag.starts_with("engine=worker "), "{diag}");
    let row = root
        .query_selector("tr[data-members='3']")
        .unwrap()
        .expect("row for 3 members");
    // 3 members: quorum 2, one failure tolerated (docs/behaviour.md).
    assert_eq!(row.text_content().unwrap(), "321");
    // The default: a Kubernetes cluster of three zones under the questions that open the others.
    for host in ["m1", "m2", "m3", "w1", "w2", "w3"] {
        assert!(
            root.query_selector(&format!("[data-host='{host}']"))
                .unwrap()
                .is_some(),
            "host {host}"
        );
    }
    assert!(root
        .query_selector("[data-zone='zone-c']")
        .unwrap()
        .is_some());
    assert!(root
        .query_selector("button.question[data-ready='1-only-master-dies']")
        .unwrap()
        .is_some());
}

/// The engine on the page's thread (when a worker cannot start) answers as the worker does.
#[wasm_bindgen_test]
async fn the_engine_runs_on_the_page_when_it_must() {
    use app::engine::{News, Verb, SHOWN};
    let got = std::rc::Rc::new(std::cell::RefCell::new(Vec::<News>::new()));
    let link = {
        let got = got.clone();
        app::worker::Link::here(move |n| got.borrow_mut().push(n))
    };
    assert!(!link.in_worker());
    let s = ready("etcd-leader-dies");
    link.post(&Verb::Load {
        slot: SHOWN,
        gen: 9,
        scenario: s.to_compact_json(),
        t: 60.0,
    });
    let mut mirror = app::mirror::Mirror::new(s, 9, 60.0);
    for _ in 0..200 {
        for n in got.borrow_mut().drain(..) {
            mirror.take(n);
        }
        if mirror.complete() && mirror.started() {
            break;
        }
        settle().await;
    }
    assert!(mirror.complete(), "the run was computed");
    assert_eq!(mirror.view_t(), 60.0);
    // The leader etcd-3 crashed at 0:30: by 1:00 another member leads.
    let leader = mirror.snapshot().etcd.leader.clone();
    assert!(
        leader.is_some() && leader.as_deref() != Some("etcd-3"),
        "{leader:?}"
    );
}
