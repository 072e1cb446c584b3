//! An etcd member (the `etcd` process): a Raft member, the key-value store it applies
//! committed entries to, and the client API on top.
//!
//! Writes are proposed to Raft (forwarded to the leader by Raft itself) and answered
//! by the member that received them once applied. A member that knows no leader holds a write
//! until it learns one (etcd-raft reads no proposal meanwhile), so a write during an election
//! is late, not refused; a write not applied within 5 s + 2 × election timeout is answered
//! "request timed out", as etcd's request timeout does. Linearizable reads go through
//! ReadIndex: they are answered only after the leader confirmed a majority. A member
//! without a leader does not fail them fast: it sends the ReadIndex again every 500 ms and
//! at the first commit of a new term, and answers "request timed out" after 5 s + 2 ×
//! election timeout, so a read issued during a short election is late, not failed, and one
//! on a member in a minority times out. Serializable reads are answered from the local
//! store, possibly stale.
//!
//! A crash keeps what etcd keeps on disk (Raft term, vote, log, and the applied
//! store); everything else starts afresh.
//!
//! Watches start with a linearizable range (so a watch never starts from a stale
//! view) and then stream every applied change under their prefix. As with the
//! apiserver's `WithRequireLeader`, a member that has had no leader for three
//! election timeouts cancels its watches. A progress notification goes out every
//! 5 s so a watcher can tell a silent member from a quiet one.
//!
//! Every [`SNAPSHOT_COUNT`] applied entries the member compacts its Raft log (its store holds
//! what the dropped entries did), keeping the last [`SNAPSHOT_CATCH_UP_ENTRIES`] for members
//! that lag a little; a member further behind receives a snapshot of the leader's store as of
//! now, and its watches are cancelled (their revisions were compacted), so their clients re-list.
//!
//! A member's id names its host and which of the host's members it is (see [`member_id`]): a
//! member added again after a removal, or on a replacement machine, is a new member with a new
//! id, as etcd gives every `member add` a fresh one, so what peers remember about the old one
//! (removed, or still listed and dead) never applies to the new one.
//!
//! Left out: watch history (a watcher re-lists instead of resuming from a revision), MVCC
//! compaction and defragmentation, leases with TTLs, auth, gRPC proxies.

use super::kv::{KvResult, KvStore};
use super::quorum::quorum;
use super::raft::{self, ConfChange, EntryData, MemberId, Raft, RaftEvent, Role, StepDownReason};
use super::wire::{
    Cmd, EtcdCmd, EtcdError, EtcdRequest, EtcdResponse, MemberStatus, Msg, WatchEvent,
};
use super::Ctx;
use super::Timer;
use crate::kernel::inflight::InFlight;
use crate::kernel::members::{MemberMap, MemberSet};
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Port};
use crate::kernel::rng::Rng;
use crate::kernel::time::{Duration, SimTime};
use std::collections::VecDeque;
use std::sync::Arc;

/// etcd's `--snapshot-count` (default since 3.6): applied entries between two snapshots.
pub const SNAPSHOT_COUNT: u64 = 10_000;
/// etcd's `SnapshotCatchUpEntries`: entries kept in the log behind a snapshot.
pub const SNAPSHOT_CATCH_UP_ENTRIES: u64 = 5_000;

/// The timings of a member, from the scenario settings.
#[derive(Clone, Copy, Debug)]
pub struct EtcdConfig {
    pub heartbeat_interval: Duration,
    pub election_timeout: Duration,
    pub pre_vote: bool,
}

impl EtcdConfig {
    pub fn raft(&self) -> raft::Config {
        let ticks =
            (self.election_timeout.as_micros() / self.heartbeat_interval.as_micros().max(1)).max(2);
        raft::Config {
            election_ticks: ticks as u32,
            heartbeat_ticks: 1,
            pre_vote: self.pre_vote,
            check_quorum: true,
        }
    }
}

#[derive(Clone)]
enum Pending {
    Write {
        client: Addr,
        id: u64,
    },
    Read {
        client: Addr,
        id: u64,
        prefix: String,
    },
    Watch {
        client: Addr,
        id: u64,
        prefix: String,
    },
}

#[derive(Clone)]
struct Watcher {
    client: Addr,
    id: u64,
    prefix: String,
}

/// A linearizable read still waiting for its ReadIndex to be confirmed.
#[derive(Clone, Copy)]
struct Unconfirmed {
    ctx: u64,
    since: SimTime,
    sent: SimTime,
}

/// The id of the `incarnation`-th member ever added on `host` (the first, 0, is the host's own
/// index, so a cluster that never replaces a member has ids equal to host indices). Hosts take
/// the low 16 bits, incarnations the high 16.
pub fn member_id(host: HostId, incarnation: u32) -> MemberId {
    debug_assert!(host < 1 << 16 && incarnation < 1 << 16);
    host | (incarnation << 16)
}

/// The host a member runs on.
pub fn member_host(id: MemberId) -> HostId {
    id & 0xffff
}

/// etcd's `readIndexRetryTime`: how often an unconfirmed ReadIndex is sent again.
const READ_INDEX_RETRY: Duration = Duration::from_millis(500);

/// How often a watch gets a progress notification.
const PROGRESS_NOTIFY: Duration = Duration::from_secs(5);
/// rafthttp's `ConnReadTimeout`: a peer link that carried nothing for this long is broken.
const LINK_TIMEOUT: Duration = Duration::from_secs(5);
/// A peer link's heartbeat, `ConnReadTimeout / 3`, so that an idle link stays up.
pub const LINK_HEARTBEAT: Duration = Duration::from_micros(5_000_000 / 3);
/// `--strict-reconfig-check`'s window: a quorum connected for this long may grow.
const HEALTHY_FOR: Duration = Duration::from_secs(5);

