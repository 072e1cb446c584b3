//! Table and scenario tests for the Raft state machine, in the style of etcd-raft's tests: a tiny
//! in-memory network delivers messages instantly between members, can cut links, crash members
//! and drop messages at random, and runs until no message is left.

use super::*;
use crate::kernel::members::MemberSet;
use std::collections::{BTreeMap, BTreeSet};

const E: u64 = 10; // election ticks used throughout

fn cfg(pre_vote: bool) -> Config {
    Config {
        election_ticks: E as u32,
        heartbeat_ticks: 1,
        pre_vote,
        check_quorum: true,
    }
}

fn rng_for(seed: u64, id: MemberId) -> Rng {
    Rng::new(seed).fork(&format!("raft-{id}"))
}

/// An instant network between members.
struct Net {
    nodes: BTreeMap<MemberId, Raft<u64>>,
    /// Directed links that drop everything.
    cut: BTreeSet<(MemberId, MemberId)>,
    /// Crashed members: neither ticked nor delivered to; their output is lost.
    down: BTreeSet<MemberId>,
    drop_rate: f64,
    rng: Rng,
    /// Every message handed to the network (delivered or not), in order.
    trace: Vec<Message<u64>>,
    events: BTreeMap<MemberId, Vec<RaftEvent>>,
    applied: BTreeMap<MemberId, Vec<Entry<u64>>>,
    reads: BTreeMap<MemberId, Vec<ReadState>>,
    /// Snapshots each member installed from a leader.
    restored: BTreeMap<MemberId, Vec<SnapshotMeta>>,
    /// term -> members that became leader in it.
    leaders: BTreeMap<u64, BTreeSet<MemberId>>,
}

impl Net {
    fn new(n: u32, cfg: Config, seed: u64) -> Net {
        let ids: Vec<MemberId> = (1..=n).collect();
        let mut net = Net::empty(seed);
        for &id in &ids {
            net.nodes.insert(
                id,
                Raft::new_bootstrap(id, &ids, cfg.clone(), rng_for(seed, id)),
            );
        }
        net
    }

    fn empty(seed: u64) -> Net {
        Net {
            nodes: BTreeMap::new(),
            cut: BTreeSet::new(),
            down: BTreeSet::new(),
            drop_rate: 0.0,
            rng: Rng::new(seed).fork("net"),
            trace: Vec::new(),
            events: BTreeMap::new(),
            applied: BTreeMap::new(),
            reads: BTreeMap::new(),
            restored: BTreeMap::new(),
            leaders: BTreeMap::new(),
        }
    }

    fn add_joining(&mut self, id: MemberId, cfg: Config, seed: u64) {
        self.nodes
            .insert(id, Raft::new_joining(id, cfg, rng_for(seed, id)));
    }

    fn node(&self, id: MemberId) -> &Raft<u64> {
        &self.nodes[&id]
    }

    fn node_mut(&mut self, id: MemberId) -> &mut Raft<u64> {
        self.nodes.get_mut(&id).expect("test uses a known member")
    }

    fn cut_pair(&mut self, a: MemberId, b: MemberId) {
        self.cut.insert((a, b));
        self.cut.insert((b, a));
    }

    /// Cut every link between the two groups.
    fn partition(&mut self, left: &[MemberId], right: &[MemberId]) {
        for &a in left {
            for &b in right {
                self.cut_pair(a, b);
            }
        }
    }

    fn isolate(&mut self, id: MemberId) {
        let others: Vec<MemberId> = self.nodes.keys().copied().filter(|&o| o != id).collect();
        self.partition(&[id], &others);
    }

    fn heal(&mut self) {
        self.cut.clear();
    }

    fn crash(&mut self, id: MemberId) {
        self.down.insert(id);
        self.node_mut(id).drain_messages().for_each(drop);
    }

    fn recover(&mut self, id: MemberId) {
        self.down.remove(&id);
        self.node_mut(id).restart();
    }

    /// Drain every member's outputs; returns the messages to deliver.
    fn collect(&mut self) -> Vec<Message<u64>> {
        let mut out = Vec::new();
        let ids: Vec<MemberId> = self.nodes.keys().copied().collect();
        for id in ids {
            let down = self.down.contains(&id);
            let n = self.nodes.get_mut(&id).expect("listed");
            let msgs = n.drain_messages().collect::<Vec<_>>();
            let evs = n.take_events();
            if let Some(meta) = n.take_restored() {
                self.restored.entry(id).or_default().push(meta);
            }
            let committed = n.take_committed().cloned().collect::<Vec<_>>();
            let reads = n.take_read_states();
            for e in &evs {
                if let RaftEvent::BecameLeader { term } = e {
                    self.leaders.entry(*term).or_default().insert(id);
                }
            }
            self.events.entry(id).or_default().extend(evs);
            self.applied.entry(id).or_default().extend(committed);
            self.reads.entry(id).or_default().extend(reads);
            if !down {
                out.extend(msgs);
            }
        }
        out
    }

    /// Deliver until no member has anything to say.
    fn deliver(&mut self) {
        for _ in 0..100_000 {
            let msgs = self.collect();
            if msgs.is_empty() {
                return;
            }
            for m in msgs {
                self.trace.push(m.clone());
                let lost = self.down.contains(&m.to)
                    || self.cut.contains(&(m.from, m.to))
                    || !self.nodes.contains_key(&m.to)
                    || (self.drop_rate > 0.0 && self.rng.unit() < self.drop_rate);
                if !lost {
                    self.node_mut(m.to).step(m);
                }
            }
        }
        let tail: Vec<String> = self
            .trace
            .iter()
            .rev()
            .take(30)
            .map(|m| format!("{m:?}"))
            .collect();
        panic!(
            "network never went quiet; last messages:\n{}",
            tail.join("\n")
        );
    }

    fn tick(&mut self) {
        let ids: Vec<MemberId> = self
            .nodes
            .keys()
            .copied()
            .filter(|id| !self.down.contains(id))
            .collect();
        for id in ids {
            self.node_mut(id).tick();
        }
        self.deliver();
    }

    fn ticks(&mut self, n: u64) {
        for _ in 0..n {
            self.tick();
        }
    }

    /// The leader with the highest term among the given up members, if any.
    fn leader_among(&self, ids: &[MemberId]) -> Option<MemberId> {
        ids.iter()
            .copied()
            .filter(|id| !self.down.contains(id) && self.nodes[id].role() == Role::Leader)
            .max_by_key(|id| self.nodes[id].term())
    }

    fn all_ids(&self) -> Vec<MemberId> {
        self.nodes.keys().copied().collect()
    }

    /// Tick until one of `ids` leads and has committed an entry of its term; returns it and the
    /// number of ticks it took.
    fn wait_leader_among(&mut self, ids: &[MemberId], max_ticks: u64) -> (MemberId, u64) {
        for t in 0..=max_ticks {
            if let Some(l) = self.leader_among(ids) {
                let n = self.node(l);
                if n.entry(n.commit_index()).map(|e| e.term) == Some(n.term()) {
                    return (l, t);
                }
            }
            self.tick();
        }
        panic!("no leader among {ids:?} within {max_ticks} ticks");
    }

    fn wait_leader(&mut self) -> MemberId {
        let ids = self.all_ids();
        self.wait_leader_among(&ids, 20 * E).0
    }

    fn applied_values(&self, id: MemberId) -> Vec<u64> {
        self.applied[&id]
            .iter()
            .filter_map(|e| match e.data {
                EntryData::Normal(v) => Some(v),
                _ => None,
            })
            .collect()
    }

    fn events_of(&self, id: MemberId) -> &[RaftEvent] {
        self.events.get(&id).map_or(&[], |v| v.as_slice())
    }

