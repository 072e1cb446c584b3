//! The Kubernetes layer on top of the simulated etcd: API objects, the apiserver
//! and its clients, leader election, and the load balancer in front of the apiservers.

pub mod api;
pub mod apiserver;
pub mod client;
pub mod controllers;
pub mod informer;
pub mod kubelet;
pub mod lb;
pub mod leader;
pub mod leading;
pub mod objects;
pub mod operator;
pub mod probe;
pub mod proxy;
pub mod scheduler;
pub mod store;
pub mod traffic;
