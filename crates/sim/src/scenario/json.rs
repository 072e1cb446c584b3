//! The JSON form of a scenario: [`parse`] reads a document into the model, and
//! [`Scenario::to_json`] writes the canonical one. Each type's whole format (its spelling, its
//! known fields, how it is read and how it is written) sits in one section below, so a change
//! to the format is made in one place.

use serde::de::{self, Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

use super::error::{fail, index_path, quote, ScenarioError, R};
use super::limits::check_count;
use super::quantity;
use super::tree::{
    as_arr, as_bool, as_bounded_arr, as_duration, as_str, as_string, as_u32, as_u64, dur, Obj, J,
};
use super::validate::unsupported_version;
use super::{
    Action, Budget, Component, Event, Fault, FaultKind, Host, LbHealthCheck, Milli, Range, Role,
    Scenario, Selector, SettingKey, SettingValue, Settings, Spread, Workload, WorkloadKind,
    DEFAULT_REBOOT_DOWNTIME, DEFAULT_SEED, DEFAULT_TERMINATION_GRACE_PERIOD, DEFAULT_ZONE,
    MAX_DURATION, MAX_EVENTS, MAX_FAULTS, MAX_HOSTS, MAX_INPUT_BYTES, MAX_WORKLOADS, MAX_ZONES,
    VERSION,
};
use crate::kernel::time::Duration;

// ---------------------------------------------------------------------------------------------
// The document
// ---------------------------------------------------------------------------------------------

/// Known fields of the document, in the order they are written back. Unknown fields are an
/// error (typos must not pass silently); a new optional field of the format goes here, or in
/// the list of its object below.
const SCENARIO_FIELDS: &[&str] = &[
    "version",
    "name",
    "description",
    "seed",
    "duration",
    "zones",
    "hosts",
    "workloads",
    "settings",
    "events",
    "faults",
];

/// Parses and validates a scenario document.
pub fn parse(json: &str) -> Result<Scenario, ScenarioError> {
    // Editors on some systems save a byte-order mark; it is not an error worth a message.
    let json = json.strip_prefix('\u{feff}').unwrap_or(json);
    if json.len() > MAX_INPUT_BYTES {
        return fail(
            "",
            format!(
                "the document is {} bytes; the limit is {MAX_INPUT_BYTES}",
                json.len()
            ),
        );
    }
    let tree: J = serde_json::from_str(json)
        .map_err(|e| ScenarioError::new("", format!("invalid JSON: {e}")))?;
    let scenario = from_tree(&tree)?;
    scenario.validate()?;
    Ok(scenario)
}

fn from_tree(tree: &J) -> R<Scenario> {
    let o = Obj::new(tree, "", "a JSON object (the scenario)")?;
    // The version first: a document of a later format is reported as such, not as a list of
    // unknown fields.
    let version_j = o.req("version")?;
    let version = match version_j {
        J::U(n) => *n,
        _ => {
            return fail(
                "version",
                format!("expected the number 1, found {}", version_j.found()),
            )
        }
    };
    if version != VERSION as u64 {
        return fail("version", unsupported_version(version));
    }
    o.only(SCENARIO_FIELDS, "")?;

    let name = as_string(o.req("name")?, "name")?;
    let description = match o.get("description") {
        None => None,
        Some(j) => Some(as_string(j, "description")?),
    };
    let seed = match o.get("seed") {
        None => DEFAULT_SEED,
        Some(j) => as_u64(j, "seed")?,
    };
    let duration = as_duration(o.req("duration")?, "duration")?;

    let zones = match o.get("zones") {
        None => Vec::new(),
        Some(j) => as_bounded_arr(j, "zones", "an array of zone names", MAX_ZONES, "zones")?
            .iter()
            .enumerate()
            .map(|(i, z)| as_string(z, &index_path("zones", i)))
            .collect::<R<_>>()?,
    };

    let hosts = as_bounded_arr(
        o.req("hosts")?,
        "hosts",
        "an array of hosts",
        MAX_HOSTS,
        "hosts",
    )?
    .iter()
    .enumerate()
    .map(|(i, h)| host_from(h, &index_path("hosts", i)))
    .collect::<R<_>>()?;

    let workloads = match o.get("workloads") {
        None => Vec::new(),
        Some(j) => as_bounded_arr(
            j,
            "workloads",
            "an array of workloads",
            MAX_WORKLOADS,
            "workloads",
        )?
        .iter()
        .enumerate()
        .map(|(i, w)| workload_from(w, &index_path("workloads", i)))
        .collect::<R<_>>()?,
    };

    let settings = match o.get("settings") {
        None => Settings::default(),
        Some(j) => settings_from(j, "settings")?,
    };

    let events = match o.get("events") {
        None => Vec::new(),
        Some(j) => as_bounded_arr(j, "events", "an array of events", MAX_EVENTS, "events")?
            .iter()
            .enumerate()
            .map(|(i, e)| event_from(e, &index_path("events", i)))
            .collect::<R<_>>()?,
    };

    let faults = match o.get("faults") {
        None => Vec::new(),
        Some(j) => as_bounded_arr(
            j,
            "faults",
            "an array of fault processes",
            MAX_FAULTS,
            "faults",
        )?
        .iter()
        .enumerate()
        .map(|(i, f)| fault_from(f, &index_path("faults", i)))
        .collect::<R<_>>()?,
    };

    Ok(Scenario {
        version: version as u32,
        name,
        description,
        seed,
        duration,
        zones,
        hosts,
        workloads,
        settings,
        events,
        faults,
    })
}

impl Scenario {
    /// The canonical tree. Every top-level field is written (`description` when present),
    /// with `zone`, `seed` and a reboot's `downtime` spelled out; flags (`spot`, `standby`,
    /// `service`, `force`) only when true; settings only those the document named or that
    /// differ from the default. Order: that of the contract page.
    fn tree(&self) -> J {
        let mut f = vec![
            ("version", J::U(self.version as u64)),
            ("name", J::str(&self.name)),
        ];
        if let Some(d) = &self.description {
            f.push(("description", J::str(d)));
        }
        f.push(("seed", J::U(self.seed)));
        f.push(("duration", dur(self.duration)));
        f.push((
            "zones",
            J::Arr(self.zones.iter().map(|z| J::str(z)).collect()),
        ));
        f.push(("hosts", J::Arr(self.hosts.iter().map(Host::tree).collect())));
        f.push((
            "workloads",
            J::Arr(self.workloads.iter().map(Workload::tree).collect()),
        ));
        f.push(("settings", self.settings.tree()));
        f.push((
            "events",
            J::Arr(self.events.iter().map(Event::tree).collect()),
        ));
        // Written only when present, so documents without faults keep their canonical form.
        if !self.faults.is_empty() {
            f.push((
                "faults",
                J::Arr(self.faults.iter().map(Fault::tree).collect()),
            ));
        }
        debug_assert!(f.iter().all(|(k, _)| SCENARIO_FIELDS.contains(k)));
        J::obj(f)
    }

    /// The canonical document: pretty-printed with 2-space indentation, no trailing newline.
    pub fn to_json(&self) -> String {
        // Serialising a tree of strings, numbers and string-keyed maps cannot fail.
        serde_json::to_string_pretty(&self.tree()).unwrap_or_default()
    }

    /// The canonical document without whitespace (the share link's form): the same keys in
    /// the same order as [`Scenario::to_json`].
    pub fn to_compact_json(&self) -> String {
        serde_json::to_string(&self.tree()).unwrap_or_default()
    }

    /// The canonical document as a `serde_json::Value` (key order then follows serde_json's
    /// map type; use [`Scenario::to_json`] for the canonical text).
    pub fn to_json_value(&self) -> serde_json::Value {
        serde_json::to_value(self.tree()).unwrap_or(serde_json::Value::Null)
    }
}

/// Writes the canonical form, so a scenario can sit inside other serialised data.
impl Serialize for Scenario {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.tree().serialize(s)
    }
}

