//! The Kubernetes layer on top of the simulated etcd: API objects, the apiserver
//! and its clients, leader election, the load balancer in front of the apiservers,
//! controllers, scheduler, kubelet, kube-proxy, CoreDNS and users' clients. Each is a
//! process over the kernel; they talk to etcd only through its wire types ([`wire`]).

pub mod api;
pub mod apiserver;
pub mod client;
pub mod controllers;
pub mod events;
pub mod eviction;
pub mod informer;
pub mod keepalived;
pub mod kubelet;
pub mod lb;
pub mod leader;
pub mod leading;
pub mod node_lease;
pub mod objects;
pub mod observe;
pub mod operator;
pub mod probe;
pub mod proxy;
pub mod scheduler;
pub mod self_timed;
pub mod store;
pub mod traffic;
pub mod vip;
pub mod wire;

pub use observe::Observe;
