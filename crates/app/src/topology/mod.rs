//! The topology (SVG): network islands as regions, zones inside them, hosts as boxes with their
//! components (etcd member, apiserver, controller-manager, scheduler, the Node's condition, the
//! load balancer's backends) and their pods as chips coloured by workload. Drag a host or a
//! zone header (pointer events) onto another island or onto "new island"; click or press Enter
//! on either for its menu, which has the same moves as buttons.
//!
//! Drawn 1:1 (no viewBox scaling) so menus can sit on it; the layout flows to the width it is
//! given (islands and zones wrap onto new rows), so nothing scrolls sideways from 1024 px.
//! Larger clusters draw plain workers as half-width tiles; beyond [`COMPACT_ABOVE`] hosts, as
//! small cells in a grid per zone (the pod count instead of one chip per pod, the state as a
//! colour and a mark), under a line that sums the zone up, so 1,000 workers stay drawable.

use crate::fmt::{escape, Px};
use crate::gesture::{island_label, islands, Item, Target};
use crate::language::{t, tf, ts};
use sim::view::{HostState, HostView, LeaderRole, MemberRole, Snapshot};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

mod drag;

const PAD: f64 = 10.0;
/// Inner padding of an island, and the room its label takes at the top.
const IPAD: f64 = 10.0;
const LABEL_H: f64 = 38.0;
const HOST_W: f64 = 166.0;
const COL_GAP: f64 = 8.0;
const COL_W: f64 = HOST_W + COL_GAP;
const ROW_GAP: f64 = 8.0;
const ZONE_GAP: f64 = 14.0;
const HEADER_H: f64 = 22.0;
const ISLAND_GAP: f64 = 12.0;
const NEW_W: f64 = 128.0;
/// Below this width the "new island" drop area is a strip under the islands, this high.
const NARROW: f64 = 560.0;
const NEW_STRIP_H: f64 = 48.0;
/// Full boxes: the name, roles and state lines, then one badge line per component.
const HOST_TOP: f64 = 52.0;
const BADGE_H: f64 = 18.0;
const CHIP: f64 = 12.0;
const CHIP_STEP: f64 = 14.0;
/// Tiles (plain workers of a large cluster): name and state, then small chips.
const TILE_W: f64 = (HOST_W - COL_GAP) / 2.0;
const TILE_TOP: f64 = 32.0;
const TILE_CHIP: f64 = 8.0;
const TILE_CHIP_STEP: f64 = 10.0;
/// More plain workers than this and they are drawn as tiles.
const TILE_ABOVE: usize = 12;
/// More hosts than this and plain workers are drawn as cells.
pub const COMPACT_ABOVE: usize = 60;
const CELL_W: f64 = 28.0;
const CELL_H: f64 = 18.0;
const CELL_GAP: f64 = 3.0;
/// The line above a zone's cells that sums them up.
const SUMMARY_H: f64 = 30.0;

/// How a host is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// A full box: every component and one chip per pod.
    Full,
    /// A half-width tile: name, short state, small chips.
    Tile,
    /// A cell of the zone's grid: the pod count and the state.
    Cell,
}
/// The width used before the page has been measured (and by tests).
pub const DEFAULT_WIDTH: f64 = 940.0;
/// The load balancer's backends per row of chips.
const BACKENDS_PER_ROW: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x && x <= self.x + self.w && y >= self.y && y <= self.y + self.h
    }
    fn shift(self, dx: f64, dy: f64) -> Rect {
        Rect {
            x: self.x + dx,
            y: self.y + dy,
            ..self
        }
    }
}

pub struct Column {
    pub zone: String,
    pub header: Rect,
    /// Host index, its box, and how it is drawn.
    pub hosts: Vec<(usize, Rect, Look)>,
    /// The line summing up the zone's cells (where, and what it says).
    /// The cells' summary: its place, then two lines (counts; states).
    pub summary: Option<(Rect, (String, String))>,
}

pub struct IslandBox {
    pub id: u32,
    pub label: String,
    pub detail: String,
    pub rect: Rect,
    pub columns: Vec<Column>,
}

pub struct Layout {
    pub width: f64,
    pub height: f64,
    pub partitioned: bool,
    pub islands: Vec<IslandBox>,
    pub new_island: Rect,
}

/// A workload as the topology colours it, and how many pods it should have now.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadInfo {
    pub name: String,
    pub desired: Option<u32>,
}

/// The workloads of a scenario in palette order (CoreDNS last), with their desired replicas at `t`.
pub fn workload_infos(
    s: &sim::scenario::Scenario,
    lanes: &crate::charts::Lanes,
    t: f64,
) -> Vec<WorkloadInfo> {
    s.workloads
        .iter()
        .map(|w| w.name.clone())
        .chain(std::iter::once(sim::scenario::COREDNS.to_string()))
        .map(|name| WorkloadInfo {
            desired: lanes.desired(&name, t),
            name,
        })
        .collect()
}

/// The palette class of a workload (Okabe–Ito, colour-blind safe; CoreDNS grey).
pub fn workload_class(workloads: &[WorkloadInfo], name: &str) -> String {
    if name == sim::scenario::COREDNS {
        return "wl-dns".into();
    }
    match workloads.iter().position(|w| w.name == name) {
        Some(i) => format!("wl-{}", i % 8),
        None => "wl-dns".into(),
    }
}

/// Workloads running more pods than desired right now: (name, running, desired).
pub fn duplicates(snap: &Snapshot, workloads: &[WorkloadInfo]) -> Vec<(String, u32, u32)> {
    workloads
        .iter()
        .filter_map(|w| {
            let desired = w.desired?;
            let running = snap
                .hosts
                .iter()
                .flat_map(|h| h.pods.iter())
                .filter(|p| p.workload == w.name)
                .count() as u32;
            (running > desired).then(|| (w.name.clone(), running, desired))
        })
        .collect()
}

/// Which pod chips are marked as duplicates, per host and pod: the pod's workload runs more
/// than desired, and the pod is on a node the API no longer counts as Ready (the stale copy),
/// or — when no copy of that workload is on such a node — every pod of the workload is marked.
/// Linear in the pods (it runs on every frame of playback).
pub fn dup_marks(snap: &Snapshot, dups: &[(String, u32, u32)]) -> Vec<Vec<bool>> {
    let stale = |h: &HostView| h.node.as_ref().is_some_and(|n| n.ready != "Ready");
    if dups.is_empty() {
        return snap
            .hosts
            .iter()
            .map(|h| vec![false; h.pods.len()])
            .collect();
    }
    // Workloads with a copy on a stale node.
    let mut stale_wls: Vec<&str> = Vec::new();
    for h in snap.hosts.iter().filter(|h| stale(h)) {
        for p in h.pods.iter() {
            if !stale_wls.contains(&p.workload.as_str()) {
                stale_wls.push(&p.workload);
            }
        }
    }
    snap.hosts
        .iter()
        .map(|h| {
            let on_stale = stale(h);
            h.pods
                .iter()
                .map(|p| {
                    dups.iter().any(|(n, _, _)| *n == p.workload)
                        && (on_stale || !stale_wls.contains(&p.workload.as_str()))
                })
                .collect()
        })
        .collect()
}

/// Whether plain workers are drawn as cells (a zone can then be zoomed into).
pub fn draws_cells(snap: &Snapshot) -> bool {
    worker_look(snap) == Look::Cell
}

/// How plain workers (no other role) are drawn: full boxes, tiles when there are many of them,
/// cells when the cluster is large.
fn worker_look(snap: &Snapshot) -> Look {
    if snap.hosts.len() > COMPACT_ABOVE {
        Look::Cell
    } else if snap.hosts.iter().filter(|h| is_plain_worker(h)).count() > TILE_ABOVE {
        Look::Tile
    } else {
        Look::Full
    }
}

/// Cells per row in a zone `k` columns wide.
fn cells_per_row(k: usize) -> usize {
    (((k as f64 * COL_W - COL_GAP + CELL_GAP) / (CELL_W + CELL_GAP)).floor() as usize).max(1)
}

/// The line above a zone's cells: how many workers in each state, and their pods.
fn zone_summary(snap: &Snapshot, cells: &[usize]) -> (String, String) {
    let (mut ready, mut not_ready, mut down, mut pods) = (0, 0, 0, 0);
    for &i in cells {
        let h = &snap.hosts[i];
        pods += h.pods.len();
        match tile_words(h).0 {
            "up" => ready += 1,
            "notready" | "standby" => not_ready += 1,
            _ => down += 1,
        }
    }
    let mut states = vec![format!("{ready} Ready")];
    if not_ready > 0 {
        states.push(format!("{not_ready} not Ready (orange)"));
    }
    if down > 0 {
        states.push(format!("{down} down (✗)"));
    }
    (
        format!("{} workers · {pods} pods", cells.len()),
        states.join(", "),
    )
}

fn is_plain_worker(h: &HostView) -> bool {
    h.roles == ["worker"]
}