/// A peer link's life: since when it has been up, and when it last carried anything.
#[derive(Clone, Copy)]
struct Link {
    since: SimTime,
    last: SimTime,
}

#[derive(Clone)]
pub struct EtcdMember<V> {
    pub host: HostId,
    pub raft: Raft<EtcdCmd<V>>,
    pub kv: KvStore<V>,
    /// Changes when `--force-new-cluster` starts a new cluster from this member's data.
    pub cluster: u64,
    cfg: EtcdConfig,
    /// Never reset, so a context id is unique over the member's whole life, restarts included.
    next_ctx: u64,
    pending: InFlight<Pending>,
    /// Reads whose ReadIndex is known, waiting for the store to catch up to that index.
    reads_waiting_apply: Vec<(u64, u64)>,
    /// Reads whose ReadIndex is not known yet, oldest first.
    unconfirmed: Vec<Unconfirmed>,
    /// Writes waiting for a leader to be known, oldest first.
    held: Vec<(u64, EtcdCmd<V>)>,
    /// When each write times out, oldest first.
    write_deadlines: VecDeque<(SimTime, u64)>,
    /// The term of the last entry applied (a higher one is the first commit of a new term).
    applied_term: u64,
    /// Removed from the configuration: etcd shuts itself down.
    pub removed: bool,
    /// Members this one has seen removed from the cluster: a message from one of them is
    /// answered "removed member" (etcd's `410`), never stepped.
    removed_peers: MemberSet<MemberId>,
    /// Connect to every peer at the next tick (the process just started).
    dial: bool,
    /// The peer links, by peer (etcd's transport: they outlive elections).
    links: MemberMap<MemberId, Link>,
    watchers: Vec<Watcher>,
    /// Ticks without a known leader (for `WithRequireLeader`).
    leaderless_ticks: u64,
    ticks: u64,
    /// The applied index at the last compaction.
    compacted_at: u64,
    /// The store that came with a snapshot message being stepped.
    incoming: Option<Arc<KvStore<V>>>,
}

impl<V: Clone + std::fmt::Debug> EtcdMember<V> {
    pub fn bootstrap(host: HostId, initial: &[HostId], cfg: EtcdConfig, rng: Rng) -> Self {
        Self::with_raft(
            host,
            Raft::new_bootstrap(host as MemberId, initial, cfg.raft(), rng),
            cfg,
        )
    }

    /// A member added to `cluster` (`--initial-cluster-state=existing`, an empty data dir).
    pub fn joining(id: MemberId, cluster: u64, cfg: EtcdConfig, rng: Rng) -> Self {
        let mut m = Self::with_raft(member_host(id), Raft::new_joining(id, cfg.raft(), rng), cfg);
        m.cluster = cluster;
        m
    }

    fn with_raft(host: HostId, raft: Raft<EtcdCmd<V>>, cfg: EtcdConfig) -> Self {
        EtcdMember {
            host,
            raft,
            kv: KvStore::default(),
            cluster: 1,
            cfg,
            next_ctx: 0,
            pending: InFlight::default(),
            reads_waiting_apply: Vec::new(),
            unconfirmed: Vec::new(),
            held: Vec::new(),
            write_deadlines: VecDeque::new(),
            applied_term: 0,
            removed: false,
            removed_peers: MemberSet::new(),
            dial: false,
            links: MemberMap::default(),
            watchers: Vec::new(),
            leaderless_ticks: 0,
            ticks: 0,
            compacted_at: 0,
            incoming: None,
        }
    }

    pub fn config(&self) -> &EtcdConfig {
        &self.cfg
    }

    /// The process restarts after a host crash: disk state stays, the rest is lost.
    pub fn restart(&mut self) {
        self.dial = true;
        self.links.clear();
        self.raft.restart();
        // etcd's `adjustTicks` at every start: a member whose configuration, as recovered from
        // its data, is itself alone campaigns within a few ticks.
        self.raft.advance_ticks_alone();
        self.pending.clear();
        self.reads_waiting_apply.clear();
        self.unconfirmed.clear();
        self.held.clear();
        self.write_deadlines.clear();
        self.watchers.clear();
        self.leaderless_ticks = 0;
    }

    /// `etcd --force-new-cluster`: a one-member cluster from this member's committed data.
    /// Returns the number of discarded (uncommitted) entries.
    pub fn force_new_cluster(&mut self, new_cluster: u64) -> u64 {
        self.pending.clear();
        self.reads_waiting_apply.clear();
        self.unconfirmed.clear();
        self.held.clear();
        self.write_deadlines.clear();
        self.watchers.clear();
        self.cluster = new_cluster;
        self.removed = false;
        // No ticks advanced: etcd's `adjustTicks` counts the members it recovered from its
        // data (all of them: the forced removals are applied after it has looked), finds no
        // peer connected and waits a whole randomized election timeout, 1–2 s (measured on
        // etcd 3.5.1: `cargo xtask reality`).
        self.raft.force_new_cluster()
    }

