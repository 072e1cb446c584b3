//! Gestures turned into scenario actions, as pure functions of the snapshot shown:
//! moving a host or a zone to another network island is a `partition` with the resulting
//! groups (or a `heal` when everything ends up together again).

use crate::language::{tf, ts};
use sim::scenario::Action;
use sim::view::Snapshot;

/// What is being moved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Host(String),
    Zone(String),
}

impl Item {
    pub fn name(&self) -> &str {
        match self {
            Item::Host(n) | Item::Zone(n) => n,
        }
    }
}

/// Where it goes: an existing island (by the snapshot's island id) or a new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Island(u32),
    NewIsland,
}

/// Islands in the order they are drawn (by their first host), with their hosts' indices.
pub fn islands(snap: &Snapshot) -> Vec<(u32, Vec<usize>)> {
    let mut out: Vec<(u32, Vec<usize>)> = Vec::new();
    for (i, h) in snap.hosts.iter().enumerate() {
        match out.iter_mut().find(|(id, _)| *id == h.island) {
            Some((_, v)) => v.push(i),
            None => out.push((h.island, vec![i])),
        }
    }
    out
}

/// "A", "B", … for the n-th island drawn; "A2"… beyond 26 (never confusing, rarely needed).
pub fn island_label(n: usize) -> String {
    let letter = (b'A' + (n % 26) as u8) as char;
    if n < 26 {
        letter.to_string()
    } else {
        format!("{letter}{}", n / 26 + 1)
    }
}

/// The action that moves `item` to `target`, or `None` when nothing would change.
pub fn move_action(snap: &Snapshot, item: &Item, target: Target) -> Option<Action> {
    let moving: Vec<usize> = match item {
        Item::Host(n) => snap
            .hosts
            .iter()
            .position(|h| &h.name == n)
            .into_iter()
            .collect(),
        Item::Zone(z) => (0..snap.hosts.len())
            .filter(|&i| &snap.hosts[i].zone == z)
            .collect(),
    };
    if moving.is_empty() {
        return None;
    }
    let mut island: Vec<u32> = snap.hosts.iter().map(|h| h.island).collect();
    let to = match target {
        Target::Island(id) => id,
        Target::NewIsland => island.iter().max().copied().unwrap_or(0) + 1,
    };
    if moving.iter().all(|&i| island[i] == to) {
        return None;
    }
    // Moving everything of its island to a new one changes nothing either.
    if target == Target::NewIsland {
        let from: Vec<u32> = moving.iter().map(|&i| island[i]).collect();
        if from.iter().all(|&f| f == from[0])
            && island.iter().filter(|&&x| x == from[0]).count() == moving.len()
        {
            return None;
        }
    }
    moving.iter().for_each(|&i| island[i] = to);

    // Groups in the order of their first host; each written with zone names where the whole
    // zone is in the group (shorter and what the person dragged), host names otherwise.
    let mut groups: Vec<(u32, Vec<usize>)> = Vec::new();
    for (i, &id) in island.iter().enumerate() {
        match groups.iter_mut().find(|(g, _)| *g == id) {
            Some((_, v)) => v.push(i),
            None => groups.push((id, vec![i])),
        }
    }
    if groups.len() == 1 && !snap.hosts.iter().any(|h| h.isolated) {
        return Some(Action::Heal);
    }
    let names = groups
        .iter()
        .map(|(_, members)| {
            let mut names: Vec<String> = Vec::new();
            for &i in members {
                let h = &snap.hosts[i];
                let whole_zone = snap.hosts.iter().filter(|x| x.zone == h.zone).count()
                    == members
                        .iter()
                        .filter(|&&j| snap.hosts[j].zone == h.zone)
                        .count();
                let name = if whole_zone {
                    h.zone.clone()
                } else {
                    h.name.clone()
                };
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            names
        })
        .collect();
    Some(Action::Partition { groups: names })
}

/// One line describing an action for the notice after it is recorded.
pub fn describe(action: &Action) -> String {
    match action {
        Action::Partition { groups } => {
            let g: Vec<String> = groups
                .iter()
                .map(|g| format!("[{}]", g.join(", ")))
                .collect();
            tf(format_args!("partition {}", g.join(" | ")))
        }
        Action::Heal => ts("heal the network"),
        other => match other.host() {
            Some(h) => format!("{} {h}", other.name().replace('_', " ")),
            None => other.name().replace('_', " "),
        },
    }
}
