//! Charts over simulated time, hand-drawn in SVG from the report's per-second series:
//! fault windows, etcd quorum (shaded when lost), the etcd leader (one lane per member, leader
//! changes marked) and write availability, with one shared cursor. Clicking moves the cursor.
//! The drawing of the series is memoised on the report's version; only the cursor moves per frame.

use crate::fmt::{fmt_t, fmt_t_precise, Px, Short};
use crate::language::{mark, t as tr, tf as trf, translate, ts as trs};
use sim::record::{EventKind, LeaderSeries, Series};
use sim::report::Report;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

const RIGHT: f64 = 14.0;

/// The drawing's width in its own units and the width of its title column. The drawing
/// follows the figure's width in pixels (between a phone's and 960), so its text stays at its
/// size instead of shrinking with the screen; a narrow one gets a narrower title column.
fn geometry(pixels: f64) -> (f64, f64) {
    let w = if pixels > 0.0 {
        pixels.max(340.0).min(960.0)
    } else {
        960.0
    };
    // Wide figures give the row titles room for the longer languages ("etcd-Schreibvorgänge").
    let left = match w {
        w if w < 620.0 => 100.0,
        w if w < 900.0 => 150.0,
        _ => 175.0,
    };
    (w, left)
}
const ROW: f64 = 26.0;
const LANE: f64 = 17.0;
const GAP: f64 = 10.0;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub report: crate::shared::Shared<Report>,
    pub report_version: u64,
    pub duration: f64,
    pub cursor: f64,
    pub computed: f64,
    /// Hosts that can lead, one lane each per leader chart.
    pub lanes: Rc<Lanes>,
    pub on_seek: Callback<f64>,
    /// A moment marked with a label (the compare view's first difference).
    #[prop_or_default]
    pub mark: Option<(f64, String)>,
}

/// A fault in force between two times, from the report's events.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    pub t0: f64,
    pub t1: f64,
    pub text: String,
}

/// Fault windows: host down (crashed → started), spot notice (→ terminated), and network
/// faults (partition, isolation, one-way → heal; a new partition replaces the previous one).
pub fn fault_windows(report: &Report, end: f64) -> Vec<Window> {
    // Open windows by key ("down etcd-1", "net partition", …); closed ones in `done`.
    let mut done = Vec::new();
    let mut open: Vec<(String, Window)> = Vec::new();
    fn close(
        open: &mut Vec<(String, Window)>,
        done: &mut Vec<Window>,
        t: f64,
        pred: impl Fn(&str) -> bool,
    ) {
        open.retain(|(k, w)| {
            let hit = pred(k);
            if hit {
                done.push(Window { t1: t, ..w.clone() });
            }
            !hit
        });
    }
    for e in &report.events {
        let host = e.host.clone().unwrap_or_default();
        let t = e.t;
        let window = |text: String| Window {
            t0: t,
            t1: end,
            text,
        };
        match e.kind {
            EventKind::HostCrashed => {
                close(&mut open, &mut done, t, |k| k == format!("spot {host}"));
                open.push((
                    format!("down {host}"),
                    window(trf(format_args!("{host} down"))),
                ));
            }
            EventKind::HostStarted => {
                close(&mut open, &mut done, t, |k| k == format!("down {host}"))
            }
            EventKind::HostSpotNotice => open.push((
                format!("spot {host}"),
                window(trf(format_args!("{host} spot notice"))),
            )),
            EventKind::NetPartition => {
                close(&mut open, &mut done, t, |k| k == "net partition");
                open.push(("net partition".into(), window(trs("network partition"))));
            }
            EventKind::NetIsolate => open.push((
                format!("net isolate {host}"),
                window(trf(format_args!("{host} isolated"))),
            )),
            EventKind::NetPartitionOneway => {
                open.push(("net oneway".into(), window(trs("one-way drop"))))
            }
            EventKind::NetHeal => close(&mut open, &mut done, t, |k| k.starts_with("net")),
            _ => {}
        }
    }
    done.extend(open.into_iter().map(|(_, w)| w));
    sim::kernel::sort::sort_by(&mut done, |a, b| a.t0.total_cmp(&b.t0));
    done
}

/// Runs of equal values in a per-second series: (from, to, value). Each sample holds for a second.
pub fn runs<T: PartialEq + Clone>(t: &[f64], v: &[T], end: f64) -> Vec<(f64, f64, T)> {
    let mut out: Vec<(f64, f64, T)> = Vec::new();
    for (i, x) in v.iter().enumerate() {
        let (t0, t1) = (t[i], (t[i] + 1.0).min(end));
        match out.last_mut() {
            Some(last) if last.2 == *x && last.1 >= t0 => last.1 = t1,
            _ => out.push((t0, t1, x.clone())),
        }
    }
    out
}

