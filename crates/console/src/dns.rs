//! `nslookup` and `dig` of a Service name from the vantage host, as a pod's resolver asks the
//! cluster DNS Service (10.96.0.10): kube-proxy sends the query to a CoreDNS pod, which answers
//! from its informer's cache (`World::name_lookup`, the path of the users' lookups). `nslookup`
//! applies the pod's search list (`default.svc.cluster.local`, `svc.cluster.local`,
//! `cluster.local`); `dig` asks for the name as written unless `+search`, so `dig web` is
//! NXDOMAIN as it is in a real pod. Output as bind9 9.18 prints it, without the lines that only
//! vary (query id, date, message size). A query nobody answers gives up after bind9's 3 tries of
//! 5 s. Left out: record types other than A, upstream names (the cluster has no upstream
//! resolver here: they are NXDOMAIN), reverse lookups.

use super::words::clip;
use super::{cluster_ip, node_port, Output};
use crate::kubectl::forward::Jobs;
use sim::k8s::proxy::DnsAnswer;
use sim::kernel::net::HostId;
use sim::world::World;

/// The cluster DNS Service's ClusterIP (kubeadm's default: the tenth address of 10.96.0.0/12).
const CLUSTER_DNS: &str = "10.96.0.10";
/// bind9's `+time=5 +tries=3`.
const GIVES_UP_S: f64 = 15.0;
/// The record's TTL: kubeadm's Corefile sets the kubernetes plugin's `ttl 30`.
const TTL_S: u32 = 30;
const SEARCH: [&str; 3] = [
    "default.svc.cluster.local",
    "svc.cluster.local",
    "cluster.local",
];

/// What a query of one fully qualified name came to.
enum Reply {
    /// The Service's ClusterIP.
    Address(String),
    Refused(&'static str),
    TimedOut,
}

/// The Service a fully qualified name names, if it is one of the default namespace's.
fn service_of<'a>(world: &World, fqdn: &'a str) -> Option<(&'a str, u16)> {
    let service = fqdn.strip_suffix(".default.svc.cluster.local")?;
    node_port(world, service).map(|port| (service, port))
}

/// One query of `fqdn`, over a connection of its own.
fn query(world: &World, from: HostId, fqdn: &str, jobs: &mut Jobs) -> Reply {
    // CoreDNS answers for the Services it knows; the name of one it does not is NXDOMAIN.
    let (service, port) = service_of(world, fqdn).unwrap_or(("", 0));
    match world.name_lookup(from, service, jobs.next_connection()) {
        DnsAnswer::Answer if port != 0 => Reply::Address(cluster_ip(port)),
        DnsAnswer::Answer | DnsAnswer::NxDomain => Reply::Refused("NXDOMAIN"),
        DnsAnswer::ServFail => Reply::Refused("SERVFAIL"),
        DnsAnswer::Silent => Reply::TimedOut,
    }
}

/// The names the resolver tries for `name`: a name with fewer dots than `ndots:5` goes through
/// the search list first, then as written.
fn candidates(name: &str) -> Vec<String> {
    let name = name.trim_end_matches('.');
    let mut names: Vec<String> = SEARCH.iter().map(|d| format!("{name}.{d}")).collect();
    names.push(name.to_string());
    names
}

/// `nslookup NAME`.
pub fn nslookup(world: &World, from: HostId, args: &[String], jobs: &mut Jobs) -> Output {
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let [name] = names[..] else {
        return Output::error("Usage: nslookup NAME (a Service's name)\n".into(), 1);
    };
    let header = format!("Server:\t\t{CLUSTER_DNS}\nAddress:\t{CLUSTER_DNS}#53\n\n");
    let mut last = "NXDOMAIN";
    for fqdn in candidates(name) {
        match query(world, from, &fqdn, jobs) {
            Reply::Address(ip) => {
                return Output {
                    stdout: format!("{header}Name:\t{fqdn}\nAddress: {ip}\n\n"),
                    took_s: 0.002,
                    ..Output::default()
                }
            }
            Reply::Refused(why) => last = why,
            Reply::TimedOut => {
                return Output {
                    stdout: ";; connection timed out; no servers could be reached\n\n".into(),
                    status: 1,
                    took_s: GIVES_UP_S,
                    ..Output::default()
                }
            }
        }
        if last == "SERVFAIL" {
            break;
        }
    }
    Output {
        stdout: format!("{header}** server can't find {}: {last}\n\n", clip(name)),
        status: 1,
        took_s: 0.002,
        ..Output::default()
    }
}

/// `dig [+short] [+search] NAME`.
pub fn dig(world: &World, from: HostId, args: &[String], jobs: &mut Jobs) -> Output {
    let short = args.iter().any(|a| a == "+short");
    let search = args.iter().any(|a| a == "+search");
    let names: Vec<&String> = args
        .iter()
        .filter(|a| !a.starts_with(['+', '-', '@']))
        .collect();
    let [name] = names[..] else {
        return Output::error("Usage: dig [+short] [+search] NAME\n".into(), 1);
    };
    let tries = if search {
        candidates(name)
    } else {
        vec![name.trim_end_matches('.').to_string()]
    };
    let mut reply = (tries[0].clone(), Reply::Refused("NXDOMAIN"));
    for fqdn in tries {
        let r = query(world, from, &fqdn, jobs);
        let done = !matches!(r, Reply::Refused("NXDOMAIN"));
        reply = (fqdn, r);
        if done {
            break;
        }
    }
    let (fqdn, reply) = reply;
    let (status, answers) = match reply {
        Reply::TimedOut => {
            let error = format!(";; communications error to {CLUSTER_DNS}#53: timed out\n");
            return Output {
                stdout: format!("{}{}", error.repeat(3), ";; no servers could be reached\n"),
                status: 9,
                took_s: GIVES_UP_S,
                ..Output::default()
            };
        }
        Reply::Address(ip) if short => (ip + "\n", String::new()),
        Reply::Refused(_) if short => (String::new(), String::new()),
        Reply::Address(ip) => (
            "NOERROR".to_string(),
            format!(";; ANSWER SECTION:\n{fqdn}.\t{TTL_S}\tIN\tA\t{ip}\n\n"),
        ),
        Reply::Refused(why) => (why.to_string(), String::new()),
    };
    if short {
        return Output {
            stdout: status,
            took_s: 0.002,
            ..Output::default()
        };
    }
    let count = u8::from(!answers.is_empty());
    Output {
        stdout: format!(
            "\n; <<>> DiG 9.18 <<>> {}\n;; Got answer:\n;; ->>HEADER<<- opcode: QUERY, status: {status}\n;; flags: qr aa rd; QUERY: 1, ANSWER: {count}, AUTHORITY: 0, ADDITIONAL: 0\n\n;; QUESTION SECTION:\n;{}.\t\t\tIN\tA\n\n{answers};; Query time: 1 msec\n;; SERVER: {CLUSTER_DNS}#53({CLUSTER_DNS}) (UDP)\n\n",
            clip(name),
            clip(&fqdn),
        ),
        took_s: 0.002,
        ..Output::default()
    }
}
