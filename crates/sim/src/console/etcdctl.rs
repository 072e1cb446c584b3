//! `etcdctl` (v3.5) on the simulated cluster: `member list` and `endpoint health`, from the
//! vantage host to its endpoints (`--endpoints`, by default the member on the same host,
//! 127.0.0.1:2379, as kubeadm's control-plane hosts run it). Output follows etcd
//! `etcdctl/ctlv3/command/printer_simple.go`, `printer_table.go` and `ep_command.go`; errors
//! `Error: …` on stderr (`cobrautl.ExitWithError`), exit 1.
//!
//! The client does not block on dialling: a request to an endpoint that does not answer fails
//! when the 5 s command timeout runs out (`context deadline exceeded`). Member IDs are the
//! simulation's (a hash of the member's name), addresses are the simulation's.
//! Left out for now: `endpoint status`, member changes, `-w json`.

use super::words::clip;
use super::{ip_of, Output};
use crate::k8s::wire::{EtcdRequest, EtcdResponse};
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Port};
use crate::kernel::time::Duration;
use crate::world::terminal::{Answer, Call, Outcome};
use crate::world::World;

/// etcdctl's `--command-timeout` (its 2 s `--dial-timeout` only bounds starting the dial).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(5);

struct Flags {
    endpoints: Vec<String>,
    table: bool,
    cluster: bool,
}

pub fn run(world: &World, from: HostId, args: &[String]) -> Output {
    let mut flags = Flags {
        endpoints: vec!["127.0.0.1:2379".into()],
        table: false,
        cluster: false,
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
                Some("table") => flags.table = true,
                Some("simple") => flags.table = false,
                Some(other) => {
                    return error(
                        &format!(
                            "unsupported output format {} (this console prints simple and table)",
                            clip(other)
                        ),
                        1,
                    )
                }
                None => return error("flag needs an argument: 'w' in -w", 1),
            },
            "--cluster" => flags.cluster = true,
            // Certificates: the console's connections need none.
            "--cacert" | "--cert" | "--key" => {
                let _ = value();
            }
            s if s.starts_with('-') => return error(&format!("unknown flag: {}", clip(s)), 1),
            _ => words.push(a.as_str()),
        }
    }
    match words.as_slice() {
        ["member", "list"] => member_list(world, from, &flags),
        ["endpoint", "health"] => endpoint_health(world, from, &flags),
        [] => Output {
            stdout: "etcdctl is a command line client for etcd.\n\nIn this console: etcdctl member list, etcdctl endpoint health [--cluster] [-w table]\n".into(),
            ..Output::default()
        },
        [command, ..] => error(&format!("unknown command \"{}\" for \"etcdctl\"\nRun 'etcdctl --help' for usage.", clip(command)), 1),
    }
}

fn error(text: &str, status: i32) -> Output {
    Output::error(format!("Error: {text}\n"), status)
}

/// The host an endpoint names: 127.0.0.1/localhost is the vantage host; else a host's name or
/// address, with or without a scheme and the client port.
fn resolve(world: &World, from: HostId, endpoint: &str) -> Option<HostId> {
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

/// One request to one endpoint, on its own copy of the world (etcdctl asks endpoints
/// concurrently).
fn ask(world: &World, from: HostId, endpoint: &str, req: EtcdRequest) -> Outcome {
    let Some(h) = resolve(world, from, endpoint) else {
        return Outcome {
            answer: Answer::DialTimeout,
            elapsed: COMMAND_TIMEOUT,
        };
    };
    let mut copy = world.clone();
    let to = Addr {
        host: h,
        port: Port::Etcd,
    };
    let out = copy.call(from, to, Call::Etcd(req), COMMAND_TIMEOUT, COMMAND_TIMEOUT);
    match out.answer {
        // The dial does not block: the request waits for a connection until its deadline.
        Answer::Refused | Answer::DialTimeout => Outcome {
            answer: Answer::Timeout,
            elapsed: COMMAND_TIMEOUT,
        },
        _ => out,
    }
}

/// A simulated member ID: 64 bits from the member's name (FNV-1a, then mixed as splitmix64
/// does, so that similar names give unrelated IDs as etcd's do).
pub fn member_id(name: &str) -> u64 {
    let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    let z = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The members, as the first endpoint that answers lists them.
fn members(
    world: &World,
    from: HostId,
    flags: &Flags,
) -> Result<(Vec<(HostId, bool)>, f64), Output> {
    let mut took = 0.0;
    for e in &flags.endpoints {
        let out = ask(world, from, e, EtcdRequest::MemberList);
        took += out.elapsed.as_secs_f64();
        if let Answer::Etcd(EtcdResponse::Members(m)) = out.answer {
            return Ok((m, took));
        }
    }
    Err(Output {
        took_s: took,
        ..error("context deadline exceeded", 1)
    })
}

fn member_list(world: &World, from: HostId, flags: &Flags) -> Output {
    let (members, took_s) = match members(world, from, flags) {
        Ok(m) => m,
        Err(e) => return e,
    };
    // etcd lists its members by ID.
    let mut members = members;
    crate::kernel::sort::sort_by_key(&mut members, |&(h, _)| {
        member_id(&world.scenario().hosts[h as usize].name)
    });
    let rows: Vec<Vec<String>> = members
        .iter()
        .map(|&(h, learner)| {
            let name = world.scenario().hosts[h as usize].name.clone();
            let ip = ip_of(h);
            let started = world.etcd_member_started(h);
            vec![
                format!("{:x}", member_id(&name)),
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

fn endpoint_health(world: &World, from: HostId, flags: &Flags) -> Output {
    let (endpoints, listed) = if flags.cluster {
        match members(world, from, flags) {
            Ok((m, took)) => (
                m.iter()
                    .filter(|&&(h, _)| world.etcd_member_started(h))
                    .map(|&(h, _)| format!("https://{}:2379", ip_of(h)))
                    .collect(),
                took,
            ),
            Err(e) => {
                return Output {
                    stderr: e.stderr.replace(
                        "Error: ",
                        "Error: failed to fetch endpoints from etcd cluster member list: ",
                    ),
                    ..e
                }
            }
        }
    } else {
        (flags.endpoints.clone(), 0.0)
    };
    // Every endpoint at once; lines in the order the checks finish.
    let mut results: Vec<(String, Outcome)> = endpoints
        .iter()
        .map(|e| {
            let req = EtcdRequest::Read {
                prefix: "health".into(),
                linearizable: true,
            };
            (e.clone(), ask(world, from, e, req))
        })
        .collect();
    crate::kernel::sort::sort_by_key(&mut results, |(_, o)| o.elapsed);
    let mut out = Output::default();
    let mut rows = Vec::new();
    for (e, o) in &results {
        let took = go_duration(o.elapsed);
        let healthy = matches!(o.answer, Answer::Etcd(EtcdResponse::Read { .. }));
        let error = if healthy {
            String::new()
        } else {
            "failed to commit proposal: context deadline exceeded".into()
        };
        if flags.table {
            rows.push(vec![e.clone(), healthy.to_string(), took.clone(), error]);
        } else if healthy {
            out.stdout.push_str(&format!(
                "{e} is healthy: successfully committed proposal: took = {took}\n"
            ));
        } else {
            out.stderr.push_str(&format!("{e} is unhealthy: {error}\n"));
        }
    }
    if flags.table {
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
    if us < 1_000 {
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
