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
    /// Reclaimed spot machines replaced as before, but each etcd member removed on its notice
    /// (while it still answers) instead of by its replacement.
    OnNotice,
}

pub const VARIANTS: [Variant; 5] = [
    Variant::None,
    Variant::TwoMoreMasters,
    Variant::TcpCheck,
    Variant::ExternalEtcd,
    Variant::OnNotice,
];

impl Variant {
    pub fn key(self) -> &'static str {
        match self {
            Variant::None => "none",
            Variant::TwoMoreMasters => "two-more-masters",
            Variant::TcpCheck => "tcp-check",
            Variant::ExternalEtcd => "external-etcd",
            Variant::OnNotice => "on-notice",
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
    /// How often spot instances are interrupted and how they are replaced.
    pub spot: SpotModel,
}

/// How often a spot instance is interrupted, as cloud providers quote it: the share of instances
/// of a type interrupted in a month (AWS's Spot Instance Advisor gives it in buckets: under 5 %,
/// 5 to 10 %, 10 to 15 %, 15 to 20 %, over 20 %).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpotRate {
    /// The fault process's own mean interval, as the scenario says it.
    Scenario,
    /// One of [`SPOT_BUCKETS`], studied at the share it names.
    Bucket(usize),
}

/// The buckets the study offers: their key in the link, and the share of instances interrupted
/// in a month each is studied at (its middle; 25 % for "over 20 %").
pub const SPOT_BUCKETS: [(&str, f64); 5] = [
    ("under-5", 0.025),
    ("5-10", 0.075),
    ("10-15", 0.125),
    ("15-20", 0.175),
    ("over-20", 0.25),
];

/// What happens to a reclaimed spot instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replacement {
    /// As the scenario's fault process says.
    Scenario,
    /// Never replaced: the cluster shrinks.
    None,
    /// A fresh machine joins a few minutes after the termination; it removes the reclaimed etcd
    /// member first (that needs a quorum).
    AfterTermination,
    /// The automation that acts on the notice removes the etcd member at once, while it still
    /// answers; a fresh machine joins after the termination.
    OnNotice,
}

/// The spot interruption model a study applies to every spot fault process of its designs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpotModel {
    pub rate: SpotRate,
    pub replacement: Replacement,
    /// Minutes from the termination until the replacement joins.
    pub replace_after_min: u64,
}

impl Default for SpotModel {
    /// A typical instance type (5 to 10 % a month), replaced 5 minutes after its termination.
    fn default() -> Self {
        SpotModel {
            rate: SpotRate::Bucket(1),
            replacement: Replacement::AfterTermination,
            replace_after_min: 5,
        }
    }
}

impl SpotRate {
    pub fn key(self) -> &'static str {
        match self {
            SpotRate::Scenario => "scenario",
            SpotRate::Bucket(b) => SPOT_BUCKETS[b].0,
        }
    }

    pub fn from_key(key: &str) -> Option<SpotRate> {
        match key {
            "scenario" => Some(SpotRate::Scenario),
            _ => SPOT_BUCKETS
                .iter()
                .position(|b| b.0 == key)
                .map(SpotRate::Bucket),
        }
    }

    /// The mean time between interruptions of one instance when a share `p` of instances is
    /// interrupted in a month (30 days): a rate of −ln(1 − p) a month; in whole hours, as the
    /// scenario writes it.
    pub fn mean_interval(p: f64) -> Duration {
        let months = 1.0 / -(1.0 - p).ln();
        Duration::from_secs((months * 30.0 * 24.0).round() as u64 * 3600)
    }
}

impl Replacement {
    pub const ALL: [Replacement; 4] = [
        Replacement::Scenario,
        Replacement::None,
        Replacement::AfterTermination,
        Replacement::OnNotice,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Replacement::Scenario => "scenario",
            Replacement::None => "none",
            Replacement::AfterTermination => "after-termination",
            Replacement::OnNotice => "on-notice",
        }
    }

    pub fn from_key(key: &str) -> Option<Replacement> {
        Replacement::ALL.into_iter().find(|r| r.key() == key)
    }
}

