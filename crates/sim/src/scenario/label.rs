//! A Node label as `kubectl label` and the `label` / `unlabel` events write it: `key=value` to
//! set, `key` to remove. The key is a qualified name, the value a label value (kubectl checks the
//! value, the apiserver the key). The labels the kubelet, kubeadm and the cloud provider set are
//! refused: the playground derives them from the scenario's hosts (name, zone, roles).

use super::taint::{label_value, qualified_name};

/// The labels that follow from a host here.
pub const DERIVED_LABELS: [&str; 9] = [
    "kubernetes.io/hostname",
    "kubernetes.io/arch",
    "kubernetes.io/os",
    "beta.kubernetes.io/arch",
    "beta.kubernetes.io/os",
    "topology.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/zone",
    "node-role.kubernetes.io/control-plane",
    "node.kubernetes.io/exclude-from-external-load-balancers",
];

/// `key=value` (`set`) or `key`: the key and the value (empty to remove).
pub fn parse_label(text: &str, set: bool) -> Result<(String, String), String> {
    let (key, value) = match (text.split_once('='), set) {
        (Some((k, v)), true) if !v.contains('=') => (k, v),
        (None, false) => (text, ""),
        _ if set => return Err(format!("invalid label spec: {text}")),
        _ => return Err(format!("invalid label key: {text}")),
    };
    label_value(value).map_err(|why| format!("invalid label value: \"{text}\": {why}"))?;
    qualified_name(key).map_err(|why| format!("invalid label key \"{key}\": {why}"))?;
    if DERIVED_LABELS.contains(&key) {
        return Err(format!(
            "{key} is a label this playground derives from the scenario's hosts (their name, zone and roles)"
        ));
    }
    Ok((key.to_string(), value.to_string()))
}
