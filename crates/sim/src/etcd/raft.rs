//! Raft consensus as a pure, sans-IO state machine, in the shape of etcd-io/raft and tikv/raft-rs.
//!
//! # What it models
//! - Leader election with randomized election timeouts in `[election_ticks, 2 * election_ticks)`,
//!   drawn from the member's own seeded [`Rng`].
//! - PreVote (a pre-election at `term + 1` that does not bump anybody's term) and CheckQuorum
//!   (a leader that cannot hear from a majority for an election timeout steps down; a member that
//!   heard from a leader within the election timeout ignores (pre)vote requests: the "lease").
//! - Log replication with the Probe/Replicate flow control of etcd-raft, fast backtracking on
//!   reject (`findConflictByTerm`), batches of at most [`MAX_ENTRIES_PER_APPEND`] entries and at
//!   most [`MAX_INFLIGHT_APPENDS`] unacknowledged appends per member.
//! - The commit rule: an index is committed once a majority of the current voters store it
//!   **and** it belongs to the leader's current term (older entries are committed indirectly).
//! - Linearizable reads by ReadIndex (etcd-raft's `ReadOnlySafe`): the leader records its commit
//!   index, confirms it is still leader with a heartbeat round acknowledged by a majority, then
//!   releases the read; a read that reaches a new leader before an entry of its term commits
//!   waits for that commit.
//! - Membership changes one at a time through the log (`AddVoter`, `AddLearner`,
//!   `PromoteLearner`, `Remove`), applied when committed; learners replicate but never vote in a
//!   tally nor count for quorum; a member that is not a voter never campaigns.
//! - Crash/restart (persisted: term, vote, log, commit, applied, configuration) and etcd's
//!   `--force-new-cluster` (keep the committed log, become the only voter).
//! - Leadership transfer ([`Raft::transfer_leadership`], etcd's `MoveLeader`): the leader
//!   stops taking proposals, brings the most up-to-date voter up to its last index, then sends
//!   it `TimeoutNow`; that member campaigns at once, skipping PreVote, and its vote requests
//!   pass the others' leader lease. A transfer not done within an election timeout is dropped;
//!   one to the member already chosen is ignored; removing that member gives it up.
//!
//! - Log compaction and snapshots: the host compacts the log after it applied entries
//!   ([`Raft::compact`], keeping the latest entries for members that lag a little); a leader that
//!   no longer holds the entries a member needs sends it a snapshot at its applied index
//!   ([`MsgKind::Snapshot`]), and the host ships its state machine as of now alongside, as etcd
//!   sends its current database file next to the Raft message. The receiver drops its log and
//!   takes the snapshot ([`Raft::take_restored`]).
//!
//! # What it leaves out
//! - Joint consensus (only simple one-at-a-time changes,
//!   which is what `etcdctl member add/remove/promote` produce), lease-based reads
//!   (`ReadOnlyLeaseBased`), flow control by bytes, asynchronous storage.
//!
//! # Small departures from etcd-raft (each for the simulation's sake)
//! - Conf changes are applied inside Raft as soon as they are committed (etcd-raft waits for the
//!   host to call `ApplyConfChange`), so the configuration never depends on how often the host
//!   drains `take_committed`.
//! - A read's heartbeat context is a leader-local sequence number, not the request's own context,
//!   so reads from different members can never be confused; a follower does not pass on a
//!   `ReadIndex` it receives (the answer would come back to it, not to the asker).
//! - A leader that applies `Remove(x)` sends `x` one last Append so that `x` can learn of its own
//!   removal (etcd learns it from its peers' "member removed" errors); a removed leader
//!   broadcasts its commit index once before stepping down.
//! - A reject that contradicts what the leader knows matches (only possible if a member's log
//!   changed under it, e.g. a force-new-cluster member rejoining its old cluster) is not answered
//!   at once but at the next heartbeat, so it can never become a message storm.
//!
//! # How a host drives it
//! Inputs: [`Raft::tick`] every heartbeat interval, [`Raft::step`] for every message that
//! arrives, [`Raft::propose`], [`Raft::propose_conf_change`], [`Raft::read_index`].
//! Outputs, drained after any input: [`Raft::drain_messages`] (to send), [`Raft::take_restored`]
//! (a snapshot to install, before applying what follows), [`Raft::take_committed`] (to apply),
//! [`Raft::take_read_states`] (reads that may be served once applied ≥ index) and
//! [`Raft::take_events`] (role changes and the like, for explanations and invariant checks).
//! Nothing here panics on any sequence of calls or messages: a message that makes no sense (from
//! an unknown member, from a stale term, pointing past the end of the log) is ignored or answered
//! as etcd-raft would. Outputs are a pure function of the inputs: collections are ordered
//! (`BTreeMap`/`BTreeSet`/`Vec`) and messages to several peers go out in ascending member id.

use crate::kernel::chunked::{Chunked, Iter};
use crate::kernel::members::MemberSet;
use std::collections::VecDeque;

use crate::etcd::quorum::{committed_index, has_quorum, quorum};
use crate::kernel::members::MemberMap;
use crate::kernel::rng::Rng;

pub type MemberId = u32;

/// Most entries one Append carries: a member far behind catches up in batches.
pub const MAX_ENTRIES_PER_APPEND: usize = 1024;
/// Most unacknowledged Appends in flight to one member in Replicate state (etcd's `MaxInflightMsgs`).
pub const MAX_INFLIGHT_APPENDS: usize = 64;
/// Most linearizable reads a leader keeps waiting for confirmation; older ones are forgotten
/// (they never complete, and the host times them out), so a leader stuck in a minority with
/// CheckQuorum disabled cannot grow without bound.
pub const MAX_PENDING_READS: usize = 4096;

// ---------------------------------------------------------------------------------------------
// Plain data: log entries, configuration, messages, events.
// ---------------------------------------------------------------------------------------------