/// `s` with `model` applied to each of its spot interruption processes.
pub fn with_spot_model(s: &Scenario, model: &SpotModel) -> Scenario {
    let mut t = s.clone();
    for f in &mut t.faults {
        if let FaultKind::SpotInterruptions {
            every,
            replace_after,
            remove_on_notice,
        } = &mut f.kind
        {
            if let SpotRate::Bucket(b) = model.rate {
                *every = SpotRate::mean_interval(SPOT_BUCKETS[b].1);
            }
            let after = Some(Duration::from_secs(model.replace_after_min * 60));
            match model.replacement {
                Replacement::Scenario => {}
                Replacement::None => (*replace_after, *remove_on_notice) = (None, false),
                Replacement::AfterTermination => {
                    (*replace_after, *remove_on_notice) = (after, false)
                }
                Replacement::OnNotice => (*replace_after, *remove_on_notice) = (after, true),
            }
        }
    }
    t
}

/// Whether any of the scenario's fault processes interrupts spot instances.
pub fn has_spot_faults(s: &Scenario) -> bool {
    s.faults
        .iter()
        .any(|f| matches!(f.kind, FaultKind::SpotInterruptions { .. }))
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            preset: Preset::Scenario,
            variant: Variant::None,
            trials: 52,
            days: 7,
            seed: 1,
            spot: SpotModel::default(),
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
                "spot" => SpotRate::from_key(value)
                    .map(|r| self.spot.rate = r)
                    .is_some(),
                "replace" => Replacement::from_key(value)
                    .map(|r| self.spot.replacement = r)
                    .is_some(),
                "replace_min" => number()
                    .filter(|m| (1..=1440).contains(m))
                    .map(|m| self.spot.replace_after_min = m)
                    .is_some(),
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
            "trials={}&days={}&seed={}&faults={}&vs={}&spot={}&replace={}&replace_min={}",
            self.trials,
            self.days,
            self.seed,
            self.preset.key(),
            self.variant.key(),
            self.spot.rate.key(),
            self.spot.replacement.key(),
            self.spot.replace_after_min
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
        Variant::OnNotice => {
            let spot_etcd = s.hosts.iter().any(|h| h.spot && h.runs_etcd());
            let mut changed = false;
            for f in &mut t.faults {
                if let FaultKind::SpotInterruptions {
                    remove_on_notice, ..
                } = &mut f.kind
                {
                    changed |= !*remove_on_notice;
                    *remove_on_notice = true;
                }
            }
            if !(spot_etcd && changed) {
                return None;
            }
            t.name = format!("{} (members removed on notice)", s.name);
        }
    }
    Some(t)
}

/// The designs a study runs: the scenario under the chosen faults and spot model, and the design
/// it is compared with, if the variant applies.
pub fn designs(base: &Scenario, st: &Settings) -> Vec<Scenario> {
    let s = with_spot_model(&with_preset(base, st.preset), &st.spot);
    let v = variant_of(&s, st.variant);
    std::iter::once(s).chain(v).collect()
}

/// A study ready to open: a question about a design, the scenario and settings that answer it,
/// and what the answer is (checked by `tests/ready_studies.rs` against a run of the study).
pub struct ReadyStudy {
    pub id: &'static str,
    pub question: &'static str,
    /// The ready scenario it studies (`catalog.rs`).
    pub scenario: &'static str,
    pub settings: Settings,
    /// What the study shows, in words.
    pub answer: &'static str,
    /// The claim of `answer` about the two designs' quorum, as the test checks it.
    pub claim: Claim,
}

/// What a ready study's answer claims about how often its two designs first lose quorum (as
/// the page's verdict reads it: [`FirstLoss::less_often_than`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The compared design loses quorum less often, beyond doubt.
    VariantBetter,
    /// The compared design does not lose it less often, beyond doubt.
    VariantNoBetter,
    /// The compared design never loses quorum in any trial.
    VariantNever,
}

