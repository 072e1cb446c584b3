//! What the page starts from: the scenario of its link (decoded, checked against the page's
//! memory), or the default one with the link's problem in words.

use crate::{catalog, codec, fmt, run};
use sim::scenario::Scenario;

/// What the page starts from: the link's scenario, or the default one and the link's problem.
pub struct Boot {
    pub scenario: Scenario,
    /// The link's `s=` when the page shows that scenario (its encoding, to keep).
    pub encoded: Option<String>,
    /// The link's `c=`: a scenario to show beside it, and its encoding.
    pub compare: Option<(Scenario, String)>,
    pub t: f64,
    pub problem: Option<String>,
    pub embed: bool,
}

/// What the page starts from: the link's scenario (decoded: it may take the browser a moment to
/// decompress), or the default.
pub async fn boot() -> Boot {
    let hash = gloo_utils::window().location().hash().unwrap_or_default();
    let link = codec::decode_fragment(&hash).await;
    let fallback = if link.scenario.is_none() {
        " Showing the default scenario instead."
    } else {
        ""
    };
    let mut problem = link.problem.map(|p| format!("{p}{fallback}"));
    let embed = link.embed;
    let too_large = |s: &Scenario| run::fits_browser(s).err();
    let scenario = match link.scenario {
        Some(s) => match too_large(&s) {
            Some(e) => {
                problem = Some(format!("This link's scenario is too large for the page: {e}. Showing the default scenario instead."));
                None
            }
            None => Some(s),
        },
        None => None,
    };
    let compare_encoded = link.compare_encoded.unwrap_or_default();
    let compare = link
        .compare
        .filter(|c| {
            let e = too_large(c);
            if let Some(e) = &e {
                problem.get_or_insert_with(|| {
                    format!("The scenario to compare with is too large for the page: {e}.")
                });
            }
            e.is_none()
        })
        .map(|c| (c, compare_encoded));
    match scenario {
        Some(s) => {
            let end = s.duration.as_secs_f64();
            let t = link.t.unwrap_or(0.0);
            let problem = problem.or_else(|| {
                (t > end).then(|| {
                    format!(
                        "This link's time (t={}) is past the end of its run ({}): showing the end.",
                        fmt::Short(t, 3),
                        fmt::fmt_t(end)
                    )
                })
            });
            Boot {
                scenario: s,
                encoded: link.encoded,
                compare,
                t: t.min(end),
                problem,
                embed,
            }
        }
        None => Boot {
            scenario: catalog::default_scenario(),
            encoded: None,
            compare: None,
            t: 0.0,
            problem,
            embed,
        },
    }
}
