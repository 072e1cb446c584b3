//! A console on the simulated cluster: a command line run from one host at one moment, sent
//! through the simulated network as it is then, and answered as the real tool answers (its
//! table, or its error). It runs on a copy of the world, so looking never changes the run; a
//! request that waits takes its simulated time, and the output says how long.
//!
//! So far: `kubectl get` of nodes, pods, leases, workloads, replicasets, services, endpoints, endpointslices, events and
//! poddisruptionbudgets (`-o wide`, `-n`, `-A`, `-l`, `--server`; `-o json|yaml` of nodes, pods and
//! leases), `kubectl describe node|pod|deployment|replicaset|statefulset|daemonset|service|endpoints|endpointslice|lease|pdb|event`, `kubectl get --raw /readyz|/livez`,
//! with kubectl's connection and server errors; `kubectl scale`, `delete pod`, `cordon`, `uncordon`
//! and `drain`; `kubectl cluster-info`; `etcdctl member list|add|remove|promote` and `endpoint
//! health|status`; `kubeadm join`; `etcd --force-new-cluster`; `curl` of a Service; `kubectl
//! port-forward` and `kubectl proxy` as background jobs of a line, and `sleep`: a line chains
//! commands with `;`, `&&` and `&`. The changing commands become scenario events.

mod calendar;
mod crictl;
mod curl;
mod dns;
mod etcd;
mod etcdctl;
mod kubeadm;
mod kubectl;
mod object;
mod table;
mod words;

use sim::kernel::net::HostId;
use sim::kernel::time::Duration;
use sim::world::World;
use words::Sep;

/// The Kubernetes release whose defaults the simulation follows (docs/behaviour.md).
const KUBELET_VERSION: &str = "v1.32.0";

/// What a command printed on each stream, its exit status, and the simulated seconds it took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub status: i32,
    pub took_s: f64,
    /// A command that changed the cluster: the scenario event that records it at the moment
    /// it ran, so the run forks there (and a share link carries it).
    pub record: Option<sim::scenario::Action>,
}

impl Output {
    /// A failure printed on stderr, at once.
    fn error(stderr: String, status: i32) -> Output {
        Output {
            stderr,
            status,
            ..Output::default()
        }
    }
}

pub use kubectl::forward::Jobs;

/// Runs `line` from host `from` against `world` as it is now (on a copy of it), with no jobs
/// from earlier lines.
pub fn exec(world: &World, from: HostId, line: &str) -> Output {
    exec_with(world, from, line, &mut Jobs::default())
}

/// Runs `line` from host `from` against `world` as it is now (on a copy of it). A line of
/// several commands (`;`, `&&`, `&`) runs them one after another on one copy, which moves on by
/// the time each took in the foreground (`A & B` runs B at once, as a shell does), and prints
/// what they wrote, both streams in order, on stdout. A line stops once it has taken the
/// longest simulated time a run may last. `jobs` are
/// the host's: background jobs (`kubectl port-forward … &`, `kubectl proxy &`) stay in it for
/// the next lines, a foreground one ends with its line.
pub fn exec_with(world: &World, from: HostId, line: &str, jobs: &mut Jobs) -> Output {
    jobs.begin_line(world.now());
    let out = run_line(world, from, line, jobs);
    jobs.end_line();
    out
}

fn run_line(world: &World, from: HostId, line: &str, jobs: &mut Jobs) -> Output {
    let commands = match words::commands(line) {
        Ok(c) => c,
        Err(e) => return Output::error(format!("console: {e}\n"), 2),
    };
    if let [(words, Sep::Then)] = commands.as_slice() {
        return command(world, from, words, jobs, false).0;
    }
    let mut copy = world.clone();
    let mut out = Output::default();
    let mut skipping = false;
    for (words, sep) in &commands {
        if skipping {
            skipping = *sep == Sep::And;
            continue;
        }
        if out.took_s >= LINE_LIMIT.as_secs_f64() {
            let days = LINE_LIMIT.as_micros() / 86_400_000_000;
            out.stdout.push_str(&format!(
                "console: this line has taken {days} days of simulated time, the longest a run may last: the rest of it is not run\n"
            ));
            out.status = 2;
            break;
        }
        let background = *sep == Sep::Background;
        let (one, goes_on) = command(&copy, from, words, jobs, background);
        if one.record.is_some() {
            return Output::error(
                "console: a command that changes the cluster runs on a line of its own\n".into(),
                2,
            );
        }
        // As a terminal shows them: both streams, in the order they were written.
        out.stdout.push_str(&one.stdout);
        out.stdout.push_str(&one.stderr);
        // A command sent to the background takes no time of the line's: the next one runs now.
        if !background {
            out.status = one.status;
            out.took_s += one.took_s;
            let until = copy.now() + Duration((one.took_s * 1e6).round() as u64);
            copy.run_until(until, u64::MAX);
        }
        if !goes_on {
            break;
        }
        skipping = *sep == Sep::And && one.status != 0;
    }
    out
}

/// The most simulated time one console line may take: the longest run.
const LINE_LIMIT: Duration = sim::scenario::MAX_DURATION;

