//! `etcdctl` (v3.5) on the simulated cluster: `member list|add|remove|promote`, `endpoint
//! health|status`, `put` and `get`, from the vantage host to its endpoints (`--endpoints`, by default the member on the same host,
//! 127.0.0.1:2379, as kubeadm's control-plane hosts run it). Output follows etcd
//! `etcdctl/ctlv3/command/printer_simple.go`, `printer_table.go` and `ep_command.go`; errors
//! `Error: …` on stderr (`cobrautl.ExitWithError`), exit 1.
//!
//! The client does not block on dialling: a request to an endpoint that does not answer fails
//! when the 5 s command timeout runs out (`context deadline exceeded`). Member IDs are the
//! simulation's (a hash of the member's name), addresses are the simulation's.
//! Membership changes are carried out as the scenario's operator does them (`World::operate`),
//! once the endpoint answers; they become the scenario's `etcd_member_*` events. `member list`
//! is linearizable, as in etcd 3.5: without a quorum it fails after the command timeout, and so
//! does every `--cluster` command. `put` changes only the console line's copy of the cluster (a
//! key of one's own is no event of the scenario); `get` reads linearizably (`--consistency=l`,
//! the default: no answer without a quorum) or from the member alone (`s`); Kubernetes' objects
//! are stored in protobuf, shown here as one line naming the object.
//! Left out for now: `-w json`, `del`, `watch`, revisions and leases of keys.

use super::words::clip;
use super::{host_named, ip_of, Output};
use sim::etcd::member::member_host;
use sim::etcd::raft::MemberId;
use sim::k8s::wire::{EtcdRequest, EtcdResponse};
use sim::kernel::net::HostId;
use sim::kernel::process::{Addr, Port};
use sim::kernel::time::Duration;
use sim::scenario::Action;
use sim::world::terminal::{Answer, Call, Outcome};
use sim::world::World;

/// A key nothing holds: the quorum read that makes `member list` linearizable.
const MEMBER_LIST_CHECK: &str = "\0member-list";
/// etcdctl's `--command-timeout` by default (its 2 s `--dial-timeout` only bounds starting the
/// dial).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest `--command-timeout` the console waits out (a line's simulated time is bounded).
const MAX_COMMAND_TIMEOUT: Duration = Duration::from_secs(3600);
/// The etcd release kubeadm v1.32 installs.
const ETCD_VERSION: &str = "3.5.16";

struct Flags {
    endpoints: Vec<String>,
    table: bool,
    /// `-w json`: Go's `json.Marshal` of the response, as etcdctl prints it.
    json: bool,
    cluster: bool,
    /// `member add --peer-urls`, `--learner`.
    peer_urls: Option<String>,
    learner: bool,
    /// `get --consistency=s`: served by the member alone.
    serializable: bool,
    /// `get --prefix`, `--keys-only`.
    prefix: bool,
    keys_only: bool,
    /// `--command-timeout`: how long a request may take.
    command_timeout: Duration,
}

/// `etcdctl --help`, as etcdctl 3.5 prints it, shortened to the commands and flags this console
/// runs.
fn help() -> Output {
    let stdout = format!(
        "NAME:
\tetcdctl - A simple command line client for etcd3.

USAGE:
\tetcdctl [flags]

VERSION:
\t{ETCD_VERSION}

API VERSION:
\t3.5

COMMANDS:
\tendpoint health\tChecks the healthiness of endpoints specified in `--endpoints` flag
\tendpoint status\tPrints out the status of endpoints specified in `--endpoints` flag
\tget\t\t\tGets the key or a range of keys
\thelp\t\t\tHelp about any command
\tmember add\t\tAdds a member into the cluster
\tmember list\t\tLists all members in the cluster
\tmember promote\t\tPromotes a non-voting member in the cluster
\tmember remove\t\tRemoves a member from the cluster
\tput\t\t\tPuts the given key into the store
\tversion\t\t\tPrints the version of etcdctl

OPTIONS:
\t--cacert=\"\"\t\t\t\tverify certificates of TLS-enabled secure servers using this CA bundle
\t--cert=\"\"\t\t\t\tidentify secure client using this TLS certificate file
\t--cluster[=false]\t\t\tuse all endpoints from the cluster member list (endpoint commands)
\t--command-timeout=5s\t\t\ttimeout for short running command (excluding dial timeout)
\t--consistency=\"l\"\t\t\tLinearizable(l) or Serializable(s) (get)
\t--endpoints=[127.0.0.1:2379]\t\tgRPC endpoints
\t-h, --help[=false]\t\t\thelp for etcdctl
\t--key=\"\"\t\t\t\tidentify secure client using this TLS key file
\t--keys-only[=false]\t\t\tGet only the keys (get)
\t--learner[=false]\t\t\tindicates if the new member is raft learner (member add)
\t--peer-urls=\"\"\t\t\t\tcomma separated peer URLs for the new member (member add)
\t--prefix[=false]\t\t\tGet keys with matching prefix (get)
\t-w, --write-out=\"simple\"\t\tset the output format (json, simple, table)
"
    );
    Output {
        stdout,
        ..Output::default()
    }
}

