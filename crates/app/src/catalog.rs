//! The ready scenarios of the picker: each answers one question people keep asking, and says
//! what to watch. The documents live in `web/scenarios/` (plain scenario files, loadable by
//! the runner too) and are compiled in (compacted by `build.rs`), so picking one needs no network.

use sim::scenario::{self, Scenario};

pub struct Ready {
    /// Stable id, used by the picker (and by tests).
    pub id: &'static str,
    pub question: &'static str,
    /// Report seconds of the moment that answers the question: where the start page opens it.
    pub moment: f64,
    pub watch: &'static str,
    pub json: &'static str,
}

macro_rules! doc {
    ($file:literal) => {
        include_str!(concat!(env!("OUT_DIR"), "/scenarios/", $file, ".json"))
    };
}

/// The first one is the default: a Kubernetes sandbox with nothing scheduled, so the page opens
/// on a healthy cluster waiting to be broken, under the questions that open the others. `watch` is empty when the document's description
/// says it after "Watch:" (one source for that text).
pub const READY: &[Ready] = &[
    Ready {
        id: "k8s-three-zones",
        moment: 0.0,
        question: "A healthy HA cluster to break yourself (three zones, three masters)",
        watch: "",
        json: doc!("k8s-three-zones"),
    },
    Ready {
        id: "1-only-master-dies",
        moment: 120.0,
        question: "My only master died: does my app keep serving?",
        watch: "",
        json: doc!("1-only-master-dies"),
    },
    Ready {
        id: "2-three-masters-one-dies",
        moment: 90.0,
        question: "Three masters, one dies: what keeps working?",
        watch: "",
        json: doc!("2-three-masters-one-dies"),
    },
    Ready {
        id: "2-three-masters-failed-one-comes-back",
        moment: 195.0,
        question: "The failed master comes back: what happens?",
        watch: "",
        json: doc!("2-three-masters-failed-one-comes-back"),
    },
    Ready {
        id: "3-three-masters-two-die",
        moment: 150.0,
        question: "Three masters, two die: why does the last one stop?",
        watch: "",
        json: doc!("3-three-masters-two-die"),
    },
    Ready {
        id: "4-rack-split",
        moment: 540.0,
        question: "Two racks split: who wins, and do pods run twice?",
        watch: "",
        json: doc!("4-rack-split"),
    },
    Ready {
        id: "5-five-masters-lose-two",
        moment: 90.0,
        question: "Five masters lose two: still a majority?",
        watch: "",
        json: doc!("5-five-masters-lose-two"),
    },
    Ready {
        id: "5-four-masters-lose-two",
        moment: 90.0,
        question: "Four masters lose two: is an even number safer?",
        watch: "",
        json: doc!("5-four-masters-lose-two"),
    },
    Ready {
        id: "6-spot-two-interruptions",
        moment: 240.0,
        question: "Control plane on spot: two interruptions close together",
        watch: "",
        json: doc!("6-spot-two-interruptions"),
    },
    Ready {
        id: "6-spot-replaced-in-time",
        moment: 240.0,
        question: "Control plane on spot: can replacing members in time save quorum?",
        watch: "",
        json: doc!("6-spot-replaced-in-time"),
    },
    Ready {
        id: "6-spot-replaced-automatically",
        moment: 3440.0,
        question: "Control plane on spot, replaced automatically: does it last?",
        watch: "",
        json: doc!("6-spot-replaced-automatically"),
    },
    Ready {
        id: "7-worker-dies",
        moment: 420.0,
        question: "A worker dies: how long until Kubernetes reacts?",
        watch: "",
        json: doc!("7-worker-dies"),
    },
    Ready {
        id: "8-lb-health-check-tcp",
        moment: 120.0,
        question: "Load balancer with a TCP health check: does a minority apiserver get traffic?",
        watch: "At 1:00 m1's etcd member is cut off from the other two. Watch API writes: about a \
                third fail, because the TCP check keeps m1 in the pool. Compare with readyz.",
        json: doc!("8-lb-health-check-tcp"),
    },
    Ready {
        id: "8-lb-health-check-readyz",
        moment: 120.0,
        question: "Load balancer with kubeadm's /readyz check: the same cut",
        watch: "At 1:00 m1's etcd member is cut off. Watch API writes: m1 reports unready and the \
                balancer gives it no new connection within seconds, so writes keep succeeding. \
                The events show a kubelet still connected to m1 dialling again.",
        json: doc!("8-lb-health-check-readyz"),
    },
    Ready {
        id: "9-grow-one-master-to-three",
        moment: 270.0,
        question: "One master today: can I grow to three without an outage?",
        watch: "",
        json: doc!("9-grow-one-master-to-three"),
    },
    Ready {
        id: "10-etcd-graceful-restart-vs-crash",
        moment: 185.0,
        question: "Restarting the etcd leader versus losing it: what is the difference?",
        watch: "",
        json: doc!("10-etcd-graceful-restart-vs-crash"),
    },
    Ready {
        id: "11-kube-proxy-restart-vs-reboot",
        moment: 200.0,
        question: "Control plane down: what breaks later, a kube-proxy restart or a reboot?",
        watch: "",
        json: doc!("11-kube-proxy-restart-vs-reboot"),
    },
    Ready {
        id: "12-zone-lost-at-80-percent",
        moment: 480.0,
        question: "A zone dies at 79 % of cpu: do the others have room for its pods?",
        watch: "",
        json: doc!("12-zone-lost-at-80-percent"),
    },
    Ready {
        id: "12-zone-lost-at-50-percent",
        moment: 480.0,
        question: "The same zone lost at 50 % of cpu: is everything rescheduled?",
        watch: "",
        json: doc!("12-zone-lost-at-50-percent"),
    },
    Ready {
        id: "13-drain-two-workers-without-a-budget",
        moment: 63.0,
        question: "Two workers drained at once: does the app stay up without a disruption budget?",
        watch: "",
        json: doc!("13-drain-two-workers-without-a-budget"),
    },
    Ready {
        id: "13-drain-two-workers-with-a-budget",
        moment: 63.0,
        question: "The same drain with a PodDisruptionBudget: what does it hold back?",
        watch: "",
        json: doc!("13-drain-two-workers-with-a-budget"),
    },
    Ready {
        id: "14-spot-workers-and-budgets",
        moment: 200.0,
        question: "Spot workers: what does a disruption budget do at the 2-minute notice?",
        watch: "",
        json: doc!("14-spot-workers-and-budgets"),
    },
    Ready {
        id: "15-external-load-balancer-dies",
        moment: 120.0,
        question: "Is the external load balancer a single point of failure?",
        watch: "",
        json: doc!("15-external-load-balancer-dies"),
    },
    Ready {
        id: "15-kube-vip-holder-dies",
        moment: 70.0,
        question: "No load balancer, kube-vip instead: what happens when the VIP holder dies?",
        watch: "",
        json: doc!("15-kube-vip-holder-dies"),
    },
    Ready {
        id: "15-keepalived-who-holds-the-vip",
        moment: 200.0,
        question:
            "keepalived instead: who holds the VIP when the master dies, and when racks split?",
        watch: "",
        json: doc!("15-keepalived-who-holds-the-vip"),
    },
    Ready {
        id: "etcd-leader-dies",
        moment: 40.0,
        question: "etcd only: what happens when the etcd leader's machine dies?",
        watch: "At 0:30 the leader (etcd-3) crashes. Quorum holds (2 of 3): a new leader is \
                elected within about a second and writes fail only briefly. At 1:30 etcd-3 \
                comes back as a follower.",
        json: doc!("etcd-leader-dies"),
    },
    Ready {
        id: "etcd-two-of-three-die",
        moment: 45.0,
        question: "etcd only: can a three-member etcd survive losing two members?",
        watch: "At 0:20 two members crash: 1 of 3, NO QUORUM, every write fails. The join at \
                1:00 fails too (no quorum to add a member). At 1:30 --force-new-cluster on \
                etcd-3 restores writes; at 2:00 etcd-4 is added back.",
        json: doc!("etcd-two-of-three-die"),
    },
    Ready {
        id: "etcd-rack-split",
        moment: 90.0,
        question: "etcd only: two racks lose their link (3 + 2 members): who keeps working?",
        watch: "At 1:00 rack-b, holding the leader, is cut off. Rack-a's three members elect a \
                new leader and keep taking writes; the old leader steps down (CheckQuorum). \
                At 3:00 the racks rejoin.",
        json: doc!("etcd-rack-split"),
    },
    Ready {
        id: "three-zones",
        moment: 0.0,
        question: "etcd only: how many zones can you lose? (sandbox: break it yourself)",
        watch: "Nothing is scheduled. Drag a zone onto “new island” to cut it off, or click a \
                member to crash it, and watch the quorum line and the leader chart.",
        json: doc!("three-zones"),
    },
];