/// A tick step that gives at most about `labels` labels.
fn tick_step(duration: f64, labels: f64) -> f64 {
    const STEPS: [f64; 14] = [
        1., 2., 5., 10., 15., 30., 60., 120., 300., 600., 900., 1800., 3600., 7200.,
    ];
    STEPS
        .into_iter()
        .find(|s| duration / s <= labels)
        .unwrap_or(duration / labels)
}

/// One chart row: a band of per-second states, or leader lanes (one per candidate host).
enum Row<'a> {
    /// Cells of (from, to, css class, label).
    Band {
        title: String,
        sub: String,
        cells: Vec<(f64, f64, &'static str, String)>,
    },
    Leader {
        title: String,
        hosts: &'a [String],
        series: &'a LeaderSeries,
        marks: Vec<(f64, &'a str, &'a str)>,
    },
}

impl Row<'_> {
    fn height(&self, left: f64) -> f64 {
        match self {
            Row::Band { .. } => ROW,
            Row::Leader { hosts, .. } => {
                hosts.len().max(1) as f64 * LANE + self.title_above(left) as u8 as f64 * TITLE_LINE
            }
        }
    }

    /// A leader row whose title would run into its lane labels gets a line of its own above them.
    fn title_above(&self, left: f64) -> bool {
        match self {
            Row::Band { .. } => false,
            Row::Leader { title, hosts, .. } => {
                let widest = hosts.iter().map(|h| h.chars().count()).max().unwrap_or(0);
                8.0 + text_width(title) + 10.0 + widest as f64 * CHAR_W + 8.0 > left
            }
        }
    }
}

/// Roughly how wide a label of the charts' font is (6.5 px a character).
const CHAR_W: f64 = 6.5;
const TITLE_LINE: f64 = 14.0;

fn text_width(s: &str) -> f64 {
    s.chars().count() as f64 * CHAR_W
}

/// A yes/no band: "ok"/"lost" cells with their words ("unknown" before a probe resolves).
fn yes_no(
    t: &[f64],
    v: &[Option<bool>],
    end: f64,
    ok: &str,
    bad: &str,
) -> Vec<(f64, f64, &'static str, String)> {
    runs(t, v, end)
        .into_iter()
        .map(|(t0, t1, v)| match v {
            Some(true) => (t0, t1, "ok", ok.to_string()),
            Some(false) => (t0, t1, "lost", bad.to_string()),
            None => (t0, t1, "unknown", String::new()),
        })
        .collect()
}

/// Stretches shorter than this are flicker (a second ok, a second failing; a count going up and
/// down): merged into one cell, they read as one figure. A 150th of the run, at least 5 s.
fn flicker(end: f64) -> f64 {
    (end / 150.0).max(5.0)
}

/// Stretches of a per-second success share: all ok, some failing, all failing. A stretch of
/// partial seconds is one cell labelled with its mean share, so a flickering second-by-second
/// figure reads as one number. A second without data (`None`) continues the stretch before it.
/// No stretch spans one of the `breaks` (a fault beginning or ending, a component restarted):
/// the share changes there, and each figure belongs to one state of the cluster.
fn share_cells(
    t: &[f64],
    v: &[Option<f64>],
    end: f64,
    what: &str,
    breaks: &[f64],
) -> Vec<(f64, f64, &'static str, String)> {
    #[derive(Clone, Copy, PartialEq)]
    enum Class {
        None,
        Ok,
        Partial,
        Lost,
    }
    let class = |a: f64| {
        if a >= 0.9995 {
            Class::Ok
        } else if a <= 0.0005 {
            Class::Lost
        } else {
            Class::Partial
        }
    };
    // (from, to, class, sum of shares, seconds with data, begins at a break)
    let mut stretches: Vec<(f64, f64, Class, f64, u32, bool)> = Vec::new();
    let mut next_break = 0;
    for (i, a) in v.iter().enumerate() {
        let (t0, t1) = (t[i], (t[i] + 1.0).min(end));
        let mut broke = false;
        while breaks.get(next_break).is_some_and(|&b| b <= t0) {
            broke = i > 0;
            next_break += 1;
        }
        match (a, stretches.last_mut()) {
            (Some(a), _) if broke => stretches.push((t0, t1, class(*a), *a, 1, true)),
            (None, _) if broke => stretches.push((t0, t1, Class::None, 0.0, 0, true)),
            (None, Some(last)) => last.1 = t1,
            (None, None) => stretches.push((t0, t1, Class::None, 0.0, 0, false)),
            (Some(a), Some(last)) if last.2 == class(*a) || last.2 == Class::None => {
                last.1 = t1;
                last.2 = class(*a);
                last.3 += a;
                last.4 += 1;
            }
            (Some(a), _) => stretches.push((t0, t1, class(*a), *a, 1, false)),
        }
    }
    // Flicker (a second ok, a second failing) becomes one stretch, so it reads as one figure;
    // a long stretch of all ok or all failing stays apart.
    let short = flicker(end);
    let is_short =
        |st: &(f64, f64, Class, f64, u32, bool)| st.2 != Class::None && st.1 - st.0 < short;
    let mut merged: Vec<(f64, f64, Class, f64, u32, bool)> = Vec::new();
    let mut last_short = false;
    for st in stretches {
        let this_short = is_short(&st);
        match merged.last_mut() {
            // A short stretch joins a failing stretch or other short ones before it; a stretch
            // of the same kind joins the one before it.
            // Across a break only all-ok or all-failing stretches join: they read the same.
            Some(last)
                if (!st.5
                    && ((this_short && (last_short || last.2 == Class::Partial))
                        || last.2 == st.2))
                    || (last.2 == st.2 && st.2 != Class::Partial) =>
            {
                last.1 = st.1;
                if last.2 != st.2 {
                    last.2 = Class::Partial;
                }
                last.3 += st.3;
                last.4 += st.4;
            }
            _ => merged.push(st),
        }
        last_short = this_short;
    }
    merged
        .into_iter()
        .map(|(t0, t1, c, sum, n, _)| match c {
            Class::None => (t0, t1, "unknown", trf(format_args!("no {what} yet"))),
            Class::Ok => (t0, t1, "ok", trf(format_args!("100 % of {what} ok"))),
            Class::Lost => (t0, t1, "lost", trf(format_args!("all {what} FAIL"))),
            Class::Partial => {
                let pct = (sum / n as f64 * 100.0).max(1.0).min(99.0).round();
                (
                    t0,
                    t1,
                    "partial",
                    trf(format_args!("{} % of {what} ok", pct.px())),
                )
            }
        })
        .collect()
}

