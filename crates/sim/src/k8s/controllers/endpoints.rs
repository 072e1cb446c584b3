//! The EndpointSlice controller: each Service's slice lists the ready pods of its workload.

use super::Controllers;
use crate::k8s::api::ApiRequest;
use crate::k8s::objects::{slice_key, Endpoint, EndpointSlice, Object, Pod};
use crate::k8s::wire::Ctx;
use crate::kernel::members::MemberMap;
use std::sync::Arc;

impl Controllers {
    pub(super) fn sync_endpoints(&mut self, ctx: &mut Ctx) {
        let services: Vec<String> = self
            .workloads
            .items()
            .values()
            .filter_map(|kv| kv.value.as_workload())
            .filter(|w| w.service)
            .map(|w| w.name.clone())
            .collect();
        let pods = &self.pods;
        // The serving pods of every workload, in one pass over the pods (in key order),
        // made only if some Service's endpoints or slice changed.
        let serving = || {
            let mut serving: MemberMap<&str, Vec<&Pod>> = MemberMap::default();
            for p in pods.items().values().filter_map(|kv| kv.value.as_pod()) {
                if p.endpoint_node().is_some() {
                    let (ps, _) = serving.get_or_insert_with(p.workload.as_str(), Vec::new);
                    ps.push(p);
                }
            }
            serving
        };
        let mut serving_now = None;
        let mut writes = Vec::new();
        for service in services {
            let key = slice_key(&service);
            let slice = self.slices.items().get(&key);
            let changes = pods
                .endpoint_changes(&service)
                .expect("the pod informer counts");
            let checked = slice.map(|kv| (changes, kv.mod_revision));
            if checked.is_some() && self.slices_checked.get(&service) == checked.as_ref() {
                continue;
            }
            let serving = serving_now.get_or_insert_with(serving);
            let ready = (serving.get(service.as_str())).map_or(&[][..], Vec::as_slice);
            let current = slice
                .and_then(|kv| kv.value.as_endpoint_slice())
                .map(|s| &s.endpoints);
            // Compare before building: a slice is rewritten only when its endpoints changed.
            let same = current.is_some_and(|cur| {
                cur.len() == ready.len()
                    && cur
                        .iter()
                        .zip(ready)
                        .all(|(e, p)| e.pod == p.name && Some(&e.node) == p.node.as_ref())
            });
            if same {
                if let Some(checked) = checked {
                    self.slices_checked.insert(service, checked);
                }
            } else {
                let endpoints = ready
                    .iter()
                    .map(|p| Endpoint {
                        pod: p.name.clone(),
                        node: p.node.clone().unwrap_or_default(),
                    })
                    .collect();
                let slice = EndpointSlice {
                    service: service.clone(),
                    endpoints,
                };
                writes.push(ApiRequest::Put {
                    key: key.into(),
                    value: Arc::new(Object::EndpointSlice(slice)),
                });
            }
        }
        for w in writes {
            self.write(ctx, w);
        }
    }
}
