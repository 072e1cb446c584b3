//! etcd: a Raft-replicated key-value store with revisions, as a set of processes over the
//! kernel. It knows nothing of Kubernetes: what it stores is a type parameter it never looks
//! inside, it speaks its own wire types ([`wire`]) and reports through its own [`Observe`].

pub mod kv;
pub mod member;
pub mod observe;
pub mod probe;
pub mod quorum;
pub mod raft;
pub mod wire;

pub use observe::Observe;
pub use wire::Msg;

/// What an etcd process sees while handling one input: the world's payload `P` (into which
/// etcd's [`Msg`] converts) and an observer seen only as [`Observe`].
pub type Ctx<'a, P> = crate::kernel::process::Ctx<'a, P, dyn Observe + 'a>;
