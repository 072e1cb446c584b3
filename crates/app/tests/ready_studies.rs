//! The ready studies' answers are claims: each is checked here against its study, run as the
//! page runs it (the same designs, seeds, trials and horizon), read as the page's verdict reads
//! it (how often each design first loses quorum, with the exact interval). Release builds only
//! (`cargo xtask test` runs them so): a few hundred simulated cluster-days take minutes unoptimised.
#![cfg(not(debug_assertions))]

use app::catalog::Ready;
use app::study::plan::{designs, ready_studies, Claim, FirstLoss};
use sim::study::{run_trial_traced, Shortcut};

#[test]
fn every_ready_study_shows_what_its_answer_says() {
    for r in ready_studies() {
        let base = Ready::by_id(r.scenario)
            .expect("a ready scenario")
            .scenario();
        let st = &r.settings;
        let designs = designs(&base, st);
        assert_eq!(designs.len(), 2, "{}: a design to compare with", r.id);
        let horizon = st.horizon();
        let losses: Vec<FirstLoss> = designs
            .iter()
            .map(|d| {
                let firsts = (0..st.trials).map(|i| {
                    let (_, first) =
                        run_trial_traced(d, st.seed, i, horizon, Shortcut::On, &mut |_| {});
                    first.quorum
                });
                FirstLoss::of(firsts, horizon.as_secs_f64())
            })
            .collect();
        let (scenario, variant) = (&losses[0], &losses[1]);
        eprintln!("{}: {scenario:?} against {variant:?}", r.id);
        match r.claim {
            Claim::VariantBetter => assert!(variant.less_often_than(scenario), "{}", r.id),
            Claim::VariantNoBetter => assert!(!variant.less_often_than(scenario), "{}", r.id),
            Claim::VariantNever => assert_eq!(variant.events, 0, "{}", r.id),
        }
        // Each is a question with its answer, in words.
        assert!(r.question.ends_with('?') && r.answer.len() > 40, "{}", r.id);
    }
}
