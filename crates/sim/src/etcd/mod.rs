//! etcd: a Raft-replicated key-value store with revisions.

pub mod kv;
pub mod member;
pub mod probe;
pub mod raft;