/// How many badge lines a full host box has.
fn badge_lines(h: &HostView) -> usize {
    h.etcd.is_some() as usize
        + h.apiserver.is_some() as usize
        + h.controller_manager.is_some() as usize
        + h.scheduler.is_some() as usize
        + node_badges(h).len()
        + h.lb_backends.len().div_ceil(BACKENDS_PER_ROW)
}

fn chips_per_row(tile: bool) -> usize {
    if tile {
        ((TILE_W - 8.0 + TILE_CHIP_STEP - TILE_CHIP) / TILE_CHIP_STEP).floor() as usize
    } else {
        ((HOST_W - 8.0 + CHIP_STEP - CHIP) / CHIP_STEP).floor() as usize
    }
}

fn host_height(h: &HostView, look: Look) -> f64 {
    let tile = match look {
        Look::Cell => return CELL_H,
        Look::Tile => true,
        Look::Full => false,
    };
    let rows = (h.pods.len() + h.terminating.len()).div_ceil(chips_per_row(tile)) as f64;
    if tile {
        TILE_TOP + rows * TILE_CHIP_STEP + 4.0
    } else {
        HOST_TOP
            + badge_lines(h) as f64 * BADGE_H
            + rows * CHIP_STEP
            + if rows > 0.0 { 4.0 } else { 2.0 }
    }
}

/// A zone's hosts placed in a grid of `k` columns (full boxes), then `2k` (tiles), then cells
/// under their summary line, relative to the zone's origin; returns the boxes, where the
/// summary goes, and the zone's size.
#[allow(clippy::type_complexity)]
fn place_zone(
    snap: &Snapshot,
    hosts: &[usize],
    look: Look,
    k: usize,
) -> (Vec<(usize, Rect, Look)>, Option<Rect>, f64, f64) {
    let (full, small) = split_tiles(snap, hosts, look);
    let k = k.max(1);
    let width = k as f64 * COL_W - COL_GAP;
    let mut out = Vec::new();
    let mut y = HEADER_H + 6.0;
    let mut summary = None;
    let mut last_gap = ROW_GAP;
    let small_look = if look == Look::Cell {
        Look::Cell
    } else {
        Look::Tile
    };
    let groups = [
        (&full, k, HOST_W, Look::Full),
        (
            &small,
            if look == Look::Cell {
                cells_per_row(k)
            } else {
                2 * k
            },
            TILE_W,
            small_look,
        ),
    ];
    for (items, per_row, w, look) in groups {
        let (w, gap) = if look == Look::Cell {
            (CELL_W, CELL_GAP)
        } else {
            (w, COL_GAP)
        };
        if look == Look::Cell && !items.is_empty() {
            summary = Some(Rect {
                x: 0.0,
                y,
                w: width,
                h: SUMMARY_H,
            });
            y += SUMMARY_H + 2.0;
        }
        for row in items.chunks(per_row) {
            let h = row
                .iter()
                .map(|&i| host_height(&snap.hosts[i], look))
                .fold(0.0, f64::max);
            for (c, &i) in row.iter().enumerate() {
                let x = c as f64 * (w + gap);
                out.push((
                    i,
                    Rect {
                        x,
                        y,
                        w,
                        h: host_height(&snap.hosts[i], look),
                    },
                    look,
                ));
            }
            last_gap = if look == Look::Cell {
                CELL_GAP
            } else {
                ROW_GAP
            };
            y += h + last_gap;
        }
    }
    (out, summary, width, y - last_gap)
}

fn split_tiles(snap: &Snapshot, hosts: &[usize], look: Look) -> (Vec<usize>, Vec<usize>) {
    hosts
        .iter()
        .partition(|&&i| !(look != Look::Full && is_plain_worker(&snap.hosts[i])))
}

/// Columns per zone: one each, then the tallest zone gets another column while its island
/// still fits the width (islands wrap onto rows of their own when they do not fit together),
/// so small clusters use the width and large ones do not scroll sideways.
fn zone_columns(
    snap: &Snapshot,
    zones: &[(usize, Vec<usize>)],
    looks: &[Look],
    max_inner: f64,
) -> Vec<usize> {
    let sizes: Vec<(usize, usize, Look)> = zones
        .iter()
        .zip(looks)
        .map(|((_, hosts), &look)| {
            let (f, t) = split_tiles(snap, hosts, look);
            (f.len(), t.len(), look)
        })
        .collect();
    let rows = |(f, t, look): (usize, usize, Look), k: usize| {
        let small = if look == Look::Cell {
            0.12 * t.div_ceil(cells_per_row(k)) as f64
        } else {
            0.45 * t.div_ceil(2 * k) as f64
        };
        f.div_ceil(k) as f64 + small
    };
    let island_width = |ks: &[usize], isl: usize| -> f64 {
        zones
            .iter()
            .zip(ks)
            .filter(|((i, _), _)| *i == isl)
            .map(|(_, k)| *k as f64 * COL_W - COL_GAP + ZONE_GAP)
            .sum::<f64>()
            - ZONE_GAP
    };
    let mut ks = vec![1usize; zones.len()];
    let mut full = vec![false; zones.len()];
    while let Some(z) = (0..ks.len())
        .filter(|&z| !full[z])
        .max_by(|&a, &b| rows(sizes[a], ks[a]).total_cmp(&rows(sizes[b], ks[b])))
    {
        let k = ks[z];
        // Short enough already: so is every other (this is the tallest left).
        if rows(sizes[z], k) <= 2.0 {
            break;
        }
        ks[z] += 1;
        if island_width(&ks, zones[z].0) > max_inner || rows(sizes[z], k + 1) >= rows(sizes[z], k) {
            ks[z] -= 1;
            full[z] = true;
        }
    }
    ks
}

/// Where everything goes, for a drawing `avail` pixels wide: islands left to right (wrapping
/// onto new rows), in each the zones (in scenario order) that have hosts there (wrapping too),
/// and the hosts of each zone in a grid. The `zoomed` zone of a cluster drawn in cells shows its
/// workers as tiles.
pub fn layout(snap: &Snapshot, avail: f64, zoomed: Option<&str>) -> Layout {
    let avail = if avail > 0.0 { avail } else { DEFAULT_WIDTH };
    let groups = islands(snap);
    let partitioned = groups.len() > 1;
    let look = worker_look(snap);
    let max_inner = (avail - 2.0 * PAD - 2.0 * IPAD).max(HOST_W);

    // Every (island, zone) with hosts, then how many columns each zone gets.
    let zones: Vec<(usize, Vec<usize>)> = groups
        .iter()
        .enumerate()
        .flat_map(|(n, (_, members))| {
            snap.zones.iter().filter_map(move |z| {
                let hosts: Vec<usize> = members
                    .iter()
                    .copied()
                    .filter(|&i| &snap.hosts[i].zone == z)
                    .collect();
                (!hosts.is_empty()).then_some((n, hosts))
            })
        })
        .collect();
    let looks: Vec<Look> = zones
        .iter()
        .map(|(_, hosts)| match look {
            Look::Cell if zoomed == Some(snap.hosts[hosts[0]].zone.as_str()) => Look::Tile,
            look => look,
        })
        .collect();
    let ks = zone_columns(snap, &zones, &looks, max_inner);

    // Each island on its own, at the origin, then flowed into place.
    let boxes: Vec<IslandBox> = (groups.iter().enumerate())
        .map(|(n, (id, members))| {
            let in_island = (zones.iter().enumerate())
                .filter(|(_, (isl, _))| *isl == n)
                .map(|(zi, (_, hosts))| (hosts.as_slice(), looks[zi], ks[zi]));
            let (label, detail) = island_words(snap, n, members, partitioned);
            let (rect, columns) = island_columns(snap, in_island, max_inner);
            IslandBox {
                id: *id,
                label,
                detail,
                rect,
                columns,
            }
        })
        .collect();
    flow(boxes, avail, partitioned)
}

/// An island's zones side by side (wrapping onto rows within `max_inner`), each zone's hosts
/// placed in its columns: the island's box at the origin, and its columns.
fn island_columns<'a>(
    snap: &Snapshot,
    zones: impl Iterator<Item = (&'a [usize], Look, usize)>,
    max_inner: f64,
) -> (Rect, Vec<Column>) {
    let mut columns = Vec::new();
    let (mut x, mut y, mut row_h, mut inner_w) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (hosts, look, k) in zones {
        let z = &snap.hosts[hosts[0]].zone;
        let (placed, summary, w, h) = place_zone(snap, hosts, look, k);
        if x > 0.0 && x + w > max_inner {
            x = 0.0;
            y += row_h + ZONE_GAP;
            row_h = 0.0;
        }
        let (ox, oy) = (IPAD + x, LABEL_H + y);
        columns.push(Column {
            zone: z.clone(),
            header: Rect {
                x: ox,
                y: oy,
                w,
                h: HEADER_H,
            },
            summary: summary.map(|r| {
                let cells: Vec<usize> = (placed.iter())
                    .filter(|(_, _, l)| *l == Look::Cell)
                    .map(|(i, _, _)| *i)
                    .collect();
                (r.shift(ox, oy), zone_summary(snap, &cells))
            }),
            hosts: (placed.into_iter())
                .map(|(i, r, t)| (i, r.shift(ox, oy), t))
                .collect(),
        });
        x += w + ZONE_GAP;
        inner_w = inner_w.max(x - ZONE_GAP);
        row_h = row_h.max(h);
    }
    let rect = Rect {
        x: 0.0,
        y: 0.0,
        w: inner_w + 2.0 * IPAD,
        h: LABEL_H + y + row_h + IPAD,
    };
    (rect, columns)
}

