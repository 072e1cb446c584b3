//! `crictl ps` on the vantage host: the containers its container runtime runs now, by the
//! runtime's own account (`World::running_containers`), not the API's: on a node cut off from
//! the API this is where a pod that the API has deleted can still be seen running. Columns and
//! spacing as crictl 1.30 prints them (newest first; ids are the first 13 hex digits); the
//! image column shows an id made from the image's name. Left out: exited containers (`-a`),
//! `crictl pods`, `logs`, `exec`, `inspect`.

use super::words::clip;
use super::Output;
use sim::kernel::net::HostId;
use sim::world::World;

const SOCKET: &str = "unix:///var/run/containerd/containerd.sock";

pub fn run(world: &World, from: HostId, args: &[String]) -> Output {
    let (quiet, rest): (Vec<&String>, Vec<&String>) =
        args.iter().partition(|a| *a == "-q" || *a == "--quiet");
    match rest.as_slice() {
        [ps] if ps.as_str() == "ps" => {}
        [ps, flag, ..] if ps.as_str() == "ps" => {
            return Output::error(
                format!(
                    "Incorrect Usage: flag provided but not defined: {}\n",
                    clip(flag)
                ),
                1,
            )
        }
        [] => return Output::error("Usage: crictl ps [-q] (the only command here)\n".into(), 1),
        [other, ..] => {
            return Output::error(
                format!(
                    "No help topic for '{}' (here crictl knows only ps)\n",
                    clip(other)
                ),
                3,
            )
        }
    }
    if !world.scenario().hosts[from as usize].is_node() {
        return Output::error(
            format!("FATA[0000] validate service connection: validate CRI v1 runtime API for endpoint \"{SOCKET}\": rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial unix /var/run/containerd/containerd.sock: connect: no such file or directory\"\n"),
            1,
        );
    }
    let now = world.now();
    let mut containers = world.running_containers(from);
    containers.sort_by(|a, b| b.created.cmp(&a.created).then_with(|| a.pod.cmp(&b.pod)));
    let id = |c: &sim::world::terminal::RunningContainer| {
        hex13(&format!("{}/{}/{}", c.pod, c.name, c.created.0))
    };
    if !quiet.is_empty() {
        let ids: String = containers.iter().map(|c| id(c) + "\n").collect();
        return Output {
            stdout: ids,
            ..Output::default()
        };
    }
    let mut rows = vec![[
        "CONTAINER",
        "IMAGE",
        "CREATED",
        "STATE",
        "NAME",
        "ATTEMPT",
        "POD ID",
        "POD",
    ]
    .map(String::from)
    .to_vec()];
    for c in &containers {
        let ago = (now.0.saturating_sub(c.created.0)) as f64 / 1e6;
        rows.push(vec![
            id(c),
            hex13(&format!("image/{}", c.name)),
            format!("{} ago", human_duration(ago)),
            "Running".into(),
            c.name.clone(),
            c.attempt.to_string(),
            hex13(&format!("pod/{}/{}", c.namespace, c.pod)),
            c.pod.clone(),
        ]);
    }
    Output {
        stdout: tabwriter(&rows),
        ..Output::default()
    }
}

/// Go's `text/tabwriter` as crictl sets it up (minimum width 20, padding 3, spaces).
fn tabwriter(rows: &[Vec<String>]) -> String {
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            let widest = rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
            (widest + 3).max(20)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (i, cell) in r.iter().enumerate() {
            if i + 1 == columns {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<0$}", widths[i]));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The first 13 hex digits of an id made from `seed`, as crictl truncates container ids.
fn hex13(seed: &str) -> String {
    format!("{:016x}", sim::kernel::rng::hash_label(seed))[..13].to_string()
}

/// docker/go-units' `HumanDuration`, which crictl prints before " ago".
fn human_duration(secs: f64) -> String {
    let s = secs as u64;
    // Hours are rounded, minutes and seconds truncated, as go-units does.
    let (m, h) = (s / 60, (secs / 3600.0).round() as u64);
    match () {
        _ if s < 1 => "Less than a second".into(),
        _ if s == 1 => "1 second".into(),
        _ if s < 60 => format!("{s} seconds"),
        _ if m == 1 => "About a minute".into(),
        _ if m < 60 => format!("{m} minutes"),
        _ if h == 1 => "About an hour".into(),
        _ if h < 48 => format!("{h} hours"),
        _ if h < 24 * 7 * 2 => format!("{} days", h / 24),
        _ => format!("{} weeks", h / 24 / 7),
    }
}

#[cfg(test)]
mod tests {
    use super::human_duration;

    #[test]
    fn ages_read_as_go_units_prints_them() {
        for (s, words) in [
            (0.5, "Less than a second"),
            (1.0, "1 second"),
            (59.0, "59 seconds"),
            (60.0, "About a minute"),
            (119.0, "About a minute"),
            (120.0, "2 minutes"),
            (3599.0, "59 minutes"),
            (3600.0, "About an hour"),
            (5399.0, "About an hour"),
            (5400.0, "2 hours"),
            (47.0 * 3600.0, "47 hours"),
            (48.0 * 3600.0, "2 days"),
            (15.0 * 86400.0, "2 weeks"),
        ] {
            assert_eq!(human_duration(s), words, "{s} s");
        }
    }
}