/// The rows the report has data for: etcd always; the API, the Kubernetes leaders, Services
/// and workloads when the core reports them (they appear by themselves as the core grows).
/// `windows` are the report's fault windows, which the shares are told apart at.
fn rows<'a>(report: &'a Report, lanes: &'a Lanes, end: f64, windows: &[Window]) -> Vec<Row<'a>> {
    let s = &report.series;
    let marks = |pred: &dyn Fn(&sim::record::Event) -> bool| -> Vec<(f64, &'a str, &'a str)> {
        report
            .events
            .iter()
            .filter(|e| pred(e))
            .filter_map(|e| Some((e.t, e.host.as_deref()?, e.text.as_str())))
            .collect()
    };
    let quorum: Vec<Option<bool>> = s.etcd_quorum.iter().map(|&q| Some(q)).collect();
    let mut rows = vec![
        Row::Band {
            title: trs("etcd quorum"),
            sub: String::new(),
            cells: yes_no(&s.t, &quorum, end, tr("quorum"), tr("NO QUORUM")),
        },
        Row::Leader {
            title: trs("etcd leader"),
            hosts: &lanes.etcd,
            series: &s.etcd_leader,
            marks: marks(&|e| e.kind == EventKind::EtcdLeaderElected),
        },
        Row::Band {
            title: trs("etcd writes"),
            sub: trs("(probe, 1 per s)"),
            cells: yes_no(
                &s.t,
                &s.etcd_writable,
                end,
                tr("writes succeed"),
                tr("writes FAIL"),
            ),
        },
    ];
    if !s.api_writable.is_empty() {
        let cells = yes_no(
            &s.t,
            &s.api_writable,
            end,
            tr("API takes writes"),
            tr("API writes FAIL"),
        );
        rows.push(Row::Band {
            title: trs("API writes"),
            sub: trs("(probe, 1 per s)"),
            cells,
        });
    }
    for (title, lease, series, hosts) in [
        (
            "controller-mgr",
            "kube-controller-manager",
            &s.controller_manager_leader,
            &lanes.controller_manager,
        ),
        (
            "scheduler",
            "kube-scheduler",
            &s.scheduler_leader,
            &lanes.scheduler,
        ),
    ] {
        if !series.is_empty() && !hosts.is_empty() {
            let m = marks(&|e| e.kind == EventKind::LeaseAcquired && e.lease == Some(lease));
            rows.push(Row::Leader {
                title: translate(title),
                hosts,
                series,
                marks: m,
            });
        }
    }
    // Where the cluster's state changed by a fault or a restart: the shares are told apart there.
    let mut breaks: Vec<f64> = (windows.iter())
        .flat_map(|w| [w.t0, w.t1])
        .chain(
            (report.events.iter())
                .filter(|e| e.kind == EventKind::ComponentRestarted)
                .map(|e| e.t),
        )
        .filter(|&b| b < end)
        .collect();
    breaks.sort_by(f64::total_cmp);
    // Services: the share of the users' requests that succeeded each second.
    for (name, v) in &s.service_availability {
        let v: Vec<Option<f64>> = v.iter().map(|&a| Some(a)).collect();
        rows.push(Row::Band {
            title: trf(format_args!("service {name}")),
            sub: trs("(users' requests)"),
            cells: share_cells(&s.t, &v, end, mark("requests"), &breaks),
        });
    }
    // Name resolution through CoreDNS, apart from the CoreDNS pods: pods can run and not answer.
    if s.dns_lookups.iter().any(Option::is_some) {
        rows.push(Row::Band {
            title: trs("DNS lookups"),
            sub: trs("(uncached, 10 per s)"),
            cells: share_cells(&s.t, &s.dns_lookups, end, mark("lookups"), &breaks),
        });
    }
    // Workloads: pods running against desired; more than desired (duplicates) stands out.
    for (name, v) in &s.running_pods {
        let desired: Vec<Option<u32>> = s.t.iter().map(|&t| lanes.desired(name, t)).collect();
        let both: Vec<(u32, Option<u32>)> = v.iter().copied().zip(desired).collect();
        let cells = pod_cells(&s.t, &both, end);
        rows.push(Row::Band {
            title: trf(format_args!("pods {name}")),
            sub: trs("(running / desired)"),
            cells,
        });
        // Pods no Node fits (capacity or spread), only for a workload that had any.
        let Some(pending) = s
            .pending_pods
            .get(name)
            .filter(|p| p.iter().any(|&n| n > 0))
        else {
            continue;
        };
        let cells = runs(&s.t, pending, end)
            .into_iter()
            .map(|(t0, t1, n)| match n {
                0 => (t0, t1, "ok", trs("none Pending")),
                n => (
                    t0,
                    t1,
                    "lost",
                    trf(format_args!("{n} Pending: no Node fits")),
                ),
            })
            .collect();
        rows.push(Row::Band {
            title: trf(format_args!("Pending {name}")),
            sub: trs("(unschedulable pods)"),
            cells,
        });
    }
    rows
}