/// An island's label and what it says of etcd there (one network: that every host reaches
/// every other).
fn island_words(
    snap: &Snapshot,
    n: usize,
    members: &[usize],
    partitioned: bool,
) -> (String, String) {
    if !partitioned {
        return (ts("One network"), ts("every host reaches every other"));
    }
    let voters = (members.iter())
        .filter(|&&i| {
            let h = &snap.hosts[i];
            h.state == HostState::Up && !h.isolated && h.etcd.as_ref().is_some_and(|m| m.voter)
        })
        .count();
    let total = snap.etcd.voters;
    (
        tf(format_args!("Island {}", island_label(n))),
        if voters == 1 {
            tf(format_args!("1 of {total} etcd voter up here"))
        } else {
            tf(format_args!("{voters} of {total} etcd voters up here"))
        },
    )
}

/// Islands flow left to right, wrapping, the islands of a row as tall as its tallest; "new
/// island" after the last one (on a narrow screen a strip under them, across the width).
fn flow(mut boxes: Vec<IslandBox>, avail: f64, partitioned: bool) -> Layout {
    let (mut x, mut y, mut row_h, mut width) = (PAD, PAD, 0.0f64, 0.0f64);
    let mut row_start = 0;
    let mut rows: Vec<(usize, usize, f64)> = Vec::new();
    for (k, b) in boxes.iter_mut().enumerate() {
        if x > PAD && x + b.rect.w > avail - PAD {
            rows.push((row_start, k, row_h));
            row_start = k;
            x = PAD;
            y += row_h + ISLAND_GAP;
            row_h = 0.0;
        }
        move_island(b, x, y);
        x += b.rect.w + ISLAND_GAP;
        width = width.max(x - ISLAND_GAP);
        row_h = row_h.max(b.rect.h);
    }
    // On a narrow screen "new island" is a short strip under the islands, across the width,
    // instead of a column that would take half of it.
    let narrow = avail < NARROW;
    if narrow || (x > PAD && x + NEW_W > avail - PAD) {
        rows.push((row_start, boxes.len(), row_h));
        row_start = boxes.len();
        x = PAD;
        y += row_h + ISLAND_GAP;
        row_h = if narrow { NEW_STRIP_H } else { 90.0 };
    }
    rows.push((
        row_start,
        boxes.len(),
        row_h.max(if narrow { NEW_STRIP_H } else { 90.0 }),
    ));
    // Islands of a row share its height (the row reads as one band).
    for &(a, b, h) in &rows {
        for isl in &mut boxes[a..b] {
            isl.rect.h = h;
        }
    }
    let last_h = rows.last().map_or(90.0, |r| r.2);
    let new_w = if narrow {
        (width - PAD).max(NEW_W)
    } else {
        NEW_W
    };
    let new_island = Rect {
        x,
        y,
        w: new_w,
        h: last_h,
    };
    width = width.max(x + new_w);
    Layout {
        width: width + PAD,
        height: y + last_h + PAD,
        partitioned,
        islands: boxes,
        new_island,
    }
}

fn move_island(b: &mut IslandBox, dx: f64, dy: f64) {
    b.rect = b.rect.shift(dx, dy);
    for c in &mut b.columns {
        c.header = c.header.shift(dx, dy);
        if let Some((r, _)) = &mut c.summary {
            *r = r.shift(dx, dy);
        }
        for (_, r, _) in &mut c.hosts {
            *r = r.shift(dx, dy);
        }
    }
}

/// State → (css class, words). The words are always drawn: colour is never the only signal.
fn state_words(h: &HostView) -> (&'static str, String) {
    state_words_in(h, false)
}

/// [`state_words`], shorter for a tile ("DOWN" without why).
fn state_words_in(h: &HostView, short: bool) -> (&'static str, String) {
    let mut words = match h.state {
        HostState::Up => t("up"),
        HostState::Down if short => t("DOWN"),
        HostState::Down => t("DOWN (crashed)"),
        HostState::Terminated => t("terminated (spot)"),
        HostState::Standby => t("standby, not joined"),
    }
    .to_string();
    if h.isolated {
        words = tf(format_args!("{words} · isolated"));
    }
    let class = match h.state {
        HostState::Up if h.isolated => "isolated",
        HostState::Up => "up",
        HostState::Down => "down",
        HostState::Terminated => "terminated",
        HostState::Standby => "standby",
    };
    (class, words)
}

/// One line for the etcd member, and its role class.
fn etcd_words(h: &HostView) -> Option<(&'static str, String)> {
    let m = h.etcd.as_ref()?;
    let class = match m.role {
        MemberRole::Leader => "leader",
        MemberRole::Follower => "follower",
        MemberRole::Candidate | MemberRole::PreCandidate => "candidate",
        MemberRole::Removed | MemberRole::Stopped => "inactive",
    };
    let voter = m.voter || matches!(m.role, MemberRole::Stopped | MemberRole::Removed);
    let role = match m.role {
        MemberRole::Leader => t("leader"),
        MemberRole::Follower => t("follower"),
        MemberRole::Candidate => t("candidate"),
        MemberRole::PreCandidate => t("pre-candidate"),
        MemberRole::Removed => t("removed"),
        MemberRole::Stopped => t("stopped"),
    };
    Some((
        class,
        if voter {
            tf(format_args!("etcd {role}, term {}", m.term))
        } else {
            tf(format_args!("etcd {role}, term {} (not a voter)", m.term))
        },
    ))
}

/// The apiserver: ready / UNREADY (running, its etcd view not synced) / restarting / stopped.
fn apiserver_words(h: &HostView) -> Option<(&'static str, String)> {
    let a = h.apiserver.as_ref()?;
    let (class, words) = match (a.running, a.ready) {
        (true, true) => ("ok", t("apiserver: ready")),
        (true, false) => ("warn", t("apiserver: UNREADY")),
        _ if h.state == HostState::Up => ("bad", t("apiserver: restarting")),
        _ => ("inactive", t("apiserver: stopped")),
    };
    Some((class, words.to_string()))
}

/// A leader-elected component: leader / standby / restarting (stopped when the host is down).
fn leading_words(
    h: &HostView,
    what: &str,
    state: Option<LeaderRole>,
) -> Option<(&'static str, String)> {
    Some(match state? {
        LeaderRole::Leader => ("leader", tf(format_args!("{what}: leader"))),
        LeaderRole::Standby => ("follower", tf(format_args!("{what}: standby"))),
        LeaderRole::Restarting if h.state == HostState::Up => {
            ("bad", tf(format_args!("{what}: restarting")))
        }
        LeaderRole::Restarting => ("inactive", tf(format_args!("{what}: stopped"))),
    })
}

/// The Node as the API has it: Ready / NotReady / Unknown, then one line per taint that matters.
fn node_badges(h: &HostView) -> Vec<(&'static str, String)> {
    let Some(n) = &h.node else {
        let node_role = h
            .roles
            .iter()
            .any(|r| *r == "worker" || *r == "control-plane");
        return if node_role {
            vec![("inactive", ts("Node: not registered"))]
        } else {
            Vec::new()
        };
    };
    let mut out = match n.stale_after {
        // The API still says Ready, but the kubelet stopped renewing: say when that changes.
        Some(at) if n.ready == "Ready" => vec![
            ("warn", ts("Node Ready, lease stale")),
            if n.watched {
                // The controller's own grace period runs out at `at` (from when it saw the
                // lease change); its next passes mark it.
                (
                    "warn",
                    tf(format_args!(
                        "NotReady ≈ {}–{}",
                        crate::fmt::fmt_t(at.ceil()),
                        crate::fmt::fmt_t(at.ceil() + 10.0)
                    )),
                )
            } else {
                ("warn", ts("stays Ready: no controller"))
            },
        ],
        _ => vec![(
            if n.ready == "Ready" { "ok" } else { "bad" },
            tf(format_args!("Node {}", n.ready)),
        )],
    };
    for taint in &n.taints {
        match taint.as_str() {
            "node.kubernetes.io/unreachable" => out.push(("warn", ts("tainted unreachable"))),
            "node.kubernetes.io/not-ready" => out.push(("warn", ts("tainted not-ready"))),
            "node.kubernetes.io/unschedulable" => out.push(("warn", ts("cordoned"))),
            "node-role.kubernetes.io/control-plane" => {}
            // An operator's (`kubectl taint`): no pod here tolerates it.
            key => out.push(("warn", tf(format_args!("tainted {key}")))),
        }
    }
    // What its pods request of its allocatable (the scheduler's room), when capacity is given.
    if let Some(f) = &h.fill {
        let pct = |used: u64, of: u64| (used * 100).checked_div(of).unwrap_or(0);
        let (cpu, mem) = (
            pct(f.cpu, f.cpu_allocatable),
            pct(f.memory, f.memory_allocatable),
        );
        let class = if cpu.max(mem) >= 90 { "warn" } else { "ok" };
        out.push((
            class,
            tf(format_args!("requests: cpu {cpu} % · mem {mem} %")),
        ));
    }
    out
}

