//! Users' traffic, as the scenario format defines it: a `client` host sends a request
//! per Service every 100 ms. It resolves the Service name through cluster DNS (answers
//! cached for the record TTL; a failed lookup is a failed request), sends to a NodePort
//! of a worker it can reach, and that worker's kube-proxy picks one of the endpoints in
//! its current rules; the request succeeds only if that pod's container runs and its
//! node is reachable from the worker.
//!
//! The path is evaluated when the request is sent (latency is a millisecond, far below
//! anything that changes the outcome); everything it consults is a process's own state:
//! the kube-proxy's rules, the CoreDNS pod's cache, the kubelet's containers.

use crate::rng::Rng;
use crate::time::{Duration, SimTime};
use std::collections::BTreeMap;

pub const REQUEST_PERIOD: Duration = Duration::from_millis(100);

#[derive(Clone)]
pub struct Client {
    pub rng: Rng,
    /// DNS answers cached until, per Service.
    pub dns_cache: BTreeMap<String, SimTime>,
}

/// Successes and attempts per Service per report second.
#[derive(Clone, Default)]
pub struct Traffic {
    pub services: Vec<String>,
    pub per_second: Vec<Vec<(u32, u32)>>,
}

impl Traffic {
    pub fn new(services: Vec<String>) -> Self {
        let n = services.len();
        Traffic {
            services,
            per_second: vec![Vec::new(); n],
        }
    }

    pub fn record(&mut self, service: usize, second: usize, ok: bool) {
        let v = &mut self.per_second[service];
        if v.len() <= second {
            v.resize(second + 1, (0, 0));
        }
        v[second].0 += ok as u32;
        v[second].1 += 1;
    }

    /// Fraction of successful requests over the run (1.0 with no request).
    pub fn availability(&self, service: usize) -> f64 {
        let (ok, total) = self.per_second[service]
            .iter()
            .fold((0u64, 0u64), |(a, b), &(o, t)| (a + o as u64, b + t as u64));
        if total == 0 {
            1.0
        } else {
            ok as f64 / total as f64
        }
    }
}