/// Reads through the same checks as [`parse`]; the error text is the `path: message` line.
impl<'de> Deserialize<'de> for Scenario {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scenario, D::Error> {
        let tree = J::deserialize(d)?;
        let scenario = from_tree(&tree).map_err(de::Error::custom)?;
        scenario.validate().map_err(de::Error::custom)?;
        Ok(scenario)
    }
}

// ---------------------------------------------------------------------------------------------
// Hosts
// ---------------------------------------------------------------------------------------------

impl Role {
    pub const ALL: [Role; 8] = [
        Role::Etcd,
        Role::ControlPlane,
        Role::Apiserver,
        Role::ControllerManager,
        Role::Scheduler,
        Role::Worker,
        Role::LoadBalancer,
        Role::Client,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Role::Etcd => "etcd",
            Role::ControlPlane => "control-plane",
            Role::Apiserver => "apiserver",
            Role::ControllerManager => "controller-manager",
            Role::Scheduler => "scheduler",
            Role::Worker => "worker",
            Role::LoadBalancer => "load-balancer",
            Role::Client => "client",
        }
    }
    pub fn from_name(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == s)
    }
}

/// Known fields of a host, in the order they are written back.
const HOST_FIELDS: &[&str] = &["name", "zone", "roles", "spot", "standby", "cpu", "memory"];

fn host_from(j: &J, path: &str) -> R<Host> {
    let o = Obj::new(j, path, "a host object")?;
    o.only(HOST_FIELDS, "")?;
    let name = as_string(o.req("name")?, &o.at("name"))?;
    let zone = match o.get("zone") {
        None => DEFAULT_ZONE.to_string(),
        Some(z) => as_string(z, &o.at("zone"))?,
    };
    let roles_path = o.at("roles");
    let mut roles = Vec::new();
    // At most one of each role, so anything longer is refused as a duplicate below.
    for (i, r) in as_arr(o.req("roles")?, &roles_path, "an array of role names")?
        .iter()
        .enumerate()
    {
        let p = index_path(&roles_path, i);
        let s = as_str(r, &p, "a role name")?;
        match Role::from_name(s) {
            Some(role) if roles.contains(&role) => {
                return fail(p, format!("duplicate role {}", quote(s)))
            }
            Some(role) => roles.push(role),
            None => {
                let known: Vec<&str> = Role::ALL.iter().map(|r| r.name()).collect();
                return fail(
                    p,
                    format!("unknown role {} (known: {})", quote(s), known.join(", ")),
                );
            }
        }
    }
    let spot = match o.get("spot") {
        None => false,
        Some(b) => as_bool(b, &o.at("spot"))?,
    };
    let standby = match o.get("standby") {
        None => false,
        Some(b) => as_bool(b, &o.at("standby"))?,
    };
    let read_quantity = |key: &str, read: fn(&J) -> Result<u64, String>| -> R<Option<u64>> {
        o.get(key)
            .map(|j| read(j).map_err(|m| ScenarioError::new(o.at(key), m)))
            .transpose()
    };
    Ok(Host {
        name,
        zone,
        roles,
        spot,
        standby,
        cpu: read_quantity("cpu", quantity::cpu_from)?,
        memory: read_quantity("memory", quantity::memory_from)?,
    })
}

impl Host {
    fn tree(&self) -> J {
        let mut f = vec![
            ("name", J::str(&self.name)),
            ("zone", J::str(&self.zone)),
            (
                "roles",
                J::Arr(self.roles.iter().map(|r| J::str(r.name())).collect()),
            ),
        ];
        if self.spot {
            f.push(("spot", J::Bool(true)));
        }
        if self.standby {
            f.push(("standby", J::Bool(true)));
        }
        if let Some(cpu) = self.cpu {
            f.push(("cpu", J::Str(quantity::fmt_cpu(cpu))));
        }
        if let Some(memory) = self.memory {
            f.push(("memory", J::Str(quantity::fmt_memory(memory))));
        }
        J::obj(f)
    }
}

// ---------------------------------------------------------------------------------------------
// Workloads
// ---------------------------------------------------------------------------------------------

