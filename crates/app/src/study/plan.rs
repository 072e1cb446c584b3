//! What a study in the page runs: the scenario with its own fault processes or a preset's, a
//! design to compare it with, how many trials of which length; read from and written to the
//! study page's link. Pure data, tested natively.

use sim::kernel::time::Duration;
use sim::scenario::{Fault, FaultKind, Host, LbHealthCheck, Role, Scenario, Selector};

/// Fault processes to study the scenario under. Presets are typical figures, not measurements:
/// the page says what each one sets, and the playground's editor sets any other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    /// The scenario's own `faults`.
    Scenario,
    /// Servers in racks: a host fails every 90 days and is repaired in 4 hours; a zone (a rack's
    /// switch) is cut off once a year for an hour.
    OnPremises,
    /// Cloud VMs: a host fails every 60 days and is back (restarted elsewhere) in 10 minutes; a
    /// zone is cut off once a year for two hours.
    CloudVms,
    /// Spot workers: every host fails every 30 days for an hour; workers are spot instances
    /// interrupted every 14 days on average and replaced after 5 minutes.
    Spot,
}

pub const PRESETS: [Preset; 4] = [
    Preset::Scenario,
    Preset::OnPremises,
    Preset::CloudVms,
    Preset::Spot,
];

impl Preset {
    pub fn key(self) -> &'static str {
        match self {
            Preset::Scenario => "scenario",
            Preset::OnPremises => "on-premises",
            Preset::CloudVms => "cloud",
            Preset::Spot => "spot",
        }
    }

    pub fn from_key(key: &str) -> Option<Preset> {
        PRESETS.into_iter().find(|p| p.key() == key)
    }
}

/// A design to compare the scenario with: the same cluster with one thing changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    None,
    /// Two more control-plane hosts (or etcd members, for etcd alone), in the zones the first
    /// ones use, round robin.
    TwoMoreMasters,
    /// The load balancer checks apiservers with a TCP connect instead of `/readyz`.
    TcpCheck,
    /// Stacked etcd moved to machines of its own: each control-plane host's member on a new
    /// etcd host in the same zone.
    ExternalEtcd,
}

pub const VARIANTS: [Variant; 4] = [
    Variant::None,
    Variant::TwoMoreMasters,
    Variant::TcpCheck,
    Variant::ExternalEtcd,
];

impl Variant {
    pub fn key(self) -> &'static str {
        match self {
            Variant::None => "none",
            Variant::TwoMoreMasters => "two-more-masters",
            Variant::TcpCheck => "tcp-check",
            Variant::ExternalEtcd => "external-etcd",
        }
    }

    pub fn from_key(key: &str) -> Option<Variant> {
        VARIANTS.into_iter().find(|v| v.key() == key)
    }
}

/// A trial's length in the page: from a day to a year (a longer one is the runner's work).
pub const HORIZONS_DAYS: [u64; 4] = [1, 7, 30, 365];
/// Most trials the page runs of one design.
pub const MAX_TRIALS: u64 = 10_000;
/// Longest trial the playground can open as a run (the format's limit on `duration`).
pub const OPENABLE_DAYS: u64 = 7;

/// The study page's settings (its link's `trials=`, `days=`, `seed=`, `faults=`, `vs=`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub preset: Preset,
    pub variant: Variant,
    pub trials: u64,
    pub days: u64,
    pub seed: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            preset: Preset::Scenario,
            variant: Variant::None,
            trials: 52,
            days: 7,
            seed: 1,
        }
    }
}

impl Settings {
    /// The settings a scenario opens with: its own faults when it has some, else cloud VMs'.
    pub fn for_scenario(s: &Scenario) -> Settings {
        Settings {
            preset: if s.faults.is_empty() {
                Preset::CloudVms
            } else {
                Preset::Scenario
            },
            ..Settings::default()
        }
    }

    pub fn horizon(&self) -> Duration {
        Duration::from_secs(self.days * 86_400)
    }

    /// Reads the study's parameters of a link's fragment over `self`; other parameters (`s=`)
    /// are left to the scenario's reader. Each value not understood is named.
    pub fn read(&mut self, fragment: &str) -> Vec<String> {
        let mut problems = Vec::new();
        let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
        for part in fragment.split('&') {
            let (key, value) = part.split_once('=').unwrap_or((part, ""));
            let number = || value.parse::<u64>().ok();
            let ok = match key {
                "trials" => number()
                    .filter(|n| (1..=MAX_TRIALS).contains(n))
                    .map(|n| self.trials = n)
                    .is_some(),
                "days" => number()
                    .filter(|d| HORIZONS_DAYS.contains(d))
                    .map(|d| self.days = d)
                    .is_some(),
                "seed" => number().map(|s| self.seed = s).is_some(),
                "faults" => Preset::from_key(value).map(|p| self.preset = p).is_some(),
                "vs" => Variant::from_key(value).map(|v| self.variant = v).is_some(),
                _ => true,
            };
            if !ok {
                problems.push(format!(
                    "{key}={}",
                    value.chars().take(40).collect::<String>()
                ));
            }
        }
        problems
    }

