//! `curl` of a Service from the vantage host: by name (`web`, `web.default.svc.cluster.local`,
//! looked up through CoreDNS), by ClusterIP, or by a node's NodePort (`http://w1:30080`), the
//! way the scenario's users reach Services (`World::service_request`). The simulated pods answer
//! as an echo server does, with their name. Messages follow curl 8.5; timings: a lookup nobody
//! answers gives up after glibc's 2 × 5 s, a connection nobody answers after Linux's SYN
//! retries (127 s) or `--max-time`. Left out: HTTPS, the API's own ports, response headers.

use super::words::clip;
use super::{host_named, node_port, Output};
use crate::kubectl::forward::Jobs;
use sim::kernel::net::HostId;
use sim::scenario::COREDNS;
use sim::world::users::ServiceHop;
use sim::world::World;

/// glibc's resolver: `timeout:5`, `attempts:2`.
const LOOKUP_GIVES_UP_S: f64 = 10.0;
/// Linux's `tcp_syn_retries` = 6: the last retry times out 127 s after the first SYN.
const CONNECT_GIVES_UP_S: f64 = 127.0;

pub fn run(world: &World, from: HostId, args: &[String], jobs: &mut Jobs) -> Output {
    let mut url = None;
    let mut max_time = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-m" | "--max-time" => {
                max_time = it
                    .next()
                    .and_then(|v| sim::kernel::decimal::parse_decimal(v))
            }
            s if s.starts_with('-') => {} // -s, -S, -v, -k, -i: the output here has no progress or headers.
            s => url = Some(s),
        }
    }
    let Some(url) = url else {
        return Output::error(
            "curl: try 'curl --help' or 'curl --manual' for more information\n".into(),
            2,
        );
    };
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split('/').next().unwrap_or(rest);
    let (name, port) = match authority.rsplit_once(':') {
        Some((n, p)) => (n, p.parse::<u16>().ok()),
        None => (authority, Some(80)),
    };
    let Some(port) = port else {
        return Output::error(
            "curl: (3) URL rejected: Port number was not a decimal number between 0 and 65535\n"
                .into(),
            3,
        );
    };
    // A port kubectl listens on for this line (port-forward, proxy).
    if name == "localhost" || name == "127.0.0.1" {
        let path = &rest[authority.len()..];
        let path = if path.is_empty() { "/" } else { path };
        if let Some(out) = crate::kubectl::forward::serve(world, from, jobs, port, path, max_time) {
            return out;
        }
    }
    let fail = |code: i32, text: String, took_s: f64| Output {
        took_s,
        ..Output::error(format!("curl: ({code}) {text}\n"), code)
    };
    let gives_up = max_time
        .unwrap_or(CONNECT_GIVES_UP_S)
        .min(CONNECT_GIVES_UP_S);
    let no_connect = |took_s: f64| match max_time {
        Some(m) if m <= CONNECT_GIVES_UP_S => fail(
            28,
            format!(
                "Connection timed out after {} milliseconds",
                (m * 1000.0) as u64 + 1
            ),
            took_s,
        ),
        _ => fail(
            7,
            format!(
                "Failed to connect to {} port {port} after {} ms: Couldn't connect to server",
                clip(name),
                (took_s * 1000.0) as u64
            ),
            took_s,
        ),
    };
    let services: Vec<&str> = world
        .scenario()
        .workloads
        .iter()
        .filter(|w| w.service && w.name != COREDNS)
        .map(|w| w.name.as_str())
        .collect();
    // What the URL names: a node's NodePort, a Service's ClusterIP, or a name to look up.
    let (service, lookup, node) = if let Some(h) = host_named(world, from, name) {
        match services.iter().find(|s| node_port(world, s) == Some(port)) {
            Some(s) => (s.to_string(), false, Some(h)),
            None if world.host_is_up(h) => {
                return fail(
                    7,
                    format!(
                    "Failed to connect to {} port {port} after 1 ms: Couldn't connect to server",
                    clip(name)
                ),
                    0.001,
                )
            }
            None => return no_connect(gives_up),
        }
    } else if let Some(s) = services
        .iter()
        .find(|s| node_port(world, s).is_some_and(|p| super::cluster_ip(p) == name))
    {
        // A ClusterIP is routed only on the cluster's nodes, by their kube-proxy.
        if !world.scenario().hosts[from as usize].is_node() {
            return no_connect(gives_up);
        }
        (s.to_string(), false, None)
    } else {
        let short = name.strip_suffix(".svc.cluster.local").unwrap_or(name);
        let short = short
            .strip_suffix(".default.svc")
            .or(short.strip_suffix(".default"))
            .unwrap_or(short);
        (short.to_string(), true, None)
    };
    match world.service_request(from, &service, lookup, node, jobs.next_connection()) {
        ServiceHop::Served { pod } => Output {
            stdout: format!("Hostname: {pod}\n"),
            took_s: 0.002,
            ..Output::default()
        },
        ServiceHop::DnsTimeout => fail(
            6,
            format!("Could not resolve host: {}", clip(name)),
            max_time.unwrap_or(LOOKUP_GIVES_UP_S).min(LOOKUP_GIVES_UP_S),
        ),
        ServiceHop::DnsFailed => fail(6, format!("Could not resolve host: {}", clip(name)), 0.002),
        ServiceHop::NoEndpoints | ServiceHop::Refused => fail(
            7,
            format!(
                "Failed to connect to {} port {port} after 1 ms: Couldn't connect to server",
                clip(name)
            ),
            0.001,
        ),
        ServiceHop::Unreachable => no_connect(gives_up),
    }
}