impl WorkloadKind {
    pub const ALL: [WorkloadKind; 3] = [
        WorkloadKind::Deployment,
        WorkloadKind::StatefulSet,
        WorkloadKind::DaemonSet,
    ];
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::StatefulSet => "StatefulSet",
            WorkloadKind::DaemonSet => "DaemonSet",
        }
    }
    pub fn from_name(s: &str) -> Option<WorkloadKind> {
        WorkloadKind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// Known fields of a workload, in the order they are written back.
const WORKLOAD_FIELDS: &[&str] = &[
    "kind",
    "name",
    "replicas",
    "service",
    "requests",
    "pdb",
    "spread",
    "termination_grace_period",
    "stop_takes",
];

fn workload_from(j: &J, path: &str) -> R<Workload> {
    let o = Obj::new(j, path, "a workload object")?;
    o.only(WORKLOAD_FIELDS, "")?;
    let kind_path = o.at("kind");
    let kind_s = as_str(o.req("kind")?, &kind_path, "a workload kind")?;
    let kind = WorkloadKind::from_name(kind_s).ok_or_else(|| {
        ScenarioError::new(
            &kind_path,
            format!(
                "unknown kind {} (known: Deployment, StatefulSet, DaemonSet)",
                quote(kind_s)
            ),
        )
    })?;
    let name = as_string(o.req("name")?, &o.at("name"))?;
    let replicas = match o.get("replicas") {
        None => None,
        Some(n) => Some(as_u32(n, &o.at("replicas"))?),
    };
    let service = match o.get("service") {
        None => false,
        Some(b) => as_bool(b, &o.at("service"))?,
    };
    let requests = match o.get("requests") {
        None => None,
        Some(r) => {
            let path = o.at("requests");
            let r = Obj::new(
                r,
                &path,
                "a requests object ({\"cpu\": \"500m\", \"memory\": \"1Gi\"})",
            )?;
            r.only(&["cpu", "memory"], "")?;
            let read = |key: &str, f: fn(&J) -> Result<u64, String>| -> R<u64> {
                r.get(key).map_or(Ok(0), |j| {
                    f(j).map_err(|m| ScenarioError::new(r.at(key), m))
                })
            };
            Some(super::Resources {
                cpu: read("cpu", quantity::cpu_from)?,
                memory: read("memory", quantity::memory_from)?,
            })
        }
    };
    let pdb = match o.get("pdb") {
        None => None,
        Some(b) => {
            let path = o.at("pdb");
            let b = Obj::new(
                b,
                &path,
                "a budget object ({\"min_available\": 2} or {\"max_unavailable\": 1})",
            )?;
            b.only(&["min_available", "max_unavailable"], "")?;
            let count = |key: &str, n: &J| -> R<u32> {
                if matches!(n, J::Str(s) if s.ends_with('%')) {
                    return Err(ScenarioError::new(
                        b.at(key),
                        "a percentage is not supported: give a number of pods",
                    ));
                }
                as_u32(n, &b.at(key))
            };
            match (b.get("min_available"), b.get("max_unavailable")) {
                (Some(n), None) => Some(Budget::MinAvailable(count("min_available", n)?)),
                (None, Some(n)) => Some(Budget::MaxUnavailable(count("max_unavailable", n)?)),
                _ => {
                    return Err(ScenarioError::new(
                        &path,
                        "give exactly one of min_available and max_unavailable",
                    ))
                }
            }
        }
    };
    let spread = match o.get("spread") {
        None => None,
        Some(j) => {
            let path = o.at("spread");
            match as_str(j, &path, "\"zone\" or \"host\"")? {
                "zone" => Some(Spread::Zone),
                "host" => Some(Spread::Host),
                other => {
                    return fail(
                        path,
                        format!("unknown topology {} (known: zone, host)", quote(other)),
                    )
                }
            }
        }
    };
    let duration = |key: &str, default: Duration| -> R<Duration> {
        o.get(key)
            .map_or(Ok(default), |j| as_duration(j, &o.at(key)))
    };
    Ok(Workload {
        kind,
        name,
        replicas,
        service,
        requests,
        pdb,
        spread,
        termination_grace_period: duration(
            "termination_grace_period",
            DEFAULT_TERMINATION_GRACE_PERIOD,
        )?,
        stop_takes: duration("stop_takes", Duration::ZERO)?,
    })
}

impl Workload {
    fn tree(&self) -> J {
        let mut f = vec![
            ("kind", J::str(self.kind.name())),
            ("name", J::str(&self.name)),
        ];
        if let Some(n) = self.replicas {
            f.push(("replicas", J::U(n as u64)));
        }
        if self.service {
            f.push(("service", J::Bool(true)));
        }
        if let Some(r) = self.requests {
            let mut q = Vec::new();
            if r.cpu > 0 {
                q.push(("cpu", J::Str(quantity::fmt_cpu(r.cpu))));
            }
            if r.memory > 0 {
                q.push(("memory", J::Str(quantity::fmt_memory(r.memory))));
            }
            f.push(("requests", J::obj(q)));
        }
        match self.pdb {
            Some(Budget::MinAvailable(n)) => {
                f.push(("pdb", J::obj(vec![("min_available", J::U(n as u64))])))
            }
            Some(Budget::MaxUnavailable(n)) => {
                f.push(("pdb", J::obj(vec![("max_unavailable", J::U(n as u64))])))
            }
            None => {}
        }
        if let Some(s) = self.spread {
            f.push(("spread", J::str(s.name())));
        }
        if self.termination_grace_period != DEFAULT_TERMINATION_GRACE_PERIOD {
            f.push((
                "termination_grace_period",
                dur(self.termination_grace_period),
            ));
        }
        if self.stop_takes != Duration::ZERO {
            f.push(("stop_takes", dur(self.stop_takes)));
        }
        J::obj(f)
    }
}

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

impl LbHealthCheck {
    pub fn name(self) -> &'static str {
        match self {
            LbHealthCheck::Readyz => "readyz",
            LbHealthCheck::Tcp => "tcp",
        }
    }
    pub fn from_name(s: &str) -> Option<LbHealthCheck> {
        match s {
            "readyz" => Some(LbHealthCheck::Readyz),
            "tcp" => Some(LbHealthCheck::Tcp),
            _ => None,
        }
    }
}

fn settings_from(j: &J, path: &str) -> R<Settings> {
    let o = Obj::new(j, path, "an object of settings")?;
    let mut s = Settings::default();
    for (k, v) in o.items {
        let p = o.at(k);
        let Some(key) = SettingKey::from_name(k) else {
            return fail(p, "unknown setting");
        };
        let like = s.get(key);
        let value = match (like, key.range()) {
            (SettingValue::Bool(_), _) => SettingValue::Bool(as_bool(v, &p)?),
            (SettingValue::Count(_), _) => SettingValue::Count(as_u32(v, &p)?),
            (SettingValue::Milli(_), _) => {
                // Written as a string ("0.55", as fractions are), read as a number too.
                let x = match v {
                    J::U(n) => *n as f64,
                    J::F(x) => *x,
                    J::Str(t) => match crate::kernel::decimal::parse_decimal(t) {
                        Some(x) => x,
                        None => return fail(p, format!("expected a number, found {}", quote(t))),
                    },
                    _ => return fail(p, format!("expected a number, found {}", v.found())),
                };
                match Milli::from_f64(x) {
                    Some(m) => SettingValue::Milli(m),
                    None => return fail(p, "expected a number ≥ 0 with at most three decimals"),
                }
            }
            // The Kubernetes flag is an integer number of seconds; accept that form too.
            (SettingValue::Duration(_), Range::Seconds) => match v {
                J::U(n) if *n <= MAX_DURATION.as_micros() / 1_000_000 => {
                    SettingValue::Duration(Duration::from_secs(*n))
                }
                J::U(n) => {
                    return fail(p, format!("{n}s exceeds the limit of {MAX_DURATION}"));
                }
                _ => SettingValue::Duration(as_duration(v, &p)?),
            },
            (SettingValue::Duration(_), _) => SettingValue::Duration(as_duration(v, &p)?),
            // The enums: one of their words.
            _ => {
                let word = as_str(v, &p, "a string")?;
                match like.parse_like(word) {
                    Ok(value) => value,
                    Err(e) => return fail(p, e),
                }
            }
        };
        s.set(key, value);
    }
    Ok(s)
}

impl Settings {
    fn tree(&self) -> J {
        let mut fields = Vec::new();
        for &key in SettingKey::ALL {
            if !self.is_written(key) {
                continue;
            }
            let v = match self.get(key) {
                SettingValue::Duration(d) => dur(d),
                SettingValue::Bool(b) => J::Bool(b),
                SettingValue::Count(n) => J::U(n as u64),
                other => J::Str(other.words()),
            };
            fields.push((key.name(), v));
        }
        J::obj(fields)
    }
}

// ---------------------------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------------------------

/// Known fields of a fault process, in the order they are written back.
const FAULT_FIELDS: &[&str] = &[
    "hosts",
    "zones",
    "mtbf",
    "mttr",
    "spot_interruptions_every",
    "replace_after",
    "remove_on_notice",
];