    /// The study's parameters for the link (after `s=`).
    pub fn write(&self) -> String {
        format!(
            "trials={}&days={}&seed={}&faults={}&vs={}",
            self.trials,
            self.days,
            self.seed,
            self.preset.key(),
            self.variant.key()
        )
    }
}

/// Hosts a preset's failures strike: every machine of the cluster, not the users' clients (they
/// are the measurement).
fn machines(s: &Scenario) -> Selector {
    Selector::Names(
        s.hosts
            .iter()
            .filter(|h| !h.roles.contains(&Role::Client))
            .map(|h| h.name.clone())
            .collect(),
    )
}

fn days(n: u64) -> Duration {
    Duration::from_secs(n * 86_400)
}

/// `s` under the preset's fault processes (its own for [`Preset::Scenario`]).
pub fn with_preset(s: &Scenario, preset: Preset) -> Scenario {
    let mut t = s.clone();
    let zone_outages = |mtbf, mttr| Fault {
        targets: Selector::All,
        kind: FaultKind::ZoneOutages { mtbf, mttr },
    };
    let host_failures = |mtbf, mttr| Fault {
        targets: machines(s),
        kind: FaultKind::HostFailures { mtbf, mttr },
    };
    // A zone outage needs two zones to cut apart.
    let zoned = s.zones.len() > 1;
    t.faults = match preset {
        Preset::Scenario => return t,
        Preset::OnPremises => {
            let mut f = vec![host_failures(days(90), Duration::from_secs(4 * 3600))];
            if zoned {
                f.push(zone_outages(days(365), Duration::from_secs(3600)));
            }
            f
        }
        Preset::CloudVms => {
            let mut f = vec![host_failures(days(60), Duration::from_secs(600))];
            if zoned {
                f.push(zone_outages(days(365), Duration::from_secs(2 * 3600)));
            }
            f
        }
        Preset::Spot => {
            for h in &mut t.hosts {
                if h.roles == [Role::Worker] {
                    h.spot = true;
                }
            }
            let mut f = vec![host_failures(days(30), Duration::from_secs(3600))];
            if t.hosts.iter().any(|h| h.spot) {
                f.push(Fault {
                    targets: Selector::Spot,
                    kind: FaultKind::SpotInterruptions {
                        every: days(14),
                        replace_after: Some(Duration::from_secs(300)),
                        remove_on_notice: false,
                    },
                });
            }
            f
        }
    };
    t
}

/// A name for a new host like `base`, unused in `t`.
fn fresh_name(t: &Scenario, base: &str) -> String {
    (1..)
        .map(|n| format!("{base}-{n}"))
        .find(|name| !t.hosts.iter().any(|h| &h.name == name))
        .unwrap_or_default()
}

/// Adds host `new` to `t` as `like`'s twin: the fault processes that name `like` strike it too
/// (a preset names every machine), so a design with more machines meets faults on all of them.
fn add_twin(t: &mut Scenario, like: &str, new: Host) {
    for f in &mut t.faults {
        let hosts = !matches!(f.kind, FaultKind::ZoneOutages { .. });
        if let Selector::Names(names) = &mut f.targets {
            if hosts && names.iter().any(|n| n == like) {
                names.push(new.name.clone());
            }
        }
    }
    t.hosts.push(new);
}