/// Pods running against desired, per second: a cell per stretch; more than desired (duplicates)
/// stands out.
fn pod_cells(
    t: &[f64],
    both: &[(u32, Option<u32>)],
    end: f64,
) -> Vec<(f64, f64, &'static str, String)> {
    // Flicker (a count changing every few seconds, as when a split runs copies) is one cell
    // with the range of counts it went through.
    let short = flicker(end);
    let mut merged: Vec<(f64, f64, u32, u32, Option<u32>)> = Vec::new();
    let mut last_short = false;
    for (t0, t1, (n, d)) in runs(t, both, end) {
        let this_short = t1 - t0 < short;
        match merged.last_mut() {
            Some(last) if this_short && last_short && last.4 == d => {
                last.1 = t1;
                last.2 = last.2.min(n);
                last.3 = last.3.max(n);
            }
            _ => merged.push((t0, t1, n, n, d)),
        }
        last_short = this_short;
    }
    merged
        .into_iter()
        .map(|(t0, t1, lo, hi, d)| {
            let n = if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}–{hi}")
            };
            match d {
                Some(d) if hi > d => (
                    t0,
                    t1,
                    "dup",
                    trf(format_args!("{n} running of {d}: DUPLICATES")),
                ),
                Some(d) if hi < d => (
                    t0,
                    t1,
                    if hi == 0 { "lost" } else { "partial" },
                    trf(format_args!("{n} running of {d}")),
                ),
                Some(d) if lo < d => (t0, t1, "partial", trf(format_args!("{n} running of {d}"))),
                Some(d) => (t0, t1, "ok", trf(format_args!("{n} running of {d}"))),
                None => (t0, t1, "neutral", trf(format_args!("{n} running"))),
            }
        })
        .collect()
}

/// What the charts need from the scenario: hosts that can lead (one lane each, from the roles)
/// and each workload's desired replicas over time (its `replicas`, then `scale` events).
#[derive(PartialEq, Default)]
pub struct Lanes {
    pub etcd: Vec<String>,
    pub controller_manager: Vec<String>,
    pub scheduler: Vec<String>,
    /// Per workload: (from second, desired) steps, in time order. DaemonSets have none.
    pub desired: Vec<(String, Vec<(f64, u32)>)>,
}