/// etcd's client logs a warning (zap's JSON, on stderr) for each request that failed, before
/// etcdctl's own line about it: a refusal of the server (`Error: etcdserver: …`, with the gRPC
/// code it came with) or a request out of time (each line that says `context deadline
/// exceeded`, for the endpoint the line names); the target is the client's first endpoint (its
/// gRPC target names only that one). Timed at the command's end, in etcd 3.5.16's zap format (microseconds;
/// 3.5.1 wrote milliseconds and another caller line); `endpoint health` logs through its own
/// logger, named `client`. The error is the deadline's whatever kept the answer away (a dial
/// that timed out says more in a real etcdctl).
fn with_client_warnings(
    world: &World,
    mut out: Output,
    endpoints: &[String],
    logger: &str,
) -> Output {
    if !out.stderr.contains("context deadline exceeded")
        && !out.stderr.contains("Error: etcdserver: ")
    {
        return out;
    }
    let at = world.now() + Duration::from_micros((out.took_s * 1e6) as u64);
    let ts = crate::calendar::rfc3339(at, true);
    let warning = |target: &str, error: &str| {
        format!(
            "{{\"level\":\"warn\",\"ts\":\"{ts}\",\"logger\":\"{logger}\",\"caller\":\"v3/retry_interceptor.go:63\",\"msg\":\"retrying of unary invoker failed\",\"target\":\"etcd-endpoints://0xc000238000/{target}\",\"attempt\":0,\"error\":\"{error}\"}}\n"
        )
    };
    let mut stderr = String::new();
    for line in out.stderr.lines() {
        if let Some(refusal) = line.strip_prefix("Error: etcdserver: ") {
            let target = endpoints.first().cloned().unwrap_or_default();
            let error = format!(
                "rpc error: code = {} desc = etcdserver: {refusal}",
                grpc_code(refusal)
            );
            stderr.push_str(&warning(&target, &error));
        } else if line.contains("context deadline exceeded") {
            let named = endpoints.iter().find(|e| line.contains(e.as_str()));
            let target = named.or(endpoints.first()).cloned().unwrap_or_default();
            stderr.push_str(&warning(
                &target,
                "rpc error: code = DeadlineExceeded desc = context deadline exceeded",
            ));
        }
        stderr.push_str(line);
        stderr.push('\n');
    }
    out.stderr = stderr;
    out
}

/// The gRPC status code etcd's server sends with a refusal (etcd's `rpctypes`).
fn grpc_code(refusal: &str) -> &'static str {
    match refusal {
        "member not found" => "NotFound",
        "no leader" | "unhealthy cluster" | "request timed out" | "not capable" => "Unavailable",
        _ => "FailedPrecondition",
    }
}

