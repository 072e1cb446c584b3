//! Availability studies: many independent trials of one scenario and its fault processes, each
//! an ordinary run of `horizon` with a seed of its own, summarised as the mean unavailability
//! (of etcd quorum, of API writes, of each Service) with a 95 % confidence interval, and the
//! trials with the most quorum loss, to replay as plain runs.
//!
//! A trial's seed depends only on the study's seed and the trial's number, so a study split in
//! shards (any trial to any machine or thread) gives the same trials; the figures are computed
//! from the trials in number order, so merged shards give exactly the unsharded report.
//!
//! Leaves out: horizons beyond a run's limit (7 days). Years of simulated time need a shortcut
//! through settled stretches that is not built yet.

use crate::kernel::rng::Rng;
use crate::kernel::time::Duration;
use crate::scenario::{Scenario, ScenarioError};
use crate::world::World;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How many of the worst trials a study lists.
pub const WORST: usize = 5;

/// One trial's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trial {
    pub trial: u64,
    pub seed: u64,
    pub etcd_quorum_lost_s: f64,
    /// Fraction of the API write probe's writes that failed (absent without an apiserver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_write_unavailability: Option<f64>,
    /// Per Service, the fraction of the users' requests that failed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, f64>,
}

/// The seed of trial `i` of a study with seed `seed`: the same whatever the sharding.
pub fn trial_seed(seed: u64, i: u64) -> u64 {
    Rng::new(seed).fork(&format!("trial/{i}")).next_u64()
}

/// The scenario a trial runs: `s` with the trial's seed, over the horizon. Its `seed` and
/// `duration` are what `clustersim run FILE --seed SEED --duration D` replays.
pub fn trial_scenario(
    s: &Scenario,
    seed: u64,
    horizon: Duration,
) -> Result<Scenario, ScenarioError> {
    let mut t = s.clone();
    t.seed = seed;
    t.duration = horizon;
    t.validate()?;
    Ok(t)
}

/// Runs trial `i` (the scenario is one [`trial_scenario`] accepted).
pub fn run_trial(s: &Scenario, study_seed: u64, i: u64, horizon: Duration) -> Trial {
    let seed = trial_seed(study_seed, i);
    let mut t = s.clone();
    t.seed = seed;
    t.duration = horizon;
    let mut world = World::new(t);
    world.run_to_end();
    let r = crate::report(&world);
    Trial {
        trial: i,
        seed,
        etcd_quorum_lost_s: r.summary.etcd.quorum_lost_s,
        api_write_unavailability: r.summary.api.map(|a| 1.0 - a.write_availability),
        services: r
            .summary
            .services
            .into_iter()
            .map(|(name, s)| (name, 1.0 - s.availability))
            .collect(),
    }
}

/// A mean and its 95 % confidence interval over the trials (Student's t, clamped to [0, 1]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub mean: f64,
    pub ci95: [f64; 2],
}