/// "Pending (no Node fits): web ×2, db ×1", per workload in first-seen order.
fn pending_words(pending: &[sim::view::PodView]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for p in pending {
        match counts.iter_mut().find(|(w, _)| *w == p.workload) {
            Some((_, n)) => *n += 1,
            None => counts.push((&p.workload, 1)),
        }
    }
    let parts: Vec<String> = counts.iter().map(|(w, n)| format!("{w} ×{n}")).collect();
    tf(format_args!("Pending (no Node fits): {}", parts.join(", ")))
}

/// The short state of a tile: the host's state when it is not up, else its Node's.
fn tile_words(h: &HostView) -> (&'static str, String) {
    if h.state != "up" || h.isolated {
        return state_words_in(h, true);
    }
    match &h.node {
        Some(n)
            if n.ready == "Ready"
                && n.taints
                    .iter()
                    .any(|t| t == "node.kubernetes.io/unschedulable") =>
        {
            ("up", ts("Ready, cordoned"))
        }
        Some(n) if n.ready == "Ready" => ("up", "Ready".into()),
        Some(n)
            if n.taints
                .iter()
                .any(|t| t == "node.kubernetes.io/unreachable") =>
        {
            ("notready", format!("{}·taint", n.ready))
        }
        Some(n) => ("notready", n.ready.to_string()),
        None => ("standby", ts("not registered")),
    }
}

/// The sentence a screen reader hears for a host: its state and every component's, then what to
/// do with it where something can be done (not in the embed view, a picture only).
pub fn host_aria(h: &HostView, interactive: bool) -> String {
    let (_, state) = state_words(h);
    let roles = h.roles.join(", ");
    let mut parts = vec![state];
    parts.extend(etcd_words(h).map(|(_, w)| w));
    parts.extend(apiserver_words(h).map(|(_, w)| w));
    parts.extend(leading_words(h, "controller-manager", h.controller_manager).map(|(_, w)| w));
    parts.extend(leading_words(h, "scheduler", h.scheduler).map(|(_, w)| w));
    parts.extend(node_badges(h).into_iter().map(|(_, w)| w));
    if !h.lb_backends.is_empty() {
        let b: Vec<String> = h
            .lb_backends
            .iter()
            .map(|b| {
                let (n, c) = (&b.name, b.connections);
                if b.in_service {
                    tf(format_args!("{n} in service ({c} connections)"))
                } else {
                    tf(format_args!("{n} out of service ({c} connections)"))
                }
            })
            .collect();
        parts.push(tf(format_args!("backends: {}", b.join(", "))));
    }
    match h.pods.len() {
        0 => {}
        1 => parts.push(ts("1 pod running")),
        n => parts.push(tf(format_args!("{n} pods running"))),
    }
    if h.spot {
        parts.push(ts("spot instance"));
    }
    let label = tf(format_args!(
        "{} ({roles}) in {}: {}.",
        h.name,
        h.zone,
        parts.join(", ")
    ));
    if interactive {
        label + " " + t("Press Enter for actions; drag to move it to another network island.")
    } else {
        label
    }
}

#[derive(Properties, PartialEq)]
pub struct Props {
    /// Compared by pointer: the page keeps the same snapshot while the view does not move.
    pub snapshot: crate::shared::Shared<Snapshot>,
    /// The scenario's workloads (palette order) and their desired replicas now.
    pub workloads: Rc<Vec<WorkloadInfo>>,
    pub selection: Option<crate::ui::Selection>,
    /// False in the embed view: nothing to click, drag or focus (it is a picture of the run).
    #[prop_or(true)]
    pub interactive: bool,
    /// A press without a drag, or Enter: open the item's menu.
    pub on_select: Callback<Item>,
    /// A press on empty space: close any menu.
    pub on_background: Callback<()>,
    /// The zone whose workers are drawn one by one although the cluster is drawn in cells.
    #[prop_or_default]
    pub zoomed: Option<String>,
    /// A drop onto an island or onto "new island".
    pub on_move: Callback<(Item, Target)>,
    /// A drag dropped where nothing takes it.
    #[prop_or_default]
    pub on_miss: Callback<Item>,
    /// The menu for the selected item (rendered by the parent, placed here under the item).
    pub children: Html,
}

/// The topology. It stays one function of about 180 lines because it builds the one keyed
/// layer of the drawing (zone headers, zone summaries, host boxes and cell groups, in layout
/// order): Yew moves a keyed child within one list, so a host that changes island is moved, not
/// drawn again; the pieces that need no keys are their own functions.
#[function_component(Topology)]
pub fn topology(props: &Props) -> Html {
    let snap = &props.snapshot;
    let scroll_ref = use_node_ref();
    let avail = crate::width::use_width(scroll_ref.clone());
    let lay = layout(snap, avail, props.zoomed.as_deref());
    let targets: Vec<(Target, Rect)> = lay
        .islands
        .iter()
        .map(|i| (Target::Island(i.id), i.rect))
        .chain(std::iter::once((Target::NewIsland, lay.new_island)))
        .collect();
    let drag = drag::use_drag(
        targets,
        props.on_select.clone(),
        props.on_move.clone(),
        props.on_miss.clone(),
    );
    let (start, svg_ref, dock_ref) = (
        drag.start.clone(),
        drag.svg_ref.clone(),
        drag.dock_ref.clone(),
    );
    // Stable callbacks for the host boxes, so an unchanged host is not drawn again.
    let host_down = {
        let start = start.clone();
        use_callback((), move |(item, e): (Item, PointerEvent), _| {
            start(item).emit(e)
        })
    };
    let on_select_now = use_mut_ref(|| props.on_select.clone());
    *on_select_now.borrow_mut() = props.on_select.clone();
    let host_key = use_callback((), move |(item, e): (Item, KeyboardEvent), _| {
        if e.key() == "Enter" || e.key() == " " {
            e.prevent_default();
            let cb = on_select_now.borrow().clone();
            cb.emit(item);
        }
    });
    let key = |item: Item| {
        let on_select = props.on_select.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" || e.key() == " " {
                e.prevent_default();
                on_select.emit(item.clone());
            }
        })
    };

    let (dragging, hover) = (drag.dragging.clone(), drag.hover);
    let selected = |item: &Item| match (&props.selection, item) {
        (Some(crate::ui::Selection::Host(a)), Item::Host(b))
        | (Some(crate::ui::Selection::Zone(a)), Item::Zone(b)) => a == b,
        _ => false,
    };
    let wl = &props.workloads;
    let dups = duplicates(snap, wl);
    let marks = Rc::new(dup_marks(snap, &dups));

    let mut items: Vec<Html> = Vec::new();
    // Cells groups in drawing order: the first drawing reveals them a few per frame.
    let mut groups_drawn = 0usize;
    // A booting cluster runs no pod yet; once it does, every cell changes at once, so its groups
    // are drawn anew, a few a frame (see [`CellsProps::order`]), not all in one long task.
    let booted = snap.hosts.iter().any(|h| !h.pods.is_empty());
    let zoomable = draws_cells(snap);
    for isl in &lay.islands {
        for c in &isl.columns {
            let item = Item::Zone(c.zone.clone());
            // In the embed view a picture only: no menu, no drag, no focus.
            let on = props.interactive;
            let wiring = on.then(|| (start(item.clone()), key(item.clone())));
            let header = ZoneHeader {
                isl: isl.id,
                column: c,
                selected: selected(&item),
                zoomable,
            };
            items.push(header.view(wiring));
            if let Some((r, (counts, states))) = &c.summary {
                // Narrowed to the zone's width when a line is longer (about 6 px a character).
                let fit = |t: &str| (t.chars().count() as f64 * 6.0 > r.w).then(|| r.w.px());
                items.push(html! {
                    <g key={format!("summary {} {}", isl.id, c.zone)}>
                        <text class="zone-summary" x={r.x.px()} y={(r.y + 12.0).px()} textLength={fit(counts)} lengthAdjust="spacingAndGlyphs">{ counts }</text>
                        <text class="zone-summary-states" x={r.x.px()} y={(r.y + 26.0).px()} textLength={fit(states)} lengthAdjust="spacingAndGlyphs">{ states }</text>
                    </g>
                });
            }
            let (cells, boxes): (Vec<_>, Vec<_>) = c
                .hosts
                .iter()
                .copied()
                .partition(|(_, _, look)| *look == Look::Cell);
            for (i, r, look) in boxes {
                let hv = &snap.hosts[i];
                let item = Item::Host(hv.name.clone());
                let dup = marks[i].clone();
                items.push(html! {
                    <HostBox key={format!("host {}", hv.name)} hv={hv.clone()} rect={r} look={look} selected={selected(&item)} later={zoomable}
                        interactive={props.interactive} workloads={props.workloads.clone()} {dup}
                        on_down={host_down.clone()} on_key={host_key.clone()} />
                });
            }
            for group in cells.chunks(CELLS_PER_GROUP) {
                let order = groups_drawn;
                groups_drawn += 1;
                let cells: Vec<_> = group
                    .iter()
                    .map(|&(i, r, _)| (i, r, selected(&Item::Host(snap.hosts[i].name.clone()))))
                    .collect();
                let key = format!(
                    "{} {}",
                    if booted { "cells" } else { "boot" },
                    snap.hosts[cells[0].0].name
                );
                items.push(html! {
                    <Cells {key} snapshot={props.snapshot.clone()}
                        {cells} marks={marks.clone()} {order}
                        interactive={props.interactive} on_down={host_down.clone()} on_key={host_key.clone()} />
                });
            }
        }
    }

    let n = lay.new_island;
    let new_class = classes!(
        "new-island",
        dragging.is_some().then_some("active"),
        (hover == Some(Target::NewIsland)).then_some("drop-hover")
    );
    let ghost = dragging.as_ref().map(|(item, x, y, _)| {
        let label = match item {
            Item::Host(h) => h.clone(),
            Item::Zone(z) => tf(format_args!("zone {z}")),
        };
        html! {
            <g class="ghost" pointer-events="none">
                <rect x={(x - 60.0).px()} y={(y - 14.0).px()} width="120" height="28" rx="6" />
                <text x={x.px()} y={(y + 5.0).px()} text-anchor="middle">{ label }</text>
            </g>
        }
    });
    let menu_at = props
        .selection
        .as_ref()
        .and_then(|sel| anchor(snap, &lay, sel));

    let legend = legend(snap, wl, &dups);

    html! {
        // The menu sits in the wrapper, outside the scrolling box, so it can overlap what is below.
        <div class="topology-wrap">
            // A list whose length changes goes in as one node: Yew matches unkeyed siblings from
            // the end, so a legend or a drag ghost appearing would otherwise shift every host
            // onto its neighbour's place and draw the whole cluster anew.
            <div class="topology-scroll" ref={scroll_ref}>
                <svg ref={svg_ref.clone()} class="topology" width={lay.width.px()} height={lay.height.px()}
                     role="group" aria-label={t("Cluster topology: network islands, zones and hosts")}
                     onpointermove={drag.onpointermove.clone()} onpointerup={drag.onpointerup.clone()} onpointercancel={drag.onpointercancel.clone()}>
                    <rect class="background" x="0" y="0" width={lay.width.px()} height={lay.height.px()}
                          onpointerdown={props.on_background.reform(|_: PointerEvent| ())} />
                    <>{ for island_backgrounds(&lay, hover) }</>
                    <>{ for items }</>
                    if props.interactive {
                    <g class={new_class}>
                        <rect x={n.x.px()} y={n.y.px()} width={n.w.px()} height={n.h.px()} rx="10" />
                        <text x={(n.x + n.w / 2.0).px()} y={(n.y + n.h / 2.0 - 8.0).px()} text-anchor="middle">{ t("Drop here:") }</text>
                        <text x={(n.x + n.w / 2.0).px()} y={(n.y + n.h / 2.0 + 10.0).px()} text-anchor="middle">{ t("new island") }</text>
                    </g>
                    }
                    <>{ for ghost }</>
                </svg>
            </div>
            <>{ for legend }</>
            if dragging.is_some() {
                <div ref={dock_ref} class={classes!("drop-dock", (hover == Some(Target::NewIsland)).then_some("drop-hover"))}>
                    { t("Drop here: new island (cut it off from the rest)") }
                </div>
            }
            if let Some((x, y)) = menu_at {
                <div class="menu-anchor" style={format!("left:{}px;top:{}px", x.px(), y.px())}>{ props.children.clone() }</div>
            }
        </div>
    }
}