pub fn run(world: &World, from: HostId, args: &[String]) -> Output {
    let mut flags = Flags {
        endpoints: vec!["127.0.0.1:2379".into()],
        table: false,
        json: false,
        cluster: false,
        peer_urls: None,
        learner: false,
        serializable: false,
        prefix: false,
        keys_only: false,
        command_timeout: COMMAND_TIMEOUT,
    };
    let mut words = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = || inline.clone().or_else(|| it.next().cloned());
        match name {
            "--endpoints" => match value() {
                Some(v) => flags.endpoints = v.split(',').map(str::to_string).collect(),
                None => return error("flag needs an argument: --endpoints", 1),
            },
            "-w" | "--write-out" => match value().as_deref() {
                Some("table") => (flags.table, flags.json) = (true, false),
                Some("simple") => (flags.table, flags.json) = (false, false),
                Some("json") => (flags.table, flags.json) = (false, true),
                Some(other) => {
                    return error(
                        &format!(
                        "unsupported output format {} (this console prints simple, table and json)",
                        clip(other)
                    ),
                        1,
                    )
                }
                None => return error("flag needs an argument: 'w' in -w", 1),
            },
            "--cluster" => flags.cluster = true,
            "--prefix" => flags.prefix = true,
            "--keys-only" => flags.keys_only = true,
            "--consistency" => match value().as_deref() {
                Some("l") => flags.serializable = false,
                Some("s") => flags.serializable = true,
                Some(other) => {
                    return error(&format!("unknown consistency flag {:?}", clip(other)), 1)
                }
                None => return error("flag needs an argument: --consistency", 1),
            },
            "--command-timeout" => match value() {
                Some(v) => match sim::kernel::time::parse_duration(&v) {
                    Ok(d) if d > Duration::ZERO && d <= MAX_COMMAND_TIMEOUT => {
                        flags.command_timeout = d
                    }
                    _ => {
                        let v = clip(&v);
                        let why = format!("invalid argument \"{v}\" for \"--command-timeout\" flag: time: invalid duration \"{v}\"");
                        return error(&why, 1);
                    }
                },
                None => return error("flag needs an argument: --command-timeout", 1),
            },
            "--learner" => flags.learner = true,
            "--peer-urls" => match value() {
                Some(v) => flags.peer_urls = Some(v),
                None => return error("flag needs an argument: --peer-urls", 1),
            },
            // Certificates: the console's connections need none.
            "--cacert" | "--cert" | "--key" => {
                let _ = value();
            }
            "-h" | "--help" => return help(),
            s if s.starts_with('-') => return error(&format!("unknown flag: {}", clip(s)), 1),
            _ => words.push(a.as_str()),
        }
    }
    let out = match words.as_slice() {
        ["help"] => help(),
        ["member", "list"] => member_list(world, from, &flags),
        ["endpoint", "health"] => endpoint_health(world, from, &flags),
        ["endpoint", "status"] => endpoint_status(world, from, &flags),
        ["member", "add", name] => match &flags.peer_urls {
            Some(peer) => member_add(world, from, &flags, name, peer),
            None => error("member peer urls not provided", 1),
        },
        ["member", "add"] => error("member name not provided", 1),
        ["member", verb @ ("remove" | "promote"), id] => {
            member_change(world, from, &flags, verb, id)
        }
        ["member", "remove" | "promote"] => error("member ID is not provided", 1),
        ["version"] => Output {
            stdout: format!("etcdctl version: {ETCD_VERSION}\nAPI version: 3.5\n"),
            ..Output::default()
        },
        ["put", key, value] => put(world, from, &flags, key, value),
        ["put", ..] => error(
            "put command needs 1 argument and input from stdin or 2 arguments",
            1,
        ),
        ["get", key] => get(world, from, &flags, key),
        ["get", ..] => error(
            "get command needs one argument as key and an optional argument as range_end",
            1,
        ),
        [] => help(),
        [command, ..] => error(
            &format!(
                "unknown command \"{}\" for \"etcdctl\"\nRun 'etcdctl --help' for usage.",
                clip(command)
            ),
            1,
        ),
    };
    let logger = match words.as_slice() {
        ["endpoint", "health"] => "client",
        _ => "etcd-client",
    };
    with_client_warnings(world, out, &flags.endpoints, logger)
}

fn error(text: &str, status: i32) -> Output {
    Output::error(format!("Error: {text}\n"), status)
}

/// One request to one endpoint, on its own copy of the world (etcdctl asks endpoints
/// concurrently).
fn ask(world: &World, from: HostId, endpoint: &str, req: EtcdRequest, flags: &Flags) -> Outcome {
    let timeout = flags.command_timeout;
    let Some(h) = host_named(world, from, endpoint) else {
        return Outcome {
            answer: Answer::DialTimeout,
            elapsed: timeout,
            served_by: None,
        };
    };
    let mut copy = world.clone();
    let to = Addr {
        host: h,
        port: Port::ETCD,
    };
    let out = copy.call(from, to, Call::Etcd(req), timeout, timeout);
    match out.answer {
        // The dial does not block: the request waits for a connection until its deadline.
        Answer::Refused | Answer::DialTimeout => Outcome {
            answer: Answer::Timeout,
            elapsed: timeout,
            served_by: None,
        },
        _ => out,
    }
}

