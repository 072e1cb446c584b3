//! etcd-raft's `raft_test.go`: elections, PreVote and CheckQuorum, replication and commit,
//! ReadIndex, leadership transfer, learners, membership and snapshots. As in
//! `raft_paper_tests.rs`, either one member is driven by hand (messages stepped in, its outbox
//! read) or a few members talk over an instant network like etcd's test `network` (`send` steps
//! a message in and delivers until nobody has anything left to say; links can be cut, a kind of
//! message ignored, and a member of the configuration may be absent, etcd's `nopStepper`). Each
//! test names its Go original. Where etcd-raft sets state directly (`becomeCandidate`, a log in
//! storage, `Progress` fields), a member gets there here by the messages that lead there.
//!
//! Numbers: a bootstrapped member here starts in term 1 with one committed entry of term 1 per
//! member, where etcd-raft's test members start in term 0 with an empty log; so Go's term `t` is
//! term `t + 1` here and Go's index `i` is index `i + n` in a cluster of `n` (Go tests that start
//! with `becomeFollower(1, None)` keep their terms). etcd's `MsgHup` is [`Raft::campaign`], its
//! `MsgBeat` a leader's tick, its `MsgProp` [`Raft::propose`].
//!
//! Covered by the other two modules:
//! - `TestSingleNodeCandidate`, `TestSingleNodePreCandidate`:
//!   `raft_tests::leader_election_in_1_3_5_member_clusters`.
//! - `TestCommit`, its odd-sized clusters and the rule on earlier terms:
//!   `raft_paper_tests::a_leader_commits_once_a_majority_stores_the_entry` and
//!   `a_leader_commits_earlier_terms_only_through_an_entry_of_its_own` (even sizes below).
//! - `TestPastElectionTimeout`: `raft_tests::election_timeout_is_randomized_in_one_to_two_timeouts`.
//! - `TestStepIgnoreOldTermMsg`: `raft_paper_tests::a_message_of_an_older_term_changes_nothing`.
//! - `TestReadOnlyOptionSafe`: `raft_tests::read_index_is_served_with_a_majority`.
//! - `TestReadOnlyForNewLeader`: `raft_tests::read_index_waits_for_the_leaders_first_commit_in_its_term`.
//! - `TestSlowNodeRestore`: `raft_tests::a_member_behind_the_compacted_log_gets_a_snapshot_then_the_rest`.
//! - `TestStepConfig`, `TestStepIgnoreConfig`: `raft_tests::conf_changes_are_one_at_a_time_and_validated`
//!   (a second change while one is pending is refused here, where etcd-raft appends an empty
//!   entry in its place).
//! - `TestRaftNodes`: `raft_tests::bootstrap_log_holds_one_committed_conf_entry_per_member`.
//! - `TestLearnerElectionTimeout`: `raft_tests::learner_joins_catches_up_is_promoted_and_then_votes`.
//! - `TestLeaderTransferToUpToDateNode`, `TestLeaderTransferWithCheckQuorum`,
//!   `TestLeaderTransferToSlowFollower`, `TestLeaderTransferIgnoreProposal`:
//!   `raft_tests::a_leader_hands_over_without_an_election_timeout`.
//! - `TestLeaderTransferTimeout`, `TestLeaderTransferSecondTransferToSameNode`:
//!   `raft_tests::a_second_transfer_to_the_same_member_is_ignored`.
//! - `TestLeaderTransferRemoveNode`: `raft_tests::removing_the_transfer_target_cancels_the_transfer`.
//!
//! Left out:
//! - `TestStateTransition`: calls `become*` directly and expects panics on illegal transitions;
//!   roles change here only through messages and ticks.
//! - `TestCandidateSelfVoteAfterLostElection`, `TestCandidateSelfVoteAfterLostElectionPreVote`,
//!   `TestCandidateDeliversPreCandidateSelfVoteAfterBecomingCandidate`,
//!   `TestLeaderMsgAppSelfAckAfterTermChange`: asynchronous storage (self-votes and self-acks
//!   delivered late); a member counts its own vote and entries at once here.
//! - `TestReadOnlyOptionLease`: `ReadOnlyLeaseBased` is not modelled.
//! - `TestRecvMsgUnreachable`, `TestLogReplicationWithReorderedMessage`: `MsgUnreachable` has no
//!   counterpart.
//! - `TestIgnoreProvidingSnap`: sets `RecentActive` false on a follower that needs a snapshot and
//!   is not waiting for an answer; here a leader only lowers a follower's next index on hearing
//!   from it, so that state cannot be reached.
//! - `TestRestoreWithVotersOutgoing`, `TestLeaderTransferDemoteNode`,
//!   `TestConfChangeV2CheckBeforeCampaign`: joint consensus.
//! - `TestConfChangeCheckBeforeCampaign`: conf changes are applied at commit here, so there is no
//!   committed-but-unapplied change to wait for.
//! - `TestLeaderTransferToUpToDateNodeFromFollower`: a follower does not forward a transfer
//!   request; [`Raft::transfer_leadership`] runs on the leader.
//! - `TestLeaderTransferToSelf`, `TestLeaderTransferToNonExistingNode`, `TestLeaderTransferBack`,
//!   `TestLeaderTransferSecondTransferToAnotherNode`: the transferee cannot be named; the leader
//!   picks the most up-to-date voter, and a transfer cannot be called off.
//! - `TestPreVoteMigrationCanCompleteElection`, `TestPreVoteMigrationWithFreeStuckPreCandidate`:
//!   turn PreVote on in a running member; a member's `Config` is fixed when it is built.
//! - `TestFastLogRejection`: the leader's log is placed in storage with a commit index the
//!   follower's log contradicts, which no sequence of messages produces
//!   (`raft_tests::fast_backtracking_skips_a_divergent_term_in_one_round_trip` covers the rule).
//! - `TestProgressLeader`, `TestProgressResumeByHeartbeatResp`, `TestProgressPaused`,
//!   `TestProgressFlowControl`, `TestUncommittedEntryLimit`: flow control by bytes,
//!   `MaxUncommittedEntriesSize` and `Progress` fields set by hand (the parts that are modelled
//!   are in the `TestSendAppendForProgress*` ports below).

use super::paper_tests::{cfg, entries, out, E};
use super::*;
use std::collections::{BTreeMap, BTreeSet};

fn with_pre_vote() -> Config {
    Config {
        pre_vote: true,
        ..cfg()
    }
}

fn with_check_quorum() -> Config {
    Config {
        check_quorum: true,
        ..cfg()
    }
}

fn ids(of: &[MemberId]) -> MemberSet<MemberId> {
    MemberSet::from_iter(of.iter().copied())
}

// ---------------------------------------------------------------------------------------------
// One member by hand.
// ---------------------------------------------------------------------------------------------

/// Member `id` of a new cluster of members 1..=n.
fn member(id: MemberId, n: u32, cfg: Config) -> Raft<u64> {
    let all: Vec<MemberId> = (1..=n).collect();
    Raft::new_bootstrap(id, &all, cfg, Rng::new(u64::from(id)))
}

fn msg(from: MemberId, to: MemberId, term: u64, kind: MsgKind<u64>) -> Message<u64> {
    Message {
        from,
        to,
        term,
        kind,
    }
}

fn append(
    from: MemberId,
    to: MemberId,
    term: u64,
    prev: (u64, u64),
    new: &[(u64, u64)],
    commit: u64,
) -> Message<u64> {
    let kind = MsgKind::Append {
        prev_index: prev.0,
        prev_term: prev.1,
        entries: entries(new),
        commit,
    };
    msg(from, to, term, kind)
}

fn heartbeat(from: MemberId, to: MemberId, term: u64, commit: u64) -> Message<u64> {
    msg(from, to, term, MsgKind::Heartbeat { commit, ctx: None })
}

fn heartbeat_resp(from: MemberId, to: MemberId, term: u64) -> Message<u64> {
    msg(from, to, term, MsgKind::HeartbeatResp { ctx: None })
}

/// An acknowledgement that `from` stores the leader's log up to `index`.
fn ack(from: MemberId, to: MemberId, term: u64, index: u64) -> Message<u64> {
    let kind = MsgKind::AppendResp {
        reject: false,
        index,
        reject_hint: 0,
        hint_term: 0,
    };
    msg(from, to, term, kind)
}

fn vote(from: MemberId, to: MemberId, term: u64, last: (u64, u64)) -> Message<u64> {
    let kind = MsgKind::Vote {
        last_index: last.0,
        last_term: last.1,
        transfer: false,
    };
    msg(from, to, term, kind)
}

fn pre_vote(from: MemberId, to: MemberId, term: u64, last: (u64, u64)) -> Message<u64> {
    let kind = MsgKind::PreVote {
        last_index: last.0,
        last_term: last.1,
    };
    msg(from, to, term, kind)
}

fn vote_resp(from: MemberId, to: MemberId, term: u64, granted: bool) -> Message<u64> {
    msg(from, to, term, MsgKind::VoteResp { reject: !granted })
}

fn pre_vote_resp(from: MemberId, to: MemberId, term: u64, granted: bool) -> Message<u64> {
    msg(from, to, term, MsgKind::PreVoteResp { reject: !granted })
}

fn snapshot_msg(from: MemberId, to: MemberId, term: u64, snap: &SnapshotMeta) -> Message<u64> {
    let kind = MsgKind::Snapshot {
        snapshot: Box::new(snap.clone()),
    };
    msg(from, to, term, kind)
}

fn snapshot(index: u64, term: u64, voters: &[MemberId], learners: &[MemberId]) -> SnapshotMeta {
    SnapshotMeta {
        index,
        term,
        voters: ids(voters),
        learners: ids(learners),
    }
}