/// The pods' legend under the topology: the workloads that have pods (palette order), the
/// duplicates marked, the pods no node could take.
fn legend(snap: &Snapshot, wl: &[WorkloadInfo], dups: &[(String, u32, u32)]) -> Option<Html> {
    // Which workloads have pods at all (the legend lists only those, in palette order).
    let present: Vec<&WorkloadInfo> = wl
        .iter()
        .filter(|w| {
            snap.hosts
                .iter()
                .any(|h| h.pods.iter().any(|p| p.workload == w.name))
        })
        .collect();
    // Where several masters are drawn, say at once that they are not all alike.
    let masters = snap.hosts.iter().filter(|h| h.apiserver.is_some()).count();
    let balancer = snap.hosts.iter().any(|h| !h.lb_backends.is_empty());
    (!present.is_empty() || masters > 1).then(|| {
        html! {
            <div class="legend" aria-label={t("Pods by workload")}>
                if masters > 1 {
                    <span class="legend-note masters">{ tf(format_args!(
                        "{masters} masters: every apiserver serves at once; etcd, the controller-manager and the scheduler each have one leader, the others stand by."
                    )) }</span>
                }
                if balancer {
                    <span class="legend-note balancer">{ t(
                        "Load balancer: ✓ in service, ✗ out; the number is how many clients (kubelets, kube-proxies…) are connected to that apiserver: they stay until their connection ends."
                    ) }</span>
                }
                if !present.is_empty() {
                    <span class="legend-title">{ t("Pods:") }</span>
                }
                { for present.iter().map(|w| {
                    let dup = dups.iter().find(|(n, _, _)| n == &w.name);
                    html! {
                        <span class={classes!("legend-item", dup.is_some().then_some("dup"))} data-workload={w.name.clone()}>
                            <span class={classes!("swatch", workload_class(wl, &w.name))} aria-hidden="true">{ initial(&w.name) }</span>
                            { match dup {
                                Some((n, run, des)) => tf(format_args!("{n}: {run} running of {des} — DUPLICATES")),
                                None => w.name.clone(),
                            } }
                        </span>
                    }
                }) }
                if !dups.is_empty() {
                    <span class="legend-note">{ t("Outlined black: a copy running beyond the desired count.") }</span>
                }
                if !snap.pending.is_empty() {
                    <span class="legend-item pending" data-pending={snap.pending.len().to_string()}
                          title={snap.pending.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")}>
                        { pending_words(&snap.pending) }
                    </span>
                }
            </div>
        }
    })
}

/// Islands are drawn as backgrounds; zone headers and hosts go on one keyed layer above them
/// (in layout order, which is also the keyboard's order), so a host that changes island at a
/// partition or a heal is only moved (its `transform`), not drawn again in another parent.
fn island_backgrounds(lay: &Layout, hover: Option<Target>) -> Vec<Html> {
    lay.islands.iter().enumerate().map(|(n, isl)| {
        let r = isl.rect;
        let class = classes!(
            "island",
            format!("island-{}", n % 4),
            (!lay.partitioned).then_some("whole"),
            (hover == Some(Target::Island(isl.id))).then_some("drop-hover")
        );
        html! {
            <g key={format!("island {}", isl.id)} data-island={isl.label.clone()} aria-label={format!("{}: {}", isl.label, isl.detail)} role="group">
                <rect class={class} x={r.x.px()} y={r.y.px()} width={r.w.px()} height={r.h.px()} rx="10" />
                <text class="island-label" x={(r.x + 10.0).px()} y={(r.y + 16.0).px()}>{ &isl.label }</text>
                <text class="island-detail" x={(r.x + 10.0).px()} y={(r.y + 30.0).px()}>{ &isl.detail }</text>
            </g>
        }
    }).collect()
}

/// A zone's header in the topology: its name, and (when the page is interactive) its menu and
/// drag handle.
struct ZoneHeader<'a> {
    isl: u32,
    column: &'a Column,
    selected: bool,
    /// The cluster is drawn in cells: the zone's menu also zooms in on its workers.
    zoomable: bool,
}

impl ZoneHeader<'_> {
    /// `wiring`: the press that starts a drag and the keys that open the menu; `None` in the
    /// embed view (a picture only: no menu, no drag, no focus).
    fn view(&self, wiring: Option<(Callback<PointerEvent>, Callback<KeyboardEvent>)>) -> Html {
        let (c, h, on) = (self.column, self.column.header, wiring.is_some());
        let (zone_aria, tip) = match (on, self.zoomable) {
            (false, _) => (None, None),
            (true, true) => (
                Some(tf(format_args!("Zone {}: press Enter to move it to another network island, or see each of its workers, or drag it.", c.zone))),
                Some(tf(format_args!("Zone {}: click to move it to another network island, or see each of its workers; drag it to cut it off.", c.zone))),
            ),
            (true, false) => (
                Some(tf(format_args!("Zone {}: press Enter to move it to another network island, or drag it.", c.zone))),
                Some(tf(format_args!("Zone {}: click to move it to another network island; drag it to cut it off.", c.zone))),
            ),
        };
        let (down, key) = wiring.unzip();
        html! {
            <g key={format!("zone {} {}", self.isl, c.zone)} class={classes!("zone", self.selected.then_some("selected"), (!on).then_some("static"))}
               tabindex={on.then_some("0")} role={on.then_some("button")} aria-label={zone_aria}
               aria-haspopup={on.then_some("menu")} data-zone={c.zone.clone()}
               onpointerdown={down} onkeydown={key}>
                <rect x={h.x.px()} y={h.y.px()} width={h.w.px()} height={h.h.px()} rx="4" />
                <text x={(h.x + h.w / 2.0).px()} y={(h.y + 15.0).px()} text-anchor="middle">{ if on { format!("⠿ {}", c.zone) } else { format!("zone {}", c.zone) } }</text>
                if let Some(tip) = tip {
                    <title>{ tip }</title>
                }
            </g>
        }
    }
}