/// A simulated member ID: 64 bits from the member's name (FNV-1a, then mixed as splitmix64
/// does, so that similar names give unrelated IDs as etcd's do).
pub fn member_id(name: &str) -> u64 {
    let h = sim::kernel::rng::hash_label(name);
    let z = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The ID etcdctl shows for the simulated member `id`: from its name, and for a later member
/// of the same host (added again, or on a replacement machine) also from which one it is, as
/// etcd gives every `member add` a new ID.
fn shown_id(world: &World, id: MemberId) -> u64 {
    let name = &world.scenario().hosts[member_host(id) as usize].name;
    match id >> 16 {
        0 => member_id(name),
        k => member_id(&format!("{name}/{k}")),
    }
}

/// The members, as the first endpoint that answers lists them.
fn members(
    world: &World,
    from: HostId,
    flags: &Flags,
) -> Result<(Vec<(MemberId, bool)>, f64), Output> {
    listed(world, from, flags, true).map(|(m, took, _)| (m, took))
}

/// The members an endpoint lists, the seconds it took and the endpoint that answered;
/// `linearizable` as `member list` asks
/// (the member confirms it is current with a quorum read first), else its local view (what
/// `member remove|promote` and `add` look IDs up in).
fn listed(
    world: &World,
    from: HostId,
    flags: &Flags,
    linearizable: bool,
) -> Result<(Vec<(MemberId, bool)>, f64, String), Output> {
    let mut took = 0.0;
    for e in &flags.endpoints {
        if linearizable {
            let check = EtcdRequest::Read {
                prefix: MEMBER_LIST_CHECK.into(),
                linearizable: true,
            };
            let out = ask(world, from, e, check, flags);
            took += out.elapsed.as_secs_f64();
            if !matches!(out.answer, Answer::Etcd(EtcdResponse::Read { .. })) {
                continue;
            }
        }
        let out = ask(world, from, e, EtcdRequest::MemberList, flags);
        took += out.elapsed.as_secs_f64();
        if let Answer::Etcd(EtcdResponse::Members(m)) = out.answer {
            return Ok((m, took, e.clone()));
        }
    }
    Err(Output {
        took_s: took,
        ..error("context deadline exceeded", 1)
    })
}

fn member_list(world: &World, from: HostId, flags: &Flags) -> Output {
    let (members, took_s, answered) = match listed(world, from, flags, true) {
        Ok(m) => m,
        Err(e) => return e,
    };
    // etcd lists its members by ID.
    let mut members = members;
    sim::kernel::sort::sort_by_key(&mut members, |&(m, _)| shown_id(world, m));
    if flags.json {
        let listed: Vec<String> = members
            .iter()
            .map(|&(m, learner)| {
                let h = member_host(m);
                let (name, ip) = (&world.scenario().hosts[h as usize].name, ip_of(h));
                let mut fields = vec![format!("\"ID\":{}", shown_id(world, m))];
                if world.etcd_member_started(m) {
                    fields.push(format!("\"name\":{}", crate::object::quote_json(name)));
                }
                fields.push(format!("\"peerURLs\":[\"https://{ip}:2380\"]"));
                if world.etcd_member_started(m) {
                    fields.push(format!("\"clientURLs\":[\"https://{ip}:2379\"]"));
                }
                if learner {
                    fields.push("\"isLearner\":true".into());
                }
                format!("{{{}}}", fields.join(","))
            })
            .collect();
        let stdout = format!(
            "{{\"header\":{},\"members\":[{}]}}\n",
            header(world, from, &answered, None),
            listed.join(",")
        );
        return Output {
            stdout,
            took_s,
            ..Output::default()
        };
    }
    let rows: Vec<Vec<String>> = members
        .iter()
        .map(|&(m, learner)| {
            let h = member_host(m);
            let name = world.scenario().hosts[h as usize].name.clone();
            let ip = ip_of(h);
            let started = world.etcd_member_started(m);
            vec![
                format!("{:x}", shown_id(world, m)),
                if started { "started" } else { "unstarted" }.into(),
                if started { name } else { String::new() },
                format!("https://{ip}:2380"),
                if started {
                    format!("https://{ip}:2379")
                } else {
                    String::new()
                },
                learner.to_string(),
            ]
        })
        .collect();
    let stdout = if flags.table {
        table(
            &[
                "ID",
                "STATUS",
                "NAME",
                "PEER ADDRS",
                "CLIENT ADDRS",
                "IS LEARNER",
            ],
            &rows,
        )
    } else {
        rows.iter().map(|r| r.join(", ") + "\n").collect()
    };
    Output {
        stdout,
        took_s,
        ..Output::default()
    }
}

/// The endpoints a command asks: `--endpoints`, or with `--cluster` the started members'
/// client URLs as the first endpoint lists them; and the seconds listing took.
fn endpoints(world: &World, from: HostId, flags: &Flags) -> Result<(Vec<String>, f64), Output> {
    if !flags.cluster {
        return Ok((flags.endpoints.clone(), 0.0));
    }
    match members(world, from, flags) {
        Ok((m, took)) => Ok((
            m.iter()
                .filter(|&&(m, _)| world.etcd_member_started(m))
                .map(|&(m, _)| format!("https://{}:2379", ip_of(member_host(m))))
                .collect(),
            took,
        )),
        Err(e) => Err(Output {
            stderr: e.stderr.replace(
                "Error: ",
                "Error: failed to fetch endpoints from etcd cluster member list: ",
            ),
            ..e
        }),
    }
}

fn endpoint_health(world: &World, from: HostId, flags: &Flags) -> Output {
    let (endpoints, listed) = match endpoints(world, from, flags) {
        Ok(e) => e,
        Err(e) => return e,
    };
    // Every endpoint at once; lines in the order the checks finish.
    let mut results: Vec<(String, Outcome)> = endpoints
        .iter()
        .map(|e| {
            let req = EtcdRequest::Read {
                prefix: "health".into(),
                linearizable: true,
            };
            (e.clone(), ask(world, from, e, req, flags))
        })
        .collect();
    sim::kernel::sort::sort_by_key(&mut results, |(_, o)| o.elapsed);
    let mut out = Output::default();
    let mut rows = Vec::new();
    let mut docs = Vec::new();
    for (e, o) in &results {
        let took = go_duration(o.elapsed);
        let healthy = matches!(o.answer, Answer::Etcd(EtcdResponse::Read { .. }));
        let error = if healthy {
            String::new()
        } else {
            "failed to commit proposal: context deadline exceeded".into()
        };
        if flags.json {
            let failed = match healthy {
                true => String::new(),
                false => format!(",\"error\":\"{error}\""),
            };
            docs.push(format!(
                "{{\"endpoint\":{},\"health\":{healthy},\"took\":\"{took}\"{failed}}}",
                crate::object::quote_json(e)
            ));
        } else if flags.table {
            rows.push(vec![e.clone(), healthy.to_string(), took.clone(), error]);
        } else if healthy {
            out.stdout.push_str(&format!(
                "{e} is healthy: successfully committed proposal: took = {took}\n"
            ));
        } else {
            out.stderr.push_str(&format!("{e} is unhealthy: {error}\n"));
        }
    }
    if flags.json {
        out.stdout = format!("[{}]\n", docs.join(","));
    } else if flags.table {
        out.stdout = table(&["ENDPOINT", "HEALTH", "TOOK", "ERROR"], &rows);
    }
    if results
        .iter()
        .any(|(_, o)| !matches!(o.answer, Answer::Etcd(EtcdResponse::Read { .. })))
    {
        out.stderr.push_str("Error: unhealthy cluster\n");
        out.status = 1;
    }
    out.took_s = listed
        + results
            .iter()
            .map(|(_, o)| o.elapsed.as_secs_f64())
            .fold(0.0, f64::max);
    out
}

/// `etcdctl endpoint status`: each endpoint in turn, as its member reports itself (no quorum
/// needed). The database size is not modelled: a fresh member's 20 kB is printed.
fn endpoint_status(world: &World, from: HostId, flags: &Flags) -> Output {
    let (endpoints, mut took) = match endpoints(world, from, flags) {
        Ok(e) => e,
        Err(e) => return e,
    };
    let mut out = Output::default();
    let mut rows = Vec::new();
    let mut docs = Vec::new();
    for e in &endpoints {
        let asked = ask(world, from, e, EtcdRequest::Status, flags);
        took += asked.elapsed.as_secs_f64();
        let (Answer::Etcd(EtcdResponse::Status(s)), Some(h)) =
            (asked.answer, host_named(world, from, e))
        else {
            out.stderr.push_str(&format!(
                "Failed to get the status of endpoint {} (context deadline exceeded)\n",
                clip(e)
            ));
            out.status = 1;
            continue;
        };
        let errors = if s.leader.is_none() {
            "etcdserver: no leader"
        } else {
            ""
        };
        // Go's `json.Marshal` of the StatusResponse: zero fields left out.
        let leader = (s.leader.and_then(|l| world.etcd_member_on(l))).map(|m| shown_id(world, m));
        let revision = world.etcd_member_revision(h);
        let mut status = vec![
            format!("\"header\":{}", header(world, from, e, revision)),
            format!("\"version\":\"{ETCD_VERSION}\""),
            "\"dbSize\":20480".to_string(),
        ];
        status.extend(leader.map(|l| format!("\"leader\":{l}")));
        status.push(format!("\"raftIndex\":{}", s.commit_index));
        status.push(format!("\"raftTerm\":{}", s.term));
        status.push(format!("\"raftAppliedIndex\":{}", s.applied_index));
        if !errors.is_empty() {
            status.push(format!("\"errors\":[\"{errors}\"]"));
        }
        status.push("\"dbSizeInUse\":20480".into());
        if s.learner {
            status.push("\"isLearner\":true".into());
        }
        docs.push(format!(
            "{{\"Endpoint\":{},\"Status\":{{{}}}}}",
            crate::object::quote_json(e),
            status.join(",")
        ));
        rows.push(vec![
            e.clone(),
            format!(
                "{:x}",
                world.etcd_member_on(h).map_or(0, |m| shown_id(world, m))
            ),
            ETCD_VERSION.into(),
            "20 kB".into(),
            (s.leader == Some(h)).to_string(),
            s.learner.to_string(),
            s.term.to_string(),
            s.commit_index.to_string(),
            s.applied_index.to_string(),
            errors.into(),
        ]);
    }
    out.stdout = if flags.json {
        format!("[{}]\n", docs.join(","))
    } else if flags.table {
        let header = [
            "ENDPOINT",
            "ID",
            "VERSION",
            "DB SIZE",
            "IS LEADER",
            "IS LEARNER",
            "RAFT TERM",
            "RAFT INDEX",
            "RAFT APPLIED INDEX",
            "ERRORS",
        ];
        table(&header, &rows)
    } else {
        rows.iter().map(|r| r.join(", ") + "\n").collect()
    };
    out.took_s = took;
    out
}

/// A response's header as Go's `json.Marshal` writes it (zero fields left out): the cluster,
/// the member that answered at `endpoint`, the store's revision if the response has one, and
/// the member's Raft term.
fn header(world: &World, from: HostId, endpoint: &str, revision: Option<u64>) -> String {
    let mut fields = vec![format!("\"cluster_id\":{}", cluster_id(world))];
    let h = host_named(world, from, endpoint);
    if let Some(m) = h.and_then(|h| world.etcd_member_on(h)) {
        fields.push(format!("\"member_id\":{}", shown_id(world, m)));
    }
    if let Some(r) = revision.filter(|&r| r > 0) {
        fields.push(format!("\"revision\":{r}"));
    }
    if let Some(term) = h.and_then(|h| world.etcd_member_term(h)).filter(|&t| t > 0) {
        fields.push(format!("\"raft_term\":{term}"));
    }
    format!("{{{}}}", fields.join(","))
}

/// A cluster ID as etcd derives one from its initial members: here a hash of their names.
fn cluster_id(world: &World) -> u64 {
    let names: Vec<&str> = world
        .scenario()
        .hosts
        .iter()
        .filter(|h| h.runs_etcd() && !h.standby)
        .map(|h| h.name.as_str())
        .collect();
    member_id(&format!("cluster:{}", names.join(",")))
}

/// `etcdctl member add NAME --peer-urls=URL [--learner]`.
fn member_add(world: &World, from: HostId, flags: &Flags, name: &str, peer: &str) -> Output {
    // etcd knows a member by its peer URL; the name is a label. The member runs where an etcd
    // started with that peer URL runs: the host with that address, else the host so named.
    let hosts = &world.scenario().hosts;
    let address = peer.split("://").nth(1).and_then(|a| a.split(':').next());
    let at = (0..hosts.len()).find(|&h| Some(ip_of(h as HostId).as_str()) == address);
    let Some(h) = at.or_else(|| hosts.iter().position(|h| h.name == name)) else {
        return error(
            &format!(
                "no etcd can start for member {} here: neither its peer URL {} nor its name is a host of this scenario (a real cluster would add the member anyway, and a member that never starts counts against the quorum)",
                clip(name),
                clip(peer)
            ),
            1,
        );
    };
    let action = Action::EtcdMemberAdd {
        host: hosts[h].name.clone(),
        learner: flags.learner,
    };
    // The ID the add gives the new member (taken from the world before the change).
    let added = shown_id(world, world.etcd_next_member_id(h as HostId));
    let mut out = change(world, from, flags, action);
    if out.record.is_some() {
        let (members, _, _) = listed(world, from, flags, false).unwrap_or_default();
        // The answer's members, in etcd's order (by ID), the new one among them.
        let mut cluster: Vec<(u64, String)> = members
            .iter()
            .filter(|&&(m, _)| world.etcd_member_started(m))
            .map(|&(m, _)| {
                let n = &world.scenario().hosts[member_host(m) as usize].name;
                (
                    shown_id(world, m),
                    format!("{n}=https://{}:2380", ip_of(member_host(m))),
                )
            })
            .collect();
        // Named as the command names it, as etcdctl prints it (the member takes its name when it starts).
        let name = clip(name);
        cluster.push((added, format!("{name}={}", clip(peer))));
        sim::kernel::sort::sort_by_key(&mut cluster, |c| c.0);
        let cluster: Vec<String> = cluster.into_iter().map(|c| c.1).collect();
        out.stdout = format!(
            "Member {:x} added to cluster {:x}\n\nETCD_NAME=\"{name}\"\nETCD_INITIAL_CLUSTER=\"{}\"\nETCD_INITIAL_ADVERTISE_PEER_URLS=\"{}\"\nETCD_INITIAL_CLUSTER_STATE=\"existing\"\n",
            added,
            cluster_id(world),
            cluster.join(","),
            clip(peer),
        );
    }
    out
}

/// `etcdctl member remove|promote ID`.
fn member_change(world: &World, from: HostId, flags: &Flags, verb: &str, id: &str) -> Output {
    let Ok(id) = u64::from_str_radix(id, 16) else {
        return error(
            &format!("bad member ID arg (strconv.ParseUint: parsing {:?}: invalid syntax), expecting ID in Hex", clip(id)),
            1,
        );
    };
    // A host has at most one member listed (an add of a listed host is refused), so the
    // action names the member by its host.
    let listed = match listed(world, from, flags, false) {
        Ok((m, _, _)) => m,
        Err(e) => return e,
    };
    let Some(&(m, _)) = listed.iter().find(|&&(m, _)| shown_id(world, m) == id) else {
        return error("etcdserver: member not found", 1);
    };
    let host = world.scenario().hosts[member_host(m) as usize].name.clone();
    let (action, done) = match verb {
        "remove" => (Action::EtcdMemberRemove { host }, "removed from"),
        _ => (Action::EtcdMemberPromote { host }, "promoted in"),
    };
    let mut out = change(world, from, flags, action);
    if out.record.is_some() {
        out.stdout = format!("Member {id:x} {done} cluster {:x}\n", cluster_id(world));
    }
    out
}

/// A membership change sent once the endpoint answers, carried out on a copy of the world; the
/// event that records it when it succeeded, or etcdctl's error.
fn change(world: &World, from: HostId, flags: &Flags, action: Action) -> Output {
    if let Err(e) = super::accepted(world, &action) {
        return error(&format!("console: {e}"), 1);
    }
    // etcdctl asks for the change at once (no member list first: the answer carries the
    // members), so a cluster without quorum refuses an add as its health check says.
    let listed = match listed(world, from, flags, false) {
        Ok((_, took, _)) => took,
        Err(e) => return e,
    };
    let mut copy = world.clone();
    let (op, took) = copy.operate(action.clone(), flags.command_timeout);
    let took_s = listed + took.as_secs_f64();
    match op {
        Some(op) if op.ok => Output {
            took_s,
            record: Some(action),
            ..Output::default()
        },
        // Refused by the server: its reason. Without a leader the request waits out its deadline.
        Some(op) => {
            let reason = op.reason.unwrap_or_default();
            // (Not "…in sync with leader": that refusal comes at once.)
            if reason == "no leader" || reason.starts_with("no etcd leader") {
                Output {
                    took_s: listed + flags.command_timeout.as_secs_f64(),
                    ..error("context deadline exceeded", 1)
                }
            } else {
                Output {
                    took_s,
                    ..error(&format!("etcdserver: {reason}"), 1)
                }
            }
        }
        None => Output {
            took_s,
            ..error("context deadline exceeded", 1)
        },
    }
}

/// Go's `time.Duration.String()`: 850µs, 2.001ms, 1.5s.
pub fn go_duration(d: Duration) -> String {
    let us = d.0;
    let trim = |whole: u64, frac: u64, digits: usize, unit: &str| {
        let f = format!("{frac:0digits$}");
        let f = f.trim_end_matches('0');
        if f.is_empty() {
            format!("{whole}{unit}")
        } else {
            format!("{whole}.{f}{unit}")
        }
    };
    if us == 0 {
        // Go's Duration(0).String().
        "0s".into()
    } else if us < 1_000 {
        format!("{us}µs")
    } else if us < 1_000_000 {
        trim(us / 1_000, us % 1_000, 3, "ms")
    } else {
        trim(us / 1_000_000, us % 1_000_000, 6, "s")
    }
}

/// etcdctl's `-w table` (olekukonko/tablewriter as etcdctl sets it): borders of `+ - |`, one
/// space either side of a cell, headers centred (an odd space to the right), cells right-aligned.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let width = |c: usize| {
        rows.iter()
            .map(|r| r[c].chars().count())
            .chain(std::iter::once(header[c].chars().count()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..header.len()).map(width).collect();
    let rule: String = widths
        .iter()
        .map(|w| format!("+{}", "-".repeat(w + 2)))
        .collect::<String>()
        + "+\n";
    let line =
        |cells: Vec<String>| cells.iter().map(|c| format!("| {c} ")).collect::<String>() + "|\n";
    let head = line(
        header
            .iter()
            .zip(&widths)
            .map(|(h, w)| {
                let gap = w - h.chars().count();
                format!("{}{h}{}", " ".repeat(gap / 2), " ".repeat(gap - gap / 2))
            })
            .collect(),
    );
    let mut out = format!("{rule}{head}{rule}");
    for r in rows {
        out.push_str(&line(
            r.iter()
                .zip(&widths)
                .map(|(c, w)| format!("{}{c}", " ".repeat(w - c.chars().count())))
                .collect(),
        ));
    }
    out.push_str(&rule);
    out
}

/// What etcdctl prints for an error the member answered.
fn etcd_error(e: sim::etcd::wire::EtcdError) -> &'static str {
    use sim::etcd::wire::EtcdError;
    match e {
        EtcdError::NoLeader => "etcdserver: no leader",
        EtcdError::NotServing => "etcdserver: not serving",
        EtcdError::Timeout => "etcdserver: request timed out",
    }
}