/// The longest `sleep` on a console line.
const SLEEP_LIMIT: Duration = Duration::from_secs(3_600);

/// One command of a line, and whether the line goes on after it (not after a job that runs in
/// the foreground until it is stopped).
fn command(
    world: &World,
    from: HostId,
    words: &[String],
    jobs: &mut Jobs,
    background: bool,
) -> (Output, bool) {
    let Some((program, args)) = words.split_first() else {
        return (Output::default(), true);
    };
    let started = jobs.len();
    let out = match program.as_str() {
        "kubectl" => kubectl::run(world, from, args, jobs, background),
        "etcdctl" => etcdctl::run(world, from, args),
        "etcd" => etcd::run(world, from, args),
        "kubeadm" => kubeadm::run(world, from, args),
        "curl" => curl::run(world, from, args, jobs),
        "nslookup" => dns::nslookup(world, from, args, jobs),
        "dig" => dns::dig(world, from, args, jobs),
        "crictl" => crictl::run(world, from, args),
        "sleep" => sleep(args),
        other => Output::error(format!("{}: command not found\n", words::clip(other)), 127),
    };
    // A port-forward or proxy started in the foreground runs until it is stopped (a curl may end
    // a job whose connection broke: the line goes on).
    let goes_on = background || jobs.len() <= started;
    (out, goes_on)
}

/// `sleep N[smhd]`: the line's copy of the world moves on by that long.
fn sleep(args: &[String]) -> Output {
    let [arg] = args else {
        return Output::error("sleep: missing operand\n".into(), 1);
    };
    let (number, unit) = match arg.char_indices().last() {
        Some((i, c @ ('s' | 'm' | 'h' | 'd'))) => (&arg[..i], c),
        _ => (arg.as_str(), 's'),
    };
    let scale = match unit {
        'm' => 60.0,
        'h' => 3_600.0,
        'd' => 86_400.0,
        _ => 1.0,
    };
    match sim::kernel::decimal::parse_decimal(number) {
        Some(n) if n.is_finite() && n * scale <= SLEEP_LIMIT.as_secs_f64() => Output {
            took_s: n * scale,
            ..Output::default()
        },
        Some(n) if n.is_finite() => Output::error(
            format!(
                "console: sleep is limited to {} s here\n",
                SLEEP_LIMIT.secs()
            ),
            2,
        ),
        _ => Output::error(
            format!("sleep: invalid time interval '{}'\n", words::clip(arg)),
            1,
        ),
    }
}

/// The host an endpoint names: 127.0.0.1/localhost is the vantage host; else a host's name or
/// address, with or without a scheme and the client port.
fn host_named(world: &World, from: HostId, endpoint: &str) -> Option<HostId> {
    let bare = endpoint
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    let host = bare.split(':').next().unwrap_or(bare);
    if host == "127.0.0.1" || host == "localhost" {
        return Some(from);
    }
    world
        .scenario()
        .hosts
        .iter()
        .enumerate()
        .find(|(i, h)| h.name == host || ip_of(*i as HostId) == host)
        .map(|(i, _)| i as HostId)
}

/// The NodePort of a workload's Service: the format gives Services no ports, so the console
/// numbers them from 30080 in scenario order (CoreDNS's Service has none).
pub fn node_port(world: &World, workload: &str) -> Option<u16> {
    world
        .scenario()
        .workloads
        .iter()
        .filter(|w| w.service && w.name != sim::scenario::COREDNS)
        .position(|w| w.name == workload)
        .map(|i| 30080 + i as u16)
}

/// The ClusterIP of the Service with NodePort `port`, derived from it for the same reason.
pub fn cluster_ip(port: u16) -> String {
    format!("10.96.{}.{}", port / 250 % 250, port % 250)
}

/// Whether the scenario accepts `action` as one of its events (the console records a changing
/// command as one); Err: the scenario's reason.
fn accepted(world: &World, action: &sim::scenario::Action) -> Result<(), String> {
    let mut scenario = world.scenario().clone();
    scenario.events.push(sim::scenario::Event {
        at: sim::kernel::time::Duration::ZERO,
        action: action.clone(),
    });
    scenario.validate().map_err(|e| {
        // The action's own field, not the place it would take among the scenario's events.
        let e = e.to_string();
        match e.strip_prefix("events[").and_then(|r| r.split_once("].")) {
            Some((_, field)) => field.to_string(),
            None => e,
        }
    })
}

/// The address a host has in the simulated network (for messages that name one).
pub fn ip_of(h: HostId) -> String {
    format!("10.0.{}.{}", h / 200, 10 + h % 200)
}

/// Where a console opens by default: the first `client` host, else the first control-plane host.
pub fn default_vantage(s: &sim::scenario::Scenario) -> Option<usize> {
    use sim::scenario::Role;
    s.hosts
        .iter()
        .position(|h| h.has_role(Role::Client))
        .or_else(|| s.hosts.iter().position(|h| h.has_role(Role::ControlPlane)))
}

/// A word as a shell line must spell it for [`exec`] to split it back.
pub fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}