fn initial(name: &str) -> String {
    name.chars()
        .next()
        .map(|c| c.to_ascii_uppercase().to_string())
        .unwrap_or_default()
}

/// A badge line. Words a little too long for it are narrowed to fit (`textLength`); the full
/// words are its tooltip either way.
fn badge(x: f64, y: f64, w: f64, class: &str, words: String) -> Html {
    // About 6.3 px a character at the badge's 11 px (bold is wider).
    let per_char = if matches!(class, "leader" | "candidate" | "warn" | "bad") {
        6.9
    } else {
        6.3
    };
    let room = w - 8.0;
    let fit = (words.chars().count() as f64 * per_char > room).then(|| room.px());
    html! {
        <g class="badge">
            <title>{ &words }</title>
            <rect class={classes!("badge-box", class.to_string())} x={x.px()} y={y.px()} width={w.px()} height={(BADGE_H - 3.0).px()} rx="3" />
            <text class={classes!("badge-text", class.to_string())} x={(x + 4.0).px()} y={(y + 11.5).px()} textLength={fit} lengthAdjust="spacingAndGlyphs">{ words }</text>
        </g>
    }
}

fn pod_chips(
    h: &HostView,
    x0: f64,
    y0: f64,
    tile: bool,
    wl: &[WorkloadInfo],
    dup: &[bool],
) -> Html {
    let per_row = chips_per_row(tile);
    let (size, step) = if tile {
        (TILE_CHIP, TILE_CHIP_STEP)
    } else {
        (CHIP, CHIP_STEP)
    };
    html! {
        { for h.pods.iter().map(|p| (p, false)).chain(h.terminating.iter().map(|p| (p, true))).enumerate().map(|(k, (p, terminating))| {
            let (cx, cy) = (x0 + (k % per_row) as f64 * step, y0 + (k / per_row) as f64 * step);
            let dup = !terminating && dup.get(k).copied().unwrap_or(false);
            let class = classes!("pod", workload_class(wl, &p.workload), dup.then_some("dup"), terminating.then_some("terminating"));
            let title = if terminating {
                tf(format_args!("{} ({}) — Terminating: the API waits for this node's kubelet to confirm it stopped", p.name, p.workload))
            } else if dup {
                tf(format_args!("{} ({}) — a duplicate: {} runs more pods than desired", p.name, p.workload, p.workload))
            } else {
                format!("{} ({})", p.name, p.workload)
            };
            html! {
                <g class={class} data-pod={p.name.clone()} data-workload={p.workload.clone()}>
                    <rect x={cx.px()} y={cy.px()} width={size.px()} height={size.px()} rx="2" />
                    if !tile {
                        <text x={(cx + size / 2.0).px()} y={(cy + 9.0).px()} text-anchor="middle">{ initial(&p.workload) }</text>
                    }
                    <title>{ title }</title>
                </g>
            }
        }) }
    }
}

/// A full host box: name, roles, state, one badge per component, backends, pods.
fn host_body(hv: &HostView, r: Rect, wl: &[WorkloadInfo], dup: &[bool]) -> Html {
    let (_, state) = state_words(hv);
    let mut badges: Vec<(&str, String)> = Vec::new();
    badges.extend(etcd_words(hv));
    badges.extend(apiserver_words(hv).map(|(c, w)| (c, w.to_string())));
    badges.extend(leading_words(hv, "controller-mgr", hv.controller_manager));
    badges.extend(leading_words(hv, "scheduler", hv.scheduler));
    badges.extend(node_badges(hv));
    let bw = r.w - 8.0;
    let mut y = r.y + HOST_TOP - 4.0;
    let mut parts = Vec::new();
    for (class, words) in badges {
        parts.push(badge(r.x + 4.0, y, bw, class, words));
        y += BADGE_H;
    }
    // The load balancer's backends: in service or out, three to a row.
    let cw = (bw - 2.0 * 3.0) / BACKENDS_PER_ROW as f64;
    for row in hv.lb_backends.chunks(BACKENDS_PER_ROW) {
        for (k, b) in row.iter().enumerate() {
            let x = r.x + 4.0 + k as f64 * (cw + 3.0);
            let (name, up, n) = (&b.name, b.in_service, b.connections);
            let (class, mark) = if up { ("ok", "✓") } else { ("out", "✗") };
            // The clients' connections it holds: out of service, they stay until they end.
            let title = if up {
                tf(format_args!(
                    "backend {name}: in service, {n} clients connected"
                ))
            } else {
                tf(format_args!("backend {name}: out of service (failed health checks); {n} clients still connected"))
            };
            parts.push(html! {
                <g class={classes!("backend", class)} data-backend={name.clone()} data-in-service={up.to_string()} data-connections={n.to_string()}>
                    <rect x={x.px()} y={y.px()} width={cw.px()} height={(BADGE_H - 3.0).px()} rx="3" />
                    <text x={(x + 4.0).px()} y={(y + 11.5).px()}>{ format!("{mark} {name}") }</text>
                    <text class="count" x={(x + cw - 3.0).px()} y={(y + 11.5).px()} text-anchor="end">{ n.to_string() }</text>
                    <title>{ title }</title>
                </g>
            });
        }
        y += BADGE_H;
    }
    html! {
        <>
            <rect class="box" x={r.x.px()} y={r.y.px()} width={r.w.px()} height={r.h.px()} rx="6" />
            <text class="name" x={(r.x + 8.0).px()} y={(r.y + 16.0).px()}>{ &hv.name }</text>
            if hv.spot {
                <text class="tag" x={(r.x + r.w - 8.0).px()} y={(r.y + 16.0).px()} text-anchor="end">{ "spot" }</text>
            }
            if hv.vip {
                <g class="vip" data-vip="true">
                    <text class="tag vip" x={(r.x + r.w - if hv.spot { 40.0 } else { 8.0 }).px()} y={(r.y + 16.0).px()} text-anchor="end">{ "VIP" }</text>
                    <title>{ tf(format_args!("{} holds the API's virtual IP: clients and kubelets that reach it use its apiserver", hv.name)) }</title>
                </g>
            }
            <text class="roles" x={(r.x + 8.0).px()} y={(r.y + 30.0).px()}>{ hv.roles.join(" · ") }</text>
            <text class="state" x={(r.x + 8.0).px()} y={(r.y + 44.0).px()}>{ state }</text>
            <>{ for parts }</>
            { pod_chips(hv, r.x + 4.0, y + 1.0, false, wl, dup) }
        </>
    }
}

/// A cell (a plain worker of a large cluster), as SVG markup inside its group (see [`Cells`]):
/// its pod count, drawn orange when its Node is not Ready, or "✗" when the host is down or gone.
/// The words are in its label and tooltip; a copy running beyond the desired count outlines it.
fn cell_inner(out: &mut String, hv: &HostView, r: Rect, dup: &[bool]) {
    let (class, words) = tile_words(hv);
    let n = hv.pods.len();
    let mark = match class {
        "up" | "notready" | "standby" => n.to_string(),
        _ => "✗".to_string(),
    };
    let dup = dup.iter().any(|&d| d);
    let name = &hv.name;
    let title = match (n, dup) {
        (1, false) => tf(format_args!("{name}: {words}, 1 pod")),
        (1, true) => tf(format_args!(
            "{name}: {words}, 1 pod, a duplicate among them"
        )),
        (n, false) => tf(format_args!("{name}: {words}, {n} pods")),
        (n, true) => tf(format_args!(
            "{name}: {words}, {n} pods, a duplicate among them"
        )),
    };
    out.push_str(&format!(
        r#"<rect class="box{}" width="{}" height="{}" rx="3"/><text class="count" x="{}" y="{}">{mark}</text><title>{}</title>"#,
        if dup { " dup" } else { "" },
        r.w.px(),
        r.h.px(),
        (r.w / 2.0).px(),
        (r.h / 2.0 + 4.0).px(),
        escape(&title)
    ));
}

/// At most this many cells are drawn by one [`Cells`].
const CELLS_PER_GROUP: usize = 50;
/// Groups of cells that first appear in one frame, from the frame after the topology's first.
const GROUPS_PER_FRAME: usize = 1;