/// The first endpoint's answer to `req` (etcdctl's client tries the next one only to dial).
fn first_answer(world: &World, from: HostId, flags: &Flags, req: EtcdRequest) -> Outcome {
    let endpoint = flags
        .endpoints
        .first()
        .map_or("127.0.0.1:2379", String::as_str);
    ask(world, from, endpoint, req, flags)
}

/// `etcdctl put KEY VALUE`: a write through the Raft log, "OK" once committed.
fn put(world: &World, from: HostId, flags: &Flags, key: &str, value: &str) -> Output {
    let op = sim::etcd::kv::KvOp::Put {
        key: key.into(),
        value: sim::k8s::wire::Value::new(sim::k8s::objects::Object::Opaque(value.into())),
    };
    let out = first_answer(world, from, flags, EtcdRequest::Write(op));
    let took_s = out.elapsed.as_secs_f64();
    match out.answer {
        Answer::Etcd(EtcdResponse::Written(sim::etcd::kv::KvResult::Ok { .. })) => Output {
            stdout: "OK\n".into(),
            took_s,
            ..Output::default()
        },
        Answer::Etcd(EtcdResponse::Failed(e)) => Output {
            took_s,
            ..error(etcd_error(e), 1)
        },
        _ => Output {
            took_s,
            ..error("context deadline exceeded", 1)
        },
    }
}