fn fault_from(j: &J, path: &str) -> R<Fault> {
    let o = Obj::new(j, path, "a fault process object")?;
    o.only(FAULT_FIELDS, "")?;
    let (on_zones, targets) = match (o.get("hosts"), o.get("zones")) {
        (Some(h), None) => (false, selector_from(h, &o.at("hosts"))?),
        (None, Some(z)) => (true, selector_from(z, &o.at("zones"))?),
        _ => return fail(path, "give exactly one of \"hosts\" and \"zones\""),
    };
    let get_dur = |k: &str| o.get(k).map(|j| as_duration(j, &o.at(k))).transpose();
    let kind = match get_dur("spot_interruptions_every")? {
        Some(every) => {
            for k in ["zones", "mtbf", "mttr"] {
                if o.get(k).is_some() {
                    return fail(o.at(k), "not a field of spot interruptions (hosts, spot_interruptions_every, replace_after, remove_on_notice)");
                }
            }
            let remove = o.get("remove_on_notice");
            FaultKind::SpotInterruptions {
                every,
                replace_after: get_dur("replace_after")?,
                remove_on_notice: remove
                    .map(|j| as_bool(j, &o.at("remove_on_notice")))
                    .transpose()?
                    .unwrap_or(false),
            }
        }
        None => {
            for k in ["replace_after", "remove_on_notice"] {
                if o.get(k).is_some() {
                    return fail(o.at(k), "only spot interruptions replace hosts");
                }
            }
            let mtbf = as_duration(o.req("mtbf")?, &o.at("mtbf"))?;
            let mttr = as_duration(o.req("mttr")?, &o.at("mttr"))?;
            if on_zones {
                FaultKind::ZoneOutages { mtbf, mttr }
            } else {
                FaultKind::HostFailures { mtbf, mttr }
            }
        }
    };
    Ok(Fault { targets, kind })
}

fn selector_from(j: &J, path: &str) -> R<Selector> {
    if let J::Arr(items) = j {
        let names = items
            .iter()
            .enumerate()
            .map(|(i, n)| as_string(n, &index_path(path, i)))
            .collect::<R<Vec<String>>>()?;
        return Ok(Selector::Names(names));
    }
    let s = as_str(
        j,
        path,
        "a list of names, \"all\", \"spot\" or \"role:ROLE\"",
    )?;
    match s {
        "all" => Ok(Selector::All),
        "spot" => Ok(Selector::Spot),
        _ => match s.strip_prefix("role:").map(Role::from_name) {
            Some(Some(r)) => Ok(Selector::Role(r)),
            _ => fail(
                path,
                format!(
                    "unknown selector {} (a list of names, \"all\", \"spot\" or \"role:ROLE\")",
                    quote(s)
                ),
            ),
        },
    }
}

impl Selector {
    fn tree(&self) -> J {
        match self {
            Selector::All => J::str("all"),
            Selector::Spot => J::str("spot"),
            Selector::Role(r) => J::Str(format!("role:{}", r.name())),
            Selector::Names(n) => J::Arr(n.iter().map(|s| J::str(s)).collect()),
        }
    }
}