    pub fn on_tick<P: From<Msg<V>>, T: From<Timer>>(&mut self, ctx: &mut Ctx<P, T>) {
        if self.removed {
            self.cancel_watches(ctx);
            return;
        }
        let link_every =
            LINK_HEARTBEAT.as_micros() / self.cfg.heartbeat_interval.as_micros().max(1);
        if std::mem::take(&mut self.dial) || self.ticks.is_multiple_of(link_every.max(1)) {
            let me = self.raft.id();
            let peers: Vec<MemberId> = self
                .raft
                .voters()
                .iter()
                .chain(self.raft.learners())
                .copied()
                .filter(|&p| p != me)
                .collect();
            for p in peers {
                let to = Addr {
                    host: member_host(p),
                    port: Port::ETCD,
                };
                ctx.send(Port::ETCD, to, Msg::Dial { from: me });
            }
        }
        self.raft.tick();
        self.ticks += 1;
        self.leaderless_ticks = if self.raft.leader().is_some() {
            0
        } else {
            self.leaderless_ticks + 1
        };
        let election_ticks = self.cfg.raft().election_ticks as u64;
        if self.leaderless_ticks > 3 * election_ticks {
            self.cancel_watches(ctx);
        }
        self.chase_reads(ctx, false);
        self.expire_writes(ctx);
        let notify_every =
            PROGRESS_NOTIFY.as_micros() / self.cfg.heartbeat_interval.as_micros().max(1);
        if self.ticks.is_multiple_of(notify_every.max(1)) {
            for w in &self.watchers {
                ctx.send(
                    Port::ETCD,
                    w.client,
                    Msg::Watch {
                        id: w.id,
                        events: Vec::new(),
                    },
                );
            }
        }
        self.drain(ctx);
        ctx.set_timer(Port::ETCD, self.cfg.heartbeat_interval, Timer::RaftTick);
    }

    /// The process stops cleanly: each watch stream's connection closes (the clients resume).
    pub fn close_watch_streams<P: From<Msg<V>>, T>(&mut self, ctx: &mut Ctx<P, T>) {
        for w in self.watchers.drain(..) {
            ctx.send(Port::ETCD, w.client, Msg::WatchReset { id: w.id });
        }
    }

    fn cancel_watches<P: From<Msg<V>>, T>(&mut self, ctx: &mut Ctx<P, T>) {
        for w in self.watchers.drain(..) {
            ctx.send(Port::ETCD, w.client, Msg::WatchCancelled { id: w.id });
        }
    }

    /// Whether this member has gone without a leader long enough to refuse watches.
    pub fn watches_cancelled(&self) -> bool {
        self.leaderless_ticks > 3 * self.cfg.raft().election_ticks as u64
    }

    pub fn on_message<P: From<Msg<V>>, T>(&mut self, ctx: &mut Ctx<P, T>, from: Addr, msg: Msg<V>) {
        if self.removed {
            if let Msg::Request { id, .. } = msg {
                reply(ctx, from, id, EtcdResponse::Failed(EtcdError::NotServing));
            }
            return;
        }
        let peer = match &msg {
            Msg::Raft { msg, .. } => Some(msg.from),
            Msg::RaftSnapshot { msg, .. } => Some(msg.from),
            Msg::Dial { from } => Some(*from),
            _ => None,
        };
        if let Some(p) = peer.filter(|p| self.removed_peers.contains(p)) {
            let to = Addr {
                host: from.host,
                port: Port::ETCD,
            };
            ctx.send(Port::ETCD, to, Msg::Removed { to: p });
            return;
        }
        if let Msg::Dial { from } = msg {
            // The link's own heartbeat keeps its age (every 5/3 s, so a live link never goes
            // 5 s without one); it changes nothing in Raft, so nothing to drain.
            self.heard_from(from, ctx.now);
            return;
        }
        let me = self.raft.id();
        if let Msg::Removed { to } = msg {
            if to != me {
                return;
            }
            // etcd's errMemberRemoved: the process stops, and stays stopped.
            self.removed = true;
            self.cancel_watches(ctx);
            ctx.obs.etcd_removed(ctx.now, self.host, from.host);
            return;
        }
        match msg {
            // Messages of another cluster (after a force-new-cluster), or for an earlier member
            // of this host, are dropped, as etcd does. A snapshot is only taken with the store
            // that belongs to it.
            Msg::Raft { cluster, msg }
                if cluster == self.cluster
                    && msg.to == me
                    && !matches!(msg.kind, raft::MsgKind::Snapshot { .. }) =>
            {
                self.raft.step(msg);
            }
            Msg::RaftSnapshot {
                cluster,
                msg,
                store,
            } if cluster == self.cluster && msg.to == me => {
                self.incoming = Some(store);
                self.raft.step(*msg);
            }
            Msg::Request { id, req } => self.on_request(ctx, from, id, req),
            _ => {}
        }
        self.drain(ctx);
        self.incoming = None;
    }