/// `etcdctl get KEY [--prefix] [--keys-only] [--consistency=l|s]`: each key, then its value.
fn get(world: &World, from: HostId, flags: &Flags, key: &str) -> Output {
    let req = EtcdRequest::Read {
        prefix: key.into(),
        linearizable: !flags.serializable,
    };
    let out = first_answer(world, from, flags, req);
    let took_s = out.elapsed.as_secs_f64();
    let Answer::Etcd(EtcdResponse::Read { kvs, .. }) = out.answer else {
        let why = match out.answer {
            Answer::Etcd(EtcdResponse::Failed(e)) => etcd_error(e).to_string(),
            _ => "context deadline exceeded".into(),
        };
        return Output {
            took_s,
            ..error(&why, 1)
        };
    };
    let mut stdout = String::new();
    for (k, kv) in kvs.iter().filter(|(k, _)| flags.prefix || &**k == key) {
        stdout.push_str(k);
        stdout.push('\n');
        if !flags.keys_only {
            stdout.push_str(&stored(&kv.value));
            stdout.push('\n');
        }
    }
    Output {
        stdout,
        took_s,
        ..Output::default()
    }
}

/// A stored value as `get` shows it: a key of one's own as written; a Kubernetes object, which
/// the apiserver stores in protobuf, as one line naming it.
fn stored(value: &sim::k8s::wire::Value) -> String {
    use sim::k8s::objects::Object;
    match &**value {
        Object::Opaque(s) => s.to_string(),
        Object::Lease(l) => format!(
            "(protobuf: coordination.k8s.io/v1 Lease, holder {})",
            l.holder
        ),
        Object::Node(n) => format!("(protobuf: v1 Node {})", n.name),
        Object::Pod(p) => format!("(protobuf: v1 Pod {})", p.name),
        Object::EndpointSlice(_) => "(protobuf: discovery.k8s.io/v1 EndpointSlice)".into(),
        Object::Workload(w) => format!("(protobuf: apps/v1 {:?} {})", w.kind, w.name),
        Object::PodDisruptionBudget(b) => {
            format!("(protobuf: policy/v1 PodDisruptionBudget {})", b.name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_as_go_prints_them() {
        assert_eq!(go_duration(Duration(850)), "850µs");
        assert_eq!(go_duration(Duration(2_001)), "2.001ms");
        assert_eq!(go_duration(Duration(2_000)), "2ms");
        assert_eq!(go_duration(Duration(1_500_000)), "1.5s");
        assert_eq!(go_duration(Duration(5_000_000)), "5s");
    }

    #[test]
    fn tables_centre_headers_and_right_align_cells() {
        let t = table(
            &["ID", "IS LEARNER"],
            &[vec!["8e9e05c52164694d".into(), "false".into()]],
        );
        assert_eq!(
            t,
            "+------------------+------------+\n\
             |        ID        | IS LEARNER |\n\
             +------------------+------------+\n\
             | 8e9e05c52164694d |      false |\n\
             +------------------+------------+\n"
        );
    }
}