/// Campaigns and wins with every other voter's grant (the pre-vote round too, if configured):
/// leads in the next term, outbox drained.
fn elect(r: &mut Raft<u64>) {
    let (me, next) = (r.id(), r.term() + 1);
    let others: Vec<MemberId> = r.voters().iter().copied().filter(|&v| v != me).collect();
    r.campaign();
    for &v in &others {
        if r.role() == Role::PreCandidate {
            r.step(pre_vote_resp(v, me, next, true));
        }
    }
    for &v in &others {
        if r.role() == Role::Candidate {
            r.step(vote_resp(v, me, next, true));
        }
    }
    assert_eq!(r.role(), Role::Leader);
    out(r);
}

/// Member 1 of three in `role`, as early as it gets there: a follower in term 1, a
/// pre-candidate (PreVote configured) in term 1, a candidate or leader in term 2.
fn in_role(role: Role) -> Raft<u64> {
    let c = if role == Role::PreCandidate {
        with_pre_vote()
    } else {
        cfg()
    };
    let mut r = member(1, 3, c);
    match role {
        Role::Follower => {}
        Role::PreCandidate | Role::Candidate => r.campaign(),
        Role::Leader => elect(&mut r),
    }
    assert_eq!(r.role(), role);
    out(&mut r);
    r
}

/// Member `id` of `n` holding entries of the given terms after the bootstrap ones, in the term
/// of the last, which it got from a leader it has since forgotten (a restart): etcd's
/// `entsWithConfig`.
fn with_log(id: MemberId, n: u32, cfg: Config, terms: &[u64]) -> Raft<u64> {
    let mut r = member(id, n, cfg);
    let base = u64::from(n);
    let new: Vec<(u64, u64)> = (terms.iter().enumerate())
        .map(|(i, &t)| (base + 1 + i as u64, t))
        .collect();
    let term = *terms.last().expect("some terms");
    let from = if id == 1 { 2 } else { 1 };
    r.step(append(from, id, term, (base, 1), &new, base));
    r.restart();
    r
}

/// Member `id` of `n` that voted for `candidate` in `term` and got no entries: etcd's
/// `votedWithConfig`.
fn voted(id: MemberId, n: u32, cfg: Config, candidate: MemberId, term: u64) -> Raft<u64> {
    let mut r = member(id, n, cfg);
    r.step(vote(candidate, id, term, (u64::from(n), 1)));
    assert_eq!(r.vote(), Some(candidate));
    out(&mut r);
    r
}

/// Ticks until the member leaves the follower role (at most two election timeouts).
fn time_out(r: &mut Raft<u64>) {
    for _ in 0..2 * E {
        r.tick();
        if r.role() != Role::Follower {
            return;
        }
    }
    panic!("no campaign within two election timeouts");
}

/// The values of the `Normal` entries committed since the last call.
fn applied_values(r: &mut Raft<u64>) -> Vec<u64> {
    (r.take_committed())
        .filter_map(|e| match e.data {
            EntryData::Normal(v) => Some(v),
            _ => None,
        })
        .collect()
}

/// (match, next) of the leader's progress for `id`.
fn progress(r: &Raft<u64>, id: MemberId) -> (u64, u64) {
    let pr = r.progress.get(&id).expect("a tracked member");
    (pr.matched, pr.next)
}

// ---------------------------------------------------------------------------------------------
// Several members: etcd's test `network`.
// ---------------------------------------------------------------------------------------------

struct Net {
    nodes: BTreeMap<MemberId, Raft<u64>>,
    /// Directed links that drop everything.
    cut: BTreeSet<(MemberId, MemberId)>,
    /// Kinds of message dropped on every link (etcd's `ignore`), by [`MsgKind::name`].
    ignored: BTreeSet<&'static str>,
}

impl Net {
    /// Members 1..=n of a new cluster of n, except the `absent` ones: members of the
    /// configuration that never answer (etcd's `nopStepper`).
    fn new(n: u32, cfg: Config, absent: &[MemberId]) -> Net {
        Net::seeded(n, cfg, absent, 1)
    }

    fn seeded(n: u32, cfg: Config, absent: &[MemberId], seed: u64) -> Net {
        let all: Vec<MemberId> = (1..=n).collect();
        let members = (all.iter().filter(|id| !absent.contains(id)))
            .map(|&id| {
                let rng = Rng::new(seed).fork(&format!("raft-{id}"));
                Raft::new_bootstrap(id, &all, cfg.clone(), rng)
            })
            .collect();
        Net::of(members)
    }

    fn of(members: Vec<Raft<u64>>) -> Net {
        Net {
            nodes: members.into_iter().map(|r| (r.id(), r)).collect(),
            cut: BTreeSet::new(),
            ignored: BTreeSet::new(),
        }
    }

    fn node(&self, id: MemberId) -> &Raft<u64> {
        &self.nodes[&id]
    }

    fn node_mut(&mut self, id: MemberId) -> &mut Raft<u64> {
        self.nodes.get_mut(&id).expect("a member of the network")
    }

    fn state(&self, id: MemberId) -> (Role, u64) {
        (self.node(id).role(), self.node(id).term())
    }

    fn cut(&mut self, a: MemberId, b: MemberId) {
        self.cut.insert((a, b));
        self.cut.insert((b, a));
    }

    fn isolate(&mut self, id: MemberId) {
        let others: Vec<MemberId> = self.nodes.keys().copied().filter(|&o| o != id).collect();
        for o in others {
            self.cut(id, o);
        }
    }

    fn recover(&mut self) {
        self.cut.clear();
        self.ignored.clear();
    }

    /// Delivers every member's outbox, and what that provokes, until nobody has anything to say.
    fn deliver(&mut self) {
        for _ in 0..10_000 {
            let mut msgs = Vec::new();
            for r in self.nodes.values_mut() {
                msgs.extend(r.drain_messages());
            }
            if msgs.is_empty() {
                return;
            }
            for m in msgs {
                if self.cut.contains(&(m.from, m.to)) || self.ignored.contains(m.kind.name()) {
                    continue;
                }
                if let Some(r) = self.nodes.get_mut(&m.to) {
                    r.step(m);
                }
            }
        }
        panic!("the network never went quiet");
    }

    /// Steps `m` into its addressee (whatever the links), then delivers.
    fn send(&mut self, m: Message<u64>) {
        self.node_mut(m.to).step(m);
        self.deliver();
    }

    /// Like [`Net::deliver`], but messages of kind `held` are kept back and returned.
    fn deliver_holding(&mut self, held: &str) -> Vec<Message<u64>> {
        let mut kept = Vec::new();
        loop {
            let mut msgs = Vec::new();
            for r in self.nodes.values_mut() {
                msgs.extend(r.drain_messages());
            }
            if msgs.is_empty() {
                return kept;
            }
            for m in msgs {
                if m.kind.name() == held {
                    kept.push(m);
                } else if !self.cut.contains(&(m.from, m.to)) {
                    if let Some(r) = self.nodes.get_mut(&m.to) {
                        r.step(m);
                    }
                }
            }
        }
    }

    /// etcd's `MsgHup`.
    fn hup(&mut self, id: MemberId) {
        self.node_mut(id).campaign();
        self.deliver();
    }

    /// etcd's `MsgProp`.
    fn propose(&mut self, id: MemberId, v: u64) -> bool {
        let ok = self.node_mut(id).propose(v, v);
        self.deliver();
        ok
    }

    /// etcd's `MsgBeat`: one heartbeat interval on the leader.
    fn beat(&mut self, id: MemberId) {
        self.node_mut(id).tick();
        self.deliver();
    }

    /// Ticks `id` for an election timeout, delivering nothing, so that the lease it granted its
    /// leader lapses. The seed of the network must draw it a randomized timeout above that.
    fn lapse_lease(&mut self, id: MemberId) {
        let r = self.node_mut(id);
        for _ in 0..E {
            r.tick();
        }
        assert_eq!(r.role(), Role::Follower, "member {id} campaigned: seed");
    }

    fn log(&self, id: MemberId) -> Vec<Entry<u64>> {
        let r = self.node(id);
        (r.first_index()..=r.last_index())
            .map(|i| r.entry(i).expect("in the log").clone())
            .collect()
    }
}

/// Member 1, the only voter, leads; member 2 joined as its learner and caught up.
fn voter_and_learner() -> Net {
    let mut net = Net::of(vec![
        Raft::new_bootstrap(1, &[1], cfg(), Rng::new(1)),
        Raft::new_joining(2, cfg(), Rng::new(2)),
    ]);
    net.hup(1);
    assert_eq!(net.node(1).role(), Role::Leader);
    assert!(net
        .node_mut(1)
        .propose_conf_change(ConfChange::AddLearner(2)));
    net.deliver();
    for id in [1, 2] {
        assert_eq!(net.node(id).learners(), &ids(&[2]), "member {id}");
    }
    net
}

// ---------------------------------------------------------------------------------------------
// Elections
// ---------------------------------------------------------------------------------------------

/// `TestLeaderElection`, `TestLeaderElectionPreVote`: a campaign wins with the votes of a
/// majority of the configuration, waits as a (pre-)candidate while a majority does not answer,
/// and loses to voters whose logs are further along in the same term.
#[test]
fn an_election_needs_a_majority_of_voters_whose_logs_are_no_further_along() {
    for pv in [false, true] {
        let c = Config {
            pre_vote: pv,
            ..cfg()
        };
        let waiting = if pv {
            (Role::PreCandidate, 1)
        } else {
            (Role::Candidate, 2)
        };
        let cases: [(u32, &[MemberId], (Role, u64)); 5] = [
            (3, &[], (Role::Leader, 2)),
            (3, &[3], (Role::Leader, 2)),
            (3, &[2, 3], waiting),
            (4, &[2, 3], waiting),
            (5, &[2, 3], (Role::Leader, 2)),
        ];
        for (n, absent, want) in cases {
            let mut net = Net::new(n, c.clone(), absent);
            net.hup(1);
            assert_eq!(
                net.state(1),
                want,
                "pre_vote {pv}: {n} members, {absent:?} absent"
            );
        }
        let mut net = Net::of(vec![
            member(1, 5, c.clone()),
            with_log(2, 5, c.clone(), &[2]),
            with_log(3, 5, c.clone(), &[2]),
            with_log(4, 5, c.clone(), &[2, 2]),
            member(5, 5, c.clone()),
        ]);
        net.hup(1);
        assert_eq!(net.state(1), (Role::Follower, 2), "pre_vote {pv}");
    }
}