    fn on_request<P: From<Msg<V>>, T>(
        &mut self,
        ctx: &mut Ctx<P, T>,
        client: Addr,
        id: u64,
        req: EtcdRequest<V>,
    ) {
        match req {
            EtcdRequest::Write(op) => {
                let c = self.new_ctx();
                let cmd = Arc::new(Cmd {
                    origin: self.host,
                    ctx: c,
                    op,
                });
                self.pending.insert(c, Pending::Write { client, id });
                let deadline = ctx.now + self.request_timeout();
                self.write_deadlines.push_back((deadline, c));
                if self.raft.leader().is_none() {
                    self.held.push((c, cmd));
                } else {
                    // Refused by a leader handing over: answered as its dropped proposal.
                    self.raft.propose(cmd, c);
                }
            }
            EtcdRequest::Read {
                prefix,
                linearizable: false,
            } => {
                let resp = self.read(&prefix);
                reply(ctx, client, id, resp);
            }
            EtcdRequest::Read {
                prefix,
                linearizable: true,
            } => {
                let c = self.new_ctx();
                self.pending.insert(c, Pending::Read { client, id, prefix });
                self.read_index(ctx.now, c);
            }
            EtcdRequest::MemberList => {
                let raft = &self.raft;
                let mut members: Vec<(MemberId, bool)> = raft
                    .voters()
                    .iter()
                    .map(|&m| (m, false))
                    .chain(raft.learners().iter().map(|&m| (m, true)))
                    .collect();
                crate::kernel::sort::sort(&mut members);
                reply(ctx, client, id, EtcdResponse::Members(members));
            }
            EtcdRequest::Status => {
                let raft = &self.raft;
                let status = MemberStatus {
                    leader: raft.leader().map(member_host),
                    term: raft.term(),
                    commit_index: raft.commit_index(),
                    applied_index: raft.applied_index(),
                    learner: raft.learners().contains(&raft.id()),
                };
                reply(ctx, client, id, EtcdResponse::Status(status));
            }
            EtcdRequest::Watch { prefix } => {
                if self.watches_cancelled() {
                    reply(ctx, client, id, EtcdResponse::Failed(EtcdError::NoLeader));
                    return;
                }
                let c = self.new_ctx();
                self.pending
                    .insert(c, Pending::Watch { client, id, prefix });
                self.read_index(ctx.now, c);
            }
        }
    }

    /// A clean stop begins: a leader hands its leadership to the most up-to-date voter first
    /// (etcd's `TryTransferLeadershipOnShutdown`). Returns whether it was leading and did.
    pub fn hand_over<P: From<Msg<V>>, T>(&mut self, ctx: &mut Ctx<P, T>) -> bool {
        let handing = !self.removed && self.raft.transfer_leadership().is_some();
        self.drain(ctx);
        handing
    }

    /// A peer's link carried something at `now`: up since now if it had been broken.
    fn heard_from(&mut self, peer: MemberId, now: SimTime) {
        let (link, _) = self.links.get_or_insert_with(peer, || Link {
            since: now,
            last: now,
        });
        if now.saturating_sub(link.last) > LINK_TIMEOUT {
            link.since = now;
        }
        link.last = now;
    }

    /// How long the link to `peer` has been up without a break (zero if it is down).
    pub fn connected_for(&self, peer: MemberId, now: SimTime) -> Duration {
        (self.links.get(&peer))
            .filter(|l| now.saturating_sub(l.last) <= LINK_TIMEOUT)
            .map_or(Duration::ZERO, |l| now.saturating_sub(l.since))
    }