#[derive(Properties)]
struct CellsProps {
    snapshot: crate::shared::Shared<Snapshot>,
    /// The group's cells: the host's index in the snapshot, its place, whether it is selected.
    cells: Vec<(usize, Rect, bool)>,
    /// Per host, per pod: drawn as a duplicate.
    marks: Rc<Vec<Vec<bool>>>,
    /// The group's place among the topology's groups: the first drawing of a thousand cells at
    /// once is a task of a tenth of a second (the browser's style and layout), so groups appear
    /// [`GROUPS_PER_FRAME`] a frame, and a group's markup is built only once it is shown.
    order: usize,
    interactive: bool,
    on_down: Callback<(Item, PointerEvent)>,
    on_key: Callback<(Item, KeyboardEvent)>,
}

/// A group is the same while its cells' hosts are: compared host by host, not by snapshot, as
/// playing a large cluster changes a few hosts a frame, and building every group's markup again
/// for each frame took most of the page's time.
impl PartialEq for CellsProps {
    fn eq(&self, o: &Self) -> bool {
        let (a, b) = (&self.snapshot.hosts, &o.snapshot.hosts);
        let same = (&self.cells, &self.marks, self.order, self.interactive)
            == (&o.cells, &o.marks, o.order, o.interactive)
            && (&self.on_down, &self.on_key) == (&o.on_down, &o.on_key);
        same && self.cells.iter().all(|c| a.get(c.0) == b.get(c.0))
    }
}

/// The cells of a large cluster's plain workers, a few dozen at a time, drawn from markup: as
/// components, a thousand cells cost the page 20,000 attribute writes and a quarter of a second
/// on every change (its longest tasks). A group is drawn again only when one of its cells
/// changes; a pointer or key on a cell reaches the topology through the group, by the cell's
/// `data-host`, and a cell that had the keyboard focus gets it back after a redraw.
#[function_component]
fn Cells(p: &CellsProps) -> Html {
    let shown = crate::frames::use_frames_passed(p.order / GROUPS_PER_FRAME + 1);
    let markup = AttrValue::from(if shown {
        cells_markup(&p.snapshot, &p.cells, &p.marks, p.interactive)
    } else {
        String::new()
    });
    // The host whose cell has the focus, to give it back when a redraw replaced the cell.
    let focused = use_mut_ref(|| None::<String>);
    {
        let focused = focused.clone();
        use_effect_with(markup.clone(), move |_| {
            let lost = gloo_utils::document()
                .active_element()
                .is_none_or(|a| a.tag_name().eq_ignore_ascii_case("body"));
            // Cloned first: focusing fires `focusin`, which writes `focused`.
            let name = focused.borrow().clone();
            if let (true, Some(name)) = (lost, name) {
                crate::menu::focus_selector(&format!("[data-host=\"{}\"]", escape(&name)));
            }
        });
    }
    let host_of = |e: &Event| -> Option<String> {
        let target = e.target()?.dyn_into::<web_sys::Element>().ok()?;
        target
            .closest("[data-host]")
            .ok()??
            .get_attribute("data-host")
    };
    let onfocusin = {
        let focused = focused.clone();
        Callback::from(move |e: FocusEvent| *focused.borrow_mut() = host_of(&e))
    };
    let onfocusout = Callback::from(move |e: FocusEvent| {
        // Focus moved elsewhere (not lost with a replaced cell): forget it.
        if e.related_target().is_some() {
            *focused.borrow_mut() = None;
        }
    });
    // In the embed view a picture only: nothing to press or focus.
    let on = p.interactive;
    let onpointerdown = on.then(|| {
        let cb = p.on_down.clone();
        Callback::from(move |e: PointerEvent| {
            if let Some(name) = host_of(&e) {
                cb.emit((Item::Host(name), e));
            }
        })
    });
    let onkeydown = on.then(|| {
        let cb = p.on_key.clone();
        Callback::from(move |e: KeyboardEvent| {
            if let Some(name) = host_of(&e) {
                cb.emit((Item::Host(name), e));
            }
        })
    });
    let (onfocusin, onfocusout) = (on.then_some(onfocusin), on.then_some(onfocusout));
    html! {
        <g class="cells" {onpointerdown} {onkeydown} {onfocusin} {onfocusout}>{ Html::from_html_unchecked(markup) }</g>
    }
}