impl Ready {
    pub fn scenario(&self) -> Scenario {
        // Guarded by a test: every ready document parses.
        scenario::parse(self.json).unwrap_or_else(|e| panic!("ready scenario {}: {e}", self.id))
    }

    /// (context, what to watch): the description split at "Watch:", unless `watch` is given.
    pub fn texts(&self, s: &Scenario) -> (String, String) {
        let d = s.description.clone().unwrap_or_default();
        if !self.watch.is_empty() {
            return (d, self.watch.to_string());
        }
        match d.split_once("Watch:") {
            Some((before, after)) => (before.trim().to_string(), after.trim().to_string()),
            None => (String::new(), d),
        }
    }

    pub fn by_id(id: &str) -> Option<&'static Ready> {
        READY.iter().find(|r| r.id == id)
    }

    /// The ready scenario a scenario came from, if unchanged (so the picker can show its text).
    pub fn matching(s: &Scenario) -> Option<&'static Ready> {
        Ready::named(&s.name).find(|r| scenario::parse(r.json).is_ok_and(|x| x == *s))
    }

    /// The ready scenarios whose document holds this name: only they can be named so, and the
    /// others are not parsed (a test checks that each document writes its name as it is).
    pub fn named(name: &str) -> impl Iterator<Item = &'static Ready> + '_ {
        READY.iter().filter(move |r| r.json.contains(name))
    }
}