    /// `--strict-reconfig-check` of an add, as etcd 3.5.30 / 3.6.11 check it
    /// (`isConnectedToQuorumAfterAddingNewMemberSince`, for learners too) on the member the
    /// request reaches, before anything is proposed: its links to a quorum of the cluster with
    /// one voter more have been up for 5 s, the new one counted as unavailable ("unhealthy
    /// cluster", at once, with or without a leader). A one-member cluster may always grow.
    pub fn may_add_member(&self, now: SimTime) -> Result<(), &'static str> {
        let me = self.raft.id();
        let voters = self.raft.voters();
        let connected = (voters.iter())
            .filter(|&&v| v == me || self.connected_for(v, now) >= HEALTHY_FOR)
            .count();
        if voters.len() > 1 && connected < quorum(voters.len() + 1) {
            return Err("unhealthy cluster");
        }
        Ok(())
    }

    /// Proposes a membership change (the operator's `etcdctl member add/remove/promote`).
    /// Refused at once, as etcd does, when this member is not the leader, when a change is
    /// already pending, for an add when the leader's links to a quorum of the cluster grown by
    /// one voter have not been up for the last 5 s (`--strict-reconfig-check`: "unhealthy
    /// cluster"; the links' age, not the leadership's), and for a promotion when the learner has
    /// not caught up.
    pub fn propose_member_change(
        &mut self,
        cc: ConfChange,
        now: SimTime,
    ) -> Result<(), &'static str> {
        if self.removed {
            return Err("member not serving");
        }
        if self.raft.role() != Role::Leader {
            return Err("no leader");
        }
        let raft = &self.raft;
        let me = |id| raft.voters().contains(&id) || raft.learners().contains(&id);
        // A member's address is its host's: a host with a member in the configuration has its peer URL taken.
        let host_taken = |id| {
            (raft.voters().iter().chain(raft.learners()))
                .any(|&m| member_host(m) == member_host(id))
        };
        match cc {
            ConfChange::AddVoter(id) | ConfChange::AddLearner(id) if me(id) => {
                return Err("member ID already exist");
            }
            ConfChange::AddVoter(id) | ConfChange::AddLearner(id) if host_taken(id) => {
                return Err("Peer URLs already exists");
            }
            ConfChange::PromoteLearner(id) if !self.raft.learners().contains(&id) => {
                return Err("can only promote a learner member");
            }
            ConfChange::Remove(id) if !me(id) => return Err("member not found"),
            _ => {}
        }
        if let ConfChange::AddVoter(_) | ConfChange::AddLearner(_) = cc {
            self.may_add_member(now)?;
        }
        if let ConfChange::PromoteLearner(id) = cc {
            // etcd's `isLearnerReady`: the learner holds 90 % of what the leader holds.
            let learner = self.raft.match_of(id).unwrap_or(0) as f64;
            if learner < 0.9 * self.raft.last_index() as f64 {
                return Err("can only promote a learner member which is in sync with leader");
            }
        }
        if self.raft.propose_conf_change(cc) {
            Ok(())
        } else {
            Err("another membership change is in progress")
        }
    }

    fn read_index(&mut self, now: SimTime, c: u64) {
        self.unconfirmed.push(Unconfirmed {
            ctx: c,
            since: now,
            sent: now,
        });
        self.raft.read_index(c);
    }

    /// The reads still unconfirmed: sent again every 500 ms (or now, at the first commit of a new
    /// term), answered "request timed out" after 5 s + 2 × election timeout, as etcd does.
    fn chase_reads<P: From<Msg<V>>, T>(&mut self, ctx: &mut Ctx<P, T>, new_term: bool) {
        if self.unconfirmed.is_empty() {
            return;
        }
        let timeout = self.request_timeout();
        let now = ctx.now;
        let mut expired = Vec::new();
        let mut resend = Vec::new();
        self.unconfirmed.retain_mut(|r| {
            if now >= r.since + timeout {
                expired.push(r.ctx);
                return false;
            }
            if new_term || now >= r.sent + READ_INDEX_RETRY {
                r.sent = now;
                resend.push(r.ctx);
            }
            true
        });
        for c in resend {
            self.raft.read_index(c);
        }
        for c in expired {
            if let Some(Pending::Read { client, id, .. } | Pending::Watch { client, id, .. }) =
                self.pending.remove(c)
            {
                reply(ctx, client, id, EtcdResponse::Failed(EtcdError::Timeout));
            }
        }
    }

    /// etcd's request timeout: 5 s + 2 × election timeout (7 s with the defaults).
    fn request_timeout(&self) -> Duration {
        Duration::from_secs(5) + self.cfg.election_timeout + self.cfg.election_timeout
    }

    /// The writes past their request timeout, held or proposed, are answered "request timed out".
    fn expire_writes<P: From<Msg<V>>, T>(&mut self, ctx: &mut Ctx<P, T>) {
        while let Some(&(at, c)) = self.write_deadlines.front() {
            if at > ctx.now {
                break;
            }
            self.write_deadlines.pop_front();
            if let Some(Pending::Write { client, id }) = self.pending.remove(c) {
                self.held.retain(|(h, _)| *h != c);
                reply(ctx, client, id, EtcdResponse::Failed(EtcdError::Timeout));
            }
        }
    }

    fn new_ctx(&mut self) -> u64 {
        self.next_ctx += 1;
        ((self.host as u64) << 40) | self.next_ctx
    }

    fn read(&self, prefix: &str) -> EtcdResponse<V> {
        let kvs = self
            .kv
            .range_prefix(prefix)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        EtcdResponse::Read {
            revision: self.kv.revision(),
            kvs,
        }
    }

    /// Hands Raft's outputs to the world: messages, applied entries, read states, events.
    fn drain<P: From<Msg<V>>, T>(&mut self, ctx: &mut Ctx<P, T>) {
        if !self.held.is_empty() && self.raft.leader().is_some() {
            for (c, cmd) in std::mem::take(&mut self.held) {
                self.raft.propose(cmd, c);
            }
        }
        self.send_messages(ctx);
        if let Some(meta) = self.raft.take_restored() {
            self.restore(ctx, meta);
        }
        let new_term = self.apply_committed(ctx);
        if self.raft.applied_index() >= self.compacted_at + SNAPSHOT_COUNT {
            self.compacted_at = self.raft.applied_index();
            self.raft.compact(SNAPSHOT_CATCH_UP_ENTRIES);
        }
        for rs in self.raft.take_read_states() {
            // Confirmed mostly in the order they were asked.
            if let Some(i) = self.unconfirmed.iter().position(|r| r.ctx == rs.ctx) {
                self.unconfirmed.remove(i);
            }
            self.reads_waiting_apply.push((rs.index, rs.ctx));
        }
        if new_term {
            self.chase_reads(ctx, true);
        }
        self.serve_ready_reads(ctx);
        self.report_raft_events(ctx);
    }

    /// Raft's messages to the peers.
    fn send_messages<P: From<Msg<V>>, T>(&mut self, ctx: &mut Ctx<P, T>) {
        let (cluster, applied) = (self.cluster, self.raft.applied_index());
        for msg in self.raft.drain_messages() {
            let to = Addr {
                host: member_host(msg.to),
                port: Port::ETCD,
            };
            // A snapshot goes with the store as of now: Raft took it at the applied index, and
            // the entries committed since are applied below, after the messages.
            let payload = match &msg.kind {
                raft::MsgKind::Snapshot { snapshot } if snapshot.index == applied => {
                    Msg::RaftSnapshot {
                        cluster,
                        msg: Box::new(msg),
                        store: Arc::new(self.kv.clone()),
                    }
                }
                _ => Msg::Raft { cluster, msg },
            };
            ctx.send(Port::ETCD, to, payload);
        }
    }

    /// The entries committed since the last drain, applied to the store: writes answered,
    /// watchers sent the changes, membership noted. Whether the first entry of a new term
    /// (after the first) was applied.
    fn apply_committed<P: From<Msg<V>>, T>(&mut self, ctx: &mut Ctx<P, T>) -> bool {
        // Changes applied together go to each watcher as one batch, as etcd's watch stream
        // sends what it has.
        let me = self.raft.id();
        let committed = self.raft.take_committed();
        let mut changes = Vec::with_capacity(if self.watchers.is_empty() {
            0
        } else {
            committed.len()
        });
        let mut new_term = false;
        for entry in committed {
            ctx.obs
                .etcd_applied(ctx.now, self.host, self.cluster, entry.index, entry.term);
            if entry.term > self.applied_term {
                new_term = self.applied_term > 0;
                self.applied_term = entry.term;
            }
            if let EntryData::Normal(cmd) = &entry.data {
                let (result, kv) = self.kv.apply(&cmd.op);
                if let (KvResult::Ok { revision }, false) = (&result, self.watchers.is_empty()) {
                    changes.push(WatchEvent {
                        key: cmd.op.key().clone(),
                        kv,
                        revision: *revision,
                    });
                }
                if cmd.origin == self.host {
                    if let Some(Pending::Write { client, id }) = self.pending.remove(cmd.ctx) {
                        reply(ctx, client, id, EtcdResponse::Written(result));
                    }
                }
            }
            match entry.data {
                EntryData::Conf(ConfChange::Remove(m)) if m == me => {
                    self.removed = true;
                }
                EntryData::Conf(ConfChange::Remove(m)) => {
                    self.removed_peers.insert(m);
                }
                // Ids are never reused, except by a forced new cluster's survivor adding itself back.
                EntryData::Conf(ConfChange::AddVoter(m) | ConfChange::AddLearner(m)) => {
                    self.removed_peers.remove(&m);
                }
                _ => {}
            }
        }
        if !changes.is_empty() {
            self.notify_watchers(ctx, changes);
        }
        new_term
    }

    /// Reads (and watches' first ranges) whose ReadIndex the store has reached, answered.
    fn serve_ready_reads<P: From<Msg<V>>, T>(&mut self, ctx: &mut Ctx<P, T>) {
        let applied = self.raft.applied_index();
        let mut ready = Vec::new(); // allocates only when a read is ready
        self.reads_waiting_apply.retain(|&(i, c)| {
            if i <= applied {
                ready.push(c);
            }
            i > applied
        });
        for c in ready {
            match self.pending.remove(c) {
                Some(Pending::Read { client, id, prefix }) => {
                    let resp = self.read(&prefix);
                    reply(ctx, client, id, resp);
                }
                Some(Pending::Watch { client, id, prefix }) => {
                    // Registered at the same applied index the range is read at: no change is missed.
                    let EtcdResponse::Read { revision, kvs } = self.read(&prefix) else {
                        unreachable!()
                    };
                    reply(
                        ctx,
                        client,
                        id,
                        EtcdResponse::WatchStarted { revision, kvs },
                    );
                    self.watchers.push(Watcher { client, id, prefix });
                }
                _ => {}
            }
        }
    }

    /// What Raft reports: proposals dropped (their writes fail), leadership won and lost.
    fn report_raft_events<P: From<Msg<V>>, T>(&mut self, ctx: &mut Ctx<P, T>) {
        for ev in self.raft.take_events() {
            match ev {
                RaftEvent::ProposalDropped { ctx: c } => {
                    if let Some(Pending::Write { client, id }) = self.pending.remove(c) {
                        reply(ctx, client, id, EtcdResponse::Failed(EtcdError::NoLeader));
                    }
                }
                RaftEvent::BecameLeader { term } => {
                    ctx.obs.etcd_leader(ctx.now, self.host, self.cluster, term)
                }
                RaftEvent::SteppedDown { term, reason } => {
                    let why = match reason {
                        StepDownReason::CheckQuorum => {
                            "it could not reach a majority (CheckQuorum)"
                        }
                        StepDownReason::HigherTerm { .. } => "it saw a higher term",
                        StepDownReason::RemovedFromConfig => "it was removed from the cluster",
                        StepDownReason::HandedOver { to } => {
                            let text = format!(
                                "it is stopping cleanly and handed its leadership to {} first",
                                ctx.obs.name(member_host(to))
                            );
                            ctx.obs.etcd_stepped_down(ctx.now, self.host, term, &text);
                            continue;
                        }
                    };
                    ctx.obs.etcd_stepped_down(ctx.now, self.host, term, why);
                }
                _ => {}
            }
        }
    }
}

