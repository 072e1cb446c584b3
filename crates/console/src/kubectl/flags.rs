//! kubectl's command line: the flags this console understands, in kubectl's forms (`-n ns`,
//! `--namespace=ns`, `-owide`), the words left once they are taken, and kubectl's errors for a
//! flag it does not know or a flag without its value.

use super::{error, unsupported_output};
use crate::words::clip;
use crate::Output;
use sim::kernel::net::HostId;
use sim::kernel::process::{Addr, Port};
use sim::world::World;

/// The options kubectl understands here.
#[derive(Debug, Default)]
pub(crate) struct Flags {
    pub(crate) namespace: Option<String>,
    pub(super) all_namespaces: bool,
    pub(super) wide: bool,
    /// `get --raw PATH`.
    pub(super) raw: Option<String>,
    /// `-o json` (true) or `-o yaml` (false).
    pub(super) document: Option<bool>,
    /// `--server`: this apiserver (or balancer) instead of the kubeconfig's.
    pub(super) server: Option<Addr>,
    /// `-l`: a label selector (equality requirements).
    pub(super) selector: Option<String>,
    /// `--field-selector` (events' fields) and `--sort-by` (events' times).
    pub(super) fields: Option<String>,
    pub(super) sort_by: Option<String>,
    /// `--no-headers`: tables without their header line.
    pub(super) no_headers: bool,
    /// `--show-labels`: a LABELS column last.
    pub(super) show_labels: bool,
}

/// Whether `labels` meet a label selector of equality requirements, all of which must hold:
/// `k=v`, `k==v`, `k!=v` (also met without the label), `k` (has it), `!k` (has it not).
pub(super) fn selects<K: AsRef<str>>(selector: &str, labels: &[(K, String)]) -> bool {
    let value = |k: &str| {
        labels
            .iter()
            .find(|(l, _)| l.as_ref() == k)
            .map(|(_, v)| v.as_str())
    };
    selector.split(',').map(str::trim).all(|r| {
        if let Some((k, v)) = r.split_once("!=") {
            value(k.trim()) != Some(v.trim())
        } else if let Some((k, v)) = r.split_once('=') {
            value(k.trim()) == Some(v.trim_start_matches('=').trim())
        } else if let Some(k) = r.strip_prefix('!') {
            value(k.trim()).is_none()
        } else {
            value(r).is_some()
        }
    })
}

/// A flag's value, as `--name=V` or `--name V`.
pub(super) fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter().enumerate().find_map(|(i, a)| {
        if let Some(v) = a.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
            Some(v)
        } else if a == name {
            args.get(i + 1).map(String::as_str)
        } else {
            None
        }
    })
}

/// `TYPE NAME` or `TYPE/NAME`.
pub(super) fn target<'a>(words: &[&'a str]) -> Option<(&'a str, &'a str)> {
    match words {
        [both] => both.split_once('/'),
        [kind, name, ..] => Some((kind, name)),
        [] => None,
    }
}

impl Flags {
    /// The flags of a kubectl command line, and its other words in order. Err: kubectl's error.
    pub(super) fn parse<'a>(
        world: &World,
        from: HostId,
        args: &'a [String],
    ) -> Result<(Flags, Vec<&'a str>), Output> {
        let mut flags = Flags::default();
        let mut words = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "-A" | "--all-namespaces" => flags.all_namespaces = true,
                "--no-headers" | "--no-headers=true" => flags.no_headers = true,
                "--show-labels" | "--show-labels=true" => flags.show_labels = true,
                "-o" | "--output" => match it.next().map(String::as_str) {
                    Some("wide") => flags.wide = true,
                    Some("json") => flags.document = Some(true),
                    Some("yaml") => flags.document = Some(false),
                    Some(other) => return Err(unsupported_output(other)),
                    None => return Err(error("flag needs an argument: 'o' in -o")),
                },
                "-owide" | "--output=wide" => flags.wide = true,
                "-ojson" | "--output=json" => flags.document = Some(true),
                "-oyaml" | "--output=yaml" => flags.document = Some(false),
                "-s" | "--server" => match it.next() {
                    Some(url) => match server(world, from, url) {
                        Ok(addr) => flags.server = Some(addr),
                        Err(e) => return Err(e),
                    },
                    None => return Err(error("flag needs an argument: 's' in -s")),
                },
                s if s.starts_with("--server=") => {
                    match server(world, from, &s["--server=".len()..]) {
                        Ok(addr) => flags.server = Some(addr),
                        Err(e) => return Err(e),
                    }
                }
                "--raw" => match it.next() {
                    Some(path) => flags.raw = Some(path.clone()),
                    None => return Err(error("flag needs an argument: --raw")),
                },
                s if s.starts_with("--raw=") => flags.raw = Some(s["--raw=".len()..].to_string()),
                "-l" | "--selector" => match it.next() {
                    Some(sel) => flags.selector = Some(sel.clone()),
                    None => return Err(error("flag needs an argument: 'l' in -l")),
                },
                s if s.starts_with("--selector=") => {
                    flags.selector = Some(s["--selector=".len()..].to_string())
                }
                "--field-selector" | "--sort-by" => match it.next() {
                    Some(v) if a == "--sort-by" => flags.sort_by = Some(v.clone()),
                    Some(v) => flags.fields = Some(v.clone()),
                    None => return Err(error(&format!("flag needs an argument: {a}"))),
                },
                s if s.starts_with("--field-selector=") => {
                    flags.fields = Some(s["--field-selector=".len()..].to_string())
                }
                s if s.starts_with("--sort-by=") => {
                    flags.sort_by = Some(s["--sort-by=".len()..].to_string())
                }
                s if s.starts_with("-l") && s.len() > 2 => {
                    flags.selector = Some(s[2..].to_string())
                }
                "-n" | "--namespace" => match it.next() {
                    Some(ns) => flags.namespace = Some(ns.clone()),
                    None => return Err(error("flag needs an argument: 'n' in -n")),
                },
                s if s.starts_with("--namespace=") => {
                    flags.namespace = Some(s["--namespace=".len()..].to_string())
                }
                s if s.starts_with("-o") || s.starts_with("--output=") => {
                    return Err(unsupported_output(
                        s.trim_start_matches("--output=").trim_start_matches("-o"),
                    ))
                }
                // Flags of scale and delete: those commands read them from `args`.
                s if s.starts_with("--replicas") || s.starts_with("--grace-period") => {
                    if !s.contains('=') {
                        it.next();
                    }
                }
                "--force" | "--overwrite" | "--overwrite=true" => {}
                // Flags of drain: it reads them from `args`.
                "--ignore-daemonsets" | "--delete-emptydir-data" | "--delete-local-data" => {}
                // Flags of port-forward and proxy (proxy reads its port from `args`).
                "--address" | "--pod-running-timeout" | "-p" | "--port" => {
                    it.next();
                }
                s if s.starts_with("--port=") => {}
                s if s.starts_with('-') => {
                    return Err(error(&format!("unknown flag: {}", clip(s))));
                }
                _ => words.push(a.as_str()),
            }
        }
        Ok((flags, words))
    }
}