impl Fault {
    fn tree(&self) -> J {
        let t = self.targets.tree();
        J::obj(match self.kind {
            FaultKind::HostFailures { mtbf, mttr } => {
                vec![("hosts", t), ("mtbf", dur(mtbf)), ("mttr", dur(mttr))]
            }
            FaultKind::ZoneOutages { mtbf, mttr } => {
                vec![("zones", t), ("mtbf", dur(mtbf)), ("mttr", dur(mttr))]
            }
            FaultKind::SpotInterruptions {
                every,
                replace_after,
                remove_on_notice,
            } => {
                let mut f = vec![("hosts", t), ("spot_interruptions_every", dur(every))];
                if let Some(r) = replace_after {
                    f.push(("replace_after", dur(r)));
                }
                if remove_on_notice {
                    f.push(("remove_on_notice", J::Bool(true)));
                }
                f
            }
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

impl Action {
    /// The action's name in the document (`"partition_oneway"`).
    pub fn name(&self) -> &'static str {
        match self {
            Action::Crash { .. } => "crash",
            Action::Restart { .. } => "restart",
            Action::Reboot { .. } => "reboot",
            Action::Partition { .. } => "partition",
            Action::Isolate { .. } => "isolate",
            Action::PartitionOneway { .. } => "partition_oneway",
            Action::Heal => "heal",
            Action::SpotInterrupt { .. } => "spot_interrupt",
            Action::Join { .. } => "join",
            Action::EtcdMemberAdd { .. } => "etcd_member_add",
            Action::EtcdMemberPromote { .. } => "etcd_member_promote",
            Action::EtcdMemberRemove { .. } => "etcd_member_remove",
            Action::EtcdForceNewCluster { .. } => "etcd_force_new_cluster",
            Action::DeletePod { .. } => "delete_pod",
            Action::Scale { .. } => "scale",
            Action::Cordon { .. } => "cordon",
            Action::Uncordon { .. } => "uncordon",
            Action::Drain { .. } => "drain",
            Action::Taint { .. } => "taint",
            Action::Untaint { .. } => "untaint",
            Action::Label { .. } => "label",
            Action::Unlabel { .. } => "unlabel",
            Action::RestartComponent { .. } => "restart_component",
        }
    }
}

/// The fields each action takes besides `at` and `action`, or `None` for an unknown action.
/// This is the list to extend when the format gains an action or an optional field.
fn action_fields(action: &str) -> Option<&'static [&'static str]> {
    Some(match action {
        "crash"
        | "restart"
        | "isolate"
        | "spot_interrupt"
        | "join"
        | "etcd_member_promote"
        | "etcd_member_remove"
        | "etcd_force_new_cluster"
        | "cordon"
        | "uncordon"
        | "drain" => &["host"],
        "etcd_member_add" => &["host", "learner"],
        "reboot" => &["host", "downtime"],
        "partition" => &["groups"],
        "partition_oneway" => &["from", "to"],
        "heal" => &[],
        "delete_pod" => &["pod", "force"],
        "scale" => &["workload", "replicas"],
        "restart_component" => &["host", "component"],
        "taint" | "untaint" => &["host", "taint"],
        "label" | "unlabel" => &["host", "label"],
        _ => return None,
    })
}

impl Component {
    pub const ALL: [Component; 7] = [
        Component::Coredns,
        Component::KubeProxy,
        Component::Kubelet,
        Component::Apiserver,
        Component::Etcd,
        Component::KubeControllerManager,
        Component::KubeScheduler,
    ];
    /// The canonical name, as written back.
    pub fn name(self) -> &'static str {
        match self {
            Component::Coredns => "coredns",
            Component::KubeProxy => "kube-proxy",
            Component::Kubelet => "kubelet",
            Component::Apiserver => "apiserver",
            Component::Etcd => "etcd",
            Component::KubeControllerManager => "kube-controller-manager",
            Component::KubeScheduler => "kube-scheduler",
        }
    }
    /// The canonical name, or one of the aliases people write (`kube-apiserver`, and the role
    /// names `controller-manager`, `scheduler`), which canonicalise to the names above.
    pub fn from_name(s: &str) -> Option<Component> {
        match s {
            "kube-apiserver" => Some(Component::Apiserver),
            "controller-manager" => Some(Component::KubeControllerManager),
            "scheduler" => Some(Component::KubeScheduler),
            _ => Component::ALL.into_iter().find(|c| c.name() == s),
        }
    }
}

fn event_from(j: &J, path: &str) -> R<Event> {
    let o = Obj::new(j, path, "an event object")?;
    let action_path = o.at("action");
    let name = as_str(o.req("action")?, &action_path, "an action name")?;
    let Some(fields) = action_fields(name) else {
        return fail(action_path, format!("unknown action {}", quote(name)));
    };
    let mut known = vec!["at", "action"];
    known.extend_from_slice(fields);
    o.only(&known, &format!(" for action {}", quote(name)))?;
    let at = as_duration(o.req("at")?, &o.at("at"))?;

    let host = || -> R<String> { as_string(o.req("host")?, &o.at("host")) };
    let action = match name {
        "crash" => Action::Crash { host: host()? },
        "restart" => Action::Restart { host: host()? },
        "reboot" => Action::Reboot {
            host: host()?,
            downtime: match o.get("downtime") {
                None => DEFAULT_REBOOT_DOWNTIME,
                Some(d) => as_duration(d, &o.at("downtime"))?,
            },
        },
        "partition" => {
            let gpath = o.at("groups");
            let groups = as_arr(
                o.req("groups")?,
                &gpath,
                "an array of groups (arrays of names)",
            )?;
            check_count(&gpath, groups.len(), MAX_HOSTS + MAX_ZONES, "groups")?;
            let mut out = Vec::with_capacity(groups.len());
            for (gi, g) in groups.iter().enumerate() {
                let gp = index_path(&gpath, gi);
                let names = as_arr(g, &gp, "an array of zone or host names")?;
                check_count(&gp, names.len(), MAX_HOSTS + MAX_ZONES, "names")?;
                let group = names
                    .iter()
                    .enumerate()
                    .map(|(ni, n)| as_string(n, &index_path(&gp, ni)))
                    .collect::<R<Vec<_>>>()?;
                out.push(group);
            }
            Action::Partition { groups: out }
        }
        "isolate" => Action::Isolate { host: host()? },
        "partition_oneway" => Action::PartitionOneway {
            from: as_names(o.req("from")?, &o.at("from"))?,
            to: as_names(o.req("to")?, &o.at("to"))?,
        },
        "heal" => Action::Heal,
        "spot_interrupt" => Action::SpotInterrupt { host: host()? },
        "join" => Action::Join { host: host()? },
        "etcd_member_add" => Action::EtcdMemberAdd {
            host: host()?,
            learner: match o.get("learner") {
                None => false,
                Some(b) => as_bool(b, &o.at("learner"))?,
            },
        },
        "etcd_member_promote" => Action::EtcdMemberPromote { host: host()? },
        "etcd_member_remove" => Action::EtcdMemberRemove { host: host()? },
        "etcd_force_new_cluster" => Action::EtcdForceNewCluster { host: host()? },
        "cordon" => Action::Cordon { host: host()? },
        "uncordon" => Action::Uncordon { host: host()? },
        "drain" => Action::Drain { host: host()? },
        "taint" => Action::Taint {
            host: host()?,
            taint: as_string(o.req("taint")?, &o.at("taint"))?,
        },
        "untaint" => Action::Untaint {
            host: host()?,
            taint: as_string(o.req("taint")?, &o.at("taint"))?,
        },
        "label" => Action::Label {
            host: host()?,
            label: as_string(o.req("label")?, &o.at("label"))?,
        },
        "unlabel" => Action::Unlabel {
            host: host()?,
            label: as_string(o.req("label")?, &o.at("label"))?,
        },
        "delete_pod" => Action::DeletePod {
            pod: as_string(o.req("pod")?, &o.at("pod"))?,
            force: match o.get("force") {
                None => false,
                Some(b) => as_bool(b, &o.at("force"))?,
            },
        },
        "scale" => Action::Scale {
            workload: as_string(o.req("workload")?, &o.at("workload"))?,
            replicas: as_u32(o.req("replicas")?, &o.at("replicas"))?,
        },
        "restart_component" => {
            let host = host()?;
            let cpath = o.at("component");
            let c = as_str(o.req("component")?, &cpath, "a component name")?;
            let component = Component::from_name(c).ok_or_else(|| {
                let known: Vec<&str> = Component::ALL.iter().map(|c| c.name()).collect();
                ScenarioError::new(
                    &cpath,
                    format!(
                        "unknown component {} (known: {})",
                        quote(c),
                        known.join(", ")
                    ),
                )
            })?;
            Action::RestartComponent { host, component }
        }
        // action_fields() above knows exactly the names matched here.
        _ => return fail(action_path, format!("unknown action {}", quote(name))),
    };
    Ok(Event { at, action })
}

/// A list of names: a string (one name) or a non-empty array of strings.
fn as_names(j: &J, path: &str) -> R<Vec<String>> {
    match j {
        J::Str(s) => Ok(vec![s.clone()]),
        J::Arr(v) => {
            check_count(path, v.len(), MAX_HOSTS + MAX_ZONES, "names")?;
            if v.is_empty() {
                return fail(path, "must name at least one zone or host");
            }
            v.iter()
                .enumerate()
                .map(|(i, x)| as_string(x, &index_path(path, i)))
                .collect()
        }
        _ => fail(
            path,
            format!(
                "expected a zone or host name, or an array of them, found {}",
                j.found()
            ),
        ),
    }
}

/// One name as a string, several as an array (the `from`/`to` of `partition_oneway`).
fn names(v: &[String]) -> J {
    match v {
        [one] => J::str(one),
        _ => J::Arr(v.iter().map(|s| J::str(s)).collect()),
    }
}

impl Event {
    fn tree(&self) -> J {
        let mut f = vec![("at", dur(self.at)), ("action", J::str(self.action.name()))];
        match &self.action {
            Action::Crash { host }
            | Action::Restart { host }
            | Action::Isolate { host }
            | Action::SpotInterrupt { host }
            | Action::Join { host }
            | Action::EtcdMemberPromote { host }
            | Action::EtcdMemberRemove { host }
            | Action::EtcdForceNewCluster { host }
            | Action::Cordon { host }
            | Action::Uncordon { host }
            | Action::Drain { host } => f.push(("host", J::str(host))),
            Action::Taint { host, taint } | Action::Untaint { host, taint } => {
                f.push(("host", J::str(host)));
                f.push(("taint", J::str(taint)));
            }
            Action::Label { host, label } | Action::Unlabel { host, label } => {
                f.push(("host", J::str(host)));
                f.push(("label", J::str(label)));
            }
            Action::EtcdMemberAdd { host, learner } => {
                f.push(("host", J::str(host)));
                if *learner {
                    f.push(("learner", J::Bool(true)));
                }
            }
            Action::Reboot { host, downtime } => {
                f.push(("host", J::str(host)));
                f.push(("downtime", dur(*downtime)));
            }
            Action::Partition { groups } => f.push((
                "groups",
                J::Arr(
                    groups
                        .iter()
                        .map(|g| J::Arr(g.iter().map(|n| J::str(n)).collect()))
                        .collect(),
                ),
            )),
            Action::PartitionOneway { from, to } => {
                f.push(("from", names(from)));
                f.push(("to", names(to)));
            }
            Action::Heal => {}
            Action::DeletePod { pod, force } => {
                f.push(("pod", J::str(pod)));
                if *force {
                    f.push(("force", J::Bool(true)));
                }
            }
            Action::Scale { workload, replicas } => {
                f.push(("workload", J::str(workload)));
                f.push(("replicas", J::U(*replicas as u64)));
            }
            Action::RestartComponent { host, component } => {
                f.push(("host", J::str(host)));
                f.push(("component", J::str(component.name())));
            }
        }
        J::obj(f)
    }
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::example::{assert_errors, edited, example_value, with_events, EXAMPLE};