impl Lanes {
    pub fn of(s: &sim::scenario::Scenario) -> Lanes {
        let pick = |f: fn(&sim::scenario::Host) -> bool| {
            s.hosts
                .iter()
                .filter(|h| f(h))
                .map(|h| h.name.clone())
                .collect()
        };
        Lanes {
            etcd: pick(|h| h.runs_etcd()),
            controller_manager: pick(|h| h.runs_controller_manager()),
            scheduler: pick(|h| h.runs_scheduler()),
            desired: {
                let mut d: Vec<(String, Vec<(f64, u32)>)> = s
                    .workloads
                    .iter()
                    .filter_map(|w| Some((w.name.clone(), vec![(0.0, w.replicas?)])))
                    .chain(std::iter::once((
                        sim::scenario::COREDNS.to_string(),
                        vec![(0.0, s.settings.coredns_replicas)],
                    )))
                    .collect();
                for e in s.events_sorted() {
                    if let sim::scenario::Action::Scale { workload, replicas } = &e.action {
                        if let Some((_, steps)) = d.iter_mut().find(|(n, _)| n == workload) {
                            steps.push((e.at.as_secs_f64(), *replicas));
                        }
                    }
                }
                d
            },
        }
    }

    /// Desired replicas of `workload` at second `t`, if it has replicas.
    pub fn desired(&self, workload: &str, t: f64) -> Option<u32> {
        let (_, steps) = self.desired.iter().find(|(n, _)| n == workload)?;
        steps
            .iter()
            .rev()
            .find(|(from, _)| *from <= t)
            .map(|(_, n)| *n)
    }
}

/// Where the charts draw: the left margin (titles), the plot's width, the figure's, the run's
/// duration.
#[derive(Clone, Copy)]
struct Scale {
    left: f64,
    pw: f64,
    w: f64,
    duration: f64,
}

impl Scale {
    /// The x of report second `t`.
    fn x(self, t: f64) -> f64 {
        self.left + t.max(0.0).min(self.duration) / self.duration * self.pw
    }

    fn rect(self, t0: f64, t1: f64, y: f64, h: f64, class: &'static str) -> Html {
        let (x0, x1) = (self.x(t0), self.x(t1));
        html! { <rect class={class} x={x0.px()} y={y.px()} width={(x1 - x0).max(0.5).px()} height={h.px()} /> }
    }
}

/// Everything the charts draw from the report: the fault lanes and their shades, the rows, the
/// time axis; and the y of the first row and of the axis.
fn drawing(report: &Report, lanes: &Lanes, sc: Scale, complete: bool) -> (Html, f64, f64) {
    let (x, duration, left) = (|t| sc.x(t), sc.duration, sc.left);
    let faults_y = 8.0;
    let windows = fault_windows(report, duration);
    let fault_lanes = assign_lanes(&windows);
    let nf = fault_lanes.iter().max().map_or(1, |m| m + 1).min(4) as f64;
    let first_y = faults_y + nf * LANE + GAP;
    let all_rows = rows(report, lanes, duration, &windows);
    let axis_y = first_y + all_rows.iter().map(|r| r.height(left) + GAP).sum::<f64>() - GAP + 6.0;
    let windows_html = windows.iter().zip(&fault_lanes).filter(|(_, l)| **l < 4).map(|(w, l)| {
        let y = faults_y + *l as f64 * LANE;
        let width = x(w.t1) - x(w.t0);
        html! {
            <g class="fault">
                { sc.rect(w.t0, w.t1, y + 1.0, LANE - 2.0, "fault-bar") }
                <text x={(x(w.t0) + 3.0).px()} y={(y + 12.5).px()}>{ clip_text(&w.text, width) }</text>
            </g>
        }
    });
    // Fault windows shade every chart, so cause and effect line up.
    let shades = windows.iter().map(|w| {
        sc.rect(
            w.t0,
            w.t1,
            first_y - 4.0,
            axis_y - first_y + 4.0,
            "fault-shade",
        )
    });
    let mut y = first_y;
    let mut body = Vec::new();
    for row in all_rows {
        let h = row.height(left);
        body.push(row_view(report, row, y, sc));
        y += h + GAP;
    }
    let step = tick_step(duration, (sc.pw / 70.0).floor().max(4.0).min(10.0));
    let ticks = (0..=(duration / step) as usize).map(|k| {
        let t = k as f64 * step;
        html! {
            <g class="tick">
                <line x1={x(t).px()} x2={x(t).px()} y1={(axis_y - 4.0).px()} y2={axis_y.px()} />
                // The label at the very end is right-aligned, so it is not cut.
                <text x={x(t).px()} y={(axis_y + 14.0).px()} text-anchor={if x(t) + 20.0 > sc.w { "end" } else { "middle" }}>{ fmt_t(t) }</text>
            </g>
        }
    });
    let html = html! {
        <>
            { for shades }
            <text class="row-title" x="8" y={(faults_y + 12.5).px()}>{ tr("Faults") }</text>
            if windows.is_empty() {
                <text class="row-sub" x={(left + 4.0).px()} y={(faults_y + 12.5).px()}>{
                    // Random faults come later in a run that is still being computed.
                    tr(if complete { "none: nothing is broken in this run" } else { "none so far (the run is still being computed)" })
                }</text>
            }
            <>{ for windows_html }</>
            <>{ for body }</>
            <line class="axis" x1={left.px()} x2={(left + sc.pw).px()} y1={axis_y.px()} y2={axis_y.px()} />
            { for ticks }
        </>
    };
    (html, first_y, axis_y)
}