/// `TestLeaderCycle`, `TestLeaderCyclePreVote`: each member in turn campaigns and wins, from a
/// cluster that already has a leader.
#[test]
fn every_member_in_turn_can_campaign_and_win() {
    for pv in [false, true] {
        let mut net = Net::new(
            3,
            Config {
                pre_vote: pv,
                ..cfg()
            },
            &[],
        );
        for campaigner in 1..=3 {
            net.hup(campaigner);
            for id in 1..=3 {
                let want = if id == campaigner {
                    Role::Leader
                } else {
                    Role::Follower
                };
                assert_eq!(
                    net.node(id).role(),
                    want,
                    "pre_vote {pv}: {campaigner} campaigned, member {id}"
                );
            }
        }
    }
}

/// `TestLeaderElectionOverwriteNewerLogs`, `TestLeaderElectionOverwriteNewerLogsPreVote`: a
/// leader whose last entry is of an older term than a follower's overwrites it. Members 1 and 2
/// hold an entry of term 2, member 3 one of term 3, members 4 and 5 voted for 3 in term 3.
#[test]
fn a_leader_overwrites_a_followers_entry_of_a_newer_term() {
    for pv in [false, true] {
        let c = Config {
            pre_vote: pv,
            ..cfg()
        };
        let mut net = Net::of(vec![
            with_log(1, 5, c.clone(), &[2]),
            with_log(2, 5, c.clone(), &[2]),
            with_log(3, 5, c.clone(), &[3]),
            voted(4, 5, c.clone(), 3, 3),
            voted(5, 5, c.clone(), 3, 3),
        ]);
        // Term 3 already had an election: a majority refuses 1, which moves to term 3.
        net.hup(1);
        assert_eq!(net.state(1), (Role::Follower, 3), "pre_vote {pv}");
        net.hup(1);
        assert_eq!(net.state(1), (Role::Leader, 4), "pre_vote {pv}");
        for id in 1..=5 {
            let terms: Vec<u64> = net.log(id)[5..].iter().map(|e| e.term).collect();
            assert_eq!(terms, [2, 4], "pre_vote {pv}: member {id}");
        }
    }
}

/// `TestVoteFromAnyState`, `TestPreVoteFromAnyState`: a member in any role grants a (pre)vote
/// for a later term to a candidate with a newer log. A vote makes it a follower of that term
/// that voted for the candidate; a pre-vote changes nothing.
#[test]
fn a_member_in_any_role_grants_a_vote_for_a_later_term() {
    for pre in [false, true] {
        for role in [
            Role::Follower,
            Role::PreCandidate,
            Role::Candidate,
            Role::Leader,
        ] {
            let mut r = in_role(role);
            if role == Role::Follower {
                r.step(heartbeat(3, 1, 1, 3));
                out(&mut r);
            }
            let (term, voted_for) = (r.term(), r.vote());
            let next = term + 1;
            r.step(if pre {
                pre_vote(2, 1, next, (42, next))
            } else {
                vote(2, 1, next, (42, next))
            });
            let sent = out(&mut r);
            assert_eq!(sent.len(), 1, "pre {pre}, {role:?}: {sent:?}");
            let granted = match sent[0].kind {
                MsgKind::PreVoteResp { reject } if pre => !reject,
                MsgKind::VoteResp { reject } if !pre => !reject,
                ref other => panic!("pre {pre}, {role:?}: answered {other:?}"),
            };
            assert!(granted, "pre {pre}, {role:?}");
            let want = if pre {
                (role, term, voted_for)
            } else {
                (Role::Follower, next, Some(2))
            };
            assert_eq!((r.role(), r.term(), r.vote()), want, "pre {pre}, {role:?}");
        }
    }
}

/// `TestSingleNodeCommit`: a lone voter commits its proposals at once.
#[test]
fn a_lone_voter_commits_its_proposals_at_once() {
    let mut net = Net::new(1, cfg(), &[]);
    net.hup(1);
    assert!(net.propose(1, 10));
    assert!(net.propose(1, 11));
    assert_eq!(net.node(1).commit_index(), 4);
}

/// `TestCannotCommitWithoutNewTermEntry`: a new leader does not commit entries of an earlier
/// term, stored on a majority, until an entry of its own term is.
#[test]
fn a_new_leader_commits_nothing_before_an_entry_of_its_term() {
    let mut net = Net::new(5, cfg(), &[]);
    net.hup(1);
    for other in [3, 4, 5] {
        net.cut(1, other);
    }
    // Entries 7 and 8 reach only member 2.
    assert!(net.propose(1, 1));
    assert!(net.propose(1, 2));
    assert_eq!(net.node(1).commit_index(), 6);
    net.recover();
    // Member 2 wins term 3, but its appends (its empty entry among them) are lost.
    net.ignored.insert("Append");
    net.hup(2);
    assert_eq!(net.state(2), (Role::Leader, 3));
    assert_eq!(net.node(2).commit_index(), 6);
    net.recover();
    net.beat(2);
    assert!(net.propose(2, 3));
    assert_eq!(net.node(2).commit_index(), 10);
}

/// `TestCommitWithoutNewTermEntry`: a new leader's empty entry commits the earlier term's
/// entries with it, without any proposal.
#[test]
fn a_new_leaders_empty_entry_commits_the_earlier_terms_entries() {
    let mut net = Net::new(5, cfg(), &[]);
    net.hup(1);
    for other in [3, 4, 5] {
        net.cut(1, other);
    }
    assert!(net.propose(1, 1));
    assert!(net.propose(1, 2));
    assert_eq!(net.node(1).commit_index(), 6);
    net.recover();
    net.hup(2);
    assert_eq!(net.node(1).commit_index(), 9);
}

/// `TestDuelingCandidates`: of two candidates of one term, the one a majority hears wins; the
/// other, campaigning again with a shorter log, deposes the leader by its term but loses.
#[test]
fn a_candidate_with_a_shorter_log_deposes_the_leader_but_loses() {
    let mut net = Net::new(3, cfg(), &[]);
    net.cut(1, 3);
    net.hup(1);
    net.hup(3);
    assert_eq!(net.node(1).role(), Role::Leader);
    assert_eq!(net.node(3).role(), Role::Candidate, "2 voted for 1");
    net.recover();
    net.hup(3);
    for (id, last) in [(1, 4), (2, 4), (3, 3)] {
        let r = net.node(id);
        assert_eq!(
            (r.role(), r.term(), r.last_index()),
            (Role::Follower, 3, last),
            "member {id}"
        );
    }
}

/// `TestDuelingPreCandidates`: with PreVote the pre-candidate with the shorter log is refused
/// without anybody changing term, and the leader keeps leading.
#[test]
fn a_pre_candidate_with_a_shorter_log_leaves_the_leader_alone() {
    let mut net = Net::new(3, with_pre_vote(), &[]);
    net.cut(1, 3);
    net.hup(1);
    net.hup(3);
    assert_eq!(net.node(1).role(), Role::Leader);
    assert_eq!(net.node(3).role(), Role::Follower, "refused by 2");
    net.recover();
    net.hup(3);
    for (id, role, last) in [
        (1, Role::Leader, 4),
        (2, Role::Follower, 4),
        (3, Role::Follower, 3),
    ] {
        let r = net.node(id);
        assert_eq!(
            (r.role(), r.term(), r.last_index()),
            (role, 2, last),
            "member {id}"
        );
    }
}

/// `TestCandidateConcede`: a candidate that hears from the leader of its term follows it and
/// ends with the same log.
#[test]
fn a_candidate_concedes_to_the_leader_of_its_term() {
    let mut net = Net::new(3, cfg(), &[]);
    net.isolate(1);
    net.hup(1);
    net.hup(3);
    net.recover();
    net.beat(3);
    assert!(net.propose(3, 9));
    net.beat(3);
    assert_eq!(net.state(1), (Role::Follower, 2));
    let log = net.log(3);
    assert_eq!(log.len(), 5);
    assert_eq!((log[3].term, &log[3].data), (2, &EntryData::Empty));
    assert_eq!((log[4].term, &log[4].data), (2, &EntryData::Normal(9)));
    for id in [1, 2] {
        assert_eq!(net.log(id), log, "member {id}");
    }
}

/// `TestOldMessages`: an append from a leader of an earlier term is ignored; the log is that of
/// the successive leaders.
#[test]
fn an_append_from_a_deposed_leader_is_ignored() {
    let mut net = Net::new(3, cfg(), &[]);
    net.hup(1);
    net.hup(2);
    net.hup(1);
    assert_eq!(net.state(1), (Role::Leader, 4));
    net.send(append(2, 1, 3, (5, 3), &[(6, 3)], 5));
    assert!(net.propose(1, 9));
    for id in 1..=3 {
        let log = net.log(id);
        let terms: Vec<u64> = log.iter().map(|e| e.term).collect();
        assert_eq!(terms, [1, 1, 1, 2, 3, 4, 4], "member {id}");
        assert_eq!(log[6].data, EntryData::Normal(9), "member {id}");
    }
}

/// `TestCandidateResetTermMsgHeartbeat`, `TestCandidateResetTermMsgApp`: a candidate that hears
/// a heartbeat or an append of a later term follows it in that term.
#[test]
fn a_candidate_hearing_a_later_leader_follows_it_in_its_term() {
    for beat in [true, false] {
        let mut net = Net::new(3, cfg(), &[]);
        net.hup(1);
        net.isolate(3);
        net.hup(2);
        net.hup(1);
        assert_eq!(net.node(1).role(), Role::Leader);
        assert_eq!(net.node(2).role(), Role::Follower);
        time_out(net.node_mut(3));
        assert_eq!(net.node(3).role(), Role::Candidate);
        net.deliver(); // its vote requests are lost
        net.recover();
        let term = net.node(1).term();
        net.send(if beat {
            heartbeat(1, 3, term, 0)
        } else {
            append(1, 3, term, (0, 0), &[], 0)
        });
        assert_eq!(net.state(3), (Role::Follower, term), "heartbeat {beat}");
    }
}