/// A stress test of a spot control plane: every master interrupted about once an hour (the
/// ready scenario's own rate, far more often than any instance type), so a day of trials shows
/// what the designs tolerate.
fn spot_stress(variant: Variant, replacement: Replacement) -> Settings {
    Settings {
        preset: Preset::Scenario,
        variant,
        trials: 40,
        days: 1,
        seed: 1,
        spot: SpotModel {
            rate: SpotRate::Scenario,
            replacement,
            replace_after_min: 5,
        },
    }
}

/// The ready studies of "is a control plane on spot instances realistic?".
pub fn ready_studies() -> Vec<ReadyStudy> {
    const SPOT: &str = "6-spot-replaced-automatically";
    vec![
        ReadyStudy {
            id: "spot-on-notice",
            question: "Spot masters: replace a reclaimed one after its termination, or act on its notice?",
            scenario: SPOT,
            settings: spot_stress(Variant::OnNotice, Replacement::AfterTermination),
            answer: "Acting on the notice loses quorum far less: the member is removed while every vote is still there, so a second reclaim soon after shrinks the cluster instead of breaking its quorum. Replaced after the termination, the removal comes when the quorum may already be gone, and then neither it nor the join can happen.",
            claim: Claim::VariantBetter,
        },
        ReadyStudy {
            id: "spot-five-masters",
            question: "Spot masters replaced after their termination: do five do better than three?",
            scenario: SPOT,
            settings: spot_stress(Variant::TwoMoreMasters, Replacement::AfterTermination),
            answer: "No: five members meet more interruptions, and every reclaimed member still counts until its replacement removes it, which itself needs a quorum; the extra members do not make up for it.",
            claim: Claim::VariantNoBetter,
        },
        ReadyStudy {
            id: "spot-five-on-notice",
            question: "Spot masters that act on the notice: do five do better than three?",
            scenario: SPOT,
            settings: spot_stress(Variant::TwoMoreMasters, Replacement::OnNotice),
            answer: "Yes: when each member is removed on its notice, five members shrink to three and still hold a quorum through reclaims that leave three members with none.",
            claim: Claim::VariantBetter,
        },
        ReadyStudy {
            id: "spot-external-etcd",
            question: "Spot apiservers, etcd on on-demand machines: does a reclaim still cost the quorum?",
            scenario: SPOT,
            settings: spot_stress(Variant::ExternalEtcd, Replacement::AfterTermination),
            answer: "Never: with etcd on machines of its own that are not spot, a reclaimed control-plane host takes only an apiserver with it.",
            claim: Claim::VariantNever,
        },
    ]
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

/// The same study as a Kubernetes Indexed Job of `shards` pods (`deploy/run-study.sh` in a clone
/// of the repository): it prints the same report as [`runner_command`] without `--json`.
pub fn job_command(st: &Settings, shards: u64) -> String {
    format!(
        "SEED={} deploy/run-study.sh scenario.json {shards} {} {}h",
        st.seed,
        st.trials,
        st.days * 24
    )
}

/// Pods for a Job of a study estimated at `estimate_s` on `workers` workers: each pod's part
/// (one core) about `part_s` long at the page's speed, at least two pods, at most one per trial.
pub fn job_shards(estimate_s: f64, workers: u64, trials: u64, part_s: f64) -> u64 {
    let cores_s = estimate_s * workers.max(1) as f64;
    ((cores_s / part_s).ceil() as u64).max(2).min(trials.max(1))
}

/// A year, in seconds (365 days: the studies' horizons are whole days).
pub const YEAR_S: f64 = 365.0 * 86_400.0;

/// How often a design first loses a figure: trials that lost it, over the time the trials were
/// watched until they did (or to their end). Faults are memoryless, so that time to a first
/// loss is exponential and its rate is the number seen over the time watched (with the exact
/// Poisson interval of that number).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FirstLoss {
    pub events: u64,
    pub trials: u64,
    /// Seconds watched: each trial up to its first loss, or its whole horizon.
    pub watched_s: f64,
}