    #[test]
    fn capacity_fields_parse_and_write_back_canonically() {
        use crate::scenario::{Resources, DEFAULT_ALLOCATABLE};
        let doc = edited(|v| {
            v["hosts"][5]["cpu"] = serde_json::json!(2);
            v["hosts"][5]["memory"] = serde_json::json!("8192Mi");
            v["hosts"][6]["cpu"] = serde_json::json!("3500m");
            v["workloads"][0]["requests"] = serde_json::json!({"cpu": "0.5", "memory": "1Gi"});
            v["workloads"][1]["requests"] = serde_json::json!({"memory": "70Mi"});
        });
        let s = parse(&doc).unwrap();
        assert_eq!(
            (s.hosts[5].cpu, s.hosts[5].memory),
            (Some(2000), Some(8 << 30))
        );
        assert_eq!(
            s.hosts[6].allocatable(),
            Resources {
                cpu: 3500,
                memory: 16 << 30
            }
        );
        assert_eq!(s.hosts[0].allocatable(), DEFAULT_ALLOCATABLE);
        assert_eq!(
            s.workloads[0].requests,
            Some(Resources {
                cpu: 500,
                memory: 1 << 30
            })
        );
        assert_eq!(
            s.workloads[1].requests,
            Some(Resources {
                cpu: 0,
                memory: 70 << 20
            })
        );
        let json = s.to_json();
        assert!(
            json.contains(r#""cpu": "2""#) && json.contains(r#""memory": "8Gi""#),
            "{json}"
        );
        assert!(json.contains(r#""requests": {"#) && json.contains(r#""cpu": "500m""#));
        assert_eq!(parse(&json).unwrap(), s);
        // Documents without them are written as before.
        assert!(!parse(EXAMPLE).unwrap().to_json().contains("cpu"));
        assert_errors(vec![
            (
                edited(|v| v["hosts"][0]["cpu"] = serde_json::json!("4 cores")),
                r#"hosts[0].cpu: "4 cores" is not a cpu quantity ("4", "0.5", "500m")"#,
            ),
            (
                edited(|v| v["hosts"][1]["memory"] = serde_json::json!("16GB")),
                r#"hosts[1].memory: "16GB" is not a memory quantity ("16Gi", "512Mi", "1G", bytes)"#,
            ),
            (
                edited(|v| v["workloads"][0]["requests"] = serde_json::json!({"gpu": 1})),
                r#"workloads[0].requests.gpu: unknown field (known: cpu, memory)"#,
            ),
            (
                edited(|v| v["workloads"][0]["requests"] = serde_json::json!({"cpu": -1})),
                r#"workloads[0].requests.cpu: a negative number is not a cpu quantity ("4", "0.5", "500m")"#,
            ),
        ]);
    }

    #[test]
    fn budgets_and_drains_parse_and_write_back() {
        let doc = edited(|v| {
            v["workloads"][0]["pdb"] = serde_json::json!({"min_available": 2});
            v["workloads"][1]["pdb"] = serde_json::json!({"max_unavailable": 1});
            v["events"] = serde_json::json!([{"at": "1m", "action": "drain", "host": "w1"}]);
        });
        let s = parse(&doc).unwrap();
        assert_eq!(s.workloads[0].pdb, Some(Budget::MinAvailable(2)));
        assert_eq!(s.workloads[1].pdb, Some(Budget::MaxUnavailable(1)));
        assert_eq!(s.events[0].action, Action::Drain { host: "w1".into() });
        assert!(s.events[0].action.is_operation());
        let json = s.to_json();
        assert!(json.contains(r#""pdb": {"#) && json.contains(r#""min_available": 2"#));
        assert_eq!(parse(&json).unwrap(), s);
        assert!(!parse(EXAMPLE).unwrap().to_json().contains("pdb"));
        assert_errors(vec![
            (
                edited(|v| {
                    v["workloads"][0]["pdb"] =
                        serde_json::json!({"min_available": 1, "max_unavailable": 1})
                }),
                "workloads[0].pdb: give exactly one of min_available and max_unavailable",
            ),
            (
                edited(|v| v["workloads"][0]["pdb"] = serde_json::json!({"min_available": "50%"})),
                "workloads[0].pdb.min_available: a percentage is not supported: give a number of pods",
            ),
            (
                edited(|v| v["workloads"][0]["pdb"] = serde_json::json!({"max_surge": 1})),
                "workloads[0].pdb.max_surge: unknown field (known: min_available, max_unavailable)",
            ),
        ]);
    }

    #[test]
    fn example_parses() {
        let s = parse(EXAMPLE).unwrap();
        assert_eq!(s.name, "Rack split with external etcd");
        assert_eq!(s.seed, 7);
        assert_eq!(s.duration, Duration::from_secs(900));
        assert_eq!(s.zones, ["rack-a", "rack-b", "outside"]);
        assert_eq!(s.hosts.len(), 9);
        assert!(s.hosts[6].spot && !s.hosts[5].spot);
        assert_eq!(s.hosts[3].roles, [Role::ControlPlane]);
        assert_eq!(s.workloads[0].replicas, Some(2));
        assert!(s.workloads[0].service);
        assert_eq!(s.workloads[2].kind, WorkloadKind::DaemonSet);
        assert_eq!(
            s.settings.node_monitor_grace_period,
            Duration::from_secs(40)
        );
        assert_eq!(s.settings.lease_duration, Duration::from_secs(15));
        assert_eq!(s.settings.explicit.len(), 1);
        assert_eq!(
            s.events[0].action,
            Action::Partition {
                groups: vec![
                    vec!["rack-a".into(), "outside".into()],
                    vec!["rack-b".into()]
                ]
            }
        );
        assert_eq!(
            s.events[1],
            Event {
                at: Duration::from_secs(600),
                action: Action::Heal
            }
        );
    }

    #[test]
    fn round_trip_is_byte_exact_after_one_canonicalisation() {
        let canonical = parse(EXAMPLE).unwrap().to_json();
        assert_eq!(parse(&canonical).unwrap().to_json(), canonical);
        assert_eq!(parse(&canonical).unwrap(), parse(EXAMPLE).unwrap());
        // Field order as on the contract page.
        let order = [
            "\"version\"",
            "\"name\"",
            "\"description\"",
            "\"seed\"",
            "\"duration\"",
            "\"zones\"",
            "\"hosts\"",
            "\"workloads\"",
            "\"settings\"",
            "\"events\"",
        ];
        let pos: Vec<usize> = order.iter().map(|k| canonical.find(k).unwrap()).collect();
        assert!(pos.windows(2).all(|w| w[0] < w[1]), "{canonical}");
        assert!(canonical.starts_with("{\n  \"version\": 1,\n  \"name\""));
        assert!(
            canonical.contains("\"settings\": {\n    \"node_monitor_grace_period\": \"40s\"\n  }")
        );
        // Only the named setting is written back.
        assert!(!canonical.contains("lease_duration"));
    }

    #[test]
    fn fault_processes_round_trip_and_are_written_only_when_present() {
        use serde_json::json;
        assert!(!parse(EXAMPLE).unwrap().to_json().contains("faults"));
        let doc = edited(|v| {
            v["faults"] = json!([
                {"hosts": ["etcd-1", "rack-b"], "mtbf": "100h", "mttr": "10h"},
                {"zones": "all", "mtbf": "720h", "mttr": "1h"},
                {"hosts": "spot", "spot_interruptions_every": "336h"},
                {"hosts": "role:etcd", "mtbf": "30m", "mttr": "1m"},
                {"hosts": "spot", "spot_interruptions_every": "720h", "replace_after": "5m", "remove_on_notice": true}
            ])
        });
        let s = parse(&doc).unwrap();
        assert_eq!(s.faults.len(), 5);
        assert_eq!(
            s.faults[4].kind,
            FaultKind::SpotInterruptions {
                every: Duration::from_secs(720 * 3600),
                replace_after: Some(Duration::from_secs(300)),
                remove_on_notice: true
            }
        );
        assert_eq!(
            s.faults[0].kind,
            FaultKind::HostFailures {
                mtbf: Duration::from_secs(360_000),
                mttr: Duration::from_secs(36_000)
            }
        );
        // A zone in a host selector stands for its hosts.
        let names = |sel: &Selector| -> Vec<String> {
            s.selected_hosts(sel)
                .iter()
                .map(|&i| s.hosts[i].name.clone())
                .collect()
        };
        assert_eq!(
            names(&s.faults[0].targets),
            ["etcd-1", "etcd-3", "m2", "w2"]
        );
        assert_eq!(
            s.selected_zones(&s.faults[1].targets),
            ["rack-a", "rack-b", "outside"]
        );
        assert_eq!(names(&s.faults[2].targets), ["w2"]);
        assert_eq!(names(&s.faults[3].targets), ["etcd-1", "etcd-2", "etcd-3"]);
        let canonical = s.to_json();
        assert_eq!(parse(&canonical).unwrap(), s);
        assert!(
            canonical.contains("\"spot_interruptions_every\": \"336h\""),
            "{canonical}"
        );
        assert!(
            canonical.contains("\"hosts\": \"role:etcd\""),
            "{canonical}"
        );
        // Written only when set.
        assert_eq!(
            canonical.matches("remove_on_notice").count(),
            1,
            "{canonical}"
        );
    }

    #[test]
    fn every_action_round_trips() {
        let doc = r#"{
          "version": 1, "name": "all actions", "duration": "2h",
          "zones": ["a", "b"],
          "hosts": [
            {"name": "e1", "zone": "a", "roles": ["etcd", "control-plane"]},
            {"name": "w1", "zone": "b", "roles": ["worker"], "spot": true},
            {"name": "w2", "roles": ["worker"]},
            {"name": "s1", "zone": "b", "roles": ["worker", "etcd"], "standby": true}
          ],
          "workloads": [{"kind": "Deployment", "name": "web", "replicas": 2, "service": true}],
          "settings": {"toleration_seconds": 60, "etcd_pre_vote": false, "lb_health_check": "tcp",
                       "coredns_replicas": 3, "lease_duration": "15s"},
          "events": [
            {"at": "1m", "action": "crash", "host": "w2"},
            {"at": "2m", "action": "restart", "host": "w2"},
            {"at": "3m", "action": "reboot", "host": "w2"},
            {"at": "4m", "action": "reboot", "host": "w2", "downtime": "90s"},
            {"at": "5m", "action": "partition", "groups": [["a"], ["w2"]]},
            {"at": "6m", "action": "isolate", "host": "e1"},
            {"at": "7m", "action": "partition_oneway", "from": "a", "to": ["b", "w2"]},
            {"at": "8m", "action": "heal"},
            {"at": "9m", "action": "join", "host": "s1"},
            {"at": "10m", "action": "etcd_member_add", "host": "s1"},
            {"at": "11m", "action": "etcd_member_remove", "host": "s1"},
            {"at": "12m", "action": "etcd_force_new_cluster", "host": "e1"},
            {"at": "13m", "action": "delete_pod", "pod": "web-0", "force": true},
            {"at": "14m", "action": "scale", "workload": "web", "replicas": 5},
            {"at": "15m", "action": "scale", "workload": "coredns", "replicas": 1},
            {"at": "16m", "action": "restart_component", "host": "w2", "component": "kube-proxy"},
            {"at": "17m", "action": "restart_component", "host": "e1", "component": "kube-apiserver"},
            {"at": "1h", "action": "spot_interrupt", "host": "w1"}
          ]
        }"#;
        let s = parse(doc).unwrap();
        assert_eq!(s.seed, 1);
        assert_eq!(s.hosts[2].zone, "default");
        assert_eq!(s.settings.toleration_seconds, Duration::from_secs(60));
        assert_eq!(
            s.events[3].action,
            Action::Reboot {
                host: "w2".into(),
                downtime: Duration::from_secs(90)
            }
        );
        assert_eq!(
            s.events[16].action,
            Action::RestartComponent {
                host: "e1".into(),
                component: Component::Apiserver
            }
        );
        let canonical = s.to_json();
        assert_eq!(parse(&canonical).unwrap(), s);
        assert_eq!(parse(&canonical).unwrap().to_json(), canonical);
        assert!(canonical.contains("\"toleration_seconds\": \"1m\""));
        assert!(canonical.contains("\"component\": \"apiserver\""));
        assert!(canonical.contains("\"from\": \"a\""));
        // The Serialize impl writes the same canonical form.
        assert_eq!(serde_json::to_string_pretty(&s).unwrap(), canonical);
        // The compact form (share links) is the canonical text without its whitespace between
        // tokens: the same keys in the same order.
        let mut outside = String::new();
        let mut in_string = false;
        let mut escaped = false;
        for c in canonical.chars() {
            if in_string {
                in_string = escaped || c != '"';
                escaped = !escaped && c == '\\';
            } else if c == '"' {
                in_string = true;
            } else if c.is_whitespace() {
                continue;
            }
            outside.push(c);
        }
        assert_eq!(s.to_compact_json(), outside);
        let back: Scenario = serde_json::from_str(&canonical).unwrap();
        assert_eq!(back, s);
        assert_eq!(
            s.to_json_value(),
            serde_json::from_str::<serde_json::Value>(&canonical).unwrap()
        );
    }

    /// Documents that cannot be read into the model at all (the rest are in `validate.rs`).
    #[test]
    fn malformed_documents_name_the_field() {
        use serde_json::json;
        let mut host_2001 = example_value();
        host_2001["hosts"] = json!((0..2001)
            .map(|i| json!({"name": format!("h{i}"), "roles": ["etcd"]}))
            .collect::<Vec<_>>());
        let cases: Vec<(String, &str)> = vec![
            ("{\"version\": 1,\n \"name\": }".into(),
             "invalid JSON: expected value at line 2 column 10"),
            (edited(|v| v["hosts"][0]["roles"] = json!("etcd")),
             "hosts[0].roles: expected an array of role names, found a string"),
            (edited(|v| v["hosts"][0]["roles"] = json!(["master"])),
             "hosts[0].roles[0]: unknown role \"master\" (known: etcd, control-plane, apiserver, controller-manager, scheduler, worker, load-balancer, client)"),
            (edited(|v| v["settings"]["foo"] = json!(1)), "settings.foo: unknown setting"),
            (edited(|v| v["hosts"][2]["zon"] = json!("rack-a")),
             "hosts[2].zon: unknown field (known: name, zone, roles, spot, standby, cpu, memory)"),
            (with_events(json!([{"at": "1m", "action": "explode"}])),
             "events[0].action: unknown action \"explode\""),
            (edited(|v| v["faults"] = json!([{"hosts": "all", "zones": "all", "mtbf": "1h", "mttr": "1m"}])),
             "faults[0]: give exactly one of \"hosts\" and \"zones\""),
            (edited(|v| v["faults"] = json!([{"hosts": "role:master", "mtbf": "1h", "mttr": "1m"}])),
             "faults[0].hosts: unknown selector \"role:master\" (a list of names, \"all\", \"spot\" or \"role:ROLE\")"),
            (edited(|v| v["faults"] = json!([{"hosts": "all", "mtbf": "1h"}])),
             "faults[0].mttr: missing required field"),
            (edited(|v| v["faults"] = json!([{"hosts": "spot", "spot_interruptions_every": "1h", "mttr": "1m"}])),
             "faults[0].mttr: not a field of spot interruptions (hosts, spot_interruptions_every, replace_after, remove_on_notice)"),
            (edited(|v| v["faults"] = json!([{"hosts": "all", "mtbf": "1h", "mttr": "1m", "remove_on_notice": true}])),
             "faults[0].remove_on_notice: only spot interruptions replace hosts"),
            (edited(|v| v["faults"] = json!([{"hosts": "spot", "spot_interruptions_every": "1h", "remove_on_notice": "yes"}])),
             "faults[0].remove_on_notice: expected true or false, found a string"),
            (edited(|v| v["faults"] = json!([{"hosts": "all", "mtbf": "1h", "mttr": "1m", "mtbr": "1m"}])),
             "faults[0].mtbr: unknown field (known: hosts, zones, mtbf, mttr, spot_interruptions_every, replace_after, remove_on_notice)"),
            (with_events(json!([{"at": "1m", "action": "crash"}])),
             "events[0].host: missing required field"),
            (with_events(json!([{"at": "1m", "action": "heal", "host": "m1"}])),
             "events[0].host: unknown field for action \"heal\" (known: at, action)"),
            (edited(|v| { v.as_object_mut().unwrap().remove("duration"); }),
             "duration: missing required field"),
            (edited(|v| v["duration"] = json!("5x")),
             "duration: invalid duration \"5x\": unknown unit \"x\""),
            (with_events(json!([{"at": "-5s", "action": "heal"}])),
             "events[0].at: negative duration \"-5s\""),
            (edited(|v| v["duration"] = json!("99999999999h")),
             "duration: duration \"99999999999h\" is absurdly large"),
            (edited(|v| v["duration"] = json!(900)),
             "duration: expected a duration string like \"40s\", found a number"),
            (serde_json::to_string(&host_2001).unwrap(),
             "hosts: 2001 hosts exceed the limit of 2000"),
            (edited(|v| v["hosts"][0]["x<y>.z"] = json!(1)),
             "hosts[0][\"x<y>.z\"]: unknown field (known: name, zone, roles, spot, standby, cpu, memory)"),
            (edited(|v| v["hosts"][8]["zone"] = json!(7)),
             "hosts[8].zone: expected a string, found a number"),
            (edited(|v| v["version"] = json!(2)),
             "version: unsupported version 2; this program reads version 1"),
            (edited(|v| v["seed"] = json!(-1)),
             "seed: expected a whole number ≥ 0, found a negative number"),
            ("[1, 2]".into(), "expected a JSON object (the scenario), found an array"),
            ("{\"version\": 1, \"version\": 1}".into(), "version: duplicate field"),
        ];
        assert_errors(cases);
    }

    #[test]
    fn settings_are_written_back_only_when_named_or_changed() {
        let mut s = parse(EXAMPLE).unwrap();
        s.settings.retry_period = Duration::from_secs(3);
        assert!(s.settings.set(
            SettingKey::DnsCacheTtl,
            SettingValue::Duration(Duration::from_secs(5))
        ));
        assert!(!s
            .settings
            .set(SettingKey::EtcdPreVote, SettingValue::Count(1)));
        let again = parse(&s.to_json()).unwrap();
        let written: Vec<SettingKey> = again.settings.explicit.keys().copied().collect();
        assert_eq!(
            written,
            [
                SettingKey::RetryPeriod,
                SettingKey::NodeMonitorGracePeriod,
                SettingKey::DnsCacheTtl
            ]
        );
    }

    proptest::proptest! {
        /// The example cut short, with bytes replaced, inserted or removed, or with a stretch of
        /// it repeated elsewhere: parse may refuse it, never panic, and what it accepts
        /// round-trips through its canonical form.
        #[test]
        fn mutated_documents_are_read_or_refused_never_a_panic(
            edits in proptest::collection::vec((0usize..4, proptest::num::usize::ANY, proptest::sample::select(b"\"{}[],:0123456789-.aeZ \\\x00\xff".to_vec()), 0usize..40), 1..6),
            cut in proptest::option::of(proptest::num::usize::ANY),
        ) {
            let mut bytes = EXAMPLE.as_bytes().to_vec();
            for (kind, at, byte, len) in edits {
                let at = at % bytes.len().max(1);
                match kind {
                    0 => bytes[at] = byte,
                    1 => bytes.insert(at, byte),
                    2 => {
                        bytes.drain(at..(at + len).min(bytes.len()));
                    }
                    _ => {
                        let stretch = bytes[at..(at + len).min(bytes.len())].to_vec();
                        let to = (at * 7 + len) % bytes.len().max(1);
                        bytes.splice(to..to, stretch);
                    }
                }
            }
            if let Some(cut) = cut {
                bytes.truncate(cut % (bytes.len() + 1));
            }
            let text = String::from_utf8_lossy(&bytes);
            if let Ok(s) = parse(&text) {
                let again = parse(&s.to_json());
                proptest::prop_assert_eq!(again.as_ref(), Ok(&s), "{}", text);
            }
        }
    }
}