/// One row of the charts at height `y`: a band of states, or leader lanes with the changes.
fn row_view(report: &Report, row: Row, y: f64, sc: Scale) -> Html {
    let (x, left) = (|t| sc.x(t), sc.left);
    let above = row.title_above(left);
    match row {
        Row::Band { title, sub, cells } => html! {
            <g class="row">
                <text class="row-title" x="8" y={(y + if sub.is_empty() { 17.0 } else { 12.0 }).px()}>{ clip_text(&title, (left - 10.0) * TITLE_FONT) }<title>{ &title }</title></text>
                <text class="row-sub" x="8" y={(y + 24.0).px()}>{ clip_text(&sub, left - 10.0) }<title>{ &sub }</title></text>
                { for cells.into_iter().map(|(t0, t1, class, label)| {
                    let text_class = match class { "lost" => "on-lost", "dup" => "on-dup", _ => "on-ok" };
                    let tip = format!("{}–{}: {}", fmt_t(t0), fmt_t(t1), if label.is_empty() { trs("not known yet") } else { label.clone() });
                    html! {
                        <g>
                            <title>{ tip }</title>
                            { sc.rect(t0, t1, y, ROW, class) }
                            <text class={text_class} x={(x(t0) + 4.0).px()} y={(y + 17.0).px()}>{ clip_text(&label, x(t1) - x(t0)) }</text>
                        </g>
                    }
                }) }
            </g>
        },
        Row::Leader {
            title,
            hosts,
            series,
            marks,
        } => {
            // The lanes start below the title when it has a line of its own.
            let (title_y, y) = if above {
                (y + 11.0, y + TITLE_LINE)
            } else {
                (y + 12.5, y)
            };
            let leader_runs = runs(&report.series.t, series.codes(), sc.duration);
            let lanes = hosts.iter().enumerate().map(|(i, h)| {
                let ly = y + i as f64 * LANE;
                let bars = leader_runs.iter().filter(|(_, _, l)| series.name(*l) == Some(h.as_str())).map(|(t0, t1, _)| sc.rect(*t0, *t1, ly + 2.0, LANE - 4.0, "leader-bar"));
                html! {
                    <g>
                        <text class="lane" x={(left - 8.0).px()} y={(ly + 12.5).px()} text-anchor="end">{ h }</text>
                        <line class="lane-line" x1={left.px()} x2={(left + sc.pw).px()} y1={(ly + LANE / 2.0).px()} y2={(ly + LANE / 2.0).px()} />
                        { for bars }
                    </g>
                }
            });
            // Leader changes: a mark where each was won, in the winner's lane.
            let marks = marks.into_iter().filter_map(|(t, host, text)| {
                let lane = hosts.iter().position(|h| h == host)?;
                let (cx, my) = (x(t), y + lane as f64 * LANE);
                Some(html! { <path class="change" d={format!("M{} {} l-5 -7 h10 z", cx.px(), (my + 8.0).px())}><title>{ translate(text) }</title></path> })
            });
            html! {
                <g class="row">
                    <text class="row-title" x="8" y={title_y.px()}>{ title }</text>
                    { for lanes }
                    { for marks }
                </g>
            }
        }
    }
}