impl FirstLoss {
    /// From each trial's first loss (seconds from its start), if it had one.
    pub fn of(firsts: impl IntoIterator<Item = Option<f64>>, horizon_s: f64) -> FirstLoss {
        let (mut events, mut trials, mut watched_s) = (0, 0, 0.0);
        for f in firsts {
            trials += 1;
            match f {
                Some(t) => {
                    events += 1;
                    watched_s += t.min(horizon_s);
                }
                None => watched_s += horizon_s,
            }
        }
        FirstLoss {
            events,
            trials,
            watched_s,
        }
    }

    /// First losses per year: the estimate, then its 95 % interval.
    pub fn per_year(&self) -> (f64, [f64; 2]) {
        let years = (self.watched_s / YEAR_S).max(f64::MIN_POSITIVE);
        let [lo, hi] = sim::study::poisson_interval(self.events);
        (self.events as f64 / years, [lo / years, hi / years])
    }

    /// Whether this design first loses the figure less often than `other`, beyond doubt: its
    /// interval of the rate lies wholly below the other's.
    pub fn less_often_than(&self, other: &FirstLoss) -> bool {
        self.per_year().1[1] < other.per_year().1[0]
    }

    /// The share of years with a loss: the estimate, then its 95 % interval.
    pub fn share_of_years(&self) -> (f64, [f64; 2]) {
        let share = |rate: f64| 1.0 - (-rate).exp();
        let (r, [lo, hi]) = self.per_year();
        (share(r), [share(lo), share(hi)])
    }

    /// The mean time to the first loss, in years: the estimate, then its 95 % interval (`None`:
    /// without bound, from what was seen).
    pub fn mean_years(&self) -> (Option<f64>, [Option<f64>; 2]) {
        let years = |rate: f64| (rate > 0.0).then(|| 1.0 / rate);
        let (r, [lo, hi]) = self.per_year();
        (years(r), [years(hi), years(lo)])
    }
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

