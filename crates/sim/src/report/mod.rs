//! The report of a run, in the shape fixed by the scenario format page: a summary,
//! per-second series and events with explanations. Plain data, serialised as JSON.

mod trace;

use crate::record::{Event, Operation, RunRecord, Series, Violation};
use crate::scenario::{Role, Scenario};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    pub summary: Summary,
    pub series: Series,
    pub events: Vec<Event>,
    /// Events past the per-run limit, counted but not kept.
    #[serde(skip_serializing_if = "is_zero")]
    pub events_dropped: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub etcd: EtcdSummary,
    /// Absent when the scenario runs no apiserver.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api: Option<ApiSummary>,
    /// Per lease (`kube-controller-manager`, `kube-scheduler`) the scenario runs.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub leaders: BTreeMap<&'static str, LeaderSummary>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, ServiceSummary>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub workloads: BTreeMap<String, WorkloadSummary>,
    pub operations: Vec<Operation>,
    pub violations: Vec<Violation>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EtcdSummary {
    pub quorum_lost_s: f64,
    pub leader_changes: u64,
    pub writes_ok: u64,
    pub writes_failed: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ApiSummary {
    /// Fraction of the probe's writes (one per second) that succeeded within 2 s.
    pub write_availability: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LeaderSummary {
    /// Every acquisition, the one held at t = 0 included.
    pub changes: u64,
    /// Who acts as leader at the end (None: nobody).
    #[serde(rename = "final")]
    pub final_holder: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ServiceSummary {
    /// Fraction of the Service's client requests that succeeded.
    pub availability: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkloadSummary {
    /// Desired pods at t = 0 (for a DaemonSet: the Nodes at t = 0).
    pub replicas: u32,
    /// The most pods running at once, anywhere (sampled every second): above `replicas` when duplicates ran.
    pub max_running: u32,
    pub final_running: u32,
    /// The most of its pods unschedulable at once, and the seconds with any (only when the
    /// scenario gives capacity).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_max: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_s: Option<f64>,
}

impl Report {
    /// The report of `sc`'s run as `r` recorded it.
    pub fn build(r: &RunRecord, sc: &Scenario) -> Report {
        let obs = r.recorder;
        let mut series = r.series.series();
        let outcomes = r.etcd_writes;
        let n = series.t.len();
        series.etcd_writable = (0..n).map(|i| outcomes.get(i).copied().flatten()).collect();
        let api = r.api_writes.map(|o| {
            series.api_writable = (0..n).map(|i| o.get(i).copied().flatten()).collect();
            let known: Vec<bool> = series.api_writable.iter().flatten().copied().collect();
            let ok = known.iter().filter(|&&b| b).count();
            ApiSummary {
                write_availability: if known.is_empty() {
                    1.0
                } else {
                    round6(ok as f64 / known.len() as f64)
                },
            }
        });
        let mut leaders = BTreeMap::new();
        let runs = |component: fn(&crate::scenario::Host) -> bool| sc.hosts.iter().any(component);
        for (lease, runs, held) in [
            (
                "kube-controller-manager",
                runs(|h| h.runs_controller_manager()),
                &mut series.controller_manager_leader,
            ),
            (
                "kube-scheduler",
                runs(|h| h.runs_scheduler()),
                &mut series.scheduler_leader,
            ),
        ] {
            if runs {
                let changes = obs.lease_changes.get(&lease).copied().unwrap_or(0);
                leaders.insert(
                    lease,
                    LeaderSummary {
                        changes,
                        final_holder: held.iter().next_back().flatten().map(str::to_string),
                    },
                );
            } else {
                held.clear();
            }
        }
        let traffic = r.traffic;
        let mut services = BTreeMap::new();
        for (i, name) in traffic.services.iter().enumerate() {
            if !sc.hosts.iter().any(|h| h.has_role(Role::Client)) {
                break;
            }
            let per_second = &traffic.per_second[i];
            let ratios = (0..n).map(|k| {
                per_second.get(k).map_or(1.0, |&(ok, t)| {
                    if t == 0 {
                        1.0
                    } else {
                        round6(ok as f64 / t as f64)
                    }
                })
            });
            series
                .service_availability
                .insert(name.clone(), ratios.collect());
            services.insert(
                name.clone(),
                ServiceSummary {
                    availability: round6(traffic.availability(i)),
                },
            );
        }
        if sc.hosts.iter().any(|h| h.has_role(Role::Client)) {
            series.dns_lookups = (0..n)
                .map(|k| {
                    let (ok, t) = traffic.lookups.get(k).copied().unwrap_or((0, 0));
                    (t > 0).then(|| round6(ok as f64 / t as f64))
                })
                .collect();
        }
        let mut workloads = BTreeMap::new();
        if r.api_writes.is_some() {
            // A DaemonSet wants a pod on every Node registered at t = 0.
            let initial_nodes = sc
                .hosts
                .iter()
                .filter(|h| h.is_node() && !h.standby)
                .count() as u32;
            for (name, max_running, final_running) in r.workloads.iter().cloned() {
                let Some(spec) = sc.workloads.iter().find(|x| x.name == name) else {
                    continue;
                };
                let replicas = spec.replicas.unwrap_or(initial_nodes);
                let pending = series.pending_pods.get(&name);
                workloads.insert(
                    name,
                    WorkloadSummary {
                        replicas,
                        max_running,
                        final_running,
                        pending_max: pending.map(|p| p.iter().copied().max().unwrap_or(0)),
                        pending_s: pending.map(|p| p.iter().filter(|&&n| n > 0).count() as f64),
                    },
                );
            }
        }
        Report {
            scenario: sc.name.clone(),
            seed: sc.seed,
            duration_s: sc.duration.as_secs_f64(),
            summary: Summary {
                etcd: EtcdSummary {
                    quorum_lost_s: round_ms(r.quorum_lost_s),
                    leader_changes: obs.etcd_leader_changes,
                    writes_ok: obs.writes_ok,
                    writes_failed: obs.writes_failed,
                },
                api,
                leaders,
                services,
                workloads,
                operations: obs.operations.clone(),
                violations: obs.violations.clone(),
            },
            series,
            events: obs.events.to_vec(),
            events_dropped: obs.events_dropped,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report always serialises")
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// Seconds rounded to the millisecond, so reports stay readable and byte-stable.
fn round_ms(s: f64) -> f64 {
    (s * 1000.0).round() / 1000.0
}