/// One entry of the replicated log. Indexes start at 1 and are contiguous.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry<T> {
    pub term: u64,
    pub index: u64,
    pub data: EntryData<T>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum EntryData<T> {
    /// The no-op a new leader appends so that it can commit something in its own term.
    Empty,
    /// A command of the host's state machine.
    Normal(T),
    /// A membership change, applied to the configuration when committed.
    Conf(ConfChange),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfChange {
    /// Add a voting member (a learner being added as a voter is promoted).
    AddVoter(MemberId),
    /// Add a non-voting member that receives the log.
    AddLearner(MemberId),
    /// Turn a learner into a voter.
    PromoteLearner(MemberId),
    /// Remove a voter or a learner.
    Remove(MemberId),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Election timeout in ticks (etcd: 1000 ms / 100 ms = 10). Each member waits a random
    /// `[election_ticks, 2 * election_ticks)` ticks without a leader before campaigning.
    pub election_ticks: u32,
    /// Heartbeat interval in ticks (etcd: 1).
    pub heartbeat_ticks: u32,
    /// Run a pre-election before a real one (etcd ≥ 3.5 default).
    pub pre_vote: bool,
    /// Leader steps down without a majority; followers honour the leader lease (etcd: always on).
    pub check_quorum: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            election_ticks: 10,
            heartbeat_ticks: 1,
            pre_vote: true,
            check_quorum: true,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Follower,
    PreCandidate,
    Candidate,
    Leader,
}

/// A message between members. `term` is the sender's term, except for (pre)vote responses that
/// grant, which carry the term of the request (etcd-raft), and for `Propose`/`ReadIndex`, which
/// are forwarded requests outside the term protocol (term 0, like etcd's local messages).
#[derive(Clone, Debug, PartialEq)]
pub struct Message<T> {
    pub from: MemberId,
    pub to: MemberId,
    pub term: u64,
    pub kind: MsgKind<T>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum MsgKind<T> {
    /// "Would you vote for me at `term`?", sent at `term + 1` without bumping the sender's term.
    PreVote {
        last_index: u64,
        last_term: u64,
    },
    PreVoteResp {
        reject: bool,
    },
    /// A real vote request; the candidate has already moved to `term`. `transfer`: the
    /// candidate campaigns because the leader handed over (`TimeoutNow`), so the request passes
    /// the receiver's leader lease.
    Vote {
        last_index: u64,
        last_term: u64,
        transfer: bool,
    },
    VoteResp {
        reject: bool,
    },
    /// Entries after `prev_index`, which must hold `prev_term` on the receiver.
    Append {
        prev_index: u64,
        prev_term: u64,
        entries: Vec<Entry<T>>,
        commit: u64,
    },
    /// On success `index` is the last index known to match the leader. On reject, `index` is the
    /// rejected `prev_index` and (`reject_hint`, `hint_term`) the receiver's best guess of where
    /// the logs may agree (largest index ≤ `prev_index` whose term ≤ `prev_term`), which lets the
    /// leader skip a whole term of mismatching entries per round trip.
    AppendResp {
        reject: bool,
        index: u64,
        reject_hint: u64,
        hint_term: u64,
    },
    /// `commit` is min(leader commit, receiver's match index), so that it never points at an
    /// entry the receiver may not have. `ctx` confirms leadership for pending reads.
    Heartbeat {
        commit: u64,
        ctx: Option<u64>,
    },
    HeartbeatResp {
        ctx: Option<u64>,
    },
    /// The leader no longer holds the entries the receiver needs: replace your log with this
    /// snapshot of the state at `snapshot.index` (the state machine travels with the message).
    Snapshot {
        snapshot: Box<SnapshotMeta>,
    },
    /// A proposal forwarded by a follower to its leader.
    Propose {
        data: EntryData<T>,
        ctx: u64,
    },
    /// A linearizable read forwarded by a follower to its leader.
    ReadIndex {
        ctx: u64,
    },
    /// The leader hands its leadership over: campaign now.
    TimeoutNow,
    /// The leader's answer: the read may be served once the follower has applied `index`.
    ReadIndexResp {
        ctx: u64,
        index: u64,
    },
}

impl<T> MsgKind<T> {
    /// A short name for traces ("Append", "VoteResp", ...).
    pub fn name(&self) -> &'static str {
        match self {
            MsgKind::PreVote { .. } => "PreVote",
            MsgKind::PreVoteResp { .. } => "PreVoteResp",
            MsgKind::Vote { .. } => "Vote",
            MsgKind::VoteResp { .. } => "VoteResp",
            MsgKind::Append { .. } => "Append",
            MsgKind::AppendResp { .. } => "AppendResp",
            MsgKind::Heartbeat { .. } => "Heartbeat",
            MsgKind::HeartbeatResp { .. } => "HeartbeatResp",
            MsgKind::Snapshot { .. } => "Snapshot",
            MsgKind::Propose { .. } => "Propose",
            MsgKind::ReadIndex { .. } => "ReadIndex",
            MsgKind::ReadIndexResp { .. } => "ReadIndexResp",
            MsgKind::TimeoutNow => "TimeoutNow",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepDownReason {
    /// Could not hear from a majority of voters for an election timeout.
    CheckQuorum,
    /// A message from `from` carried a higher term.
    HigherTerm { from: MemberId },
    /// The configuration change removing this member was applied.
    RemovedFromConfig,
    /// It handed its leadership to `to`, which now campaigns.
    HandedOver { to: MemberId },
}

/// What a Raft member reports to its host, drained with [`Raft::take_events`].
#[derive(Clone, Debug, PartialEq)]
pub enum RaftEvent {
    BecameLeader {
        term: u64,
    },
    /// Emitted whenever the member is a follower afterwards and its role, term or known leader
    /// changed (e.g. a candidate that lost, a follower that learned who leads).
    BecameFollower {
        term: u64,
        leader: Option<MemberId>,
    },
    /// A leader lost leadership; `term` is the term it led. A `BecameFollower` follows.
    SteppedDown {
        term: u64,
        reason: StepDownReason,
    },
    /// `term` is the term campaigned for (for a pre-vote, one more than the member's term).
    CampaignStarted {
        term: u64,
        pre_vote: bool,
    },
    ConfApplied {
        change: ConfChange,
        index: u64,
    },
    /// A proposal made on this member was dropped at once (no leader known, or refused).
    ProposalDropped {
        ctx: u64,
    },
}

/// What a snapshot covers: the log up to `index` (whose entry has `term`) and the configuration
/// then. The state machine at `index` is the host's business.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotMeta {
    pub index: u64,
    pub term: u64,
    pub voters: MemberSet<MemberId>,
    pub learners: MemberSet<MemberId>,
}

/// A linearizable read that may be served once the local applied index ≥ `index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadState {
    pub ctx: u64,
    pub index: u64,
}

// ---------------------------------------------------------------------------------------------
// Leader-side bookkeeping.
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ProgressState {
    /// The leader does not know where the follower's log matches: one Append per heartbeat,
    /// waiting for the answer before the next.
    Probe,
    /// The follower's log matches up to `matched`: stream entries optimistically.
    Replicate,
}

/// What the leader knows about one member's log (etcd-raft's `tracker.Progress`).
#[derive(Clone, Debug)]
struct Progress {
    matched: u64,
    next: u64,
    state: ProgressState,
    /// Probe state: an Append was sent and is not answered yet.
    probe_sent: bool,
    /// Replicate state: last index of each unacknowledged Append, oldest first.
    inflight: VecDeque<u64>,
    /// Heard from since the last CheckQuorum round.
    recent_active: bool,
}

impl Progress {
    fn new(next: u64, recent_active: bool) -> Self {
        Progress {
            matched: 0,
            next: next.max(1),
            state: ProgressState::Probe,
            probe_sent: false,
            inflight: VecDeque::new(),
            recent_active,
        }
    }

    fn is_paused(&self) -> bool {
        match self.state {
            ProgressState::Probe => self.probe_sent,
            ProgressState::Replicate => self.inflight.len() >= MAX_INFLIGHT_APPENDS,
        }
    }

    fn become_probe(&mut self) {
        self.state = ProgressState::Probe;
        self.next = self.matched + 1;
        self.probe_sent = false;
        self.inflight.clear();
    }

    fn become_replicate(&mut self) {
        self.state = ProgressState::Replicate;
        self.next = self.matched + 1;
        self.probe_sent = false;
        self.inflight.clear();
    }

    /// A success answer up to `n`; false if it tells nothing new (stale or duplicate).
    fn maybe_update(&mut self, n: u64) -> bool {
        let updated = self.matched < n;
        if updated {
            self.matched = n;
            self.probe_sent = false;
        }
        self.next = self.next.max(n + 1);
        updated
    }

    /// A reject of `rejected` (the prev_index we sent); `match_hint` is where to probe next.
    /// False if the reject is stale (answers an Append older than the current probe).
    fn maybe_decr_to(&mut self, rejected: u64, match_hint: u64) -> bool {
        // Stale if it rejects something we know matches. (In a consistent cluster only a late
        // answer does that; if the member's log really changed under us, resending the same
        // probe at once would loop forever, so it is re-probed at the next heartbeat instead.)
        if rejected <= self.matched {
            return false;
        }
        if self.state == ProgressState::Replicate {
            self.next = self.matched + 1;
            return true;
        }
        // In Probe only the answer to the current probe counts.
        if self.next - 1 != rejected {
            return false;
        }
        self.next = rejected
            .min(match_hint.saturating_add(1))
            .max(self.matched + 1);
        self.probe_sent = false;
        true
    }

    fn free_le(&mut self, index: u64) {
        while self.inflight.front().is_some_and(|&i| i <= index) {
            self.inflight.pop_front();
        }
    }

    /// A message from this member reached the leader.
    fn heard(&mut self) {
        self.recent_active = true;
    }
}

/// A linearizable read waiting for a majority to confirm the leader's leadership.
#[derive(Clone, Debug)]
struct PendingRead {
    /// Leader-local sequence number, used as the heartbeat context. (etcd uses the request's own
    /// context; a local number cannot collide between requests from different members.)
    seq: u64,
    /// The leader's commit index when the read arrived.
    index: u64,
    origin: MemberId,
    ctx: u64,
    acks: MemberSet<MemberId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VoteResult {
    Pending,
    Won,
    Lost,
}

// ---------------------------------------------------------------------------------------------
// The state machine.
// ---------------------------------------------------------------------------------------------

/// One Raft member.
#[derive(Clone, Debug)]
pub struct Raft<T> {
    id: MemberId,
    cfg: Config,
    rng: Rng,

    // Persistent state (survives restart).
    term: u64,
    vote: Option<MemberId>,
    /// `log[i]` holds index `offset + 1 + i`: entries up to `offset` were compacted away.
    log: Chunked<Entry<T>>,
    offset: u64,
    /// The term of the entry at `offset`.
    offset_term: u64,
    commit: u64,
    /// Handed out to the host by `take_committed`.
    applied: u64,
    voters: MemberSet<MemberId>,
    learners: MemberSet<MemberId>,
    /// Conf entries up to here are reflected in `voters`/`learners` (always == `commit`).
    conf_applied: u64,

    // Volatile state.
    role: Role,
    leader: Option<MemberId>,
    election_elapsed: u32,
    heartbeat_elapsed: u32,
    randomized_election_timeout: u32,
    votes: MemberMap<MemberId, bool>,
    progress: MemberMap<MemberId, Progress>,
    /// The voters' match indexes, gathered for the commit rule on every acknowledgement:
    /// kept to save an allocation each time.
    matches: Vec<u64>,
    /// Index of the last conf entry this leader appended (or its last index at election).
    pending_conf_index: u64,
    /// The voter this leader is handing its leadership to (no proposals meanwhile).
    lead_transferee: Option<MemberId>,
    pending_reads: VecDeque<PendingRead>,
    /// ReadIndex requests (origin, context) that came before this leader committed an entry of
    /// its term: answered at that commit (etcd-raft's `pendingReadIndexMessages`).
    reads_before_commit: Vec<(MemberId, u64)>,
    read_seq: u64,
    /// Ticks seen by this member, for activity bookkeeping.
    ticks: u64,

    // Outputs.
    msgs: Vec<Message<T>>,
    restored: Option<SnapshotMeta>,
    read_states: Vec<ReadState>,
    events: Vec<RaftEvent>,
}

impl<T: Clone + std::fmt::Debug> Raft<T> {
    // ----- construction ----------------------------------------------------------------------

    /// A member of a new cluster: the log is bootstrapped, as etcd does, with one committed
    /// `AddVoter` entry per initial member (term 1, indexes 1..=n, in ascending member id so that
    /// every member builds the same log whatever order the host lists them in), so that a member
    /// joining later learns the configuration by replaying the log. All initial members start as
    /// followers in term 1. The bootstrap entries are handed out by the first `take_committed`;
    /// no `ConfApplied` events are emitted for them (the configuration is given, not learned).
    pub fn new_bootstrap(id: MemberId, initial_voters: &[MemberId], cfg: Config, rng: Rng) -> Self {
        let mut members = MemberSet::new();
        members.extend(initial_voters.iter().copied());
        let mut r = Self::blank(id, cfg, rng);
        r.term = 1;
        for (i, &m) in members.iter().enumerate() {
            r.log.push(Entry {
                term: 1,
                index: i as u64 + 1,
                data: EntryData::Conf(ConfChange::AddVoter(m)),
            });
        }
        r.commit = r.last_index();
        r.conf_applied = r.commit;
        r.voters = members;
        r
    }

    /// A member joining an existing cluster (etcd `--initial-cluster-state=existing`): empty log,
    /// empty configuration, term 0. It never campaigns until the replicated log makes it a voter;
    /// it accepts Append/Heartbeat from any leader.
    pub fn new_joining(id: MemberId, cfg: Config, rng: Rng) -> Self {
        Self::blank(id, cfg, rng)
    }

    fn blank(id: MemberId, cfg: Config, rng: Rng) -> Self {
        // etcd-raft refuses a configuration where the election timeout is not longer than the
        // heartbeat; we repair it instead of failing (a scenario setting must never panic).
        let heartbeat_ticks = cfg.heartbeat_ticks.max(1);
        let election_ticks = cfg.election_ticks.max(heartbeat_ticks.saturating_add(1));
        let cfg = Config {
            election_ticks,
            heartbeat_ticks,
            ..cfg
        };
        let mut r = Raft {
            id,
            cfg,
            rng,
            term: 0,
            vote: None,
            log: Chunked::default(),
            offset: 0,
            offset_term: 0,
            commit: 0,
            applied: 0,
            voters: MemberSet::new(),
            learners: MemberSet::new(),
            conf_applied: 0,
            role: Role::Follower,
            leader: None,
            election_elapsed: 0,
            heartbeat_elapsed: 0,
            randomized_election_timeout: election_ticks,
            votes: MemberMap::default(),
            progress: MemberMap::default(),
            matches: Vec::new(),
            pending_conf_index: 0,
            lead_transferee: None,
            pending_reads: VecDeque::new(),
            reads_before_commit: Vec::new(),
            read_seq: 0,
            ticks: 0,
            msgs: Vec::new(),
            restored: None,
            read_states: Vec::new(),
            events: Vec::new(),
        };
        r.reset_randomized_election_timeout();
        r
    }

    // ----- read-only accessors ---------------------------------------------------------------

    pub fn id(&self) -> MemberId {
        self.id
    }
    pub fn config(&self) -> &Config {
        &self.cfg
    }
    pub fn term(&self) -> u64 {
        self.term
    }
    /// Whom this member voted for in the current term.
    pub fn vote(&self) -> Option<MemberId> {
        self.vote
    }
    pub fn role(&self) -> Role {
        self.role
    }
    pub fn leader(&self) -> Option<MemberId> {
        self.leader
    }
    pub fn commit_index(&self) -> u64 {
        self.commit
    }
    pub fn applied_index(&self) -> u64 {
        self.applied
    }
    pub fn last_index(&self) -> u64 {
        self.offset + self.log.len() as u64
    }
    pub fn last_term(&self) -> u64 {
        self.log.last().map_or(self.offset_term, |e| e.term)
    }
    /// The first index still in the log (entries before it were compacted).
    pub fn first_index(&self) -> u64 {
        self.offset + 1
    }
    pub fn voters(&self) -> &MemberSet<MemberId> {
        &self.voters
    }
    pub fn learners(&self) -> &MemberSet<MemberId> {
        &self.learners
    }
    pub fn entry(&self, index: u64) -> Option<&Entry<T>> {
        if index <= self.offset {
            return None;
        }
        self.log.get((index - self.offset - 1) as usize)
    }
    /// Whether this member may campaign: it is a voter of its (committed) configuration.
    pub fn is_promotable(&self) -> bool {
        self.voters.contains(&self.id)
    }
    /// On the leader: the highest index known to be stored on `member` (replication lag).
    pub fn match_index(&self, member: MemberId) -> Option<u64> {
        if self.role != Role::Leader {
            return None;
        }
        self.progress.get(&member).map(|p| p.matched)
    }

    /// On the leader: the index `id` is known to have replicated (None elsewhere or if unknown).
    pub fn match_of(&self, id: MemberId) -> Option<u64> {
        if self.role != Role::Leader {
            return None;
        }
        self.progress.get(&id).map(|pr| pr.matched)
    }

    // ----- outputs -----------------------------------------------------------------------------

    /// The messages to send, oldest first (the outbox keeps its capacity for the next ones).
    pub fn drain_messages(&mut self) -> std::vec::Drain<'_, Message<T>> {
        self.msgs.drain(..)
    }

    /// Newly committed entries, in order, not yet handed out (advances `applied`). Conf entries
    /// are included; they have already been applied to the configuration inside Raft. They are
    /// lent from the log, not copied: the host applies them before Raft takes another input.
    pub fn take_committed(&mut self) -> Iter<'_, Entry<T>> {
        let to = self.commit.min(self.last_index()).max(self.applied);
        let from = self.applied;
        self.applied = to;
        self.log
            .range((from - self.offset) as usize..(to - self.offset) as usize)
    }

    /// A snapshot received from the leader: the host replaces its state machine with the one
    /// that came with it. Entries handed out by `take_committed` afterwards follow it.
    pub fn take_restored(&mut self) -> Option<SnapshotMeta> {
        self.restored.take()
    }

    /// Drops the log up to `keep` entries before the applied index, as etcd does every
    /// `--snapshot-count` applied entries (its state machine is the snapshot).
    pub fn compact(&mut self, keep: u64) {
        let upto = self.applied.saturating_sub(keep);
        if upto > self.offset {
            if let Some(term) = self.term_at(upto) {
                self.offset_term = term;
                self.log.drop_front((upto - self.offset) as usize);
                self.offset = upto;
            }
        }
    }

    pub fn take_read_states(&mut self) -> Vec<ReadState> {
        std::mem::take(&mut self.read_states)
    }

    pub fn take_events(&mut self) -> Vec<RaftEvent> {
        std::mem::take(&mut self.events)
    }

    // ----- inputs ------------------------------------------------------------------------------

    /// One heartbeat interval elapsed.
    pub fn tick(&mut self) {
        self.ticks = self.ticks.saturating_add(1);
        if self.role == Role::Leader {
            self.tick_heartbeat();
        } else {
            self.tick_election();
        }
    }

    /// etcd's `adjustTicks` for a member that starts as the only voter (a single-member
    /// cluster, fresh or restarted): `election_ticks - 1` ticks pass at once, so it campaigns,
    /// and leads, within a few ticks instead of a whole election timeout.
    pub fn advance_ticks_alone(&mut self) {
        if self.voters.len() == 1 && self.voters.contains(&self.id) {
            for _ in 1..self.cfg.election_ticks {
                self.tick();
            }
        }
    }

    /// Start an election now, as if the election timeout had elapsed (etcd `Node.Campaign`).
    /// Does nothing on a leader or on a member that is not a voter.
    pub fn campaign(&mut self) {
        self.hup();
    }

    /// Propose a command; `ctx` is an opaque request id. On the leader it is appended; on a
    /// follower it is forwarded to the known leader; otherwise it is dropped
    /// (`RaftEvent::ProposalDropped{ctx}`). Returns false if dropped at once. A forwarded proposal
    /// that the leader cannot take is lost silently; the host times it out.
    pub fn propose(&mut self, data: T, ctx: u64) -> bool {
        let ok = self.propose_data(EntryData::Normal(data), ctx);
        if !ok {
            self.events.push(RaftEvent::ProposalDropped { ctx });
        }
        ok
    }

    /// Propose a configuration change. The leader refuses it while a previous one is not yet
    /// applied, and refuses changes that make no sense for the current configuration (adding a
    /// present member, promoting a non-learner, removing an absent member or the last voter).
    /// A follower forwards it to the leader. Returns false if refused or dropped.
    pub fn propose_conf_change(&mut self, cc: ConfChange) -> bool {
        self.propose_data(EntryData::Conf(cc), 0)
    }

    /// Linearizable read (ReadIndex, `ReadOnlySafe`). The result, if any, arrives later as a
    /// [`ReadState`]. A leader that has not committed an entry in its term drops the read (as
    /// does a member with no leader); unanswered reads never complete.
    pub fn read_index(&mut self, ctx: u64) {
        match self.role {
            Role::Leader => self.leader_read_index(self.id, ctx),
            Role::Follower => {
                if let Some(l) = self.leader {
                    self.send(l, 0, MsgKind::ReadIndex { ctx });
                }
            }
            Role::PreCandidate | Role::Candidate => {}
        }
    }

    /// Hand leadership over before a clean stop (etcd's `MoveLeader` on shutdown): to the voter
    /// with the most of the log (the lowest id among equals). Returns the transferee, or None
    /// when this member is not the leader or has no other voter.
    pub fn transfer_leadership(&mut self) -> Option<MemberId> {
        if self.role != Role::Leader {
            return None;
        }
        let to = self
            .voters
            .iter()
            .filter(|&&v| v != self.id)
            .filter_map(|v| self.progress.get(v).map(|pr| (pr.matched, *v)))
            .max_by_key(|&(matched, v)| (matched, std::cmp::Reverse(v)))?
            .1;
        // A transfer to the same member already under way is not started again (nor its
        // timeout extended).
        if self.lead_transferee == Some(to) {
            return Some(to);
        }
        self.lead_transferee = Some(to);
        self.election_elapsed = 0;
        if self
            .progress
            .get(&to)
            .is_none_or(|pr| pr.matched != self.last_index())
        {
            self.maybe_send_append(to, true);
        }
        self.maybe_send_timeout_now(to);
        Some(to)
    }

    /// Crash and restart: keep persisted state (term, vote, log, commit, applied, configuration);
    /// lose everything volatile (role, leader, votes, progress, pending reads, unsent messages,
    /// undrained read states and events, elapsed ticks); draw a new election timeout.
    pub fn restart(&mut self) {
        let term = self.term;
        self.reset(term);
        self.role = Role::Follower;
        self.msgs.clear();
        self.read_states.clear();
        self.events.clear();
    }

    /// etcd `--force-new-cluster` (`restartAsStandaloneNode`): restart, discard log entries after
    /// the commit index, then (like etcd) append and force-commit conf entries that make this
    /// member the only voter — `Remove` for every other member (and `AddVoter`/`PromoteLearner`
    /// for itself if needed) — so that a member added later learns the new configuration by
    /// replaying the log. Stays in the current term as a follower; it elects itself once its
    /// election timeout has passed (etcd advances no ticks here: its `adjustTicks` still
    /// counts the old members). Returns the number of discarded entries.
    pub fn force_new_cluster(&mut self) -> u64 {
        self.restart();
        let discarded = self.last_index().saturating_sub(self.commit);
        self.log.truncate((self.commit - self.offset) as usize);
        let mut changes: Vec<ConfChange> = self
            .voters
            .iter()
            .chain(self.learners.iter())
            .filter(|&&m| m != self.id)
            .map(|&m| ConfChange::Remove(m))
            .collect();
        if self.learners.contains(&self.id) {
            changes.push(ConfChange::PromoteLearner(self.id));
        } else if !self.voters.contains(&self.id) {
            changes.push(ConfChange::AddVoter(self.id));
        }
        for cc in changes {
            let index = self.last_index() + 1;
            self.log.push(Entry {
                term: self.term,
                index,
                data: EntryData::Conf(cc),
            });
        }
        let last = self.last_index();
        self.commit_to(last);
        discarded
    }

    /// A message arrived from another member.
    pub fn step(&mut self, m: Message<T>) {
        if m.to != self.id || m.from == self.id {
            return; // misaddressed
        }
        // Forwarded requests are outside the term protocol (etcd: local messages, term 0).
        if matches!(m.kind, MsgKind::Propose { .. } | MsgKind::ReadIndex { .. }) {
            self.step_forwarded(m);
            return;
        }

        if m.term > self.term {
            let is_vote_request = matches!(m.kind, MsgKind::PreVote { .. } | MsgKind::Vote { .. });
            let transfer = matches!(m.kind, MsgKind::Vote { transfer: true, .. });
            if is_vote_request && !transfer && self.in_lease() {
                // We heard from a live leader less than an election timeout ago: the sender is
                // probably a member that was cut off. Ignoring it (without even adopting its
                // term) is what keeps it from deposing a healthy leader.
                return;
            }
            match m.kind {
                // A pre-vote never changes the receiver's term.
                MsgKind::PreVote { .. } => {}
                // A granted pre-vote carries the future term we asked about; we move to it only
                // once a majority granted. A *rejected* one carries the rejecter's (higher) term.
                MsgKind::PreVoteResp { reject: false } => {}
                MsgKind::Append { .. } | MsgKind::Heartbeat { .. } | MsgKind::Snapshot { .. } => {
                    self.become_follower(
                        m.term,
                        Some(m.from),
                        StepDownReason::HigherTerm { from: m.from },
                    )
                }
                _ => {
                    let why = if self.lead_transferee == Some(m.from) {
                        StepDownReason::HandedOver { to: m.from }
                    } else {
                        StepDownReason::HigherTerm { from: m.from }
                    };
                    self.become_follower(m.term, None, why)
                }
            }
        } else if m.term < self.term {
            match m.kind {
                // A stale leader (e.g. one that was partitioned away) would otherwise keep
                // sending forever: answer with our term so that it steps down. Needed with
                // CheckQuorum/PreVote because then our higher term may never reach it otherwise.
                MsgKind::Append { .. } | MsgKind::Heartbeat { .. } | MsgKind::Snapshot { .. }
                    if self.cfg.check_quorum || self.cfg.pre_vote =>
                {
                    self.accept(m.from, 0);
                }
                // Tell a pre-candidate with a stale term that it cannot win.
                MsgKind::PreVote { .. } => {
                    let term = self.term;
                    self.send(m.from, term, MsgKind::PreVoteResp { reject: true });
                }
                _ => {}
            }
            return;
        }

        match m.kind {
            MsgKind::PreVote {
                last_index,
                last_term,
            } => self.handle_vote_request(m.from, m.term, true, last_index, last_term),
            MsgKind::Vote {
                last_index,
                last_term,
                ..
            } => self.handle_vote_request(m.from, m.term, false, last_index, last_term),
            _ => match self.role {
                Role::Leader => self.step_leader(m),
                Role::PreCandidate | Role::Candidate => self.step_candidate(m),
                Role::Follower => self.step_follower(m),
            },
        }
    }

    // ----- timers ------------------------------------------------------------------------------

    fn tick_election(&mut self) {
        self.election_elapsed = self.election_elapsed.saturating_add(1);
        if self.is_promotable() && self.election_elapsed >= self.randomized_election_timeout {
            self.election_elapsed = 0;
            self.hup();
        }
    }

    fn tick_heartbeat(&mut self) {
        self.heartbeat_elapsed = self.heartbeat_elapsed.saturating_add(1);
        self.election_elapsed = self.election_elapsed.saturating_add(1);
        if self.election_elapsed >= self.cfg.election_ticks {
            self.election_elapsed = 0;
            // A transfer that did not happen within an election timeout is given up.
            self.lead_transferee = None;
            if self.cfg.check_quorum {
                self.check_quorum();
                if self.role != Role::Leader {
                    return;
                }
            }
        }
        if self.heartbeat_elapsed >= self.cfg.heartbeat_ticks {
            self.heartbeat_elapsed = 0;
            let ctx = self.pending_reads.back().map(|r| r.seq);
            self.bcast_heartbeat(ctx);
        }
    }

    /// Once per election timeout: was a majority of voters (the leader included) heard from?
    fn check_quorum(&mut self) {
        let active = self
            .voters
            .iter()
            .filter(|&&v| v == self.id || self.progress.get(&v).is_some_and(|p| p.recent_active))
            .count();
        if !has_quorum(active, self.voters.len()) {
            self.become_follower(self.term, None, StepDownReason::CheckQuorum);
            return;
        }
        let me = self.id;
        for (&id, pr) in self.progress.iter_mut() {
            if id != me {
                pr.recent_active = false;
            }
        }
    }

    fn in_lease(&self) -> bool {
        self.cfg.check_quorum
            && self.leader.is_some()
            && self.election_elapsed < self.cfg.election_ticks
    }

    fn reset_randomized_election_timeout(&mut self) {
        let e = self.cfg.election_ticks as u64;
        self.randomized_election_timeout = self.rng.range(e, 2 * e).min(u32::MAX as u64) as u32;
    }

    // ----- role transitions --------------------------------------------------------------------

    /// Volatile state common to every role change (etcd-raft `reset`).
    fn reset(&mut self, term: u64) {
        if self.term != term {
            self.term = term;
            self.vote = None;
        }
        self.leader = None;
        self.election_elapsed = 0;
        self.heartbeat_elapsed = 0;
        self.reset_randomized_election_timeout();
        self.votes.clear();
        self.progress.clear();
        self.pending_conf_index = 0;
        self.lead_transferee = None;
        self.pending_reads.clear();
        self.reads_before_commit.clear();
    }

    /// `why` is reported only if this member was the leader.
    fn become_follower(&mut self, term: u64, leader: Option<MemberId>, why: StepDownReason) {
        let (old_role, old_term, old_leader) = (self.role, self.term, self.leader);
        self.reset(term);
        self.role = Role::Follower;
        self.leader = leader;
        if old_role == Role::Leader {
            self.events.push(RaftEvent::SteppedDown {
                term: old_term,
                reason: why,
            });
        }
        if old_role != Role::Follower || old_term != term || old_leader != leader {
            self.events.push(RaftEvent::BecameFollower { term, leader });
        }
    }

    fn become_pre_candidate(&mut self) {
        // Changes neither the term nor the vote: that is the whole point of PreVote.
        self.votes.clear();
        self.leader = None;
        self.role = Role::PreCandidate;
        self.events.push(RaftEvent::CampaignStarted {
            term: self.term.saturating_add(1),
            pre_vote: true,
        });
    }

    fn become_candidate(&mut self) {
        let term = self.term.saturating_add(1);
        self.reset(term);
        self.vote = Some(self.id);
        self.role = Role::Candidate;
        self.events.push(RaftEvent::CampaignStarted {
            term,
            pre_vote: false,
        });
    }

    fn become_leader(&mut self) {
        let term = self.term;
        self.reset(term);
        self.role = Role::Leader;
        self.leader = Some(self.id);
        let last = self.last_index();
        let members: Vec<MemberId> = self.voters.union(&self.learners).copied().collect();
        for id in members {
            let mut pr = Progress::new(last + 1, false);
            if id == self.id {
                pr.matched = last;
                pr.state = ProgressState::Replicate;
                pr.recent_active = true; // the leader is always active
            }
            self.progress.insert(id, pr);
        }
        // Some entry after our commit index may be a conf change we do not know about yet:
        // refuse new conf changes until everything up to here is applied.
        self.pending_conf_index = last;
        self.events.push(RaftEvent::BecameLeader { term });
        // The no-op lets this leader commit an entry of its own term, which commits every earlier
        // entry and unlocks reads.
        self.leader_append(EntryData::Empty);
    }

    // ----- elections ---------------------------------------------------------------------------

    fn hup(&mut self) {
        if self.role == Role::Leader || !self.is_promotable() {
            return;
        }
        self.campaign_round(self.cfg.pre_vote, false);
    }

    /// `transfer`: the leader handed over (`TimeoutNow`); only with `pre` false.
    fn campaign_round(&mut self, pre: bool, transfer: bool) {
        let term = if pre {
            self.become_pre_candidate();
            self.term.saturating_add(1)
        } else {
            self.become_candidate();
            self.term
        };
        let me = self.id;
        if self.poll(me, true) == VoteResult::Won {
            // A one-voter cluster wins at once.
            if pre {
                self.campaign_round(false, false);
            } else {
                self.become_leader();
            }
            return;
        }
        let (last_index, last_term) = (self.last_index(), self.last_term());
        let peers: Vec<MemberId> = self.voters.iter().copied().filter(|&v| v != me).collect();
        for id in peers {
            let kind = if pre {
                MsgKind::PreVote {
                    last_index,
                    last_term,
                }
            } else {
                MsgKind::Vote {
                    last_index,
                    last_term,
                    transfer,
                }
            };
            self.send(id, term, kind);
        }
    }

    /// Record a (pre)vote answer and tally the voters of the current configuration.
    fn poll(&mut self, from: MemberId, granted: bool) -> VoteResult {
        self.votes.get_or_insert_with(from, || granted);
        let yes = self
            .voters
            .iter()
            .filter(|v| self.votes.get(v) == Some(&true))
            .count();
        let no = self
            .voters
            .iter()
            .filter(|v| self.votes.get(v) == Some(&false))
            .count();
        let q = quorum(self.voters.len());
        if yes >= q {
            VoteResult::Won
        } else if self.voters.len() - no < q {
            VoteResult::Lost
        } else {
            VoteResult::Pending
        }
    }

    fn handle_vote_request(
        &mut self,
        from: MemberId,
        msg_term: u64,
        pre: bool,
        last_index: u64,
        last_term: u64,
    ) {
        // We may vote for `from` if we already did in this term, or if we have voted for nobody
        // and know no leader; a pre-vote for a future term is always allowed (it binds nothing).
        let can_vote = self.vote == Some(from)
            || (self.vote.is_none() && self.leader.is_none())
            || (pre && msg_term > self.term);
        let resp = |reject| {
            if pre {
                MsgKind::PreVoteResp { reject }
            } else {
                MsgKind::VoteResp { reject }
            }
        };
        if can_vote && self.is_up_to_date(last_index, last_term) {
            // A grant carries the term of the request, so a pre-candidate can count it.
            self.send(from, msg_term, resp(false));
            if !pre {
                self.election_elapsed = 0;
                self.vote = Some(from);
            }
        } else {
            let term = self.term;
            self.send(from, term, resp(true));
        }
    }

    /// The election restriction: a candidate's log must be at least as up-to-date as ours.
    fn is_up_to_date(&self, last_index: u64, last_term: u64) -> bool {
        last_term > self.last_term()
            || (last_term == self.last_term() && last_index >= self.last_index())
    }

    // ----- per-role message handling -----------------------------------------------------------

    fn step_leader(&mut self, m: Message<T>) {
        match m.kind {
            MsgKind::AppendResp {
                reject,
                index,
                reject_hint,
                hint_term,
            } => self.handle_append_resp(m.from, reject, index, reject_hint, hint_term),
            MsgKind::HeartbeatResp { ctx } => self.handle_heartbeat_resp(m.from, ctx),
            // Another leader in our own term cannot exist; late vote answers are moot.
            _ => {}
        }
    }

    fn step_candidate(&mut self, m: Message<T>) {
        let from = m.from;
        match m.kind {
            // Someone won this term: follow it.
            MsgKind::Append {
                prev_index,
                prev_term,
                entries,
                commit,
            } => {
                self.become_follower(m.term, Some(from), StepDownReason::HigherTerm { from });
                self.handle_append(from, prev_index, prev_term, entries, commit);
            }
            MsgKind::Heartbeat { commit, ctx } => {
                self.become_follower(m.term, Some(from), StepDownReason::HigherTerm { from });
                self.handle_heartbeat(from, commit, ctx);
            }
            MsgKind::Snapshot { snapshot } => {
                self.become_follower(m.term, Some(from), StepDownReason::HigherTerm { from });
                self.handle_snapshot(from, *snapshot);
            }
            MsgKind::PreVoteResp { reject } if self.role == Role::PreCandidate => {
                self.on_vote_resp(from, !reject)
            }
            MsgKind::VoteResp { reject } if self.role == Role::Candidate => {
                self.on_vote_resp(from, !reject)
            }
            _ => {}
        }
    }

    fn on_vote_resp(&mut self, from: MemberId, granted: bool) {
        match self.poll(from, granted) {
            VoteResult::Won => {
                if self.role == Role::PreCandidate {
                    self.campaign_round(false, false);
                } else {
                    self.become_leader();
                }
            }
            VoteResult::Lost => {
                let term = self.term;
                self.become_follower(term, None, StepDownReason::HigherTerm { from });
            }
            VoteResult::Pending => {}
        }
    }

    fn step_follower(&mut self, m: Message<T>) {
        let from = m.from;
        match m.kind {
            MsgKind::Append {
                prev_index,
                prev_term,
                entries,
                commit,
            } => {
                self.election_elapsed = 0;
                self.note_leader(from);
                self.handle_append(from, prev_index, prev_term, entries, commit);
            }
            MsgKind::Heartbeat { commit, ctx } => {
                self.election_elapsed = 0;
                self.note_leader(from);
                self.handle_heartbeat(from, commit, ctx);
            }
            MsgKind::Snapshot { snapshot } => {
                self.election_elapsed = 0;
                self.note_leader(from);
                self.handle_snapshot(from, *snapshot);
            }
            MsgKind::ReadIndexResp { ctx, index } => {
                self.read_states.push(ReadState { ctx, index })
            }
            MsgKind::TimeoutNow if self.is_promotable() => self.campaign_round(false, true),
            _ => {}
        }
    }

    fn note_leader(&mut self, from: MemberId) {
        if self.leader != Some(from) {
            self.leader = Some(from);
            self.events.push(RaftEvent::BecameFollower {
                term: self.term,
                leader: Some(from),
            });
        }
    }

    fn step_forwarded(&mut self, m: Message<T>) {
        match m.kind {
            MsgKind::Propose { data, ctx } => match self.role {
                Role::Leader => {
                    let _ = self.leader_propose(data);
                }
                // Our leader may have changed since the sender chose us: pass it on.
                Role::Follower => match self.leader {
                    Some(l) if l != m.from && l != self.id => {
                        self.send(l, 0, MsgKind::Propose { data, ctx })
                    }
                    _ => {}
                },
                Role::PreCandidate | Role::Candidate => {}
            },
            // Not passed on by a follower: the answer would come back to us, not to the sender.
            MsgKind::ReadIndex { ctx } if self.role == Role::Leader => {
                self.leader_read_index(m.from, ctx)
            }
            _ => {}
        }
    }

    // ----- proposals ---------------------------------------------------------------------------

    fn propose_data(&mut self, data: EntryData<T>, ctx: u64) -> bool {
        match self.role {
            Role::Leader => self.leader_propose(data),
            Role::Follower => match self.leader {
                Some(l) if l != self.id => {
                    self.send(l, 0, MsgKind::Propose { data, ctx });
                    true
                }
                _ => false,
            },
            Role::PreCandidate | Role::Candidate => false,
        }
    }

    fn leader_propose(&mut self, data: EntryData<T>) -> bool {
        if !self.voters.contains(&self.id) || self.lead_transferee.is_some() {
            return false; // removed, about to step down; or handing over
        }
        let conf = match &data {
            EntryData::Conf(cc) => {
                if self.pending_conf_index > self.conf_applied || !self.conf_change_valid(*cc) {
                    return false;
                }
                true
            }
            _ => false,
        };
        let index = self.leader_append(data);
        if conf {
            self.pending_conf_index = index;
        }
        true
    }

    fn conf_change_valid(&self, cc: ConfChange) -> bool {
        match cc {
            ConfChange::AddVoter(id) => !self.voters.contains(&id),
            ConfChange::AddLearner(id) => {
                !self.voters.contains(&id) && !self.learners.contains(&id)
            }
            ConfChange::PromoteLearner(id) => self.learners.contains(&id),
            ConfChange::Remove(id) => {
                self.learners.contains(&id) || (self.voters.contains(&id) && self.voters.len() > 1)
            }
        }
    }

    /// Append one entry to the leader's log and send it out. Returns its index.
    fn leader_append(&mut self, data: EntryData<T>) -> u64 {
        let index = self.last_index() + 1;
        self.log.push(Entry {
            term: self.term,
            index,
            data,
        });
        if let Some(pr) = self.progress.get_mut(&self.id) {
            pr.matched = index;
            pr.next = index + 1;
        }
        // A one-voter cluster commits at once.
        self.maybe_commit();
        self.bcast_append();
        index
    }

    // ----- replication, leader side ------------------------------------------------------------

    /// Send `to` the entries it is missing, if its flow control allows. With `send_if_empty` an
    /// Append without entries still goes out (it carries the commit index, or probes).
    fn maybe_send_append(&mut self, to: MemberId, send_if_empty: bool) -> bool {
        if self.role != Role::Leader || to == self.id {
            return false;
        }
        let last = self.last_index();
        let Some(pr) = self.progress.get(&to) else {
            return false;
        };
        if pr.is_paused() {
            return false;
        }
        let prev_index = (pr.next - 1).min(last);
        if prev_index < self.offset {
            return self.send_snapshot(to);
        }
        let prev_term = self.term_at(prev_index).unwrap_or(0);
        let end = last.min(prev_index + MAX_ENTRIES_PER_APPEND as u64);
        let entries: Vec<Entry<T>> = (self.log)
            .range((prev_index - self.offset) as usize..(end - self.offset) as usize)
            .cloned()
            .collect();
        if entries.is_empty() && !send_if_empty {
            return false;
        }
        let sent_last = entries.last().map(|e| e.index);
        let commit = self.commit;
        if let Some(pr) = self.progress.get_mut(&to) {
            match pr.state {
                ProgressState::Replicate => {
                    if let Some(i) = sent_last {
                        pr.next = i + 1;
                        pr.inflight.push_back(i);
                    }
                }
                // Every Append in Probe state is a probe: wait for its answer (or a heartbeat).
                ProgressState::Probe => pr.probe_sent = true,
            }
        }
        let term = self.term;
        self.send(
            to,
            term,
            MsgKind::Append {
                prev_index,
                prev_term,
                entries,
                commit,
            },
        );
        true
    }

    fn bcast_append(&mut self) {
        // Walks the peers by id, since sending changes their progress.
        let mut next = self.progress.keys().next().copied();
        while let Some(id) = next {
            next = self.progress.key_after(&id);
            if id != self.id {
                self.maybe_send_append(id, true);
            }
        }
    }

    fn bcast_heartbeat(&mut self, ctx: Option<u64>) {
        let (me, term) = (self.id, self.term);
        for (&to, pr) in self.progress.iter().filter(|(&p, _)| p != me) {
            self.msgs.push(Message {
                from: me,
                to,
                term,
                kind: MsgKind::Heartbeat {
                    commit: self.commit.min(pr.matched),
                    ctx,
                },
            });
        }
    }

    fn handle_append_resp(
        &mut self,
        from: MemberId,
        reject: bool,
        index: u64,
        reject_hint: u64,
        hint_term: u64,
    ) {
        let last = self.last_index();
        // Fast backtracking: skip, on our side too, every entry whose term is above the
        // follower's term at the hint (etcd-raft `findConflictByTerm` on both sides).
        let next_probe = if reject && hint_term > 0 {
            self.find_conflict_by_term(reject_hint, hint_term).0
        } else {
            reject_hint
        };
        let Some(pr) = self.progress.get_mut(&from) else {
            return;
        };
        pr.heard();
        if reject {
            if pr.maybe_decr_to(index, next_probe) {
                if pr.state == ProgressState::Replicate {
                    pr.become_probe();
                }
                self.maybe_send_append(from, true);
            }
            return;
        }
        if index > last {
            return; // acknowledges entries we never sent
        }
        let was_paused = pr.is_paused();
        // A probing follower that acknowledges its match index (nothing new) is in step with
        // us too: it moves to replicate (etcd-raft `MsgAppResp`).
        let in_step = pr.state == ProgressState::Probe && index == pr.matched;
        if !pr.maybe_update(index) && !in_step {
            return;
        }
        match pr.state {
            ProgressState::Probe => pr.become_replicate(),
            ProgressState::Replicate => pr.free_le(index),
        }
        if self.maybe_commit() {
            self.bcast_append();
        } else if was_paused {
            // It may be missing our latest commit index.
            self.maybe_send_append(from, true);
        }
        // Stream whatever else it is missing, up to the in-flight limit.
        while self.maybe_send_append(from, false) {}
        self.maybe_send_timeout_now(from);
    }

    /// The transferee has every entry: tell it to campaign.
    fn maybe_send_timeout_now(&mut self, to: MemberId) {
        if self.lead_transferee != Some(to) {
            return;
        }
        let caught_up = self
            .progress
            .get(&to)
            .is_some_and(|pr| pr.matched == self.last_index());
        if caught_up {
            let term = self.term;
            self.send(to, term, MsgKind::TimeoutNow);
        }
    }

    fn handle_heartbeat_resp(&mut self, from: MemberId, ctx: Option<u64>) {
        let last = self.last_index();
        let Some(pr) = self.progress.get_mut(&from) else {
            return;
        };
        pr.heard();
        pr.probe_sent = false;
        // A full pipeline whose acks were lost would stall forever: let one more through.
        if pr.state == ProgressState::Replicate && pr.inflight.len() >= MAX_INFLIGHT_APPENDS {
            pr.inflight.pop_front();
        }
        if pr.matched < last || pr.state == ProgressState::Probe {
            self.maybe_send_append(from, true);
        }
        if let Some(seq) = ctx {
            if self.voters.contains(&from) {
                self.ack_reads(from, seq);
            }
        }
    }

    /// The highest index replicated on a majority of voters becomes committed, if it is of our
    /// term. Loops because applying a conf change may change the quorum.
    fn maybe_commit(&mut self) -> bool {
        let mut advanced = false;
        while self.role == Role::Leader {
            self.matches.clear();
            let progress = &self.progress;
            self.matches.extend(
                self.voters
                    .iter()
                    .map(|v| progress.get(v).map_or(0, |p| p.matched)),
            );
            let mci = committed_index(&mut self.matches);
            // Raft §5.4.2: never count replicas of an older term's entry.
            if mci > self.commit && self.term_at(mci) == Some(self.term) {
                self.commit_to(mci);
                advanced = true;
            } else {
                break;
            }
        }
        // The first commit of this term: the reads that waited for it go out now.
        if advanced && !self.reads_before_commit.is_empty() {
            for (origin, ctx) in std::mem::take(&mut self.reads_before_commit) {
                self.leader_read_index(origin, ctx);
            }
        }
        advanced
    }

    // ----- linearizable reads ------------------------------------------------------------------

    fn leader_read_index(&mut self, origin: MemberId, ctx: u64) {
        if self.voters.len() == 1 && self.voters.contains(&self.id) {
            // Nobody else could have been elected: our commit index is current.
            let index = self.commit;
            self.respond_read(origin, ctx, index);
            return;
        }
        // Until an entry of our term is committed, our commit index may lag behind what a
        // previous leader committed: a read at it could miss an acknowledged write. It waits.
        if self.term_at(self.commit) != Some(self.term) {
            self.reads_before_commit.push((origin, ctx));
            return;
        }
        self.read_seq += 1;
        let seq = self.read_seq;
        if self.pending_reads.len() >= MAX_PENDING_READS {
            self.pending_reads.pop_front();
        }
        // Built by insertion: `BTreeSet::from` sorts, a sort compiled for this type.
        let mut acks = MemberSet::new();
        acks.insert(self.id);
        self.pending_reads.push_back(PendingRead {
            seq,
            index: self.commit,
            origin,
            ctx,
            acks,
        });
        self.bcast_heartbeat(Some(seq));
    }

    /// A heartbeat answer carrying `seq` confirms leadership for every read recorded up to it
    /// (they were all recorded before that heartbeat was sent).
    fn ack_reads(&mut self, from: MemberId, seq: u64) {
        for r in self.pending_reads.iter_mut() {
            if r.seq > seq {
                break;
            }
            r.acks.insert(from);
        }
        while let Some(front) = self.pending_reads.pop_front() {
            let n = front
                .acks
                .iter()
                .filter(|a| self.voters.contains(a))
                .count();
            if !has_quorum(n, self.voters.len()) {
                self.pending_reads.push_front(front);
                break;
            }
            self.respond_read(front.origin, front.ctx, front.index);
        }
    }

    fn respond_read(&mut self, origin: MemberId, ctx: u64, index: u64) {
        if origin == self.id {
            self.read_states.push(ReadState { ctx, index });
        } else {
            let term = self.term;
            self.send(origin, term, MsgKind::ReadIndexResp { ctx, index });
        }
    }

    // ----- replication, follower side ----------------------------------------------------------

    /// The entries `to` needs are compacted: send the snapshot instead (etcd-raft `sendSnapshot`)
    /// and wait, as for a probe, for its answer or the next heartbeat.
    fn send_snapshot(&mut self, to: MemberId) -> bool {
        // The snapshot is of the applied state, with the configuration then: if a committed
        // conf change is not applied yet, wait for the next heartbeat.
        let pending_conf = (self.applied + 1..=self.commit)
            .any(|i| matches!(self.entry(i).map(|e| &e.data), Some(EntryData::Conf(_))));
        let Some(term) = self.term_at(self.applied).filter(|_| !pending_conf) else {
            return false;
        };
        let snapshot = SnapshotMeta {
            index: self.applied,
            term,
            voters: self.voters.clone(),
            learners: self.learners.clone(),
        };
        let Some(pr) = self.progress.get_mut(&to) else {
            return false;
        };
        pr.become_probe();
        pr.next = snapshot.index + 1;
        pr.probe_sent = true;
        let term = self.term;
        self.send(
            to,
            term,
            MsgKind::Snapshot {
                snapshot: Box::new(snapshot),
            },
        );
        true
    }

    /// A snapshot from the leader (etcd-raft `handleSnapshot`/`restore`): ignored if our commit
    /// index is already past it; if our log holds its last entry, only the commit index moves;
    /// otherwise the log is replaced by the snapshot and the host installs its state machine.
    fn handle_snapshot(&mut self, from: MemberId, snapshot: SnapshotMeta) {
        if snapshot.index > self.commit {
            if self.term_at(snapshot.index) == Some(snapshot.term) {
                self.commit_to(snapshot.index);
            } else {
                self.log.clear();
                self.offset = snapshot.index;
                self.offset_term = snapshot.term;
                self.commit = snapshot.index;
                self.applied = snapshot.index;
                self.conf_applied = snapshot.index;
                self.voters = snapshot.voters.clone();
                self.learners = snapshot.learners.clone();
                self.restored = Some(snapshot);
            }
        }
        let index = self.commit;
        self.accept(from, index);
    }

    fn handle_append(
        &mut self,
        from: MemberId,
        prev_index: u64,
        prev_term: u64,
        entries: Vec<Entry<T>>,
        commit: u64,
    ) {
        let term = self.term;
        if prev_index < self.commit {
            // Everything up to our commit index is known to match: tell the leader so.
            let index = self.commit;
            self.accept(from, index);
            return;
        }
        // Malformed (non-contiguous) batches are ignored.
        for (i, e) in entries.iter().enumerate() {
            if prev_index.checked_add(1 + i as u64) != Some(e.index) {
                return;
            }
        }
        if self.term_at(prev_index) != Some(prev_term) {
            // Log matching fails at prev_index: hint the largest index that may still match.
            let hint = prev_index.min(self.last_index());
            let (reject_hint, hint_term) = self.find_conflict_by_term(hint, prev_term);
            self.send(
                from,
                term,
                MsgKind::AppendResp {
                    reject: true,
                    index: prev_index,
                    reject_hint,
                    hint_term,
                },
            );
            return;
        }
        let last_new = prev_index + entries.len() as u64;
        // Keep what already matches (a duplicate or reordered Append must not truncate entries
        // that a later Append added); replace from the first conflicting entry on.
        let conflict = entries
            .iter()
            .find(|e| self.term_at(e.index) != Some(e.term))
            .map(|e| e.index);
        if let Some(ci) = conflict {
            if ci <= self.commit {
                // Would rewrite committed history; cannot happen in one Raft cluster (only when
                // an operator mixes a force-new-cluster member with old ones). Refuse.
                return;
            }
            self.log.truncate((ci - 1 - self.offset) as usize);
            let skip = (ci - prev_index - 1) as usize;
            self.log.extend(entries.into_iter().skip(skip));
        }
        // Only what the leader proved to match may be committed.
        self.commit_to(commit.min(last_new));
        self.accept(from, last_new);
    }

    fn handle_heartbeat(&mut self, from: MemberId, commit: u64, ctx: Option<u64>) {
        self.commit_to(commit);
        let term = self.term;
        self.send(from, term, MsgKind::HeartbeatResp { ctx });
    }

    // ----- commit and configuration ------------------------------------------------------------

    fn commit_to(&mut self, index: u64) {
        let index = index.min(self.last_index());
        if index <= self.commit {
            return;
        }
        self.commit = index;
        while self.conf_applied < self.commit {
            self.conf_applied += 1;
            let cc = match self.entry(self.conf_applied) {
                Some(Entry {
                    data: EntryData::Conf(cc),
                    ..
                }) => Some(*cc),
                _ => None,
            };
            if let Some(cc) = cc {
                self.apply_conf_change(cc, self.conf_applied);
            }
        }
    }

    fn apply_conf_change(&mut self, cc: ConfChange, index: u64) {
        match cc {
            ConfChange::AddVoter(id) => {
                self.learners.remove(&id);
                self.voters.insert(id);
            }
            ConfChange::AddLearner(id) => {
                // Demoting a voter is refused at proposal time; a no-op here if it slipped in.
                if !self.voters.contains(&id) {
                    self.learners.insert(id);
                }
            }
            ConfChange::PromoteLearner(id) => {
                if self.learners.remove(&id) {
                    self.voters.insert(id);
                }
            }
            ConfChange::Remove(id) => {
                self.voters.remove(&id);
                self.learners.remove(&id);
                // A transfer to a member that is no longer there is given up.
                if self.lead_transferee == Some(id) {
                    self.lead_transferee = None;
                }
            }
        }
        self.events
            .push(RaftEvent::ConfApplied { change: cc, index });
        if self.role != Role::Leader {
            return;
        }
        if let ConfChange::Remove(id) = cc {
            // Best effort: let the removed member learn the commit index, so that it applies its
            // own removal and stops campaigning (etcd learns it from peers' "removed" errors).
            if id != self.id {
                self.maybe_send_append(id, true);
            }
        }
        if !self.voters.contains(&self.id) {
            // Tell the others the commit index before going quiet, then step down.
            self.bcast_append();
            let term = self.term;
            self.become_follower(term, None, StepDownReason::RemovedFromConfig);
            return;
        }
        let mut members = MemberSet::new();
        members.extend(self.voters.union(&self.learners).copied());
        self.progress.retain(|id, _| members.contains(id));
        let next = self.last_index() + 1;
        for id in members {
            // A new member counts as active, or CheckQuorum could fire before it answers.
            let (_, added) = self
                .progress
                .get_or_insert_with(id, || Progress::new(next, true));
            if added {
                self.maybe_send_append(id, true);
            }
        }
    }

    // ----- log helpers -------------------------------------------------------------------------

    /// Term of the entry at `index`; 0 for the empty prefix; `None` past the end or compacted.
    fn term_at(&self, index: u64) -> Option<u64> {
        if index == self.offset {
            Some(self.offset_term)
        } else {
            self.entry(index).map(|e| e.term)
        }
    }

    /// The largest index ≤ `index` whose term is ≤ `term`, with its term (etcd-raft); a
    /// compacted index answers with term 0 (unknown), which sends the leader below it.
    fn find_conflict_by_term(&self, index: u64, term: u64) -> (u64, u64) {
        let mut i = index.min(self.last_index());
        while i > 0 {
            let Some(t) = self.term_at(i) else {
                return (i, 0);
            };
            if t <= term {
                return (i, t);
            }
            i -= 1;
        }
        (0, 0)
    }

    /// A positive answer to the leader: our log matches its up to `index`.
    fn accept(&mut self, leader: MemberId, index: u64) {
        let term = self.term;
        self.send(
            leader,
            term,
            MsgKind::AppendResp {
                reject: false,
                index,
                reject_hint: 0,
                hint_term: 0,
            },
        );
    }

    fn send(&mut self, to: MemberId, term: u64, kind: MsgKind<T>) {
        self.msgs.push(Message {
            from: self.id,
            to,
            term,
            kind,
        });
    }
}

#[cfg(test)]
#[path = "raft_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "raft_paper_tests.rs"]
mod paper_tests;

#[cfg(test)]
#[path = "raft_conformance_tests.rs"]
mod conformance_tests;