#[function_component(Charts)]
pub fn charts(props: &Props) -> Html {
    let duration = props.duration.max(1.0);
    let figure = use_node_ref();
    let (w, left) = geometry(crate::width::use_width(figure.clone()));
    let pw = w - left - RIGHT;
    let x = move |t: f64| {
        Scale {
            left,
            pw,
            w,
            duration,
        }
        .x(t)
    };

    let complete = props.computed >= props.duration;
    let scale = Scale {
        left,
        pw,
        w,
        duration,
    };
    // Everything drawn from the report is memoised on it: only the cursor moves per frame.
    let drawing = use_memo(
        (
            props.report_version,
            props.duration.to_bits(),
            w.to_bits(),
            props.lanes.clone(),
            props.report.clone(),
            complete,
        ),
        {
            let report = props.report.0.clone();
            let lanes = props.lanes.clone();
            move |_| drawing(&report, &lanes, scale, complete)
        },
    );
    let (first_y, axis_y) = (drawing.1, drawing.2);
    let height = axis_y + 22.0;

    let onclick = {
        let on_seek = props.on_seek.clone();
        Callback::from(move |e: MouseEvent| {
            let Some(el) = e
                .current_target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            else {
                return;
            };
            let r = el.get_bounding_client_rect();
            if r.width() <= 0.0 {
                return;
            }
            let vx = (e.client_x() as f64 - r.left()) * w / r.width();
            if vx >= left {
                on_seek.emit(((vx - left) / pw * duration).max(0.0).min(duration));
            }
        })
    };
    let cx = x(props.cursor);
    let pending = (props.computed < duration).then(|| {
        html! { <rect class="pending" x={x(props.computed).px()} y="0" width={(x(duration) - x(props.computed)).px()} height={axis_y.px()} /> }
    });
    let sum = &props.report.summary.etcd;
    let aria = trf(format_args!(
        "Charts over {} of simulated time. Quorum lost for {} s in total; {} etcd leader elections; probe writes: {} succeeded, {} failed. Click to move the time cursor.",
        fmt_t(duration), Short(sum.quorum_lost_s, 3), sum.leader_changes, sum.writes_ok, sum.writes_failed
    ));
    html! {
        // Busy until the whole run is computed: what is drawn, and the summaries, still grow.
        <figure class="charts" ref={figure} aria-busy={(!complete).to_string()}>
            <svg viewBox={format!("0 0 {} {}", w.px(), height.px())} role="img" aria-label={aria} {onclick}>
                { drawing.0.clone() }
                // One node even when absent: see the topology's drawing.
                <>{ for pending }</>
                <line class="cursor" x1={cx.px()} x2={cx.px()} y1="0" y2={axis_y.px()} />
                <text class="cursor-label" x={(cx + 4.0).min(w - 40.0).px()} y={(first_y - 1.0).px()}>{ fmt_t_precise(props.cursor) }</text>
                if let Some((t, label)) = &props.mark {
                    <line class="mark" x1={x(*t).px()} x2={x(*t).px()} y1="0" y2={axis_y.px()} />
                    <text class="mark-label" x={(x(*t) + 4.0).min(w - 160.0).px()} y={(axis_y - 4.0).px()}>{ label }</text>
                }
            </svg>
            <figcaption>
                { if props.computed < duration {
                    trf(format_args!("Whole run (computed so far): quorum lost {} s · {} leader elections · writes {} ok, {} failed", Short(sum.quorum_lost_s, 3), sum.leader_changes, sum.writes_ok, sum.writes_failed))
                } else {
                    trf(format_args!("Whole run: quorum lost {} s · {} leader elections · writes {} ok, {} failed", Short(sum.quorum_lost_s, 3), sum.leader_changes, sum.writes_ok, sum.writes_failed))
                } }
                <span class="legend" aria-label={tr("Chart colours")}>
                    <span><i class="key ok"></i>{ tr("all ok") }</span>
                    <span><i class="key partial"></i>{ tr("some fail (share ok)") }</span>
                    <span><i class="key lost"></i>{ tr("all fail") }</span>
                    <span><i class="key dup"></i>{ tr("more pods than desired") }</span>
                    <span><i class="key leader-bar"></i>{ tr("leader") }</span>
                    <span><i class="key fault-shade"></i>{ tr("fault in force") }</span>
                    <span>{ tr("Hover a bar for its times.") }</span>
                </span>
            </figcaption>
        </figure>
    }
}

/// Lanes so overlapping fault windows do not hide each other.
fn assign_lanes(windows: &[Window]) -> Vec<usize> {
    let mut lane_end: Vec<f64> = Vec::new();
    windows
        .iter()
        .map(|w| match lane_end.iter().position(|&e| e <= w.t0) {
            Some(l) => {
                lane_end[l] = w.t1;
                l
            }
            None => {
                lane_end.push(w.t1);
                lane_end.len() - 1
            }
        })
        .collect()
}

/// A label that fits `width` pixels (about 6.5 px a character), or nothing.
/// A row title's bold letters are wider than the cells' text [`clip_text`] measures by: its room
/// counts for this much of theirs (long German and Russian titles otherwise run into the bars).
const TITLE_FONT: f64 = 0.85;

fn clip_text(s: &str, width: f64) -> String {
    let fits = ((width - 6.0) / 6.5).floor().max(0.0) as usize;
    if s.chars().count() <= fits {
        s.to_string()
    } else if fits >= 4 {
        s.chars()
            .take(fits - 1)
            .chain(std::iter::once('…'))
            .collect()
    } else {
        String::new()
    }
}