/// `TestAllServerStepdown`: a vote request or an append of a later term makes a member of any
/// role a follower of that term, keeping its log; only the append names a leader.
#[test]
fn a_member_in_any_role_steps_down_to_a_later_term() {
    for role in [
        Role::Follower,
        Role::PreCandidate,
        Role::Candidate,
        Role::Leader,
    ] {
        let mut r = in_role(role);
        let last = r.last_index();
        r.step(vote(2, 1, 4, (3, 4)));
        assert_eq!(
            (r.role(), r.term(), r.last_index(), r.leader()),
            (Role::Follower, 4, last, None),
            "{role:?}, vote request"
        );
        r.step(append(2, 1, 4, (3, 1), &[], 3));
        assert_eq!(
            (r.role(), r.term(), r.last_index(), r.leader()),
            (Role::Follower, 4, last, Some(2)),
            "{role:?}, append"
        );
    }
}

/// `TestRecvMsgVote`, `TestRecvMsgPreVote`: a member grants a (pre)vote of its own term only if
/// it has not voted for somebody else and the candidate's log is at least as up to date.
#[test]
fn a_vote_of_the_current_term_needs_a_free_vote_and_a_log_as_up_to_date() {
    // The receiver's log ends with (4, 3), (5, 3). Go's (index, log term) are (i + 3, t + 1).
    fn receiver(role: Role, vote_for: Option<MemberId>, term: u64) -> Raft<u64> {
        let mut r = member(1, 3, with_pre_vote());
        let with_entries = |r: &mut Raft<u64>, term| {
            r.step(append(2, 1, term, (3, 1), &[(4, 3), (5, 3)], 3));
            r.restart();
        };
        match (role, vote_for) {
            (Role::Follower, None) => with_entries(&mut r, term),
            (Role::Follower, Some(2)) => {
                with_entries(&mut r, term);
                r.step(vote(2, 1, term, (5, 3)));
            }
            (Role::Follower, Some(1)) => {
                // Campaigned in term 3, lost, then got the winner's entries.
                r.step(heartbeat(2, 1, 2, 3));
                r.restart();
                r.campaign();
                r.step(pre_vote_resp(2, 1, 3, true));
                assert_eq!((r.role(), r.term()), (Role::Candidate, 3));
                with_entries(&mut r, 3);
            }
            (_, Some(1)) => {
                with_entries(&mut r, term - 1);
                r.campaign();
                r.step(pre_vote_resp(2, 1, term, true));
                match role {
                    Role::Leader => r.step(vote_resp(2, 1, term, true)),
                    Role::PreCandidate => {
                        r.step(vote_resp(2, 1, term, false));
                        r.step(vote_resp(3, 1, term, false));
                        r.campaign();
                    }
                    _ => {}
                }
            }
            _ => unreachable!(),
        }
        out(&mut r);
        assert_eq!(
            (r.role(), r.term(), r.vote()),
            (role, term, vote_for),
            "receiver set up"
        );
        r
    }
    use Role::*;
    let cases: &[(Role, u64, u64, Option<MemberId>, bool)] = &[
        (Follower, 0, 0, None, true),
        (Follower, 0, 1, None, true),
        (Follower, 0, 2, None, true),
        (Follower, 0, 3, None, false),
        (Follower, 1, 0, None, true),
        (Follower, 1, 1, None, true),
        (Follower, 1, 2, None, true),
        (Follower, 1, 3, None, false),
        (Follower, 2, 0, None, true),
        (Follower, 2, 1, None, true),
        (Follower, 2, 2, None, false),
        (Follower, 2, 3, None, false),
        (Follower, 3, 0, None, true),
        (Follower, 3, 1, None, true),
        (Follower, 3, 2, None, false),
        (Follower, 3, 3, None, false),
        (Follower, 3, 2, Some(2), false),
        (Follower, 3, 2, Some(1), true),
        (Leader, 3, 3, Some(1), true),
        (PreCandidate, 3, 3, Some(1), true),
        (Candidate, 3, 3, Some(1), true),
    ];
    for pre in [false, true] {
        for &(role, go_index, go_term, vote_for, reject) in cases {
            let last = (go_index + 3, go_term + 1);
            let term = last.1.max(3);
            let mut r = receiver(role, vote_for, term);
            r.step(if pre {
                pre_vote(2, 1, term, last)
            } else {
                vote(2, 1, term, last)
            });
            let sent = out(&mut r);
            let case = format!("pre {pre}: {role:?} voted {vote_for:?}, candidate's last {last:?}");
            assert_eq!(sent.len(), 1, "{case}");
            let rejected = match sent[0].kind {
                MsgKind::PreVoteResp { reject } if pre => reject,
                MsgKind::VoteResp { reject } if !pre => reject,
                ref other => panic!("{case}: answered {other:?}"),
            };
            assert_eq!(rejected, reject, "{case}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// CheckQuorum and PreVote
// ---------------------------------------------------------------------------------------------

/// `TestLeaderStepdownWhenQuorumActive`, `TestLeaderStepdownWhenQuorumLost`: with CheckQuorum a
/// leader that hears from a majority for an election timeout keeps leading; one that hears
/// from nobody steps down.
#[test]
fn with_check_quorum_a_leader_leads_only_while_it_hears_a_majority() {
    let mut r = member(1, 3, with_check_quorum());
    elect(&mut r);
    let term = r.term();
    for _ in 0..=E {
        r.step(heartbeat_resp(2, 1, term));
        r.tick();
    }
    assert_eq!(r.role(), Role::Leader);

    let mut r = member(1, 3, with_check_quorum());
    elect(&mut r);
    for _ in 0..=E {
        r.tick();
    }
    assert_eq!(r.role(), Role::Follower);
}

/// `TestLeaderSupersedingWithCheckQuorum`: a follower that heard its leader less than an
/// election timeout ago ignores a candidate; once its lease lapses it votes, and the candidate
/// wins.
#[test]
fn a_candidate_wins_once_a_followers_lease_lapses() {
    let mut net = Net::seeded(3, with_check_quorum(), &[], 3);
    net.hup(1);
    assert_eq!(net.node(1).role(), Role::Leader);
    assert_eq!(net.node(3).role(), Role::Follower);
    net.hup(3);
    assert_eq!(net.node(3).role(), Role::Candidate, "2 is in its lease");
    net.lapse_lease(2);
    net.hup(3);
    assert_eq!(net.node(3).role(), Role::Leader);
}

/// `TestLeaderElectionWithCheckQuorum`: a candidate wins with a follower whose lease lapsed,
/// even though the leader, still in its own lease, ignores it; the leader then follows.
#[test]
fn a_candidate_wins_past_a_leader_still_in_its_lease() {
    let mut net = Net::seeded(3, with_check_quorum(), &[], 1);
    net.hup(1);
    assert_eq!(net.node(1).role(), Role::Leader);
    assert_eq!(net.node(3).role(), Role::Follower);
    // The leader's heartbeats of this election timeout are held up.
    for _ in 0..E {
        net.node_mut(1).tick();
    }
    net.node_mut(1).drain_messages().for_each(drop);
    net.lapse_lease(2);
    net.hup(3);
    assert_eq!(net.node(1).role(), Role::Follower);
    assert_eq!(net.node(3).role(), Role::Leader);
}

/// `TestFreeStuckCandidateWithCheckQuorum`: a candidate stuck at a higher term by followers in
/// their lease deposes the leader when it answers the leader's heartbeat, and then wins.
#[test]
fn a_stuck_candidate_frees_itself_through_the_leaders_heartbeat() {
    let mut net = Net::new(3, with_check_quorum(), &[]);
    net.hup(1);
    net.isolate(1);
    net.hup(3);
    let b = net.node(2).term();
    assert_eq!(net.node(2).role(), Role::Follower);
    assert_eq!(net.state(3), (Role::Candidate, b + 1));
    net.hup(3);
    assert_eq!(net.node(2).role(), Role::Follower);
    assert_eq!(net.state(3), (Role::Candidate, b + 2));
    net.recover();
    let term = net.node(1).term();
    net.send(heartbeat(1, 3, term, 0));
    assert_eq!(net.node(1).role(), Role::Follower);
    assert_eq!(net.node(1).term(), net.node(3).term());
    net.hup(3);
    assert_eq!(net.node(3).role(), Role::Leader);
}

/// `TestNonPromotableVoterWithCheckQuorum`: a member outside its own configuration never
/// campaigns, however long it waits, and follows the leader it votes for.
#[test]
fn a_member_outside_its_configuration_waits_and_follows() {
    let mut net = Net::of(vec![
        Raft::new_bootstrap(1, &[1, 2], with_check_quorum(), Rng::new(1)),
        Raft::new_bootstrap(2, &[1], with_check_quorum(), Rng::new(2)),
    ]);
    assert!(!net.node(2).is_promotable());
    for _ in 0..E {
        net.node_mut(2).tick();
    }
    assert!(net.node_mut(2).drain_messages().next().is_none());
    net.hup(1);
    assert_eq!(net.node(1).role(), Role::Leader);
    assert_eq!(net.node(2).role(), Role::Follower);
    assert_eq!(net.node(2).leader(), Some(1));
}

/// `TestDisruptiveFollower`: without PreVote, a follower whose timeout passes before a delayed
/// heartbeat arrives campaigns in a higher term; the others, in their lease, ignore it, but its
/// answer to that heartbeat deposes the leader.
#[test]
fn without_pre_vote_a_timed_out_follower_deposes_the_leader() {
    let mut net = Net::new(3, with_check_quorum(), &[]);
    net.hup(1);
    assert_eq!(net.node(1).role(), Role::Leader);
    time_out(net.node_mut(3));
    // Its vote requests wait in its outbox until the heartbeat is answered.
    assert_eq!(net.state(1), (Role::Leader, 2));
    assert_eq!(net.state(2), (Role::Follower, 2));
    assert_eq!(net.state(3), (Role::Candidate, 3));
    net.send(heartbeat(1, 3, 2, 0));
    assert_eq!(net.state(1), (Role::Follower, 3));
    assert_eq!(net.state(2), (Role::Follower, 2));
    assert_eq!(net.state(3), (Role::Candidate, 3));
}

/// `TestDisruptiveFollowerPreVote`: with PreVote, a follower that fell behind cannot win the
/// pre-election, changes nobody's term, and the leader's heartbeat brings it back.
#[test]
fn with_pre_vote_a_lagging_follower_does_not_depose_the_leader() {
    let mut net = Net::new(
        3,
        Config {
            pre_vote: true,
            ..with_check_quorum()
        },
        &[],
    );
    net.hup(1);
    assert_eq!(net.node(1).role(), Role::Leader);
    net.isolate(3);
    for v in 0..3 {
        assert!(net.propose(1, v));
    }
    net.recover();
    net.hup(3);
    assert_eq!(net.state(1), (Role::Leader, 2));
    assert_eq!(net.state(2), (Role::Follower, 2));
    assert_eq!(net.state(3), (Role::PreCandidate, 2));
    net.send(heartbeat(1, 3, 2, 0));
    assert_eq!(net.node(1).role(), Role::Leader);
}

/// `TestNodeWithSmallerTermCanCompleteElection`: a member that fell behind in term while cut
/// off and comes back as the leader goes away does not keep the others from electing a leader.
#[test]
fn a_member_behind_in_term_does_not_block_the_next_election() {
    let mut net = Net::new(3, with_pre_vote(), &[]);
    net.cut(1, 3);
    net.cut(2, 3);
    net.hup(1);
    assert_eq!(net.node(1).role(), Role::Leader);
    assert_eq!(net.node(2).role(), Role::Follower);
    net.hup(3);
    assert_eq!(net.node(3).role(), Role::PreCandidate);
    net.hup(2);
    assert_eq!(net.state(1), (Role::Follower, 3));
    assert_eq!(net.state(2), (Role::Leader, 3));
    assert_eq!(net.state(3), (Role::PreCandidate, 1));
    // 3 comes back as the leader, 2, goes away.
    net.recover();
    net.cut(2, 1);
    net.cut(2, 3);
    net.hup(3);
    net.hup(1);
    assert!(
        net.node(1).role() == Role::Leader || net.node(3).role() == Role::Leader,
        "no leader: {:?} {:?}",
        net.state(1),
        net.state(3)
    );
}

/// `TestPreVoteWithSplitVote`: after a split vote between two candidates, the next campaign
/// wins.
#[test]
fn with_pre_vote_the_election_after_a_split_vote_completes() {
    let mut net = Net::new(3, with_pre_vote(), &[]);
    net.hup(1);
    net.isolate(1);
    net.node_mut(2).campaign();
    net.node_mut(3).campaign();
    net.deliver();
    assert_eq!(net.state(2), (Role::Candidate, 3));
    assert_eq!(net.state(3), (Role::Candidate, 3));
    net.hup(2);
    assert_eq!(net.state(2), (Role::Leader, 4));
    assert_eq!(net.state(3), (Role::Follower, 4));
}

/// `TestPreVoteWithCheckQuorum`: a pre-candidate no longer holds a lease for its old leader, so
/// it grants another member's pre-vote and an election completes.
#[test]
fn a_pre_candidate_grants_another_pre_vote_despite_check_quorum() {
    let mut net = Net::new(
        3,
        Config {
            pre_vote: true,
            ..with_check_quorum()
        },
        &[],
    );
    net.hup(1);
    net.isolate(1);
    assert_eq!(net.node(1).role(), Role::Leader);
    assert_eq!(net.node(2).role(), Role::Follower);
    assert_eq!(net.node(3).role(), Role::Follower);
    net.hup(3);
    net.hup(2);
    assert!(net.node(2).role() == Role::Leader || net.node(3).role() == Role::Follower);
}

/// `TestCampaignWhileLeader`, `TestPreCampaignWhileLeader`: a leader told to campaign does
/// nothing.
#[test]
fn a_leader_ignores_a_campaign_request() {
    for pv in [false, true] {
        let c = Config {
            pre_vote: pv,
            ..cfg()
        };
        let mut r: Raft<u64> = Raft::new_bootstrap(1, &[1], c, Rng::new(1));
        assert_eq!(r.role(), Role::Follower);
        r.campaign();
        assert_eq!(r.role(), Role::Leader, "pre_vote {pv}");
        let term = r.term();
        r.campaign();
        assert_eq!((r.role(), r.term()), (Role::Leader, term), "pre_vote {pv}");
    }
}

// ---------------------------------------------------------------------------------------------
// Replication and commit
// ---------------------------------------------------------------------------------------------

/// `TestLogReplication`: proposals made on the leader of the moment are committed and applied
/// everywhere, across a change of leader.
#[test]
fn proposals_are_committed_and_applied_on_every_member() {
    let mut net = Net::new(3, cfg(), &[]);
    net.hup(1);
    assert!(net.propose(1, 7));
    for id in 1..=3 {
        assert_eq!(net.node(id).commit_index(), 5, "member {id}");
        assert_eq!(applied_values(net.node_mut(id)), [7], "member {id}");
    }

    let mut net = Net::new(3, cfg(), &[]);
    net.hup(1);
    assert!(net.propose(1, 7));
    net.hup(2);
    assert!(net.propose(2, 8));
    for id in 1..=3 {
        assert_eq!(net.node(id).commit_index(), 7, "member {id}");
        assert_eq!(applied_values(net.node_mut(id)), [7, 8], "member {id}");
    }
}

/// `TestProposal`: a proposal is committed everywhere when a majority of the configuration
/// answers; without one there is no leader and it is dropped.
#[test]
fn a_proposal_needs_an_elected_leader() {
    let cases: [(u32, &[MemberId], bool); 5] = [
        (3, &[], true),
        (3, &[3], true),
        (3, &[2, 3], false),
        (4, &[2, 3], false),
        (5, &[2, 3], true),
    ];
    for (n, absent, success) in cases {
        let mut net = Net::new(n, cfg(), absent);
        net.hup(1);
        assert_eq!(net.propose(1, 9), success, "{n} members, {absent:?} absent");
        let base = u64::from(n);
        for (&id, r) in &net.nodes {
            if success {
                assert_eq!(r.last_index(), base + 2, "member {id}");
                assert_eq!(r.entry(base + 1).map(|e| e.term), Some(2));
                assert_eq!(
                    r.entry(base + 2).map(|e| (e.term, &e.data)),
                    Some((2, &EntryData::Normal(9))),
                    "member {id}"
                );
            } else {
                assert_eq!(r.last_index(), base, "member {id}");
            }
        }
        assert_eq!(net.node(1).term(), 2);
    }
}

/// `TestProposalByProxy`: a proposal made on a follower reaches the leader and every log.
#[test]
fn a_followers_proposal_is_forwarded_to_the_leader() {
    for absent in [&[][..], &[3][..]] {
        let mut net = Net::new(3, cfg(), absent);
        net.hup(1);
        assert!(net.propose(2, 9));
        for (&id, r) in &net.nodes {
            assert_eq!(r.last_index(), 5, "member {id}");
            assert_eq!(r.entry(5).map(|e| &e.data), Some(&EntryData::Normal(9)));
        }
        assert_eq!(net.node(1).term(), 2);
    }
}

/// `TestCommit` (its even-sized clusters): a leader commits the highest index stored on more
/// than half of the voters, itself included: in a cluster of two both, of four three. Its log
/// ends with its empty entry and one proposal, both of its term.
#[test]
fn a_leader_of_an_even_cluster_commits_what_more_than_half_store() {
    #[allow(clippy::type_complexity)]
    let cases: [(u32, &[(MemberId, u64)], u64); 6] = [
        (2, &[], 2),
        (2, &[(2, 3)], 3),
        (2, &[(2, 4)], 4),
        (4, &[(2, 6)], 4),
        (4, &[(2, 6), (3, 5)], 5),
        (4, &[(2, 6), (3, 6)], 6),
    ];
    for (n, acks, want) in cases {
        let mut r = member(1, n, cfg());
        elect(&mut r);
        assert!(r.propose(9, 9));
        for &(from, index) in acks {
            r.step(ack(from, 1, 2, index));
        }
        assert_eq!(r.commit_index(), want, "{n} members, acks {acks:?}");
    }
}

/// `TestHandleMsgApp`: a follower rejects an append whose previous entry it lacks, replaces
/// conflicting entries, and commits up to the leader's commit index but never past the last
/// entry the append proved. Its log: (4, 2), (5, 3) after the bootstrap entries; term 3.
#[test]
fn a_follower_checks_appends_and_commits_what_they_prove() {
    #[allow(clippy::type_complexity)]
    let cases: &[((u64, u64), &[(u64, u64)], u64, u64, u64, bool)] = &[
        ((5, 4), &[], 6, 5, 3, true),
        ((6, 4), &[], 6, 5, 3, true),
        ((4, 2), &[], 4, 5, 4, false),
        ((3, 1), &[(4, 3)], 4, 4, 4, false),
        ((5, 3), &[(6, 3), (7, 3)], 6, 7, 6, false),
        ((5, 3), &[(6, 3)], 7, 6, 6, false),
        ((4, 2), &[(5, 3)], 7, 5, 5, false),
        ((4, 2), &[], 6, 5, 4, false),
        ((4, 2), &[(5, 3)], 6, 5, 5, false),
        ((5, 3), &[], 6, 5, 5, false),
        ((5, 3), &[], 7, 5, 5, false),
    ];
    for &(prev, new, commit, last, committed, reject) in cases {
        let mut r = member(1, 3, cfg());
        r.step(append(2, 1, 2, (3, 1), &[(4, 2)], 3));
        r.step(append(2, 1, 3, (4, 2), &[(5, 3)], 3));
        out(&mut r);
        r.step(append(2, 1, 3, prev, new, commit));
        let case = format!("prev {prev:?}, entries {new:?}, commit {commit}");
        assert_eq!(
            (r.last_index(), r.commit_index()),
            (last, committed),
            "{case}"
        );
        let sent = out(&mut r);
        assert_eq!(sent.len(), 1, "{case}");
        assert!(
            matches!(sent[0].kind, MsgKind::AppendResp { reject: rj, .. } if rj == reject),
            "{case}: {sent:?}"
        );
    }
}

/// `TestHandleHeartbeat`: a follower takes a heartbeat's commit index if it is higher, never
/// lowers its own, and answers.
#[test]
fn a_follower_takes_a_heartbeats_higher_commit_index() {
    for (commit, want) in [(5, 5), (3, 4)] {
        let mut r = member(1, 2, cfg());
        r.step(append(2, 1, 4, (2, 1), &[(3, 2), (4, 3), (5, 4)], 4));
        out(&mut r);
        r.step(heartbeat(2, 1, 4, commit));
        assert_eq!(r.commit_index(), want);
        let sent = out(&mut r);
        assert_eq!(sent.len(), 1);
        assert!(matches!(sent[0].kind, MsgKind::HeartbeatResp { .. }));
    }
}

/// `TestHandleHeartbeatResp`: a leader resends entries to a follower that answers heartbeats
/// without having acknowledged them, and stops once it has.
#[test]
fn a_leader_resends_entries_on_heartbeat_answers_until_acknowledged() {
    let mut r = member(1, 2, cfg());
    elect(&mut r);
    let term = r.term();
    let mut last_sent = None;
    for _ in 0..2 {
        r.step(heartbeat_resp(2, 1, term));
        let sent = out(&mut r);
        assert_eq!(sent.len(), 1, "{sent:?}");
        match &sent[0].kind {
            MsgKind::Append {
                prev_index,
                entries,
                ..
            } => last_sent = Some(prev_index + entries.len() as u64),
            other => panic!("sent {other:?}"),
        }
    }
    r.step(ack(2, 1, term, last_sent.expect("an append")));
    out(&mut r);
    r.step(heartbeat_resp(2, 1, term));
    assert!(out(&mut r).is_empty());
}

/// `TestMsgAppRespWaitReset`: a new proposal goes only to followers that answered their last
/// append; a follower that answers later gets it then.
#[test]
fn a_proposal_waits_for_a_followers_answer_to_its_probe() {
    let mut r = member(1, 3, cfg());
    elect(&mut r);
    let term = r.term();
    r.step(ack(2, 1, term, 4));
    assert_eq!(r.commit_index(), 4);
    out(&mut r);
    assert!(r.propose(1, 1));
    let appended = |sent: Vec<Message<u64>>| -> Vec<(MemberId, Vec<u64>)> {
        (sent.into_iter())
            .map(|m| match m.kind {
                MsgKind::Append { entries, .. } => {
                    (m.to, entries.iter().map(|e| e.index).collect())
                }
                other => panic!("sent {other:?}"),
            })
            .collect()
    };
    assert_eq!(appended(out(&mut r)), [(2, vec![5])]);
    r.step(ack(3, 1, term, 4));
    assert_eq!(appended(out(&mut r)), [(3, vec![5])]);
}

/// `TestLeaderAppResp`: how a leader answers a follower's answer to its probe. Its log ends
/// with its empty entry (4, 2); member 2 was probed after index 3 and has not answered.
#[test]
fn a_leader_handles_answers_to_its_probe() {
    // (reject, index, hint) -> (match, next, [(to, prev index, commit)])
    #[allow(clippy::type_complexity)]
    let cases: &[(bool, u64, u64, (u64, u64), &[(MemberId, u64, u64)])] = &[
        // Rejects something it was not asked: stale.
        (true, 4, 4, (0, 4), &[]),
        // Rejects the probe: the leader probes one entry lower.
        (true, 3, 3, (0, 3), &[(2, 2, 3)]),
        // Accepts everything: committed, and the commit index goes out (member 3 still owes
        // the answer to its own probe).
        (false, 4, 0, (4, 5), &[(2, 4, 4)]),
        // Accepts what the leader knew it has (nothing): in step, sent everything at once.
        (false, 0, 0, (0, 5), &[(2, 0, 3)]),
    ];
    for &(reject, index, hint, want, msgs) in cases {
        let mut r = member(1, 3, cfg());
        elect(&mut r);
        let term = r.term();
        let kind = MsgKind::AppendResp {
            reject,
            index,
            reject_hint: hint,
            hint_term: 0,
        };
        r.step(msg(2, 1, term, kind));
        let case = format!("reject {reject}, index {index}");
        assert_eq!(progress(&r, 2), want, "{case}");
        let sent: Vec<(MemberId, u64, u64)> = (out(&mut r).into_iter())
            .map(|m| match m.kind {
                MsgKind::Append {
                    prev_index, commit, ..
                } => (m.to, prev_index, commit),
                other => panic!("{case}: sent {other:?}"),
            })
            .collect();
        assert_eq!(sent, msgs, "{case}");
    }
}

/// `TestBcastBeat`: a leader's heartbeat carries no entries, and to each follower the commit
/// index capped at what that follower is known to store.
#[test]
fn a_heartbeat_carries_the_commit_index_capped_at_the_followers_match() {
    let mut r = member(1, 3, cfg());
    elect(&mut r);
    let term = r.term();
    r.step(ack(2, 1, term, 4));
    for v in 0..10 {
        assert!(r.propose(v, v));
    }
    r.step(ack(3, 1, term, 14));
    assert_eq!(r.commit_index(), 14);
    r.take_committed();
    r.compact(0);
    out(&mut r);
    r.tick();
    let beats: Vec<(MemberId, MsgKind<u64>)> =
        out(&mut r).into_iter().map(|m| (m.to, m.kind)).collect();
    let beat = |commit| MsgKind::Heartbeat { commit, ctx: None };
    assert_eq!(beats, [(2, beat(4)), (3, beat(14))]);
}

/// `TestRecvMsgBeat`: only a leader sends heartbeats.
#[test]
fn only_a_leader_sends_heartbeats() {
    for (role, beats) in [(Role::Leader, 2), (Role::Candidate, 0), (Role::Follower, 0)] {
        let mut r = in_role(role);
        r.tick();
        let sent = out(&mut r);
        assert_eq!(sent.len(), beats, "{role:?}: {sent:?}");
        assert!(sent
            .iter()
            .all(|m| matches!(m.kind, MsgKind::Heartbeat { .. })));
    }
}

/// `TestLeaderIncreaseNext`: to a replicating follower a proposal goes out at once and its next
/// index moves past it; to a probed one it waits, and the next index stays.
#[test]
fn a_leader_advances_next_optimistically_only_when_replicating() {
    let mut r = member(1, 2, cfg());
    elect(&mut r);
    let term = r.term();
    r.step(ack(2, 1, term, 3));
    assert!(r.propose(1, 1));
    assert_eq!(progress(&r, 2).1, r.last_index() + 1);

    let mut r = member(1, 2, cfg());
    elect(&mut r);
    assert!(r.propose(1, 1));
    assert_eq!(progress(&r, 2).1, 3);
}

/// `TestSendAppendForProgressProbe`: to a probed follower the leader sends one append, then
/// nothing but heartbeats until the follower answers one.
#[test]
fn a_probed_follower_gets_one_append_per_answer() {
    let mut r = member(1, 2, cfg());
    r.campaign();
    out(&mut r);
    r.step(vote_resp(2, 1, 2, true));
    let sent = out(&mut r);
    assert_eq!(sent.len(), 1);
    assert!(matches!(
        sent[0].kind,
        MsgKind::Append { prev_index: 2, .. }
    ));
    for _ in 0..3 {
        for v in 0..10 {
            assert!(r.propose(v, v));
            assert!(out(&mut r).is_empty());
        }
        r.tick();
        let sent = out(&mut r);
        assert_eq!(sent.len(), 1);
        assert!(matches!(sent[0].kind, MsgKind::Heartbeat { .. }));
    }
    r.step(heartbeat_resp(2, 1, 2));
    let sent = out(&mut r);
    assert_eq!(sent.len(), 1);
    assert!(matches!(
        sent[0].kind,
        MsgKind::Append { prev_index: 2, .. }
    ));
    assert!(r.propose(99, 99));
    assert!(out(&mut r).is_empty(), "waiting for the answer again");
}

/// `TestSendAppendForProgressReplicate`: to a replicating follower every proposal goes out at
/// once.
#[test]
fn a_replicating_follower_gets_every_proposal_at_once() {
    let mut r = member(1, 2, cfg());
    elect(&mut r);
    r.step(ack(2, 1, 2, 3));
    out(&mut r);
    for v in 0..10 {
        assert!(r.propose(v, v));
        assert_eq!(out(&mut r).len(), 1, "proposal {v}");
    }
}

/// Member 1 of three leads in term 2 with entries up to 7 committed with member 2's help,
/// applied and compacted; member 3 never answered its first probe (after index 3).
fn leader_with_compacted_log() -> Raft<u64> {
    let mut r = member(1, 3, cfg());
    elect(&mut r);
    r.step(ack(2, 1, 2, 4));
    for v in 0..3 {
        assert!(r.propose(v, v));
    }
    r.step(ack(2, 1, 2, 7));
    assert_eq!(r.commit_index(), 7);
    r.take_committed();
    r.compact(0);
    assert_eq!(r.first_index(), 8);
    out(&mut r);
    r
}

/// `TestProvideSnap`: a follower that needs entries the leader compacted gets a snapshot.
#[test]
fn a_follower_behind_the_compacted_log_gets_a_snapshot() {
    let mut r = leader_with_compacted_log();
    let kind = MsgKind::AppendResp {
        reject: true,
        index: 3,
        reject_hint: 0,
        hint_term: 0,
    };
    r.step(msg(3, 1, 2, kind));
    let sent = out(&mut r);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].to, 3);
    assert!(matches!(sent[0].kind, MsgKind::Snapshot { .. }));
}

/// `TestSendAppendForProgressSnapshot`: while a follower has not answered its snapshot, it gets
/// no appends.
#[test]
fn a_follower_sent_a_snapshot_gets_no_appends_until_it_answers() {
    let mut r = leader_with_compacted_log();
    let kind = MsgKind::AppendResp {
        reject: true,
        index: 3,
        reject_hint: 0,
        hint_term: 0,
    };
    r.step(msg(3, 1, 2, kind));
    out(&mut r);
    for v in 0..10 {
        assert!(r.propose(v, v));
        assert!(out(&mut r).iter().all(|m| m.to != 3), "proposal {v}");
    }
}

/// `TestCommitAfterRemoveNode`: removing a member lowers the quorum, which commits an entry
/// waiting for that member. (Here the change applies at its commit, in the same step; etcd-raft
/// waits for the host to apply it.)
#[test]
fn removing_a_member_commits_what_waited_for_its_vote() {
    let mut r = member(1, 2, cfg());
    elect(&mut r);
    r.take_committed();
    assert!(r.propose_conf_change(ConfChange::Remove(2)));
    assert_eq!(r.take_committed().len(), 0);
    let cc = r.last_index();
    assert!(r.propose(5, 5));
    r.step(ack(2, 1, 2, cc));
    let data: Vec<EntryData<u64>> = r.take_committed().map(|e| e.data.clone()).collect();
    assert_eq!(
        data,
        [
            EntryData::Empty,
            EntryData::Conf(ConfChange::Remove(2)),
            EntryData::Normal(5)
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------

/// `TestRaftFreesReadOnlyMem`: a read confirmed by a majority's heartbeat answers is answered
/// and forgotten.
#[test]
fn a_confirmed_read_is_answered_and_forgotten() {
    let mut r = member(1, 2, cfg());
    elect(&mut r);
    r.step(ack(2, 1, 2, 3));
    out(&mut r);
    r.step(msg(2, 1, 0, MsgKind::ReadIndex { ctx: 42 }));
    let sent = out(&mut r);
    assert_eq!(sent.len(), 1);
    let MsgKind::Heartbeat { ctx: Some(seq), .. } = sent[0].kind else {
        panic!("sent {sent:?}");
    };
    assert_eq!(r.pending_reads.len(), 1);
    r.step(msg(2, 1, 2, MsgKind::HeartbeatResp { ctx: Some(seq) }));
    assert!(r.pending_reads.is_empty());
    assert_eq!(
        out(&mut r),
        [msg(1, 2, 2, MsgKind::ReadIndexResp { ctx: 42, index: 3 })]
    );
}

/// `TestReadOnlyWithLearner`: the leader and its learner get reads answered at the leader's
/// commit index.
#[test]
fn a_learners_read_is_answered_at_the_leaders_commit_index() {
    let mut net = voter_and_learner();
    for (round, reader) in [1, 2, 1, 2].into_iter().enumerate() {
        for v in 0..10 {
            assert!(net.propose(1, v));
        }
        let ctx = round as u64;
        net.node_mut(reader).read_index(ctx);
        net.deliver();
        let index = 3 + 10 * (round as u64 + 1);
        assert_eq!(
            net.node_mut(reader).take_read_states(),
            [ReadState { ctx, index }],
            "read by {reader}"
        );
    }
}

/// `TestReadOnlyDuplicateRequest`: late heartbeat answers, and a read request delivered twice,
/// never confirm a later read on a leader that was deposed meanwhile: no read is answered below
/// the commit index of its time.
#[test]
fn late_heartbeat_answers_never_confirm_a_deposed_leaders_read() {
    const A: u64 = 1;
    const B: u64 = 2;
    let mut net = Net::new(3, cfg(), &[]);
    net.hup(1);
    let read_a = msg(2, 1, 0, MsgKind::ReadIndex { ctx: A });
    let min_a = net.node(1).commit_index();
    // The read is confirmed by the next heartbeat; the answers to the first are held up, and
    // the request itself is delivered again later.
    let mut late = vec![read_a.clone()];
    net.node_mut(1).step(read_a);
    late.extend(net.deliver_holding("HeartbeatResp"));
    assert!(!late[1..].is_empty());
    net.beat(1);
    // Member 2 takes over, commits, and the old leader takes a read it can no longer confirm.
    net.isolate(1);
    net.hup(2);
    assert!(net.propose(2, 5));
    let min_b = net.node(2).commit_index();
    net.node_mut(1).read_index(B);
    net.deliver();
    net.recover();
    for m in late {
        net.send(m);
    }
    let mut answered = Vec::new();
    for id in 1..=3 {
        answered.extend(net.node_mut(id).take_read_states());
    }
    assert!(answered.contains(&ReadState {
        ctx: A,
        index: min_a
    }));
    for rs in answered {
        let min = if rs.ctx == A { min_a } else { min_b };
        assert!(rs.index >= min, "{rs:?} answered below {min}");
    }
}

// ---------------------------------------------------------------------------------------------
// Leadership transfer
// ---------------------------------------------------------------------------------------------

/// `TestLeaderTransferReceiveHigherTermVote`: a transfer under way is given up when another
/// member wins a later term.
#[test]
fn a_pending_transfer_is_given_up_for_a_later_terms_leader() {
    let mut net = Net::new(3, cfg(), &[]);
    net.hup(1);
    // Member 2's acknowledgements are lost: the leader believes 3 the most up to date.
    net.cut.insert((2, 1));
    assert!(net.propose(1, 7));
    net.recover();
    net.isolate(3);
    assert_eq!(net.node_mut(1).transfer_leadership(), Some(3));
    net.deliver();
    assert_eq!(net.node(1).lead_transferee, Some(3));
    net.hup(2);
    let r = net.node(1);
    assert_eq!((r.role(), r.leader()), (Role::Follower, Some(2)));
    assert_eq!(r.lead_transferee, None);
}

/// `TestLeaderTransferAfterSnapshot`: a transferee that needs a snapshot gets it, catches up,
/// and then takes over.
#[test]
fn a_transfer_to_a_member_that_needs_a_snapshot_completes_after_it() {
    let mut net = Net::new(3, cfg(), &[]);
    net.hup(1);
    net.isolate(3);
    assert!(net.propose(1, 7));
    // Member 2 leaves: 3 is the only other voter, and lacks what the leader compacts.
    assert!(net.node_mut(1).propose_conf_change(ConfChange::Remove(2)));
    net.deliver();
    assert_eq!(net.node(1).voters(), &ids(&[1, 3]));
    let leader = net.node_mut(1);
    leader.take_committed();
    leader.compact(0);
    assert_eq!(leader.transfer_leadership(), Some(3));
    net.recover();
    net.isolate(2);
    net.beat(1);
    assert!(net.node_mut(3).take_restored().is_some(), "a snapshot");
    let r = net.node(1);
    assert_eq!((r.role(), r.leader()), (Role::Follower, Some(3)));
    assert_eq!(r.lead_transferee, None);
    assert_eq!(net.node(3).role(), Role::Leader);
}

/// `TestTransferNonMember`: a member outside the configuration told to campaign (`TimeoutNow`)
/// does nothing, whatever votes come its way.
#[test]
fn a_non_member_ignores_timeout_now() {
    let mut r: Raft<u64> = Raft::new_bootstrap(1, &[2, 3, 4], cfg(), Rng::new(1));
    r.step(msg(2, 1, 1, MsgKind::TimeoutNow));
    r.step(vote_resp(2, 1, 1, true));
    r.step(vote_resp(3, 1, 1, true));
    assert_eq!(r.role(), Role::Follower);
    assert!(out(&mut r).is_empty());
}

// ---------------------------------------------------------------------------------------------
// Learners and membership
// ---------------------------------------------------------------------------------------------

/// `TestLearnerLogReplication`: a learner receives the leader's entries and commit index, and
/// the leader tracks what it stores.
#[test]
fn a_learner_replicates_the_log_and_the_commit_index() {
    let mut net = voter_and_learner();
    assert!(net.propose(1, 5));
    net.beat(1);
    let commit = net.node(1).commit_index();
    assert_eq!(commit, 4);
    assert_eq!(net.node(2).commit_index(), commit);
    assert_eq!(net.node(1).match_index(2), Some(commit));
}

/// `TestLearnerPromotion`: a learner does not campaign; promoted, it campaigns and wins.
#[test]
fn a_promoted_learner_can_campaign_and_win() {
    let mut net = voter_and_learner();
    net.hup(2);
    assert_eq!(net.node(2).role(), Role::Follower, "a learner");
    assert!(net
        .node_mut(1)
        .propose_conf_change(ConfChange::PromoteLearner(2)));
    net.deliver();
    assert!(net.node(2).is_promotable());
    net.hup(2);
    assert_eq!(net.node(1).role(), Role::Follower);
    assert_eq!(net.node(2).role(), Role::Leader);
}

/// `TestLearnerCanVote`: a learner grants a valid vote request (it may have been promoted
/// without knowing it yet).
#[test]
fn a_learner_grants_a_valid_vote() {
    let mut net = voter_and_learner();
    let term = net.node(2).term();
    let learner = net.node_mut(2);
    learner.step(vote(1, 2, term + 1, (11, 11)));
    let sent = out(learner);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].kind, MsgKind::VoteResp { reject: false });
}

/// `TestLearnerCampaign`: a learner neither campaigns when told to nor on `TimeoutNow`.
#[test]
fn a_learner_never_campaigns() {
    let mut net = voter_and_learner();
    let term = net.node(2).term();
    net.hup(2);
    assert_eq!(net.state(2), (Role::Follower, term));
    assert_eq!(net.node(1).role(), Role::Leader);
    net.send(msg(1, 2, term, MsgKind::TimeoutNow));
    assert_eq!(net.state(2), (Role::Follower, term));
    assert_eq!(net.node(1).role(), Role::Leader);
}

/// `TestLearnerReceiveSnapshot`: a learner added after the log was compacted catches up by a
/// snapshot and learns the commit index.
#[test]
fn a_learner_behind_the_compacted_log_gets_a_snapshot() {
    let mut net = Net::of(vec![
        Raft::new_bootstrap(1, &[1], cfg(), Rng::new(1)),
        Raft::new_joining(2, cfg(), Rng::new(2)),
    ]);
    net.hup(1);
    for v in 0..5 {
        assert!(net.propose(1, v));
    }
    net.node_mut(1).take_committed();
    net.node_mut(1).compact(0);
    assert!(net
        .node_mut(1)
        .propose_conf_change(ConfChange::AddLearner(2)));
    net.deliver();
    net.node_mut(1).take_committed();
    net.beat(1);
    let snap = net.node_mut(2).take_restored().expect("a snapshot");
    assert_eq!(snap.learners, ids(&[2]));
    assert_eq!(net.node(2).commit_index(), net.node(1).commit_index());
}

/// `TestAddNode`: an added voter is in the configuration.
#[test]
fn an_added_voter_joins_the_configuration() {
    let mut r: Raft<u64> = Raft::new_bootstrap(1, &[1], cfg(), Rng::new(1));
    r.campaign();
    assert!(r.propose_conf_change(ConfChange::AddVoter(2)));
    assert_eq!(r.voters(), &ids(&[1, 2]));
}

/// `TestAddLearner`: an added learner is a learner, not a voter, and can be promoted. (Demoting
/// a voter to a learner, which etcd-raft also tests here, is refused by this crate.)
#[test]
fn an_added_learner_is_no_voter_until_promoted() {
    let mut r: Raft<u64> = Raft::new_bootstrap(1, &[1], cfg(), Rng::new(1));
    r.campaign();
    assert!(r.propose_conf_change(ConfChange::AddLearner(2)));
    assert_eq!((r.voters(), r.learners()), (&ids(&[1]), &ids(&[2])));
    assert!(r.is_promotable());
    assert!(r.propose_conf_change(ConfChange::AddVoter(2)));
    assert_eq!((r.voters(), r.learners()), (&ids(&[1, 2]), &ids(&[])));
    assert!(!r.propose_conf_change(ConfChange::AddLearner(1)));
}

/// `TestRemoveNode`: a removed voter leaves the configuration; the last voter cannot be removed
/// (etcd-raft panics, this crate refuses the proposal).
#[test]
fn a_removed_voter_leaves_but_the_last_one_stays() {
    let mut r = member(1, 2, cfg());
    elect(&mut r);
    r.step(ack(2, 1, 2, 3));
    assert!(r.propose_conf_change(ConfChange::Remove(2)));
    let last = r.last_index();
    r.step(ack(2, 1, 2, last));
    assert_eq!(r.voters(), &ids(&[1]));
    assert!(!r.propose_conf_change(ConfChange::Remove(1)));
}

/// `TestRemoveLearner`: a removed learner leaves the configuration; the last voter stays.
#[test]
fn a_removed_learner_leaves_the_configuration() {
    let mut r: Raft<u64> = Raft::new_bootstrap(1, &[1], cfg(), Rng::new(1));
    r.campaign();
    assert!(r.propose_conf_change(ConfChange::AddLearner(2)));
    assert!(r.propose_conf_change(ConfChange::Remove(2)));
    assert_eq!((r.voters(), r.learners()), (&ids(&[1]), &ids(&[])));
    assert!(!r.propose_conf_change(ConfChange::Remove(1)));
}

/// `TestPromotable`: a member may campaign only if it is a voter of its configuration.
#[test]
fn only_a_voter_of_its_configuration_is_promotable() {
    let cases: [(&[MemberId], bool); 3] = [(&[1], true), (&[1, 2, 3], true), (&[2, 3], false)];
    for (voters, want) in cases {
        let r: Raft<u64> = Raft::new_bootstrap(1, voters, cfg(), Rng::new(1));
        assert_eq!(r.is_promotable(), want, "voters {voters:?}");
    }
    let r: Raft<u64> = Raft::new_joining(1, cfg(), Rng::new(1));
    assert!(!r.is_promotable(), "no configuration");
}

/// `TestNewLeaderPendingConfig`: a new leader takes no conf change until the entries it
/// inherited uncommitted (one may be a conf change) are applied.
#[test]
fn a_new_leader_takes_no_conf_change_before_its_inherited_entries_apply() {
    let mut r = member(1, 3, cfg());
    elect(&mut r);
    assert!(r.propose_conf_change(ConfChange::AddLearner(4)));

    let mut r = member(1, 3, cfg());
    r.step(append(2, 1, 2, (3, 1), &[(4, 2)], 3));
    elect(&mut r);
    assert!(!r.propose_conf_change(ConfChange::AddLearner(4)));
    let term = r.term();
    r.step(ack(2, 1, term, 5));
    assert_eq!(r.commit_index(), 5);
    assert!(r.propose_conf_change(ConfChange::AddLearner(4)));
}

/// `TestAddNodeCheckQuorum`: a voter added just before a CheckQuorum round counts as active in
/// it; a round later, not having heard from it, the leader steps down.
#[test]
fn a_just_added_voter_counts_as_active_for_one_check_quorum_round() {
    let mut r: Raft<u64> = Raft::new_bootstrap(1, &[1], with_check_quorum(), Rng::new(1));
    r.campaign();
    assert_eq!(r.role(), Role::Leader);
    for _ in 0..E - 1 {
        r.tick();
    }
    assert!(r.propose_conf_change(ConfChange::AddVoter(2)));
    r.tick();
    assert_eq!(r.role(), Role::Leader);
    for _ in 0..E {
        r.tick();
    }
    assert_eq!(r.role(), Role::Follower);
}

// ---------------------------------------------------------------------------------------------
// Snapshots
// ---------------------------------------------------------------------------------------------

/// `TestRestore`, `TestRestoreFromSnapMsg`: a snapshot from the leader replaces the log and the
/// configuration and names the leader; the same snapshot again changes nothing. (etcd-raft also
/// checks that a member does not campaign before its host applied the snapshot; here the host
/// takes it with the message's other outputs, so there is no such moment.)
#[test]
fn a_snapshot_replaces_the_log_and_configuration_once() {
    let mut r = member(1, 2, cfg());
    let snap = snapshot(11, 11, &[1, 2, 3], &[]);
    r.step(snapshot_msg(2, 1, 11, &snap));
    assert_eq!((r.last_index(), r.last_term()), (11, 11));
    assert_eq!(r.voters(), &ids(&[1, 2, 3]));
    assert_eq!(r.leader(), Some(2));
    assert_eq!(r.take_restored(), Some(snap.clone()));
    r.step(snapshot_msg(2, 1, 11, &snap));
    assert_eq!(r.take_restored(), None);
    assert_eq!((r.last_index(), r.commit_index()), (11, 11));
}

/// `TestRestoreWithLearner`: a snapshot carries the learners; a learner restored from it is not
/// promotable.
#[test]
fn a_snapshot_restores_learners() {
    let mut r: Raft<u64> = Raft::new_joining(3, cfg(), Rng::new(3));
    let snap = snapshot(11, 11, &[1, 2], &[3]);
    r.step(snapshot_msg(1, 3, 11, &snap));
    assert_eq!((r.last_index(), r.last_term()), (11, 11));
    assert_eq!((r.voters(), r.learners()), (&ids(&[1, 2]), &ids(&[3])));
    assert!(!r.is_promotable());
    assert!(r.take_restored().is_some());
    r.step(snapshot_msg(1, 3, 11, &snap));
    assert_eq!(r.take_restored(), None);
}

/// `TestRestoreVoterToLearner`: a voter takes a snapshot in which it is a learner.
#[test]
fn a_snapshot_can_make_a_voter_a_learner() {
    let mut r = member(3, 3, cfg());
    assert!(r.is_promotable());
    r.step(snapshot_msg(1, 3, 11, &snapshot(11, 11, &[1, 2], &[3])));
    assert!(r.take_restored().is_some());
    assert!(!r.is_promotable());
}

/// `TestRestoreLearnerPromotion`: a learner takes a snapshot in which it is a voter.
#[test]
fn a_snapshot_can_make_a_learner_a_voter() {
    let mut r: Raft<u64> = Raft::new_bootstrap(3, &[1, 2], cfg(), Rng::new(3));
    let learner = Entry {
        term: 2,
        index: 3,
        data: EntryData::Conf(ConfChange::AddLearner(3)),
    };
    let kind = MsgKind::Append {
        prev_index: 2,
        prev_term: 1,
        entries: vec![learner],
        commit: 3,
    };
    r.step(msg(1, 3, 2, kind));
    assert_eq!(r.learners(), &ids(&[3]));
    assert!(!r.is_promotable());
    r.step(snapshot_msg(1, 3, 11, &snapshot(11, 11, &[1, 2, 3], &[])));
    assert!(r.take_restored().is_some());
    assert!(r.is_promotable());
}

/// `TestRestoreIgnoreSnapshot`: a snapshot at or below the commit index is ignored; one of an
/// entry the log holds only moves the commit index.
#[test]
fn a_snapshot_the_log_already_holds_only_moves_the_commit_index() {
    let mut r = member(1, 2, cfg());
    r.step(append(2, 1, 2, (2, 1), &[(3, 2), (4, 2), (5, 2)], 3));
    assert_eq!(r.commit_index(), 3);
    r.step(snapshot_msg(2, 1, 2, &snapshot(3, 2, &[1, 2], &[])));
    assert_eq!(r.take_restored(), None);
    assert_eq!((r.commit_index(), r.last_index()), (3, 5));
    r.step(snapshot_msg(2, 1, 2, &snapshot(4, 2, &[1, 2], &[])));
    assert_eq!(r.take_restored(), None);
    assert_eq!((r.commit_index(), r.last_index()), (4, 5));
}