    fn sent_by(&self, id: MemberId, name: &str) -> usize {
        self.trace
            .iter()
            .filter(|m| m.from == id && m.kind.name() == name)
            .count()
    }

    /// Safety checks over everything seen so far.
    fn assert_safe(&self) {
        for (term, ls) in &self.leaders {
            assert!(ls.len() <= 1, "two leaders in term {term}: {ls:?}");
        }
        // State machine safety: members never apply different entries at the same index (a
        // member that installed a snapshot skipped the entries it covers).
        let ids = self.all_ids();
        let by_index = |id: MemberId| -> BTreeMap<u64, &Entry<u64>> {
            self.applied[&id].iter().map(|e| (e.index, e)).collect()
        };
        for (i, &a) in ids.iter().enumerate() {
            let la = by_index(a);
            for &b in &ids[i + 1..] {
                for (index, eb) in by_index(b) {
                    if let Some(ea) = la.get(&index) {
                        assert_eq!(*ea, eb, "members {a} and {b} applied different entries");
                    }
                }
            }
        }
        for n in self.nodes.values() {
            assert!(n.applied_index() <= n.commit_index());
            assert!(n.commit_index() <= n.last_index());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Bootstrap and elections
// ---------------------------------------------------------------------------------------------

#[test]
fn bootstrap_log_holds_one_committed_conf_entry_per_member() {
    let mut r: Raft<u64> = Raft::new_bootstrap(2, &[3, 1, 2], cfg(true), Rng::new(1));
    assert_eq!(
        (
            r.term(),
            r.role(),
            r.leader(),
            r.commit_index(),
            r.last_index()
        ),
        (1, Role::Follower, None, 3, 3)
    );
    assert_eq!(r.voters(), &MemberSet::from_iter([1, 2, 3]));
    let got: Vec<EntryData<u64>> = r.take_committed().map(|e| e.data.clone()).collect();
    let want: Vec<EntryData<u64>> = [1, 2, 3]
        .iter()
        .map(|&m| EntryData::Conf(ConfChange::AddVoter(m)))
        .collect();
    assert_eq!(got, want);
    assert_eq!(r.applied_index(), 3);
    assert_eq!(r.take_committed().len(), 0);
}

#[test]
fn election_timeout_is_randomized_in_one_to_two_timeouts() {
    let mut seen = BTreeSet::new();
    for seed in 0..40 {
        let mut r: Raft<u64> = Raft::new_bootstrap(1, &[1, 2, 3], cfg(false), Rng::new(seed));
        let mut t = 0;
        while r.role() == Role::Follower {
            r.tick();
            t += 1;
            assert!(
                t < 2 * E,
                "seed {seed}: no campaign within 2 election timeouts"
            );
        }
        assert!(t >= E, "seed {seed}: campaigned after {t} ticks");
        assert_eq!(r.role(), Role::Candidate);
        assert_eq!(r.term(), 2);
        seen.insert(t);
    }
    assert!(seen.len() >= 5, "timeouts not randomized: {seen:?}");
}

#[test]
fn leader_election_in_1_3_5_member_clusters() {
    for n in [1u32, 3, 5] {
        for pre_vote in [false, true] {
            for seed in 0..5 {
                let mut net = Net::new(n, cfg(pre_vote), seed);
                let ids = net.all_ids();
                let (l, took) = net.wait_leader_among(&ids, 20 * E);
                assert!(
                    took <= 3 * E,
                    "n={n} pre_vote={pre_vote} seed={seed}: took {took} ticks"
                );
                let term = net.node(l).term();
                assert_eq!(term, 2, "n={n}: first election should win term 2");
                for id in ids {
                    let r = net.node(id);
                    assert_eq!(r.term(), term);
                    assert_eq!(r.leader(), Some(l), "n={n} member {id} does not follow {l}");
                    assert_eq!(r.role() == Role::Leader, id == l);
                }
                net.assert_safe();
            }
        }
    }
}

#[test]
fn split_vote_resolves_eventually() {
    let mut net = Net::new(4, cfg(false), 7);
    // 1 and 2 campaign at once for term 2; 3 only hears 1 and 4 only hears 2: 2 votes each,
    // quorum of 4 is 3.
    net.cut_pair(2, 3);
    net.cut_pair(1, 4);
    net.node_mut(1).campaign();
    net.node_mut(2).campaign();
    net.deliver();
    for id in [1, 2] {
        assert_eq!(net.node(id).role(), Role::Candidate, "member {id}");
        assert_eq!(net.node(id).term(), 2);
    }
    assert!(net.leaders.is_empty(), "nobody can win a split vote");
    net.heal();
    let l = net.wait_leader();
    assert!(
        net.node(l).term() >= 3,
        "the split term had no winner, a later one must"
    );
    net.assert_safe();
}

#[test]
fn candidate_with_stale_log_loses() {
    for pre_vote in [false, true] {
        let c = Config {
            check_quorum: false,
            ..cfg(pre_vote)
        };
        let mut net = Net::new(3, c, 3);
        let l = net.wait_leader();
        let stale = net.all_ids().into_iter().find(|&i| i != l).unwrap();
        let other = 6 - l - stale;
        net.isolate(stale);
        for v in 0..5 {
            assert!(net.node_mut(l).propose(v, v));
        }
        net.deliver();
        assert_eq!(net.node(other).commit_index(), net.node(l).last_index());
        net.heal();
        net.crash(l);
        // The stale member asks first; the up-to-date one must refuse it.
        net.node_mut(stale).campaign();
        net.deliver();
        let refusals = net
            .trace
            .iter()
            .filter(|m| {
                m.from == other
                    && m.to == stale
                    && matches!(
                        m.kind,
                        MsgKind::VoteResp { reject: true } | MsgKind::PreVoteResp { reject: true }
                    )
            })
            .count();
        assert!(
            refusals >= 1,
            "pre_vote={pre_vote}: the stale candidate was not refused"
        );
        let (winner, _) = net.wait_leader_among(&[stale, other], 20 * E);
        assert_eq!(
            winner, other,
            "pre_vote={pre_vote}: only the up-to-date member can win"
        );
        assert!(net.leaders.iter().all(|(_, ls)| !ls.contains(&stale)));
        net.assert_safe();
    }
}

#[test]
fn prevote_does_not_bump_terms() {
    let mut net = Net::new(3, cfg(true), 5);
    net.isolate(3);
    for _ in 0..(5 * E) {
        net.tick();
    }
    // Member 3 ran several pre-elections and never moved past term 1.
    let pre = net
        .events_of(3)
        .iter()
        .filter(|e| matches!(e, RaftEvent::CampaignStarted { pre_vote: true, .. }))
        .count();
    assert!(
        pre >= 2,
        "member 3 should have run pre-elections, ran {pre}"
    );
    assert_eq!(net.node(3).term(), 1);
    // A pre-vote at a higher term, received out of lease, is granted without a term change.
    let mut r: Raft<u64> = Raft::new_bootstrap(1, &[1, 2, 3], cfg(true), Rng::new(1));
    r.step(Message {
        from: 2,
        to: 1,
        term: 5,
        kind: MsgKind::PreVote {
            last_index: 3,
            last_term: 1,
        },
    });
    assert_eq!(r.term(), 1);
    assert_eq!(r.vote(), None);
    let m = r.drain_messages().collect::<Vec<_>>();
    assert_eq!(
        m,
        vec![Message {
            from: 1,
            to: 2,
            term: 5,
            kind: MsgKind::PreVoteResp { reject: false }
        }]
    );
}

#[test]
fn at_most_one_leader_per_term_and_no_divergent_commits_under_random_faults() {
    for seed in 0..12u64 {
        let pre_vote = seed % 2 == 0;
        let mut net = Net::new(5, cfg(pre_vote), seed);
        net.drop_rate = 0.1;
        let mut rng = Rng::new(seed).fork("chaos");
        let mut next_value = 0u64;
        for _ in 0..400 {
            let roll = rng.unit();
            let who = 1 + rng.below(5) as MemberId;
            if roll < 0.04 {
                net.isolate(who);
            } else if roll < 0.08 {
                net.heal();
            } else if roll < 0.10 {
                if net.down.contains(&who) {
                    net.recover(who);
                } else if net.down.len() < 2 {
                    net.crash(who);
                }
            } else if roll < 0.35 {
                if !net.down.contains(&who) {
                    next_value += 1;
                    net.node_mut(who).propose(next_value, next_value);
                }
            } else if roll < 0.40 && !net.down.contains(&who) {
                net.node_mut(who).read_index(next_value);
            }
            net.deliver();
            net.tick();
        }
        // Chaos over: heal everything, the cluster must come back and commit a new write.
        net.heal();
        net.drop_rate = 0.0;
        for id in net.down.clone() {
            net.recover(id);
        }
        let l = net.wait_leader();
        assert!(net.node_mut(l).propose(1_000_000, 1));
        net.deliver();
        net.ticks(2);
        for id in net.all_ids() {
            assert!(
                net.applied_values(id).contains(&1_000_000),
                "seed {seed}: member {id} missed the last write"
            );
        }
        net.assert_safe();
        assert!(!net.leaders.is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// Replication
// ---------------------------------------------------------------------------------------------

#[test]
fn replication_commits_once_a_majority_stores_the_entry() {
    let mut net = Net::new(3, cfg(true), 11);
    let l = net.wait_leader();
    let down = net.all_ids().into_iter().find(|&i| i != l).unwrap();
    let up = 6 - l - down;
    net.crash(down);
    let before = net.node(l).commit_index();
    for v in [10, 20, 30] {
        assert!(net.node_mut(l).propose(v, v));
    }
    // Before delivery only the leader stores them: not committed.
    assert_eq!(net.node(l).commit_index(), before);
    net.deliver();
    assert_eq!(net.node(l).commit_index(), before + 3);
    net.tick(); // the follower learns the commit index from the next heartbeat/append
    assert_eq!(net.applied_values(l), vec![10, 20, 30]);
    assert_eq!(net.applied_values(up), vec![10, 20, 30]);
    for i in 1..=net.node(l).last_index() {
        assert_eq!(net.node(l).entry(i), net.node(up).entry(i));
    }
    // A follower's proposal is forwarded to the leader.
    assert!(net.node_mut(up).propose(40, 4));
    net.deliver();
    net.tick();
    assert_eq!(net.applied_values(l), vec![10, 20, 30, 40]);
    net.assert_safe();
}

#[test]
fn minority_leader_cannot_commit_and_its_entries_are_overwritten() {
    let mut net = Net::new(5, cfg(true), 13);
    let l = net.wait_leader();
    let others: Vec<MemberId> = net.all_ids().into_iter().filter(|&i| i != l).collect();
    let buddy = others[0];
    let majority = others[1..].to_vec();
    net.partition(&[l, buddy], &majority);
    let commit = net.node(l).commit_index();
    assert!(net.node_mut(l).propose(666, 666));
    net.deliver();
    net.ticks(3);
    assert_eq!(
        net.node(l).commit_index(),
        commit,
        "a minority leader must not commit"
    );
    assert_eq!(
        net.node(buddy).last_index(),
        net.node(l).last_index(),
        "the entry did reach its follower"
    );
    // The majority elects its own leader and commits.
    let (nl, _) = net.wait_leader_among(&majority, 20 * E);
    assert!(net.node_mut(nl).propose(7, 7));
    net.deliver();
    net.heal();
    net.ticks(3 * E);
    for id in net.all_ids() {
        let vals = net.applied_values(id);
        assert!(vals.contains(&7), "member {id}: {vals:?}");
        assert!(
            !vals.contains(&666),
            "member {id} applied the minority entry"
        );
    }
    net.assert_safe();
}

#[test]
fn entries_of_an_older_term_are_not_committed_by_counting_replicas() {
    // Raft §5.4.2 (figure 8): a leader may only count replicas of an entry of its own term.
    let grant = |term| Message {
        from: 2,
        to: 1,
        term,
        kind: MsgKind::VoteResp { reject: false },
    };
    let ack = |term, index| Message {
        from: 2,
        to: 1,
        term,
        kind: MsgKind::AppendResp {
            reject: false,
            index,
            reject_hint: 0,
            hint_term: 0,
        },
    };
    let mut r: Raft<u64> = Raft::new_bootstrap(1, &[1, 2, 3], cfg(false), Rng::new(1));
    r.campaign();
    r.step(grant(2));
    assert_eq!((r.role(), r.term()), (Role::Leader, 2));
    assert!(r.propose(10, 1)); // index 5, term 2; nobody else ever gets it in term 2
    r.restart();
    r.campaign();
    r.step(grant(3));
    assert_eq!((r.role(), r.term(), r.last_index()), (Role::Leader, 3, 6));
    assert_eq!(r.entry(5).map(|e| e.term), Some(2));
    // Member 2 now stores index 5: a majority holds it, but it is of term 2.
    r.step(ack(3, 5));
    assert_eq!(
        r.commit_index(),
        3,
        "an old-term entry was committed by counting replicas"
    );
    // Once the term-3 no-op is on a majority, both commit.
    r.step(ack(3, 6));
    assert_eq!(r.commit_index(), 6);
}

#[test]
fn returning_follower_catches_up_in_batches() {
    let mut net = Net::new(3, cfg(true), 17);
    let l = net.wait_leader();
    let f = net.all_ids().into_iter().find(|&i| i != l).unwrap();
    net.crash(f);
    const N: u64 = 2500;
    for v in 0..N {
        assert!(net.node_mut(l).propose(v, v));
        if v % 100 == 0 {
            net.deliver();
        }
    }
    net.deliver();
    net.ticks(5);
    let trace_start = net.trace.len();
    net.recover(f);
    net.ticks(5);
    assert_eq!(net.node(f).last_index(), net.node(l).last_index());
    assert_eq!(net.node(f).commit_index(), net.node(l).commit_index());
    assert_eq!(net.applied_values(f), (0..N).collect::<Vec<_>>());
    let sizes: Vec<usize> = net.trace[trace_start..]
        .iter()
        .filter_map(|m| match &m.kind {
            MsgKind::Append { entries, .. } if m.to == f => Some(entries.len()),
            _ => None,
        })
        .collect();
    assert!(
        sizes.iter().all(|&s| s <= MAX_ENTRIES_PER_APPEND),
        "{sizes:?}"
    );
    assert!(
        sizes.contains(&MAX_ENTRIES_PER_APPEND),
        "catch-up should be batched: {sizes:?}"
    );
    net.assert_safe();
}

#[test]
fn fast_backtracking_skips_a_divergent_term_in_one_round_trip() {
    let mut net = Net::new(5, cfg(true), 19);
    let l = net.wait_leader();
    let others: Vec<MemberId> = net.all_ids().into_iter().filter(|&i| i != l).collect();
    let buddy = others[0];
    let majority = others[1..].to_vec();
    net.partition(&[l, buddy], &majority);
    for v in 0..100 {
        net.node_mut(l).propose(1000 + v, v);
    }
    net.deliver();
    assert!(net.node(buddy).last_index() >= 100);
    let (nl, _) = net.wait_leader_among(&majority, 20 * E);
    for v in 0..100 {
        net.node_mut(nl).propose(v, v);
    }
    net.deliver();
    // A fresh election on the majority side: the new leader starts probing the buddy at its own
    // last index, ~100 entries past the point where their logs diverge.
    net.node_mut(nl).restart();
    let (nl, _) = net.wait_leader_among(&majority, 20 * E);
    assert!(net.node(nl).last_index() > net.node(buddy).last_index());
    let trace_start = net.trace.len();
    net.heal();
    net.ticks(3);
    let rejects = net.trace[trace_start..]
        .iter()
        .filter(|m| m.from == buddy && matches!(m.kind, MsgKind::AppendResp { reject: true, .. }))
        .count();
    assert!(
        rejects <= 2,
        "{rejects} rejects: backtracking went entry by entry"
    );
    assert_eq!(net.node(buddy).last_index(), net.node(nl).last_index());
    for i in 1..=net.node(nl).last_index() {
        assert_eq!(net.node(buddy).entry(i), net.node(nl).entry(i), "index {i}");
    }
    net.assert_safe();
}

// ---------------------------------------------------------------------------------------------
// PreVote and CheckQuorum
// ---------------------------------------------------------------------------------------------

/// Isolate a follower for a long time, bring it back; returns (leader, term before, net).
fn rejoin_after_isolation(pre_vote: bool) -> (MemberId, u64, Net) {
    let mut net = Net::new(3, cfg(pre_vote), 23);
    let l = net.wait_leader();
    let term = net.node(l).term();
    let f = if l == 3 { 2 } else { 3 };
    net.isolate(f);
    for v in 0..3 {
        net.node_mut(l).propose(v, v); // the others move on without it
    }
    net.ticks(10 * E);
    assert_eq!(
        net.node(l).role(),
        Role::Leader,
        "the majority side keeps its leader"
    );
    net.heal();
    net.ticks(3 * E);
    (l, term, net)
}

#[test]
fn prevote_keeps_a_rejoining_member_from_deposing_the_leader() {
    let (l, term, net) = rejoin_after_isolation(true);
    let f = if l == 3 { 2 } else { 3 };
    assert_eq!(
        net.node(f).term(),
        term,
        "the isolated member never bumped its term"
    );
    for id in net.all_ids() {
        assert_eq!(
            net.node(id).term(),
            term,
            "member {id}: cluster term changed"
        );
        assert_eq!(net.node(id).leader(), Some(l));
    }
    assert!(!net
        .events_of(l)
        .iter()
        .any(|e| matches!(e, RaftEvent::SteppedDown { .. })));
    net.assert_safe();
}

#[test]
fn without_prevote_a_rejoining_member_deposes_the_leader() {
    let (l, term, mut net) = rejoin_after_isolation(false);
    let f = if l == 3 { 2 } else { 3 };
    assert!(
        net.events_of(l).contains(&RaftEvent::SteppedDown {
            term,
            reason: StepDownReason::HigherTerm { from: f }
        }),
        "{:?}",
        net.events_of(l)
    );
    // Its inflated term keeps resetting the others' timers until one of them times out first.
    let now = net.wait_leader();
    assert!(
        net.node(now).term() > term + 1,
        "the disruptive member's inflated term took over"
    );
    assert_ne!(now, f, "its stale log cannot win");
    net.assert_safe();
}

#[test]
fn check_quorum_makes_an_isolated_leader_step_down_within_two_timeouts() {
    for n in [3u32, 5] {
        let mut net = Net::new(n, cfg(true), 29);
        let l = net.wait_leader();
        let term = net.node(l).term();
        net.isolate(l);
        let mut took = 0;
        while net.node(l).role() == Role::Leader {
            net.tick();
            took += 1;
            assert!(took <= 2 * E, "n={n}: still leader after {took} ticks");
        }
        assert!(net.events_of(l).contains(&RaftEvent::SteppedDown {
            term,
            reason: StepDownReason::CheckQuorum
        }));
        assert_eq!(net.node(l).leader(), None);
        // And the rest elect a new one.
        let rest: Vec<MemberId> = net.all_ids().into_iter().filter(|&i| i != l).collect();
        net.wait_leader_among(&rest, 20 * E);
        net.assert_safe();
    }
    // Control: without CheckQuorum the isolated leader believes it leads forever.
    let mut net = Net::new(
        3,
        Config {
            check_quorum: false,
            ..cfg(true)
        },
        29,
    );
    let l = net.wait_leader();
    net.isolate(l);
    net.ticks(10 * E);
    assert_eq!(net.node(l).role(), Role::Leader);
}

#[test]
fn followers_ignore_vote_requests_while_they_hear_a_leader() {
    let mut net = Net::new(3, cfg(false), 31);
    let l = net.wait_leader();
    let f = if l == 1 { 2 } else { 1 };
    let term = net.node(f).term();
    let intruder = 6 - l - f;
    let last = net.node(intruder).last_index();
    let last_term = net.node(intruder).last_term();
    net.node_mut(f).step(Message {
        from: intruder,
        to: f,
        term: term + 5,
        kind: MsgKind::Vote {
            last_index: last,
            last_term,
            transfer: false,
        },
    });
    assert_eq!(
        net.node(f).term(),
        term,
        "in lease: the request is ignored, term kept"
    );
    assert!(net
        .node_mut(f)
        .drain_messages()
        .collect::<Vec<_>>()
        .is_empty());
}

// ---------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------

#[test]
fn read_index_is_served_with_a_majority() {
    let mut net = Net::new(3, cfg(true), 37);
    let l = net.wait_leader();
    let f = net.all_ids().into_iter().find(|&i| i != l).unwrap();
    net.node_mut(l).propose(5, 5);
    net.deliver();
    let commit = net.node(l).commit_index();
    net.node_mut(l).read_index(100);
    net.deliver();
    assert_eq!(
        net.reads[&l],
        vec![ReadState {
            ctx: 100,
            index: commit
        }]
    );
    // A follower forwards and gets the leader's index back.
    net.node_mut(f).read_index(200);
    net.deliver();
    assert_eq!(
        net.reads[&f],
        vec![ReadState {
            ctx: 200,
            index: commit
        }]
    );
    // A single-member cluster answers at once.
    let mut one: Raft<u64> = Raft::new_bootstrap(1, &[1], cfg(true), Rng::new(3));
    for _ in 0..2 * E {
        one.tick();
    }
    assert_eq!(one.role(), Role::Leader);
    one.read_index(9);
    assert_eq!(
        one.take_read_states(),
        vec![ReadState {
            ctx: 9,
            index: one.commit_index()
        }]
    );
}

#[test]
fn read_index_is_never_served_in_a_minority() {
    let mut net = Net::new(5, cfg(true), 41);
    let l = net.wait_leader();
    let others: Vec<MemberId> = net.all_ids().into_iter().filter(|&i| i != l).collect();
    let buddy = others[0];
    let majority = others[1..].to_vec();
    net.partition(&[l, buddy], &majority);
    net.node_mut(l).read_index(1);
    net.node_mut(buddy).read_index(2);
    net.deliver();
    net.ticks(5 * E); // the old leader steps down meanwhile
    let (nl, _) = net.wait_leader_among(&majority, 20 * E);
    net.node_mut(nl).propose(9, 9);
    net.deliver();
    net.heal();
    net.ticks(3 * E);
    assert!(
        net.reads[&l].is_empty(),
        "minority leader served a read: {:?}",
        net.reads[&l]
    );
    assert!(
        net.reads[&buddy].is_empty(),
        "minority follower served a read: {:?}",
        net.reads[&buddy]
    );
    // Sanity: the majority side can read.
    net.node_mut(nl).read_index(3);
    net.deliver();
    assert_eq!(net.reads[&nl].len(), 1);
}

/// etcd-raft `TestReadOnlyForNewLeader`: a ReadIndex that reaches a new leader before an entry
/// of its term commits is held, and answered at that commit (at the new commit index).
#[test]
fn read_index_waits_for_the_leaders_first_commit_in_its_term() {
    let mut net = Net::new(3, cfg(false), 43);
    net.node_mut(1).campaign();
    // Deliver only the vote requests and their answers, holding back the leader's appends.
    let votes = net.collect();
    for m in votes {
        net.node_mut(m.to).step(m);
    }
    let answers = net.collect();
    for m in answers {
        net.node_mut(m.to).step(m);
    }
    assert_eq!(net.node(1).role(), Role::Leader);
    assert_ne!(
        net.node(1)
            .entry(net.node(1).commit_index())
            .map(|e| e.term),
        Some(net.node(1).term())
    );
    let before = net.node(1).commit_index();
    net.node_mut(1).read_index(77);
    assert!(
        net.reads[&1].is_empty(),
        "not served before a commit in the leader's term"
    );
    net.deliver(); // now the no-op commits, and the read is confirmed
    let after = net.node(1).commit_index();
    assert!(after > before);
    assert_eq!(
        net.reads[&1],
        vec![ReadState {
            ctx: 77,
            index: after
        }]
    );
    net.node_mut(1).read_index(78);
    net.deliver();
    assert_eq!(
        net.reads[&1][1],
        ReadState {
            ctx: 78,
            index: after
        }
    );
}

// ---------------------------------------------------------------------------------------------
// Membership
// ---------------------------------------------------------------------------------------------

#[test]
fn learner_joins_catches_up_is_promoted_and_then_votes() {
    let seed = 47;
    let mut net = Net::new(3, cfg(true), seed);
    let l = net.wait_leader();
    for v in 0..20 {
        net.node_mut(l).propose(v, v);
    }
    net.deliver();
    net.add_joining(4, cfg(true), seed);
    // Before it is added nobody talks to it, and it never campaigns on its own.
    net.ticks(3 * E);
    assert_eq!(net.node(4).last_index(), 0);
    assert!(net
        .node_mut(l)
        .propose_conf_change(ConfChange::AddLearner(4)));
    net.deliver();
    net.tick();
    let r4 = net.node(4);
    assert_eq!(
        r4.last_index(),
        net.node(l).last_index(),
        "the learner caught up"
    );
    assert_eq!(
        r4.voters(),
        &MemberSet::from_iter([1, 2, 3]),
        "learned by replaying the bootstrap entries"
    );
    assert_eq!(r4.learners(), &MemberSet::from_iter([4]));
    assert_eq!(net.node(l).learners(), &MemberSet::from_iter([4]));
    assert!(net.applied_values(4).len() == 20);
    // A learner never campaigns even when it cannot hear the leader.
    net.isolate(4);
    net.ticks(5 * E);
    assert_eq!(net.sent_by(4, "PreVote") + net.sent_by(4, "Vote"), 0);
    net.heal();
    // A learner does not count for quorum: with two voters down, no leader, even with 4 up.
    let mut probe = net_clone_for_quorum_check(&net, l);
    probe.ticks(10 * E);
    assert!(
        probe.leader_among(&probe.all_ids()).is_none(),
        "a learner helped form a quorum"
    );
    // Promote it; then it is a voter everywhere and its vote is needed.
    net.ticks(2);
    assert!(net
        .node_mut(l)
        .propose_conf_change(ConfChange::PromoteLearner(4)));
    net.deliver();
    net.tick();
    for id in net.all_ids() {
        assert_eq!(
            net.node(id).voters(),
            &MemberSet::from_iter([1, 2, 3, 4]),
            "member {id}"
        );
        assert!(net.node(id).learners().is_empty());
    }
    // Kill the leader: 3 of the 4 voters remain, quorum is 3, so member 4 must vote.
    net.crash(l);
    let rest: Vec<MemberId> = net.all_ids().into_iter().filter(|&i| i != l).collect();
    let (nl, _) = net.wait_leader_among(&rest, 30 * E);
    assert!(net.node_mut(nl).propose(99, 99));
    net.deliver();
    net.tick();
    assert!(net.applied_values(4).contains(&99));
    net.assert_safe();
}

/// A copy of `net` with the leader and one more voter crashed: one voter and the learner remain.
fn net_clone_for_quorum_check(net: &Net, leader: MemberId) -> Net {
    let mut copy = Net::empty(1);
    copy.nodes = net.nodes.clone();
    for id in copy.all_ids() {
        copy.applied.insert(id, Vec::new());
    }
    let other = [1, 2, 3].into_iter().find(|&i| i != leader).unwrap();
    copy.crash(leader);
    copy.crash(other);
    copy
}

#[test]
fn conf_changes_are_one_at_a_time_and_validated() {
    let mut net = Net::new(3, cfg(true), 53);
    let l = net.wait_leader();
    assert!(
        !net.node_mut(l).propose_conf_change(ConfChange::AddVoter(2)),
        "already a voter"
    );
    assert!(
        !net.node_mut(l).propose_conf_change(ConfChange::Remove(9)),
        "not a member"
    );
    assert!(
        !net.node_mut(l)
            .propose_conf_change(ConfChange::PromoteLearner(2)),
        "not a learner"
    );
    net.crash(if l == 1 { 2 } else { 1 });
    let mut majority_lost = net
        .nodes
        .keys()
        .copied()
        .filter(|&i| i != l)
        .collect::<Vec<_>>();
    majority_lost.retain(|i| !net.down.contains(i));
    // With one of two followers down the change still commits.
    assert!(net
        .node_mut(l)
        .propose_conf_change(ConfChange::AddLearner(4)));
    assert!(
        !net.node_mut(l)
            .propose_conf_change(ConfChange::AddLearner(5)),
        "a second change while the first is pending"
    );
    net.deliver();
    assert!(net.node(l).learners().contains(&4));
    assert!(
        net.node_mut(l)
            .propose_conf_change(ConfChange::AddLearner(5)),
        "the first is applied now"
    );
    net.deliver();
    assert_eq!(net.node(l).learners(), &MemberSet::from_iter([4, 5]));
    // Without a quorum the change never applies, and blocks the next one.
    net.crash(majority_lost[0]);
    assert!(net.node_mut(l).propose_conf_change(ConfChange::Remove(5)));
    net.deliver();
    assert!(net.node(l).learners().contains(&5));
    assert!(!net.node_mut(l).propose_conf_change(ConfChange::Remove(4)));
    let applied: Vec<ConfChange> = net
        .events_of(l)
        .iter()
        .filter_map(|e| match e {
            RaftEvent::ConfApplied { change, .. } => Some(*change),
            _ => None,
        })
        .collect();
    assert_eq!(
        applied,
        vec![ConfChange::AddLearner(4), ConfChange::AddLearner(5)]
    );
}

#[test]
fn removed_member_stops_taking_part() {
    let mut net = Net::new(3, cfg(true), 59);
    let l = net.wait_leader();
    let gone = if l == 3 { 2 } else { 3 };
    assert!(net
        .node_mut(l)
        .propose_conf_change(ConfChange::Remove(gone)));
    net.deliver();
    net.tick();
    let rest: Vec<MemberId> = net.all_ids().into_iter().filter(|&i| i != gone).collect();
    for &id in &rest {
        assert!(!net.node(id).voters().contains(&gone), "member {id}");
    }
    assert!(
        !net.node(gone).voters().contains(&gone),
        "the removed member applied its removal"
    );
    // It never campaigns again, and the two remaining members carry on.
    let before = net.sent_by(gone, "PreVote") + net.sent_by(gone, "Vote");
    net.ticks(10 * E);
    assert_eq!(
        net.sent_by(gone, "PreVote") + net.sent_by(gone, "Vote"),
        before
    );
    assert!(net.node_mut(l).propose(5, 5));
    net.deliver();
    net.tick();
    for &id in &rest {
        assert!(net.applied_values(id).contains(&5));
    }
    assert!(!net.applied_values(gone).contains(&5));
    net.assert_safe();
}

#[test]
fn removed_leader_steps_down_and_the_rest_elect_a_new_one() {
    let mut net = Net::new(3, cfg(true), 61);
    let l = net.wait_leader();
    let term = net.node(l).term();
    assert!(net.node_mut(l).propose_conf_change(ConfChange::Remove(l)));
    net.deliver();
    assert!(net.events_of(l).contains(&RaftEvent::SteppedDown {
        term,
        reason: StepDownReason::RemovedFromConfig
    }));
    assert_eq!(net.node(l).role(), Role::Follower);
    let rest: Vec<MemberId> = net.all_ids().into_iter().filter(|&i| i != l).collect();
    let (nl, _) = net.wait_leader_among(&rest, 30 * E);
    assert_eq!(net.node(nl).voters().len(), 2);
    let before = net.sent_by(l, "PreVote") + net.sent_by(l, "Vote");
    net.ticks(10 * E);
    assert_eq!(
        net.sent_by(l, "PreVote") + net.sent_by(l, "Vote"),
        before,
        "a removed member never campaigns"
    );
    assert!(net.node_mut(nl).propose(8, 8));
    net.deliver();
    net.tick();
    for &id in &rest {
        assert!(net.applied_values(id).contains(&8));
    }
    net.assert_safe();
}

// ---------------------------------------------------------------------------------------------
// Restart and disaster recovery
// ---------------------------------------------------------------------------------------------

#[test]
fn restart_keeps_term_vote_and_log() {
    let mut net = Net::new(3, cfg(false), 71);
    // Member 3 votes for 1 in term 2.
    net.node_mut(1).campaign();
    net.deliver();
    assert_eq!(net.node(1).role(), Role::Leader);
    net.node_mut(1).propose(4, 4);
    net.deliver();
    let (term, vote, last, commit) = {
        let r = net.node(3);
        (r.term(), r.vote(), r.last_index(), r.commit_index())
    };
    assert_eq!(vote, Some(1));
    let log: Vec<Entry<u64>> = (1..=last)
        .map(|i| net.node(3).entry(i).unwrap().clone())
        .collect();
    net.node_mut(3).restart();
    let r = net.node(3);
    assert_eq!(
        (r.term(), r.vote(), r.last_index(), r.commit_index()),
        (term, vote, last, commit)
    );
    assert_eq!((r.role(), r.leader()), (Role::Follower, None));
    for (i, e) in log.iter().enumerate() {
        assert_eq!(r.entry(i as u64 + 1), Some(e));
    }
    // The persisted vote still binds: another candidate in the same term is refused.
    net.node_mut(3).step(Message {
        from: 2,
        to: 3,
        term,
        kind: MsgKind::Vote {
            last_index: 100,
            last_term: term,
            transfer: false,
        },
    });
    assert_eq!(
        net.node_mut(3).drain_messages().collect::<Vec<_>>(),
        vec![Message {
            from: 3,
            to: 2,
            term,
            kind: MsgKind::VoteResp { reject: true }
        }]
    );
    // A restarted leader comes back as a follower and the cluster carries on.
    let applied_before = net.node(1).applied_index();
    net.node_mut(1).restart();
    assert_eq!(net.node(1).role(), Role::Follower);
    assert_eq!(
        net.node(1).applied_index(),
        applied_before,
        "applied index is persisted"
    );
    let l = net.wait_leader();
    net.node_mut(l).propose(5, 5);
    net.deliver();
    net.tick();
    for id in net.all_ids() {
        assert_eq!(net.applied_values(id), vec![4, 5], "member {id}");
    }
    net.assert_safe();
}

#[test]
fn force_new_cluster_keeps_committed_entries_and_runs_alone() {
    let seed = 73;
    let mut net = Net::new(3, cfg(true), seed);
    let l = net.wait_leader();
    for v in 0..5 {
        net.node_mut(l).propose(v, v);
    }
    net.deliver();
    net.tick();
    let commit = net.node(l).commit_index();
    let kept: Vec<Entry<u64>> = (1..=commit)
        .map(|i| net.node(l).entry(i).unwrap().clone())
        .collect();
    // Lose the two others; later writes cannot commit.
    for id in net.all_ids() {
        if id != l {
            net.crash(id);
        }
    }
    for v in 100..103 {
        net.node_mut(l).propose(v, v);
    }
    net.deliver();
    assert_eq!(net.node(l).commit_index(), commit);
    assert_eq!(net.node(l).last_index(), commit + 3);
    let term = net.node(l).term();
    let discarded = net.node_mut(l).force_new_cluster();
    assert_eq!(discarded, 3);
    let r = net.node(l);
    assert_eq!(r.term(), term, "stays in its term");
    assert_eq!(r.role(), Role::Follower);
    assert_eq!(r.voters(), &MemberSet::from_iter([l]));
    for (i, e) in kept.iter().enumerate() {
        assert_eq!(
            r.entry(i as u64 + 1),
            Some(e),
            "committed entry {} lost",
            i + 1
        );
    }
    // The Remove entries are committed in the log so that a later member learns them.
    assert_eq!(r.commit_index(), r.last_index());
    assert!(r
        .entry(commit + 1)
        .is_some_and(|e| matches!(e.data, EntryData::Conf(ConfChange::Remove(_)))));
    let (nl, _) = net.wait_leader_among(&[l], 3 * E);
    assert_eq!(nl, l);
    assert!(net.node_mut(l).propose(7, 7));
    net.deliver();
    let vals = net.applied_values(l);
    assert!(vals.contains(&7));
    assert!(
        !vals.iter().any(|v| (100..103).contains(v)),
        "uncommitted writes were discarded"
    );
    // It may grow again: a fresh member joins and learns the one-member configuration.
    net.nodes.remove(&(if l == 1 { 2 } else { 1 }));
    net.add_joining(9, cfg(true), seed);
    assert!(net.node_mut(l).propose_conf_change(ConfChange::AddVoter(9)));
    net.deliver();
    net.tick();
    assert_eq!(net.node(9).voters(), &MemberSet::from_iter([l, 9]));
    assert_eq!(net.node(l).voters(), &MemberSet::from_iter([l, 9]));
    assert!(net.node_mut(l).propose(8, 8));
    net.deliver();
    net.tick();
    assert!(net.applied_values(9).contains(&8));
}

// ---------------------------------------------------------------------------------------------
// Robustness and determinism
// ---------------------------------------------------------------------------------------------

#[test]
fn proposal_without_a_leader_is_dropped() {
    let mut r: Raft<u64> = Raft::new_bootstrap(1, &[1, 2, 3], cfg(true), Rng::new(1));
    assert!(!r.propose(5, 42));
    assert_eq!(
        r.take_events(),
        vec![RaftEvent::ProposalDropped { ctx: 42 }]
    );
    assert!(r.drain_messages().collect::<Vec<_>>().is_empty());
    assert!(!r.propose_conf_change(ConfChange::AddLearner(4)));
    r.read_index(1);
    assert!(r.drain_messages().collect::<Vec<_>>().is_empty() && r.take_read_states().is_empty());
    // A joining member knows no leader either.
    let mut j: Raft<u64> = Raft::new_joining(9, cfg(true), Rng::new(2));
    for _ in 0..10 * E {
        j.tick();
    }
    assert!(
        j.drain_messages().collect::<Vec<_>>().is_empty(),
        "a joining member never campaigns"
    );
    assert_eq!(j.role(), Role::Follower);
}

fn random_message(rng: &mut Rng, to: MemberId) -> Message<u64> {
    let from = [1, 2, 3, 4, 99][rng.below(5) as usize];
    let term = rng.below(8);
    let small = |rng: &mut Rng| rng.below(40);
    let kind = match rng.below(12) {
        0 => MsgKind::PreVote {
            last_index: small(rng),
            last_term: small(rng) % 8,
        },
        1 => MsgKind::PreVoteResp {
            reject: rng.below(2) == 0,
        },
        2 => MsgKind::Vote {
            last_index: small(rng),
            last_term: small(rng) % 8,
            transfer: rng.below(4) == 0,
        },
        3 => MsgKind::VoteResp {
            reject: rng.below(2) == 0,
        },
        4 => {
            let prev_index = if rng.below(10) == 0 {
                u64::MAX - 1
            } else {
                small(rng)
            };
            let n = rng.below(4);
            let mut entries = Vec::new();
            for i in 0..n {
                let index = if rng.below(8) == 0 {
                    small(rng)
                } else {
                    prev_index.wrapping_add(1 + i)
                };
                let data = match rng.below(3) {
                    0 => EntryData::Empty,
                    1 => EntryData::Normal(rng.below(100)),
                    _ => {
                        EntryData::Conf(ConfChange::Remove([1, 2, 3, 4, 99][rng.below(5) as usize]))
                    }
                };
                entries.push(Entry {
                    term: rng.below(8),
                    index,
                    data,
                });
            }
            MsgKind::Append {
                prev_index,
                prev_term: small(rng) % 8,
                entries,
                commit: small(rng),
            }
        }
        5 => MsgKind::AppendResp {
            reject: rng.below(2) == 0,
            index: if rng.below(10) == 0 {
                u64::MAX
            } else {
                small(rng)
            },
            reject_hint: if rng.below(10) == 0 {
                u64::MAX
            } else {
                small(rng)
            },
            hint_term: small(rng) % 8,
        },
        6 => MsgKind::Heartbeat {
            commit: small(rng),
            ctx: Some(small(rng)),
        },
        7 => MsgKind::HeartbeatResp {
            ctx: Some(small(rng)),
        },
        8 => MsgKind::Propose {
            data: EntryData::Normal(rng.below(100)),
            ctx: small(rng),
        },
        9 => MsgKind::ReadIndex { ctx: small(rng) },
        11 => MsgKind::TimeoutNow,
        _ => MsgKind::ReadIndexResp {
            ctx: small(rng),
            index: small(rng),
        },
    };
    Message {
        from,
        to,
        term,
        kind,
    }
}

#[test]
fn garbage_messages_and_calls_never_panic() {
    for seed in 0..30u64 {
        let mut rng = Rng::new(seed).fork("fuzz");
        let mut net = Net::new(3, cfg(seed % 2 == 0), seed);
        net.add_joining(4, cfg(true), seed);
        for _ in 0..400 {
            let to = 1 + rng.below(4) as MemberId;
            match rng.below(10) {
                0..=3 => {
                    let m = random_message(&mut rng, to);
                    net.node_mut(to).step(m);
                }
                4 => net.tick(),
                5 => {
                    net.node_mut(to).propose(rng.below(100), 0);
                }
                6 => {
                    let who = [1, 2, 3, 4, 5, 99][rng.below(6) as usize];
                    let cc = match rng.below(4) {
                        0 => ConfChange::AddVoter(who),
                        1 => ConfChange::AddLearner(who),
                        2 => ConfChange::PromoteLearner(who),
                        _ => ConfChange::Remove(who),
                    };
                    net.node_mut(to).propose_conf_change(cc);
                }
                7 => net.node_mut(to).read_index(rng.below(10)),
                8 => match rng.below(20) {
                    0 => {
                        net.node_mut(to).force_new_cluster();
                    }
                    1..=4 => net.node_mut(to).restart(),
                    _ => net.node_mut(to).campaign(),
                },
                _ => net.deliver(),
            }
            for n in net.nodes.values() {
                assert!(
                    n.applied_index() <= n.commit_index() && n.commit_index() <= n.last_index()
                );
                for i in 1..=n.last_index() {
                    assert_eq!(n.entry(i).map(|e| e.index), Some(i));
                }
            }
        }
        net.deliver();
    }
}

#[test]
fn absurd_settings_are_repaired_not_fatal() {
    for (e, h) in [(0, 0), (1, 1), (3, 5), (u32::MAX, u32::MAX), (u32::MAX, 0)] {
        let c = Config {
            election_ticks: e,
            heartbeat_ticks: h,
            pre_vote: true,
            check_quorum: true,
        };
        let mut r: Raft<u64> = Raft::new_bootstrap(1, &[1, 2, 3], c, Rng::new(1));
        assert!(
            r.config().election_ticks > r.config().heartbeat_ticks
                || r.config().heartbeat_ticks == u32::MAX
        );
        for _ in 0..50 {
            r.tick();
        }
    }
}

#[test]
fn same_inputs_give_the_same_outputs() {
    let run = |seed: u64| {
        let mut net = Net::new(5, cfg(true), seed);
        net.drop_rate = 0.15;
        let mut rng = Rng::new(seed).fork("script");
        for i in 0..200u64 {
            if rng.below(10) == 0 {
                net.isolate(1 + rng.below(5) as MemberId);
            }
            if rng.below(10) == 0 {
                net.heal();
            }
            let who = 1 + rng.below(5) as MemberId;
            net.node_mut(who).propose(i, i);
            net.tick();
        }
        (
            format!("{:?}", net.trace),
            format!("{:?}", net.events),
            format!("{:?}", net.applied),
        )
    };
    let a = run(5);
    assert_eq!(a, run(5));
    assert!(!a.0.is_empty());
    assert_ne!(
        a.0,
        run(6).0,
        "a different seed should give a different run"
    );
}

// ---------------------------------------------------------------------------------------------
// Compaction and snapshots
// ---------------------------------------------------------------------------------------------

/// Writes `values` through the leader, one round each, and lets every member learn the commit.
fn write_all(net: &mut Net, l: MemberId, values: impl IntoIterator<Item = u64>) {
    for v in values {
        assert!(net.node_mut(l).propose(v, v));
        net.deliver();
    }
    net.tick();
}

#[test]
fn compaction_keeps_the_latest_entries() {
    let mut net = Net::new(3, cfg(true), 21);
    let l = net.wait_leader();
    write_all(&mut net, l, 1..=30);
    let applied = net.node(l).applied_index();
    net.node_mut(l).compact(10);
    let n = net.node(l);
    assert_eq!(n.first_index(), applied - 10 + 1);
    assert_eq!(n.last_index(), applied);
    assert!(n.entry(applied - 10).is_none(), "compacted");
    assert!(n.entry(applied - 9).is_some(), "kept");
    // Compacted entries are never handed out again, and writing goes on.
    write_all(&mut net, l, [31]);
    assert_eq!(net.applied_values(l).last(), Some(&31));
    net.assert_safe();
}

#[test]
fn a_member_behind_the_compacted_log_gets_a_snapshot_then_the_rest() {
    let mut net = Net::new(3, cfg(true), 22);
    let l = net.wait_leader();
    let behind = net.all_ids().into_iter().find(|&i| i != l).unwrap();
    let up = 6 - l - behind;
    net.crash(behind);
    write_all(&mut net, l, 1..=40);
    net.node_mut(l).compact(5);
    net.node_mut(up).compact(5);
    let applied_before = net.applied_values(behind).len();

    net.recover(behind);
    net.ticks(3);
    assert_eq!(
        net.sent_by(l, "Snapshot"),
        1,
        "one snapshot, not the compacted entries"
    );
    // The snapshot is of the leader's applied state, with the configuration.
    let snap = &net.restored[&behind];
    assert_eq!(snap.len(), 1);
    let leader = net.node(l);
    assert_eq!(snap[0].index, leader.applied_index());
    assert_eq!(snap[0].term, leader.term());
    assert_eq!(&snap[0].voters, leader.voters());
    let b = net.node(behind);
    assert_eq!(
        (b.first_index(), b.voters()),
        (snap[0].index + 1, leader.voters())
    );
    // It applied nothing of what the snapshot covers, and follows the log from there on.
    assert_eq!(net.applied_values(behind).len(), applied_before);
    write_all(&mut net, l, [41, 42]);
    assert_eq!(net.applied_values(behind)[applied_before..], [41, 42]);
    assert_eq!(net.node(behind).commit_index(), net.node(l).commit_index());
    for i in net.node(behind).first_index()..=net.node(l).last_index() {
        assert_eq!(net.node(l).entry(i), net.node(behind).entry(i));
    }
    net.assert_safe();
}

#[test]
fn a_member_within_the_kept_entries_catches_up_from_the_log() {
    let mut net = Net::new(3, cfg(true), 23);
    let l = net.wait_leader();
    let behind = net.all_ids().into_iter().find(|&i| i != l).unwrap();
    net.crash(behind);
    write_all(&mut net, l, 1..=20);
    net.node_mut(l).compact(30);
    net.recover(behind);
    net.ticks(3);
    assert_eq!(net.sent_by(l, "Snapshot"), 0);
    assert_eq!(net.applied_values(behind), (1..=20).collect::<Vec<_>>());
    net.assert_safe();
}

#[test]
fn snapshots_get_through_a_lossy_network_and_to_a_joining_member() {
    for seed in 0..20 {
        let mut net = Net::new(3, cfg(true), 100 + seed);
        let l = net.wait_leader();
        write_all(&mut net, l, 1..=30);
        for id in net.all_ids() {
            net.node_mut(id).compact(3);
        }
        // A fourth member joins with an empty log: only a snapshot can bring it up to date.
        net.add_joining(4, cfg(true), 100 + seed);
        assert!(net.node_mut(l).propose_conf_change(ConfChange::AddVoter(4)));
        net.drop_rate = 0.3;
        net.ticks(30);
        net.drop_rate = 0.0;
        let l = net.wait_leader();
        write_all(&mut net, l, [99]);
        let index_of_99 = net.node(l).last_index();
        net.ticks(5);
        for id in net.all_ids() {
            // Applied one by one, or within a snapshot taken after it.
            let in_snapshot = net
                .restored
                .get(&id)
                .and_then(|r| r.last())
                .is_some_and(|s| s.index >= index_of_99);
            assert!(
                net.applied_values(id).contains(&99) || in_snapshot,
                "seed {seed}: member {id} did not catch up"
            );
            assert_eq!(net.node(id).commit_index(), net.node(l).commit_index());
        }
        assert!(
            !net.restored.get(&4).is_none_or(|r| r.is_empty()),
            "seed {seed}"
        );
        net.assert_safe();
    }
}

#[test]
fn a_leader_hands_over_without_an_election_timeout() {
    for pre_vote in [true, false] {
        let mut net = Net::new(3, cfg(pre_vote), 11);
        let old = net.wait_leader();
        let term = net.node(old).term();
        // A proposal the transferee may not have yet: it is caught up before TimeoutNow.
        assert!(net.node_mut(old).propose(7, 7));
        let to = net
            .node_mut(old)
            .transfer_leadership()
            .expect("a leader with peers hands over");
        assert_ne!(to, old);
        // Proposals are refused while the leadership moves.
        assert!(!net.node_mut(old).propose(8, 8));
        // No tick: the messages alone move the leadership.
        net.deliver();
        assert_eq!(
            net.leader_among(&net.all_ids()),
            Some(to),
            "pre_vote {pre_vote}"
        );
        assert_eq!(net.node(to).term(), term + 1);
        assert_eq!(net.node(old).role(), Role::Follower);
        assert_eq!(net.sent_by(old, "TimeoutNow"), 1);
        assert_eq!(net.sent_by(to, "PreVote"), 0, "a transfer skips PreVote");
        net.ticks(3);
        assert!(net.applied_values(to).contains(&7));
        net.assert_safe();
    }
    // A follower has nothing to hand over.
    let mut net = Net::new(3, cfg(true), 12);
    let l = net.wait_leader();
    let f = (l % 3) + 1;
    assert_eq!(net.node_mut(f).transfer_leadership(), None);
}

/// etcd-raft `TestLeaderTransferSecondTransferToSameNode`: a second request to hand over to
/// the member already chosen neither starts it again nor extends its timeout.
#[test]
fn a_second_transfer_to_the_same_member_is_ignored() {
    let mut net = Net::new(3, cfg(true), 13);
    let l = net.wait_leader();
    let to = net.node_mut(l).transfer_leadership().unwrap();
    // The transferee never answers: cut it off before anything is delivered.
    net.isolate(to);
    net.ticks(E / 2);
    let elapsed = net.node(l).election_elapsed;
    assert_eq!(net.node_mut(l).transfer_leadership(), Some(to));
    assert_eq!(
        net.node(l).election_elapsed,
        elapsed,
        "the transfer's clock is not reset"
    );
    // The transfer is given up one election timeout after the first request, not the second.
    net.ticks(E / 2 + 1);
    assert_eq!(net.node(l).lead_transferee, None);
}

/// etcd-raft `TestLeaderTransferRemoveNode`: removing the member a transfer goes to gives the
/// transfer up.
#[test]
fn removing_the_transfer_target_cancels_the_transfer() {
    let mut net = Net::new(3, cfg(true), 14);
    let l = net.wait_leader();
    let to = net.node_mut(l).transfer_leadership().unwrap();
    net.isolate(to);
    net.node_mut(l).lead_transferee = None; // proposals are refused during a transfer
    assert!(net.node_mut(l).propose_conf_change(ConfChange::Remove(to)));
    net.node_mut(l).lead_transferee = Some(to);
    net.deliver();
    assert!(!net.node(l).voters().contains(&to));
    assert_eq!(net.node(l).lead_transferee, None);
    assert_eq!(net.node(l).role(), Role::Leader);
}

/// etcd-raft `MsgAppResp` in `stepLeader`: a probing follower that acknowledges the index the
/// leader already knows it has is in step: it moves to replicate.
#[test]
fn a_probing_follower_that_acknowledges_its_match_moves_to_replicate() {
    let mut net = Net::new(3, cfg(true), 15);
    let l = net.wait_leader();
    net.deliver();
    let f = (l % 3) + 1;
    let matched = net.node(l).progress.get(&f).unwrap().matched;
    net.node_mut(l).progress.get_mut(&f).unwrap().become_probe();
    let ack = Message {
        from: f,
        to: l,
        term: net.node(l).term(),
        kind: MsgKind::AppendResp {
            reject: false,
            index: matched,
            reject_hint: 0,
            hint_term: 0,
        },
    };
    net.node_mut(l).step(ack);
    assert_eq!(
        net.node(l).progress.get(&f).unwrap().state,
        ProgressState::Replicate
    );
}

/// etcd's `adjustTicks`: a member that is the only voter (reached here through
/// `--force-new-cluster`; a restarted single-member cluster in etcd) lets `election_ticks - 1` ticks pass at once, so it leads within an election timeout's
/// randomization (1 to `election_ticks` ticks) instead of after a whole timeout or two.
#[test]
fn a_lone_voter_advances_its_ticks_and_leads_within_an_election_timeout() {
    for seed in 0..20 {
        let mut net = Net::new(3, cfg(true), seed);
        net.wait_leader();
        net.crash(2);
        net.crash(3);
        let lone = net.node_mut(1);
        lone.force_new_cluster();
        lone.advance_ticks_alone();
        let mut ticks = 0;
        while net.node(1).role() != Role::Leader {
            net.node_mut(1).tick();
            net.deliver();
            ticks += 1;
            assert!(ticks <= E, "seed {seed}: not leading after {ticks} ticks");
        }
        assert!(ticks >= 1, "seed {seed}");
    }
}