/// The design to compare with, or `None` when the variant does not apply to the scenario (no
/// third master to add two to, no load balancer to check differently, no stacked etcd).
pub fn variant_of(s: &Scenario, v: Variant) -> Option<Scenario> {
    let mut t = s.clone();
    match v {
        Variant::None => return None,
        Variant::TwoMoreMasters => {
            let masters: Vec<&Host> = s
                .hosts
                .iter()
                .filter(|h| h.roles.contains(&Role::Etcd) && !h.standby)
                .collect();
            if masters.len() != 3 {
                return None;
            }
            for k in 0..2 {
                let mut h = masters[k].clone();
                h.zone = masters[k + 1].zone.clone();
                h.name = fresh_name(&t, &masters[0].name);
                add_twin(&mut t, &masters[k].name, h);
            }
            t.name = if kubernetes(s) {
                format!("{} (5 masters)", s.name)
            } else {
                format!("{} (5 etcd members)", s.name)
            };
        }
        Variant::TcpCheck => {
            let lb = s
                .hosts
                .iter()
                .any(|h| h.roles.contains(&Role::LoadBalancer));
            if !lb || s.settings.lb_health_check == LbHealthCheck::Tcp {
                return None;
            }
            t.settings.lb_health_check = LbHealthCheck::Tcp;
            t.name = format!("{} (TCP check)", s.name);
        }
        Variant::ExternalEtcd => {
            let etcd = |h: &&Host| h.roles.contains(&Role::Etcd);
            let stacked = |h: &&Host| etcd(h) && h.roles.contains(&Role::ControlPlane);
            if !s.hosts.iter().any(|h| stacked(&h))
                || s.hosts.iter().any(|h| etcd(&h) && !stacked(&h))
            {
                return None;
            }
            for h in s.hosts.iter().filter(stacked) {
                if let Some(m) = t.hosts.iter_mut().find(|m| m.name == h.name) {
                    m.roles.retain(|r| *r != Role::Etcd);
                }
                let member = Host {
                    name: fresh_name(&t, &format!("etcd-{}", h.name)),
                    zone: h.zone.clone(),
                    roles: vec![Role::Etcd],
                    spot: false,
                    standby: h.standby,
                    cpu: None,
                    memory: None,
                };
                add_twin(&mut t, &h.name, member);
            }
            t.name = format!("{} (external etcd)", s.name);
        }
    }
    Some(t)
}

/// Whether the scenario runs Kubernetes (else it is etcd alone).
pub fn kubernetes(s: &Scenario) -> bool {
    s.hosts.iter().any(|h| h.is_node())
}

/// Roughly how long the page takes for `trials` trials of `s` over `horizon` on `workers`
/// workers, in seconds: calibrated on the runner's study benchmarks (a Kubernetes cluster about
/// 0.1 ms per host and fault drawn, etcd alone 0.005 ms; a trial's start about 1 ms per host)
/// and three times slower in the page. For saying "this is the runner's work", not a promise.
pub fn estimate_seconds(s: &Scenario, trials: u64, horizon: Duration, workers: u64) -> f64 {
    let mut t = s.clone();
    t.duration = horizon;
    let hosts = s.hosts.len() as f64;
    let per_draw = if kubernetes(s) { 1e-4 } else { 5e-6 } * hosts;
    let per_trial = 1e-3 * hosts + t.expected_fault_draws() * per_draw;
    3.0 * per_trial * trials as f64 / workers.max(1) as f64
}

/// The command that runs the study natively (the scenario saved as `scenario.json`).
pub fn runner_command(st: &Settings) -> String {
    format!(
        "clustersim study scenario.json --trials {} --horizon {}h --seed {} --json",
        st.trials,
        st.days * 24,
        st.seed
    )
}