impl Estimate {
    pub fn of(xs: &[f64]) -> Estimate {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n.max(1.0);
        let var = if xs.len() > 1 {
            xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        let half = t95(xs.len().saturating_sub(1)) * (var / n.max(1.0)).sqrt();
        Estimate {
            mean,
            ci95: [(mean - half).max(0.0), (mean + half).min(1.0)],
        }
    }

    pub fn contains(&self, x: f64) -> bool {
        self.ci95[0] <= x && x <= self.ci95[1]
    }
}

/// The two-sided 95 % quantile of Student's t with `df` degrees of freedom: a study of a few
/// trials gets the wider interval it deserves (1.96 would claim too much).
fn t95(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => 0.0,
        1..=30 => TABLE[df - 1],
        // Within 0.002 of the exact quantile from 30 degrees of freedom on.
        _ => 1.96 + 2.4 / df as f64,
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EtcdFigures {
    pub quorum_unavailability: Estimate,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApiFigures {
    pub write_unavailability: Estimate,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServiceFigures {
    pub unavailability: Estimate,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Worst {
    pub trial: u64,
    pub seed: u64,
    pub etcd_quorum_lost_s: f64,
}

/// A study's report (`clustersim study … --json`): the figures of the trials it holds, and
/// the trials themselves (`per_trial`), from which merged shards recompute the figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyReport {
    pub scenario: String,
    /// Trials of the whole study (a shard holds some of them).
    pub trials: u64,
    pub horizon_s: f64,
    pub seed: u64,
    /// `K/M`: trials whose number is K − 1 modulo M.
    pub shard: String,
    pub etcd: EtcdFigures,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<ApiFigures>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, ServiceFigures>,
    pub worst: Vec<Worst>,
    pub per_trial: Vec<Trial>,
}

/// The trial numbers shard `k` of `m` (1-based) runs, of `trials`.
pub fn shard_trials(trials: u64, k: u64, m: u64) -> impl Iterator<Item = u64> {
    (k - 1..trials).step_by(m as usize)
}

impl StudyReport {
    /// The report of `results` (any order; sorted by trial number here).
    pub fn new(
        scenario: &str,
        trials: u64,
        horizon: Duration,
        seed: u64,
        shard: String,
        mut results: Vec<Trial>,
    ) -> StudyReport {
        crate::kernel::sort::sort_by_key(&mut results, |t| t.trial);
        let horizon_s = horizon.as_secs_f64();
        let column = |f: &dyn Fn(&Trial) -> Option<f64>| -> Option<Estimate> {
            let xs: Vec<f64> = results.iter().filter_map(f).collect();
            (!xs.is_empty()).then(|| Estimate::of(&xs))
        };
        let quorum = column(&|t| Some(t.etcd_quorum_lost_s / horizon_s))
            .unwrap_or_else(|| Estimate::of(&[]));
        let api = column(&|t| t.api_write_unavailability).map(|write_unavailability| ApiFigures {
            write_unavailability,
        });
        let names: Vec<String> = results
            .iter()
            .flat_map(|t| t.services.keys().cloned())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let services = names
            .into_iter()
            .filter_map(|name| {
                let e = column(&|t| t.services.get(&name).copied())?;
                Some((name, ServiceFigures { unavailability: e }))
            })
            .collect();
        let mut worst: Vec<&Trial> = results.iter().collect();
        // Most quorum loss first; ties by trial number (the sort is stable).
        crate::kernel::sort::sort_by(&mut worst, |a, b| {
            b.etcd_quorum_lost_s.total_cmp(&a.etcd_quorum_lost_s)
        });
        let worst = worst
            .into_iter()
            .take(WORST)
            .map(|t| Worst {
                trial: t.trial,
                seed: t.seed,
                etcd_quorum_lost_s: t.etcd_quorum_lost_s,
            })
            .collect();
        StudyReport {
            scenario: scenario.to_string(),
            trials,
            horizon_s,
            seed,
            shard,
            etcd: EtcdFigures {
                quorum_unavailability: quorum,
            },
            api,
            services,
            worst,
            per_trial: results,
        }
    }

    /// The unsharded report from shards of one study; refused (with a sentence) when they are
    /// of different studies, overlap, or leave trials out.
    pub fn merge(shards: Vec<StudyReport>) -> Result<StudyReport, String> {
        let Some(first) = shards.first() else {
            return Err("no shard to merge".into());
        };
        let (name, trials, horizon_s, seed) = (
            first.scenario.clone(),
            first.trials,
            first.horizon_s,
            first.seed,
        );
        let mut results = Vec::new();
        let mut seen = vec![false; trials as usize];
        for s in shards {
            if (&s.scenario, s.trials, s.horizon_s, s.seed) != (&name, trials, horizon_s, seed) {
                return Err(format!(
                    "shard {} is of another study ({:?}, {} trials, horizon {} s, seed {}) than the first ({name:?}, {trials} trials, horizon {horizon_s} s, seed {seed})",
                    s.shard, s.scenario, s.trials, s.horizon_s, s.seed
                ));
            }
            for t in s.per_trial {
                match seen.get_mut(t.trial as usize) {
                    Some(b) if !*b => *b = true,
                    Some(_) => return Err(format!("trial {} appears in two shards", t.trial)),
                    None => {
                        return Err(format!("trial {} is beyond the study's {trials}", t.trial))
                    }
                }
                results.push(t);
            }
        }
        if let Some(missing) = seen.iter().position(|b| !b) {
            let n = seen.iter().filter(|b| !**b).count();
            return Err(format!(
                "{n} of {trials} trials are missing (the first is trial {missing}): merge every shard"
            ));
        }
        let horizon = Duration::from_millis((horizon_s * 1000.0).round() as u64);
        Ok(StudyReport::new(
            &name,
            trials,
            horizon,
            seed,
            "1/1".into(),
            results,
        ))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