impl<V: Clone + std::fmt::Debug> EtcdMember<V> {
    /// The leader's snapshot replaced our log: take the store that came with it. Watches
    /// cannot go on from a compacted revision; their clients re-list.
    fn restore<P: From<Msg<V>>, T>(&mut self, ctx: &mut Ctx<P, T>, meta: raft::SnapshotMeta) {
        let Some(kv) = self.incoming.take() else {
            return;
        };
        self.kv = Arc::unwrap_or_clone(kv);
        self.compacted_at = meta.index;
        self.cancel_watches(ctx);
        ctx.obs
            .etcd_snapshot_installed(ctx.now, self.host, meta.index);
    }

    fn notify_watchers<P: From<Msg<V>>, T>(
        &self,
        ctx: &mut Ctx<P, T>,
        changes: Vec<WatchEvent<V>>,
    ) {
        let mut changes = Some(changes);
        for (i, w) in self.watchers.iter().enumerate() {
            let Some(all) = changes.as_ref() else { break };
            let wanted = |e: &WatchEvent<V>| e.key.starts_with(&w.prefix);
            // The last watcher takes the batch itself when it wants all of it (the usual case:
            // one apiserver watching everything), instead of a copy.
            let events: Vec<WatchEvent<V>> =
                if i + 1 == self.watchers.len() && all.iter().all(wanted) {
                    changes.take().unwrap_or_default()
                } else {
                    all.iter().filter(|e| wanted(e)).cloned().collect()
                };
            if !events.is_empty() {
                let payload = Msg::Watch { id: w.id, events };
                ctx.send(Port::ETCD, w.client, payload);
            }
        }
    }
}