/// The per-trial values of a figure as a cumulative distribution: `(value, share of trials at
/// or below it)`, one point per distinct value, ascending.
pub fn cdf(values: &[f64]) -> Vec<(f64, f64)> {
    let mut v = values.to_vec();
    sim::kernel::sort::sort_by(&mut v, |a, b| a.total_cmp(b));
    let n = v.len() as f64;
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (i, x) in v.iter().enumerate() {
        let share = (i + 1) as f64 / n;
        match out.last_mut() {
            Some(last) if last.0 == *x => last.1 = share,
            _ => out.push((*x, share)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stacked() -> Scenario {
        sim::scenario::parse(
            r#"{"version":1,"name":"three stacked","duration":"1h","zones":["a","b","c"],
            "hosts":[{"name":"m1","zone":"a","roles":["control-plane","etcd"]},
                     {"name":"m2","zone":"b","roles":["control-plane","etcd"]},
                     {"name":"m3","zone":"c","roles":["control-plane","etcd"]},
                     {"name":"w1","zone":"a","roles":["worker"]},
                     {"name":"lb","zone":"a","roles":["load-balancer"]},
                     {"name":"users","zone":"a","roles":["client"]}],
            "workloads":[{"kind":"Deployment","name":"web","replicas":2,"service":true}]}"#,
        )
        .expect("valid")
    }

    #[test]
    fn every_preset_and_variant_is_a_scenario_the_core_accepts() {
        let s = stacked();
        for p in PRESETS {
            let t = with_preset(&s, p);
            sim::study::trial_scenario(&t, 1, Duration::from_secs(7 * 86_400))
                .unwrap_or_else(|e| panic!("{p:?}: {e}"));
            for v in VARIANTS {
                if let Some(u) = variant_of(&t, v) {
                    u.validate().unwrap_or_else(|e| panic!("{p:?} {v:?}: {e}"));
                }
            }
        }
    }

    #[test]
    fn presets_strike_the_cluster_not_its_clients() {
        let t = with_preset(&stacked(), Preset::Spot);
        let Selector::Names(names) = &t.faults[0].targets else {
            panic!("{:?}", t.faults[0])
        };
        assert!(names.iter().any(|n| n == "lb") && !names.iter().any(|n| n == "users"));
        // Only the plain worker became a spot instance.
        let spot: Vec<&str> = t
            .hosts
            .iter()
            .filter(|h| h.spot)
            .map(|h| h.name.as_str())
            .collect();
        assert_eq!(spot, ["w1"]);
        assert_eq!(t.faults.len(), 2);
        // Zone outages only where there are zones to cut apart.
        assert_eq!(with_preset(&stacked(), Preset::OnPremises).faults.len(), 2);
        let mut one_zone = stacked();
        one_zone.zones.clear();
        for h in &mut one_zone.hosts {
            h.zone = "default".into();
        }
        assert_eq!(with_preset(&one_zone, Preset::OnPremises).faults.len(), 1);
    }

    /// The etcd hosts' names and zones.
    fn etcd_hosts(s: &Scenario) -> Vec<(&str, &str)> {
        s.hosts
            .iter()
            .filter(|h| h.roles.contains(&Role::Etcd))
            .map(|h| (h.name.as_str(), h.zone.as_str()))
            .collect()
    }

    #[test]
    fn two_more_masters_make_five_etcd_members_in_other_zones() {
        let v = variant_of(&stacked(), Variant::TwoMoreMasters).expect("three masters");
        let etcd = etcd_hosts(&v);
        assert_eq!(etcd.len(), 5);
        assert_eq!(&etcd[3..], [("m1-1", "b"), ("m1-2", "c")]);
        // A preset's failures strike the new masters as they strike the first ones.
        let spot = variant_of(
            &with_preset(&stacked(), Preset::Spot),
            Variant::TwoMoreMasters,
        )
        .expect("three masters");
        let Selector::Names(names) = &spot.faults[0].targets else {
            panic!("{:?}", spot.faults[0])
        };
        assert!(names.iter().any(|n| n == "m1-1") && names.iter().any(|n| n == "m1-2"));
        // Not for five already, nor where the LB check is TCP already.
        assert!(variant_of(&v, Variant::TwoMoreMasters).is_none());
        let tcp = variant_of(&stacked(), Variant::TcpCheck).expect("a load balancer");
        assert!(variant_of(&tcp, Variant::TcpCheck).is_none());
    }

    #[test]
    fn external_etcd_puts_each_member_on_a_machine_of_its_own_in_its_zone() {
        let base = with_preset(&stacked(), Preset::CloudVms);
        let v = variant_of(&base, Variant::ExternalEtcd).expect("stacked etcd");
        let etcd = etcd_hosts(&v);
        assert_eq!(
            etcd,
            [("etcd-m1-1", "a"), ("etcd-m2-1", "b"), ("etcd-m3-1", "c")]
        );
        let m1 = v.hosts.iter().find(|h| h.name == "m1").expect("m1");
        assert_eq!(m1.roles, [Role::ControlPlane]);
        let Selector::Names(names) = &v.faults[0].targets else {
            panic!("{:?}", v.faults[0])
        };
        assert!(names.iter().any(|n| n == "etcd-m2-1"));
        v.validate().expect("valid");
        // Not for etcd that is external already.
        assert!(variant_of(&v, Variant::ExternalEtcd).is_none());
    }

    #[test]
    fn settings_round_trip_through_the_link_and_name_what_they_refuse() {
        let st = Settings {
            preset: Preset::Spot,
            variant: Variant::TwoMoreMasters,
            trials: 200,
            days: 30,
            seed: 7,
        };
        let mut read = Settings::default();
        assert!(read.read(&format!("#s=1.abc&{}", st.write())).is_empty());
        assert_eq!(read, st);
        let mut bad = Settings::default();
        let problems = bad.read("trials=0&days=3&faults=meteor&vs=x&seed=-1");
        assert_eq!(
            problems,
            ["trials=0", "days=3", "faults=meteor", "vs=x", "seed=-1"]
        );
        assert_eq!(bad, Settings::default());
    }

    #[test]
    fn a_cdf_counts_each_trial_once() {
        assert_eq!(
            cdf(&[3.0, 0.0, 0.0, 1.0]),
            [(0.0, 0.5), (1.0, 0.75), (3.0, 1.0)]
        );
    }

    #[test]
    fn the_estimate_grows_with_faults_and_shrinks_with_workers() {
        let s = with_preset(&stacked(), Preset::Spot);
        let year = Duration::from_secs(365 * 86_400);
        let one = estimate_seconds(&s, 10, year, 1);
        assert!(one > 2.0 * estimate_seconds(&s, 10, Duration::from_secs(86_400 * 30), 1));
        assert!((estimate_seconds(&s, 10, year, 2) - one / 2.0).abs() < 1e-9);
    }
}