/// The markup of some cells (see [`CellsProps::cells`]), each in its group as [`host_box`] draws
/// a host.
fn cells_markup(
    snap: &Snapshot,
    cells: &[(usize, Rect, bool)],
    marks: &[Vec<bool>],
    interactive: bool,
) -> String {
    // In one element: markup is put in and taken out node by node, one call each.
    let mut out = String::from("<g>");
    for &(i, r, selected) in cells {
        let hv = &snap.hosts[i];
        let class = format!(
            "host {} cell{}",
            tile_words(hv).0,
            if selected { " selected" } else { "" }
        );
        let transform = format!("translate({},{})", r.x.px(), r.y.px());
        let name = escape(&hv.name);
        // As `host_box` draws a host, in the embed view a picture only.
        let (role, focus) = if interactive {
            ("button", r#" tabindex="0" aria-haspopup="menu""#)
        } else {
            ("img", "")
        };
        out.push_str(&format!(
            r#"<g class="{class}"{focus} role="{role}" aria-label="{}" transform="{transform}" data-host="{name}">"#,
            escape(&host_aria(hv, interactive))
        ));
        cell_inner(&mut out, hv, r, &marks[i]);
        out.push_str("</g>");
    }
    out.push_str("</g>");
    out
}

/// A tile (a plain worker of a large cluster): name, short state, small chips.
fn tile_body(hv: &HostView, r: Rect, wl: &[WorkloadInfo], dup: &[bool]) -> Html {
    let (_, words) = tile_words(hv);
    html! {
        <>
            <rect class="box" x={r.x.px()} y={r.y.px()} width={r.w.px()} height={r.h.px()} rx="5" />
            <text class="name" x={(r.x + 5.0).px()} y={(r.y + 13.0).px()}>{ &hv.name }</text>
            <text class="state" x={(r.x + 5.0).px()} y={(r.y + 26.0).px()}>{ words }</text>
            { pod_chips(hv, r.x + 4.0, r.y + TILE_TOP - 3.0, true, wl, dup) }
        </>
    }
}

#[derive(Properties, PartialEq)]
struct HostBoxProps {
    hv: HostView,
    rect: Rect,
    look: Look,
    selected: bool,
    interactive: bool,
    workloads: Rc<Vec<WorkloadInfo>>,
    /// Per pod: drawn as a duplicate.
    dup: Vec<bool>,
    /// The box's contents come a frame after the box: in a large cluster, the first drawing of
    /// the page is then a short task, and the contents another.
    later: bool,
    on_down: Callback<(Item, PointerEvent)>,
    on_key: Callback<(Item, KeyboardEvent)>,
}

#[derive(Properties, PartialEq)]
struct HostBodyProps {
    hv: HostView,
    w: f64,
    h: f64,
    look: Look,
    workloads: Rc<Vec<WorkloadInfo>>,
    dup: Vec<bool>,
}

/// What a host box contains, drawn at its own origin: a host that only moves (the islands
/// changed) is not drawn again, only its group's `transform` changes.
#[function_component(HostBody)]
fn host_body_view(p: &HostBodyProps) -> Html {
    let r = Rect {
        x: 0.0,
        y: 0.0,
        w: p.w,
        h: p.h,
    };
    match p.look {
        // Cells are drawn by a group of them: see [`Cells`].
        Look::Cell => Html::default(),
        Look::Tile => tile_body(&p.hv, r, &p.workloads, &p.dup),
        Look::Full => host_body(&p.hv, r, &p.workloads, &p.dup),
    }
}

/// One host: a component of its own, so only hosts whose view changed are drawn again.
#[function_component(HostBox)]
fn host_box(p: &HostBoxProps) -> Html {
    let hv = &p.hv;
    let body = if crate::frames::use_frames_passed(p.later as usize) {
        html! {
            <HostBody hv={hv.clone()} w={p.rect.w} h={p.rect.h} look={p.look} workloads={p.workloads.clone()} dup={p.dup.clone()} />
        }
    } else {
        Html::default()
    };
    let transform = format!("translate({},{})", p.rect.x.px(), p.rect.y.px());
    let state_class = if p.look == Look::Full {
        state_words(hv).0
    } else {
        tile_words(hv).0
    };
    let look_class = match p.look {
        Look::Full => None,
        Look::Tile => Some("tile"),
        Look::Cell => Some("cell"),
    };
    let g_class = classes!(
        "host",
        state_class,
        look_class,
        p.selected.then_some("selected")
    );
    let item = Item::Host(hv.name.clone());
    // A picture only (the embed view): no focus, no menu.
    let onpointerdown = p.interactive.then(|| {
        let (item, cb) = (item.clone(), p.on_down.clone());
        Callback::from(move |e: PointerEvent| cb.emit((item.clone(), e)))
    });
    let onkeydown = p.interactive.then(|| {
        let cb = p.on_key.clone();
        Callback::from(move |e: KeyboardEvent| cb.emit((item.clone(), e)))
    });
    html! {
        <g class={g_class} tabindex={p.interactive.then_some("0")} role={if p.interactive { "button" } else { "img" }}
           aria-label={host_aria(hv, p.interactive)} {transform}
           aria-haspopup={p.interactive.then_some("menu")} data-host={hv.name.clone()} {onpointerdown} {onkeydown}>
            { body }
        </g>
    }
}

/// Where a menu for the selection goes: under the host box or zone header, in SVG pixels.
pub fn anchor(snap: &Snapshot, lay: &Layout, sel: &crate::ui::Selection) -> Option<(f64, f64)> {
    for isl in &lay.islands {
        for c in &isl.columns {
            match sel {
                crate::ui::Selection::Zone(z) if &c.zone == z => {
                    return Some((c.header.x, c.header.y + c.header.h + 2.0))
                }
                crate::ui::Selection::Host(h) => {
                    if let Some((_, r, _)) =
                        c.hosts.iter().find(|(i, _, _)| &snap.hosts[*i].name == h)
                    {
                        return Some((r.x, (r.y + 40.0).min(r.y + r.h - 4.0)));
                    }
                }
                _ => {}
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::world::World;

    fn snapshot_at(id: &str, t: f64) -> (Snapshot, Vec<WorkloadInfo>) {
        let s = crate::catalog::Ready::by_id(id).unwrap().scenario();
        let lanes = crate::charts::Lanes::of(&s);
        let mut w = World::new(s.clone());
        let until = w.at_report_secs(t);
        w.run_until(until, u64::MAX);
        (w.snapshot(), workload_infos(&s, &lanes, t))
    }

    #[test]
    fn the_layout_fits_the_width_it_is_given() {
        for r in crate::catalog::READY {
            let (snap, _) = snapshot_at(r.id, 0.0);
            for avail in [600.0, 760.0, 980.0, 1300.0] {
                let lay = layout(&snap, avail, None);
                assert!(
                    lay.width <= avail.max(HOST_W + 2.0 * (PAD + IPAD)) + 0.5,
                    "{} at {avail}: {}",
                    r.id,
                    lay.width
                );
                // Every host is placed once, inside its island.
                let placed: usize = lay
                    .islands
                    .iter()
                    .flat_map(|i| &i.columns)
                    .map(|c| c.hosts.len())
                    .sum();
                assert_eq!(placed, snap.hosts.len(), "{}", r.id);
                for isl in &lay.islands {
                    for (_, h, _) in isl.columns.iter().flat_map(|c| &c.hosts) {
                        assert!(
                            isl.rect.contains(h.x, h.y) && isl.rect.contains(h.x + h.w, h.y + h.h),
                            "{} at {avail}",
                            r.id
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_rack_split_shows_components_and_the_stale_duplicate() {
        let (snap, wl) = snapshot_at("4-rack-split", 540.0);
        let host = |n: &str| snap.hosts.iter().find(|h| h.name == n).unwrap();
        assert_eq!(node_badges(host("w2"))[0].1, "Node Unknown");
        assert_eq!(node_badges(host("w2"))[1].1, "tainted unreachable");
        assert_eq!(
            apiserver_words(host("m1")),
            Some(("ok", "apiserver: ready".to_string()))
        );
        assert_eq!(
            leading_words(host("m1"), "controller-mgr", host("m1").controller_manager)
                .unwrap()
                .1,
            "controller-mgr: leader"
        );
        let dups = duplicates(&snap, &wl);
        assert!(
            dups.iter().any(|(n, run, des)| n == "web" && run > des),
            "{dups:?}"
        );
        // The copy on the unreachable node is the one marked, not the live replacement.
        let marks = dup_marks(&snap, &dups);
        let marked = |h: &str| {
            marks[snap.hosts.iter().position(|x| x.name == h).unwrap()]
                .iter()
                .any(|&m| m)
        };
        assert!(!marked("w1"));
        assert!(marked("w2") || marked("w3"));
        assert!(
            host_aria(host("lb"), false).contains("backends: m1 in service (")
                && host_aria(host("lb"), false).contains(", m2 out of service ("),
            "{}",
            host_aria(host("lb"), false)
        );
    }

    /// What to do with a host is said where something can be done, in the page's language, and
    /// left out of the picture-only form in every language.
    #[test]
    fn a_host_is_told_what_to_do_with_it_only_where_it_can_be() {
        let (snap, _) = snapshot_at("4-rack-split", 0.0);
        let h = &snap.hosts[0];
        assert!(host_aria(h, true).ends_with("drag to move it to another network island."));
        assert!(!host_aria(h, false).contains("Enter"));
        for c in crate::language::catalogs() {
            let hint =
                c.text("Press Enter for actions; drag to move it to another network island.");
            assert!(
                !hint.contains("Press Enter"),
                "{}: the hint is not translated",
                c.lang().code()
            );
            let hint = hint.into_owned();
            crate::language::speak(c);
            let (with, without) = (host_aria(h, true), host_aria(h, false));
            assert!(with.ends_with(&hint), "{with}");
            assert!(
                !without.contains("Enter") && with.starts_with(&without),
                "{without}"
            );
        }
    }

    /// A large cluster: plain workers become cells under a summary line per zone, and the
    /// drawing stays within the width and of a readable height.
    #[test]
    fn a_large_cluster_draws_workers_as_cells() {
        let mut hosts = vec![
            r#"{"name":"etcd-1","zone":"rack-a","roles":["etcd","control-plane"]}"#.to_string(),
            r#"{"name":"lb","zone":"outside","roles":["load-balancer"]}"#.to_string(),
        ];
        for i in 1..=100 {
            hosts.push(format!(
                r#"{{"name":"w{i}","zone":"rack-{}","roles":["worker"]}}"#,
                if i % 2 == 0 { "b" } else { "a" }
            ));
        }
        let json = format!(
            r#"{{"version":1,"name":"big","duration":"1m","zones":["rack-a","rack-b","outside"],"hosts":[{}],
               "workloads":[{{"kind":"Deployment","name":"web","replicas":300}}]}}"#,
            hosts.join(",")
        );
        let s = sim::scenario::parse(&json).unwrap();
        let mut w = World::new(s);
        let until = w.at_report_secs(0.0);
        w.run_until(until, u64::MAX);
        let snap = w.snapshot();
        assert!(snap.hosts.len() > COMPACT_ABOVE);
        let lay = layout(&snap, 900.0, None);
        assert!(
            lay.width <= 900.5 && lay.height < 900.0,
            "{} × {}",
            lay.width,
            lay.height
        );
        let cols: Vec<&Column> = lay.islands.iter().flat_map(|i| &i.columns).collect();
        for c in &cols {
            for (i, r, look) in &c.hosts {
                let h = &snap.hosts[*i];
                assert_eq!(*look == Look::Cell, is_plain_worker(h), "{}", h.name);
                assert!(
                    lay.islands[0].rect.contains(r.x, r.y)
                        && lay.islands[0].rect.contains(r.x + r.w, r.y + r.h)
                );
            }
        }
        let a = cols.iter().find(|c| c.zone == "rack-a").unwrap();
        let (_, (counts, states)) = a.summary.as_ref().unwrap();
        let pods: usize = a
            .hosts
            .iter()
            .filter(|(_, _, l)| *l == Look::Cell)
            .map(|(i, _, _)| snap.hosts[*i].pods.len())
            .sum();
        assert_eq!(counts, &format!("50 workers · {pods} pods"));
        assert_eq!(states, "50 Ready");
        assert!(pods > 100, "{pods}");
        assert!(cols
            .iter()
            .find(|c| c.zone == "outside")
            .unwrap()
            .summary
            .is_none());
    }

    /// A group of cells is drawn again when one of its hosts changed, not because the snapshot
    /// is a new one (playing a large cluster changes a few hosts a frame).
    #[test]
    fn a_group_of_cells_is_drawn_again_only_when_one_of_its_hosts_changed() {
        let (snap, _) = snapshot_at("7-worker-dies", 0.0);
        let mut changed = snap.clone();
        let last = snap.hosts.iter().rposition(|h| !h.pods.is_empty()).unwrap();
        assert!(last > 2);
        Rc::make_mut(&mut changed.hosts[last].pods).pop();
        let r = Rect {
            x: 0.0,
            y: 0.0,
            w: CELL_W,
            h: CELL_H,
        };
        // Callbacks compare by identity: the topology keeps its own across renders.
        let (on_down, on_key) = (Callback::noop(), Callback::noop());
        let group = |snap: &Snapshot, cells: Vec<usize>| CellsProps {
            snapshot: crate::shared::Shared::new(Rc::new(snap.clone())),
            cells: cells.into_iter().map(|i| (i, r, false)).collect(),
            marks: Rc::new(vec![Vec::new(); snap.hosts.len()]),
            order: 0,
            interactive: true,
            on_down: on_down.clone(),
            on_key: on_key.clone(),
        };
        assert!(group(&snap, vec![0, 1]) == group(&changed, vec![0, 1]));
        assert!(group(&snap, vec![0, last]) != group(&changed, vec![0, last]));
        assert!(group(&snap, vec![0, 1]) != group(&snap, vec![0, 2]));
    }
}