fn reply<V, P: From<Msg<V>>, T>(ctx: &mut Ctx<P, T>, client: Addr, id: u64, resp: EtcdResponse<V>) {
    ctx.send(Port::ETCD, client, Msg::Response { id, resp });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etcd::kv::{KvOp, KvResult};
    use crate::etcd::observe::Observe;
    use crate::kernel::process::Effect;
    use crate::kernel::time::SimTime;
    use std::collections::VecDeque;

    type Msg = super::Msg<String>;
    type EtcdRequest = super::EtcdRequest<String>;
    type EtcdResponse = super::EtcdResponse<String>;

    fn put(key: &str, value: &str) -> KvOp<String> {
        KvOp::Put {
            key: key.into(),
            value: value.to_string(),
        }
    }

    /// The members' reports, unchecked: these tests look at what clients get.
    struct Quiet;

    impl Observe for Quiet {
        fn name(&self, _: HostId) -> &str {
            "member"
        }
        fn etcd_leader(&mut self, _: SimTime, _: HostId, _: u64, _: u64) {}
        fn etcd_stepped_down(&mut self, _: SimTime, _: HostId, _: u64, _: &str) {}
        fn etcd_applied(&mut self, _: SimTime, _: HostId, _: u64, _: u64, _: u64) {}
        fn etcd_snapshot_installed(&mut self, _: SimTime, _: HostId, _: u64) {}
        fn etcd_removed(&mut self, _: SimTime, _: HostId, _: HostId) {}
        fn etcd_probe_write(&mut self, _: bool) {}
    }

    const CLIENT: Addr = Addr {
        host: 9,
        port: Port::ETCD_PROBE,
    };

    /// Three members wired by instant delivery; `cut` members cannot talk to their peers.
    struct Cluster {
        members: Vec<EtcdMember<String>>,
        obs: Quiet,
        now: SimTime,
        cut: Vec<HostId>,
        replies: Vec<(u64, EtcdResponse)>,
    }

    impl Cluster {
        fn new() -> Self {
            let cfg = EtcdConfig {
                heartbeat_interval: Duration::from_millis(100),
                election_timeout: Duration::from_millis(1000),
                pre_vote: true,
            };
            let members = (0..3)
                .map(|h| {
                    EtcdMember::bootstrap(h, &[0, 1, 2], cfg, Rng::new(7).fork(&h.to_string()))
                })
                .collect();
            Cluster {
                members,
                obs: Quiet,
                now: SimTime::ZERO,
                cut: vec![],
                replies: vec![],
            }
        }

        fn route(&mut self, from: HostId, effects: impl IntoIterator<Item = Effect<Msg, Timer>>) {
            let mut queue: Vec<(HostId, Effect<Msg, Timer>)> =
                effects.into_iter().map(|e| (from, e)).collect();
            while let Some((from, e)) = queue.pop() {
                let Effect::Send { to, payload, .. } = e else {
                    continue;
                };
                // The cut is between members; the client reaches every member.
                let peer_to_peer = from != CLIENT.host && to != CLIENT;
                if peer_to_peer && (self.cut.contains(&from) || self.cut.contains(&to.host)) {
                    continue;
                }
                if to == CLIENT {
                    if let Msg::Response { id, resp } = payload {
                        self.replies.push((id, resp));
                    }
                    continue;
                }
                let sender = if from == CLIENT.host {
                    CLIENT
                } else {
                    Addr {
                        host: from,
                        port: Port::ETCD,
                    }
                };
                let mut out = VecDeque::new();
                let mut ctx = Ctx {
                    now: self.now,
                    host: to.host,
                    effects: &mut out,
                    obs: &mut self.obs,
                };
                self.members[to.host as usize].on_message(&mut ctx, sender, payload);
                queue.extend(out.into_iter().map(|e| (to.host, e)));
            }
        }

        fn tick_all(&mut self, times: usize) {
            for _ in 0..times {
                self.now += Duration::from_millis(100);
                for h in 0..3 {
                    let mut out = VecDeque::new();
                    let mut ctx = Ctx {
                        now: self.now,
                        host: h,
                        effects: &mut out,
                        obs: &mut self.obs,
                    };
                    self.members[h as usize].on_tick(&mut ctx);
                    self.route(h, out);
                }
            }
        }

        fn request(&mut self, to: HostId, id: u64, req: EtcdRequest) {
            self.route(
                CLIENT.host,
                vec![Effect::Send {
                    from: Port::ETCD_PROBE,
                    to: Addr {
                        host: to,
                        port: Port::ETCD,
                    },
                    payload: Msg::Request { id, req },
                }],
            );
        }

        fn leader(&self) -> HostId {
            self.members
                .iter()
                .find(|m| m.raft.role() == Role::Leader)
                .map(|m| m.host)
                .expect("a leader")
        }
    }

    fn read(linearizable: bool) -> EtcdRequest {
        EtcdRequest::Read {
            prefix: "/k".into(),
            linearizable,
        }
    }

    #[test]
    fn writes_commit_and_reads_see_them() {
        let mut c = Cluster::new();
        c.tick_all(30);
        let follower = (c.leader() + 1) % 3;
        c.request(follower, 1, EtcdRequest::Write(put("/k", "v1")));
        c.tick_all(2);
        assert!(
            matches!(
                c.replies[..],
                [(1, EtcdResponse::Written(KvResult::Ok { .. }))]
            ),
            "{:?}",
            c.replies
        );
        c.request(follower, 2, read(true));
        c.tick_all(2);
        let EtcdResponse::Read { kvs, .. } = &c.replies[1].1 else {
            panic!("{:?}", c.replies)
        };
        assert_eq!(kvs[0].1.value, "v1");
    }

    /// `--strict-reconfig-check` counts the age of the peer links, which outlive elections: a
    /// member may be added once the leader's links to a quorum of the grown cluster have been
    /// up for 5 s, by a new leader at once, and a voter whose link broke counts 5 s after it
    /// is back.
    #[test]
    fn the_member_add_window_counts_the_age_of_the_peer_links() {
        let add = ConfChange::AddLearner(member_id(3, 0));
        let mut c = Cluster::new();
        c.tick_all(30);
        let l = c.leader() as usize;
        assert_eq!(
            c.members[l].propose_member_change(add, c.now),
            Err("unhealthy cluster")
        );
        c.tick_all(30);
        // Handed over: the new leader's links are as old as the cluster.
        let mut out = VecDeque::new();
        let mut ctx = Ctx {
            now: c.now,
            host: l as HostId,
            effects: &mut out,
            obs: &mut c.obs,
        };
        assert!(c.members[l].hand_over(&mut ctx));
        c.route(l as HostId, out);
        c.tick_all(2);
        let next = c.leader() as usize;
        assert_ne!(next, l);
        let f = (0..3).find(|&h| h != next && h != l).unwrap();
        assert!(c.members[next].connected_for(f as MemberId, c.now) >= Duration::from_secs(5));
        // A follower cut off for 6 s: its link is young again when it is back.
        c.cut = vec![f as HostId];
        c.tick_all(60);
        c.cut = vec![];
        c.tick_all(10);
        let young = c.members[next].connected_for(f as MemberId, c.now);
        assert!(young < Duration::from_secs(2), "{young:?}");
        assert_eq!(
            c.members[next].propose_member_change(add, c.now),
            Err("unhealthy cluster")
        );
        // 5 s after the link's first heartbeat back (within 5/3 s of the heal).
        c.tick_all(60);
        assert_eq!(c.members[next].propose_member_change(add, c.now), Ok(()));
    }

    /// etcd-raft reads no proposal while it knows no leader: a write is held until one is known
    /// (during the first election here), and one that finds none is answered "request timed
    /// out" at etcd's request timeout (5 s + 2 × election timeout = 7 s), not refused at once.
    #[test]
    fn a_write_waits_for_a_leader_or_its_request_timeout() {
        let mut c = Cluster::new();
        c.request(0, 1, EtcdRequest::Write(put("/k", "early")));
        assert!(c.replies.is_empty(), "{:?}", c.replies);
        c.tick_all(30);
        assert!(
            matches!(
                c.replies[..],
                [(1, EtcdResponse::Written(KvResult::Ok { .. }))]
            ),
            "{:?}",
            c.replies
        );
        let lonely = (c.leader() + 1) % 3;
        c.cut = vec![lonely];
        c.tick_all(30);
        assert!(c.members[lonely as usize].raft.leader().is_none());
        c.request(lonely, 2, EtcdRequest::Write(put("/k", "late")));
        c.tick_all(69);
        assert!(c.replies.iter().all(|(id, _)| *id != 2), "{:?}", c.replies);
        c.tick_all(2);
        assert_eq!(
            c.replies.last(),
            Some(&(2, EtcdResponse::Failed(EtcdError::Timeout)))
        );
    }

    #[test]
    fn a_member_in_a_minority_serves_only_serializable_reads() {
        let mut c = Cluster::new();
        c.tick_all(30);
        c.request(c.leader(), 1, EtcdRequest::Write(put("/k", "old")));
        c.tick_all(2);
        let lonely = (c.leader() + 1) % 3;
        c.cut = vec![lonely];
        c.tick_all(1);
        // The majority goes on writing.
        let majority = (lonely + 1) % 3;
        c.request(majority, 2, EtcdRequest::Write(put("/k", "new")));
        c.tick_all(30);
        // The cut-off member does not answer a linearizable read with data: it keeps asking for a
        // ReadIndex and, after 5 s + 2 × election timeout (7 s here), answers "request timed out"...
        c.request(lonely, 3, read(true));
        c.tick_all(68);
        assert!(c.replies.iter().all(|(id, _)| *id != 3), "{:?}", c.replies);
        c.tick_all(3);
        assert!(
            c.replies
                .iter()
                .any(|(id, r)| *id == 3 && *r == EtcdResponse::Failed(EtcdError::Timeout)),
            "{:?}",
            c.replies
        );
        // ...but answers a serializable one at once, from its stale local store.
        c.request(lonely, 4, read(false));
        let (id, EtcdResponse::Read { kvs, .. }) = c.replies.last().unwrap() else {
            panic!("{:?}", c.replies)
        };
        assert_eq!(*id, 4);
        assert_eq!(kvs[0].1.value, "old");
        // The majority's linearizable read sees the new value.
        c.request(majority, 5, read(true));
        c.tick_all(2);
        let (id, EtcdResponse::Read { kvs, .. }) = c.replies.last().unwrap() else {
            panic!("{:?}", c.replies)
        };
        assert_eq!((*id, kvs[0].1.value.as_str()), (5, "new"));
    }

    #[test]
    fn a_read_during_an_election_is_answered_late_not_failed() {
        let mut c = Cluster::new();
        c.tick_all(30);
        c.request(c.leader(), 1, EtcdRequest::Write(put("/k", "v")));
        c.tick_all(2);
        // The leader is cut off: the followers elect a new one within 1–2 s.
        let old = c.leader();
        c.cut = vec![old];
        let follower = (old + 1) % 3;
        c.request(follower, 2, read(true));
        c.tick_all(40);
        let answer = c.replies.iter().find(|(id, _)| *id == 2).map(|(_, r)| r);
        let Some(EtcdResponse::Read { kvs, .. }) = answer else {
            panic!("the read is answered once a new leader confirms it: {answer:?}")
        };
        assert_eq!(kvs[0].1.value, "v");
    }
}
