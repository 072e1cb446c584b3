//! A taint as `kubectl taint` and the `taint` / `untaint` events write it: `key[=value]:Effect`
//! to add, `key[:Effect]` to remove (every effect of the key when none is given). Checked as
//! kubectl's `parseTaint` checks it (a qualified-name key, a label value, the effect), with its
//! words. `PreferNoSchedule` is refused: the scheduler here places by counts and has no score
//! for it to lower. The taints Kubernetes manages itself are named here for the refusals.

/// The effects the playground models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaintEffect {
    NoSchedule,
    NoExecute,
}

/// The taint keys Kubernetes' own components set and clear: the control-plane role, cordon's,
/// and the node lifecycle controller's.
pub const KUBERNETES_TAINTS: [&str; 4] = [
    "node-role.kubernetes.io/control-plane",
    "node.kubernetes.io/unschedulable",
    "node.kubernetes.io/unreachable",
    "node.kubernetes.io/not-ready",
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaintText {
    pub key: String,
    pub value: String,
    pub effect: Option<TaintEffect>,
}

impl TaintText {
    pub fn parse(spec: &str) -> Result<TaintText, String> {
        let invalid = |why: &str| {
            Err(if why.is_empty() {
                format!("invalid taint spec: {spec}")
            } else {
                format!("invalid taint spec: {spec}, {why}")
            })
        };
        let parts: Vec<&str> = spec.split(':').collect();
        let (key_value, effect) = match parts.as_slice() {
            [key] => (*key, None),
            [key_value, effect] => {
                let effect = match *effect {
                    "NoSchedule" => TaintEffect::NoSchedule,
                    "NoExecute" => TaintEffect::NoExecute,
                    "PreferNoSchedule" => {
                        return Err(format!(
                            "the taint {spec}: PreferNoSchedule is not modelled here (the scheduler has no scores for it to lower)"
                        ))
                    }
                    other => {
                        return Err(format!(
                            "invalid taint effect: {other}, unsupported taint effect"
                        ))
                    }
                };
                (*key_value, Some(effect))
            }
            _ => return invalid(""),
        };
        let kv: Vec<&str> = key_value.split('=').collect();
        let (key, value) = match kv.as_slice() {
            [key] => (*key, ""),
            [key, value] if effect.is_some() => (*key, *value),
            _ => return invalid(""),
        };
        if let Err(why) = label_value(value) {
            return invalid(&why);
        }
        if let Err(why) = qualified_name(key) {
            return invalid(&why);
        }
        Ok(TaintText {
            key: key.to_string(),
            value: value.to_string(),
            effect,
        })
    }

    /// One of [`KUBERNETES_TAINTS`].
    pub fn is_kubernetes_own(&self) -> bool {
        KUBERNETES_TAINTS.contains(&self.key.as_str())
    }
}

pub(super) fn name_part(name: &str, what: &str) -> Result<(), String> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    if name.is_empty() {
        return Err(format!("{what} must be non-empty"));
    }
    if name.len() > 63 {
        return Err(format!("{what} must be no more than 63 characters"));
    }
    if !name.chars().all(ok_char) || !alnum(name.chars().next()) || !alnum(name.chars().last()) {
        return Err(format!("{what} must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"));
    }
    Ok(())
}

/// apimachinery's `IsQualifiedName`: an optional DNS subdomain prefix and `/`, then a name.
pub(super) fn qualified_name(key: &str) -> Result<(), String> {
    match key.split_once('/') {
        Some((prefix, name)) => {
            let dns =
                |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.');
            if prefix.is_empty() || prefix.len() > 253 || !prefix.chars().all(dns) {
                return Err("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'".into());
            }
            name_part(name, "name part")
        }
        None => name_part(key, "name part"),
    }
}

/// apimachinery's `IsValidLabelValue`: empty, or a name part.
pub(super) fn label_value(value: &str) -> Result<(), String> {
    if value.is_empty() {
        return Ok(());
    }
    name_part(value, "a valid label")
}