    /// The Job's command runs the same study as the runner's, in enough pods that each one's part
    /// takes about the given time on one core, never fewer than two nor more than the trials.
    #[test]
    fn a_study_too_long_for_a_tab_splits_into_a_job_of_pods() {
        let st = Settings {
            trials: 800,
            days: 365,
            seed: 4,
            ..Settings::default()
        };
        // 2 h on 2 workers is 4 core-hours: 16 parts of 15 min.
        assert_eq!(job_shards(7200.0, 2, st.trials, 900.0), 16);
        assert_eq!(job_shards(60.0, 2, st.trials, 900.0), 2);
        assert_eq!(job_shards(1e9, 8, 3, 900.0), 3);
        assert_eq!(
            job_command(&st, 16),
            "SEED=4 deploy/run-study.sh scenario.json 16 800 8760h"
        );
        assert_eq!(
            runner_command(&st),
            "clustersim study scenario.json --trials 800 --horizon 8760h --seed 4 --json"
        );
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
            spot: SpotModel {
                rate: SpotRate::Bucket(3),
                replacement: Replacement::OnNotice,
                replace_after_min: 10,
            },
        };
        let mut read = Settings::default();
        assert!(read.read(&format!("#s=1.abc&{}", st.write())).is_empty());
        assert_eq!(read, st);
        let mut bad = Settings::default();
        let problems = bad
            .read("trials=0&days=3&faults=meteor&vs=x&seed=-1&spot=3&replace=later&replace_min=0");
        assert_eq!(
            problems,
            [
                "trials=0",
                "days=3",
                "faults=meteor",
                "vs=x",
                "seed=-1",
                "spot=3",
                "replace=later",
                "replace_min=0"
            ]
        );
        assert_eq!(bad, Settings::default());
    }

    #[test]
    fn first_losses_give_the_share_of_years_and_the_mean_time_to_one() {
        // 10 first losses in 100 trial-years watched: a rate of 0.1 a year.
        let firsts = (0..100).map(|i| (i < 10).then_some(YEAR_S / 2.0));
        let f = FirstLoss::of(firsts, YEAR_S);
        assert_eq!((f.events, f.trials), (10, 100));
        assert!((f.watched_s / YEAR_S - 95.0).abs() < 1e-9);
        let (share, [lo, hi]) = f.share_of_years();
        let rate: f64 = 10.0 / 95.0;
        assert!((share - (1.0 - (-rate).exp())).abs() < 1e-12);
        // The exact interval of 10 events: [4.795, 18.39].
        assert!((lo - (1.0 - (-4.795f64 / 95.0).exp())).abs() < 1e-4, "{lo}");
        assert!((hi - (1.0 - (-18.39f64 / 95.0).exp())).abs() < 1e-4, "{hi}");
        let (mean, [short, long]) = f.mean_years();
        assert!((mean.unwrap() - 9.5).abs() < 1e-9);
        assert!((short.unwrap() - 95.0 / 18.39).abs() < 0.01);
        assert!((long.unwrap() - 95.0 / 4.795).abs() < 0.01);
        // None in 100 years: at most 3.6 % of years, a mean time of at least 27 years.
        let none = FirstLoss::of((0..100).map(|_| None), YEAR_S);
        let (share, [lo, hi]) = none.share_of_years();
        assert_eq!((share, lo), (0.0, 0.0));
        assert!((hi - (1.0 - (-3.689f64 / 100.0).exp())).abs() < 1e-4);
        let (mean, [short, long]) = none.mean_years();
        assert_eq!((mean, long), (None, None));
        assert!((short.unwrap() - 100.0 / 3.689).abs() < 0.01);
    }

    #[test]
    fn the_spot_model_sets_every_spot_process_in_the_readers_terms() {
        // 7.5 % of instances a month: one interruption every 12.8 months (384.8 days) on average.
        let every = SpotRate::mean_interval(0.075);
        assert!(
            (every.as_secs_f64() / 86_400.0 - 384.8).abs() < 0.1,
            "{every}"
        );
        // Over 20 % (25 %): every 3.5 months (104 days).
        assert!((SpotRate::mean_interval(0.25).as_secs_f64() / 86_400.0 - 104.3).abs() < 0.5);
        let s = with_preset(&stacked(), Preset::Spot);
        let spot = |t: &Scenario| -> Vec<FaultKind> {
            t.faults
                .iter()
                .filter(|f| matches!(f.kind, FaultKind::SpotInterruptions { .. }))
                .map(|f| f.kind.clone())
                .collect()
        };
        let model = |rate, replacement| SpotModel {
            rate,
            replacement,
            replace_after_min: 5,
        };
        assert_eq!(
            spot(&with_spot_model(
                &s,
                &model(SpotRate::Bucket(1), Replacement::OnNotice)
            )),
            [FaultKind::SpotInterruptions {
                every,
                replace_after: Some(Duration::from_secs(300)),
                remove_on_notice: true
            }]
        );
        assert_eq!(
            spot(&with_spot_model(
                &s,
                &model(SpotRate::Scenario, Replacement::None)
            )),
            [FaultKind::SpotInterruptions {
                every: days(14),
                replace_after: None,
                remove_on_notice: false
            }]
        );
        // As the scenario says: unchanged. Other processes: unchanged.
        assert_eq!(
            with_spot_model(&s, &model(SpotRate::Scenario, Replacement::Scenario)),
            s
        );
        let t = with_spot_model(&s, &SpotModel::default());
        assert_eq!(t.faults[0], s.faults[0]);
        assert!(has_spot_faults(&s) && !has_spot_faults(&stacked()));
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
