//! What to try first on an imported cluster: four breakages of the scenario, each a scenario of
//! its own with one event at 60 s, for hosts found by booting the cluster to t = 0 (the busiest
//! worker and the etcd leader are what the run makes them): lose its biggest zone, drain its
//! busiest node, lose its etcd leader, lose two masters. A step the cluster cannot take (one
//! zone only, no worker, fewer than two masters) is left out.

use sim::scenario::{Action, Event, Role, Scenario};
use sim::time::Duration;
use sim::view::MemberRole;
use sim::world::World;

/// One breakage: a key, the host or zone it strikes, and the scenario with its event.
pub struct Step {
    /// `zone`, `drain`, `etcd-leader`, `two-masters`.
    pub key: &'static str,
    /// The zone or hosts it strikes, as the page names them.
    pub target: String,
    pub scenario: Scenario,
}

const AT: Duration = Duration::from_secs(60);

/// The steps for `s`, in the order above.
pub fn tour(s: &Scenario) -> Vec<Step> {
    let mut world = World::new(s.clone());
    world.run_until(world.at_report_secs(0.0), u64::MAX);
    let snapshot = world.snapshot();
    let nodes: Vec<&sim::scenario::Host> = s
        .hosts
        .iter()
        .filter(|h| h.is_node() && !h.standby)
        .collect();
    let mut steps = Vec::new();
    let with = |key, target: String, actions: Vec<Action>| {
        let mut t = s.clone();
        t.duration = Duration::from_secs(15 * 60);
        t.events = actions
            .into_iter()
            .map(|action| Event { at: AT, action })
            .collect();
        t.faults.clear();
        Step {
            key,
            target,
            scenario: t,
        }
    };
    // The zone with the most Nodes, when there is another.
    let mut zones: Vec<(&str, usize)> = Vec::new();
    for h in &nodes {
        match zones.iter_mut().find(|(z, _)| *z == h.zone) {
            Some((_, n)) => *n += 1,
            None => zones.push((&h.zone, 1)),
        }
    }
    if zones.len() > 1 {
        let (zone, _) = zones
            .iter()
            .copied()
            .fold(zones[0], |a, b| if b.1 > a.1 { b } else { a });
        let crashes = (s.hosts.iter())
            .filter(|h| h.zone == zone && !h.standby)
            .map(|h| Action::Crash {
                host: h.name.clone(),
            })
            .collect();
        steps.push(with("zone", zone.to_string(), crashes));
    }
    // The worker with the most pods at t = 0.
    let busiest = (snapshot.hosts.iter())
        .filter(|v| {
            s.hosts
                .iter()
                .any(|h| h.name == v.name && h.is_worker() && !h.standby)
        })
        .fold(None::<(&str, usize)>, |best, v| match best {
            Some((_, n)) if n >= v.pods.len() => best,
            _ => Some((&v.name, v.pods.len())),
        });
    if let Some((host, _)) = busiest {
        steps.push(with(
            "drain",
            host.to_string(),
            vec![Action::Drain {
                host: host.to_string(),
            }],
        ));
    }
    // The etcd leader at t = 0.
    let leader = (snapshot.hosts.iter()).find(|v| {
        v.etcd
            .as_ref()
            .is_some_and(|m| m.role == MemberRole::Leader)
    });
    if let Some(v) = leader {
        steps.push(with(
            "etcd-leader",
            v.name.clone(),
            vec![Action::Crash {
                host: v.name.clone(),
            }],
        ));
    }
    // The first two masters.
    let masters: Vec<&str> = (s.hosts.iter())
        .filter(|h| h.has_role(Role::ControlPlane) && !h.standby)
        .map(|h| h.name.as_str())
        .take(2)
        .collect();
    if masters.len() == 2 {
        let crashes = masters
            .iter()
            .map(|m| Action::Crash {
                host: m.to_string(),
            })
            .collect();
        steps.push(with("two-masters", masters.join(", "), crashes));
    }
    steps
}