pub fn default_scenario() -> Scenario {
    READY[0].scenario()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_document_in_web_scenarios_is_in_the_picker_and_parses() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../web/scenarios");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter_map(|e| {
                e.file_name()
                    .to_str()?
                    .strip_suffix(".json")
                    .map(str::to_string)
            })
            .collect();
        files.sort();
        let mut ids: Vec<String> = READY.iter().map(|r| r.id.to_string()).collect();
        ids.sort();
        assert_eq!(
            files, ids,
            "web/scenarios/ and the picker must list the same scenarios"
        );
        for r in READY {
            let s = r.scenario();
            let (_, watch) = r.texts(&s);
            assert!(!watch.is_empty(), "{}: no \"what to watch\" text", r.id);
        }
    }

    /// `Ready::named` finds a ready scenario by looking for its name in its document: each
    /// writes it as it is (no escapes), so a scenario carrying it is never missed.
    #[test]
    fn each_ready_scenario_is_found_by_its_name_and_matches_itself() {
        for r in READY {
            let s = r.scenario();
            assert!(Ready::named(&s.name).any(|x| x.id == r.id), "{}", r.id);
            assert_eq!(Ready::matching(&s).map(|x| x.id), Some(r.id));
        }
        let mut other = READY[0].scenario();
        other.name = "my own cluster".into();
        assert_eq!(Ready::named(&other.name).count(), 0);
        assert!(Ready::matching(&other).is_none());
    }

    /// Each ready scenario's question, description and "what to watch" is in every language.
    #[test]
    fn every_ready_text_is_translated() {
        let mut missing = vec![];
        for c in crate::language::catalogs() {
            let l = c.lang();
            for r in READY {
                let (context, watch) = r.texts(&r.scenario());
                for text in [r.question, &context, &watch] {
                    if !text.is_empty() && !c.translates(text) {
                        missing.push(format!("{} {}: {text}", l.code(), r.id));
                    }
                }
            }
        }
        assert!(missing.is_empty(), "untranslated:\n{}", missing.join("\n"));
    }
}