/// The first second at which two runs' charts differ, and the row that differs: etcd quorum and
/// writes, API writes, whether a controller-manager and a scheduler lead, each Service's cell
/// (all ok, some fail, all fail) and each workload's running pods, for the Services and
/// workloads both runs have.
pub fn first_difference(a: &Series, b: &Series) -> Option<(f64, String)> {
    let class = |share: f64| match share {
        s if s >= 1.0 => 2,
        s if s <= 0.0 => 0,
        _ => 1,
    };
    let at = |v: &LeaderSeries, i: usize| v.codes().get(i).map(|&c| c != 0);
    (0..a.t.len().min(b.t.len())).find_map(|i| {
        let row = if a.etcd_quorum.get(i) != b.etcd_quorum.get(i) {
            "etcd quorum".to_string()
        } else if a.etcd_writable.get(i) != b.etcd_writable.get(i) {
            "etcd writes".to_string()
        } else if a.api_writable.get(i) != b.api_writable.get(i) {
            "API writes".to_string()
        } else if at(&a.controller_manager_leader, i) != at(&b.controller_manager_leader, i) {
            "controller-manager leader".to_string()
        } else if at(&a.scheduler_leader, i) != at(&b.scheduler_leader, i) {
            "scheduler leader".to_string()
        } else if let Some(s) = a.service_availability.iter().find_map(|(name, va)| {
            let vb = b.service_availability.get(name)?;
            (va.get(i).map(|&v| class(v)) != vb.get(i).map(|&v| class(v)))
                .then(|| format!("service {name}"))
        }) {
            s
        } else {
            a.running_pods.iter().find_map(|(name, va)| {
                let vb = b.running_pods.get(name)?;
                (va.get(i) != vb.get(i)).then(|| format!("pods {name}"))
            })?
        };
        Some((a.t[i], row))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_and_five_masters_losing_two_first_differ_in_quorum_at_the_crash() {
        let run = |id: &str| {
            let s = crate::catalog::Ready::by_id(id).unwrap().scenario();
            sim::run_scenario(&s.to_json()).unwrap()
        };
        let three = run("3-three-masters-two-die");
        let five = run("5-five-masters-lose-two");
        // Both lose two members at 1:00: 1 of 3 is no majority, 3 of 5 is.
        let (t, row) = first_difference(&three.series, &five.series).unwrap();
        assert_eq!(row, "etcd quorum");
        assert!((60.0..=61.0).contains(&t), "{t}");
        // A run does not differ from itself.
        assert_eq!(first_difference(&three.series, &three.series), None);
    }

    #[test]
    fn a_share_is_told_apart_where_a_fault_or_restart_changed_the_cluster() {
        // 60 s all ok, 60 s near two in three, then (a restart at 120 s) near one in three.
        let t: Vec<f64> = (0..180).map(f64::from).collect();
        let v: Vec<Option<f64>> = (0..180)
            .map(|i| {
                Some(match i {
                    0..60 => 1.0,
                    60..120 => [0.6, 0.7, 0.7][i % 3],
                    _ => [0.3, 0.4, 0.3][i % 3],
                })
            })
            .collect();
        let labels = |breaks: &[f64]| -> Vec<String> {
            share_cells(&t, &v, 180.0, "lookups", breaks)
                .into_iter()
                .map(|c| c.3)
                .collect()
        };
        assert_eq!(
            labels(&[60.0, 120.0]),
            [
                "100 % of lookups ok",
                "67 % of lookups ok",
                "33 % of lookups ok"
            ]
        );
        // Without the restart the two levels read as one mean, hiding the change.
        assert_eq!(
            labels(&[60.0]),
            ["100 % of lookups ok", "50 % of lookups ok"]
        );
    }

    #[test]
    fn flickering_pod_counts_read_as_one_range() {
        // 20 s of 600 and 601 in turn (a split running copies), then 200 s of 600.
        let t: Vec<f64> = (0..220).map(f64::from).collect();
        let both: Vec<(u32, Option<u32>)> = (0..220)
            .map(|i| (if i < 20 && i % 2 == 1 { 601 } else { 600 }, Some(600)))
            .collect();
        let cells = pod_cells(&t, &both, 220.0);
        let got: Vec<(&str, &str)> = cells.iter().map(|c| (c.2, c.3.as_str())).collect();
        assert_eq!(
            got,
            [
                ("dup", "600–601 running of 600: DUPLICATES"),
                ("ok", "600 running of 600")
            ]
        );
        assert_eq!((cells[0].0, cells[0].1, cells[1].1), (0.0, 20.0, 220.0));
        // A long stretch stays its own cell.
        let both: Vec<(u32, Option<u32>)> = (0..220)
            .map(|i| (if i < 100 { 2 } else { 1 }, Some(2)))
            .collect();
        let got: Vec<&str> = pod_cells(&t, &both, 220.0)
            .into_iter()
            .map(|c| c.2)
            .collect();
        assert_eq!(got, ["ok", "partial"]);
    }
}