/// `--server URL`: the host it names, at the port it serves the API on (the balancer's or an
/// apiserver's); a name no host has fails as kubectl's dial does.
fn server(world: &World, from: HostId, url: &str) -> Result<Addr, Output> {
    let bare = url
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    let name = bare.split(':').next().unwrap_or(bare);
    let Some(host) = crate::host_named(world, from, bare) else {
        return Err(Output::error(
            format!(
                "Unable to connect to the server: dial tcp: lookup {}: no such host\n",
                clip(name)
            ),
            1,
        ));
    };
    let port =
        match world.scenario().hosts[host as usize].has_role(sim::scenario::Role::LoadBalancer) {
            true => Port::LB,
            false => Port::APISERVER,
        };
    Ok(Addr { host, port })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<(Flags, Vec<String>), String> {
        let scenario = include_str!("../../../../web/scenarios/1-only-master-dies.json");
        let world = World::new(sim::scenario::parse(scenario).unwrap());
        let args: Vec<String> = line.split(' ').map(String::from).collect();
        Flags::parse(&world, 0, &args)
            .map(|(f, w)| (f, w.into_iter().map(String::from).collect()))
            .map_err(|out| out.stderr)
    }

    #[test]
    fn flags_are_taken_in_each_of_kubectls_forms_and_the_words_stay_in_order() {
        let (f, words) = parse("get -n kube-system pods -owide -l app=web").unwrap();
        assert_eq!(words, ["get", "pods"]);
        assert_eq!(f.namespace.as_deref(), Some("kube-system"));
        assert!(f.wide);
        assert_eq!(f.selector.as_deref(), Some("app=web"));
        let (f, _) =
            parse("get pods --namespace=default -o yaml --sort-by=.lastTimestamp").unwrap();
        assert_eq!(f.namespace.as_deref(), Some("default"));
        assert_eq!(f.document, Some(false));
        assert_eq!(f.sort_by.as_deref(), Some(".lastTimestamp"));
        let (f, words) = parse("scale deploy/web --replicas 3").unwrap();
        assert_eq!(
            words,
            ["scale", "deploy/web"],
            "scale's own flag and its value are skipped"
        );
        assert!(f.namespace.is_none());
    }

    #[test]
    fn a_flag_kubectl_does_not_know_or_without_its_value_gets_kubectls_error() {
        assert_eq!(
            parse("get pods --bogus").unwrap_err(),
            "error: unknown flag: --bogus\n"
        );
        assert_eq!(
            parse("get pods -n").unwrap_err(),
            "error: flag needs an argument: 'n' in -n\n"
        );
        assert!(parse("get pods -o toml").unwrap_err().contains("\"toml\""));
    }

    #[test]
    fn a_label_selector_holds_when_every_requirement_does() {
        let labels = [("app", "web".to_string()), ("tier", "front".to_string())];
        assert!(selects("app=web", &labels));
        assert!(selects("app==web,tier", &labels));
        assert!(selects("app!=db,!zone", &labels));
        assert!(!selects("app=web,tier=back", &labels));
        assert!(!selects("zone", &labels));
    }
}
