//! Single-fault optimality, checked by exhaustive enumeration: after sfo, the
//! lines every generated failing run executes are exactly the lines every
//! failing run of the population executes. The population is enumerated over
//! a wider domain than the generator explores, so the check is not the
//! generator's own search repeated.

mod common;
use common::fixture;
use faultlens_core::measures::Formula;
use faultlens_generate::domain::Domain;
use faultlens_generate::session::project_runs;
use faultlens_generate::strategy::{common_to_failures, sfo, sfo_p};
use faultlens_generate::{model, predict, Bounds, Enumerator, Explorer, Run};
use faultlens_workspace::Project;

struct Case {
    fixture: &'static str,
    fault: (&'static str, u32),
}

const CASES: &[Case] = &[
    Case {
        fixture: "minmax-harness",
        fault: ("minmax.c", 33),
    },
    Case {
        fixture: "queue-harness",
        fault: ("queue.c", 29),
    },
];

fn wide_domain(texts: &[String]) -> Domain {
    let mut values: Vec<i64> = (-4..=6).collect();
    values.extend(Domain::from_sources(texts.iter().map(String::as_str)).values_for("int"));
    Domain::of(&values)
}

#[test]
fn sfo_data_is_single_fault_optimal_on_the_fixtures() {
    for case in CASES {
        let (_d, root) = fixture(case.fixture);
        let project = Project::load(&root).unwrap();
        let harness = model::load(&project).unwrap();
        let texts: Vec<String> = model::harness_sources(&project)
            .unwrap()
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        let (initial, _) = project_runs(&project, &harness).unwrap();
        let mut data: Vec<Run> = initial.into_iter().map(|(_, r)| r).collect();
        let domain = Domain::from_sources(texts.iter().map(String::as_str));
        let mut ex = Enumerator::new(&harness, vec![], domain, Bounds::default());
        let added = sfo(&mut ex, &mut data, usize::MAX, &mut |_, _| true);
        assert!(!ex.truncated);

        let bounds = Bounds {
            max_draws: 12,
            max_runs: 200_000,
        };
        let mut population = Enumerator::new(&harness, vec![], wide_domain(&texts), bounds);
        let all = population.population().to_vec();
        assert!(
            !population.truncated,
            "{}: population cut short",
            case.fixture
        );
        let failing: Vec<Run> = all
            .iter()
            .filter(|r| r.verdict.is_fail())
            .cloned()
            .collect();
        assert!(failing.len() > 1);
        let sample = common_to_failures(&data);
        let everywhere = common_to_failures(&failing);
        assert_eq!(
            sample, everywhere,
            "{}: lines common to the sample failures differ from those common to all {} failing runs of {}",
            case.fixture,
            failing.len(),
            all.len()
        );
        let fault = (case.fault.0.to_string(), case.fault.1);
        assert!(
            sample.contains(&fault),
            "{}: the fault is not common to all failures",
            case.fixture
        );
        eprintln!(
            "{}: {} failing runs generated; population {} runs ({} failing); {} lines common to all failures",
            case.fixture,
            added,
            all.len(),
            failing.len(),
            sample.len()
        );
    }
}

#[test]
fn sfo_p_puts_the_fault_first_in_the_predicted_ranking() {
    for case in CASES {
        let (_d, root) = fixture(case.fixture);
        let project = Project::load(&root).unwrap();
        let harness = model::load(&project).unwrap();
        let texts: Vec<String> = model::harness_sources(&project)
            .unwrap()
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        let (initial, _) = project_runs(&project, &harness).unwrap();
        let mut data: Vec<Run> = initial.into_iter().map(|(_, r)| r).collect();
        let fault = (case.fault.0.to_string(), case.fault.1);
        let before = predict::ranking(&data, Formula::Ochiai)[&fault];
        let domain = Domain::from_sources(texts.iter().map(String::as_str));
        let mut ex = Enumerator::new(&harness, vec![], domain, Bounds::default());
        sfo_p(&mut ex, &mut data, 20, &mut |_, _| true);
        let ranking = predict::ranking(&data, Formula::Ochiai);
        let after = ranking[&fault];
        if std::env::var("SHOW").is_ok() {
            for (l, r) in predict::top(&ranking, 12) {
                eprintln!("  {l:?} {r:?}");
            }
            for r in &data {
                eprintln!("  {:?} {:?}", r.inputs, r.verdict);
            }
        }
        eprintln!(
            "{}: fault rank {} -> {} ({} queries, {} interpreter runs)",
            case.fixture,
            before.average,
            after.average,
            ex.stats().queries,
            ex.stats().interpreter_runs
        );
        assert_eq!(
            (after.best, after.worst),
            (1, 1),
            "{}: {after:?}",
            case.fixture
        );
        assert!(
            before.average > 1.0,
            "{}: already first before",
            case.fixture
        );
    }
}

/// The same with the SAT solver as `choose`: sfo's data is single-fault
/// optimal over the exhaustively enumerated population, and sfo_p puts the
/// fault first. On minmax only: on the queue the solver needs minutes in a
/// debug build (the benchmark times it in release).
#[test]
fn the_solver_explorer_gives_single_fault_optimal_data_too() {
    use faultlens_generate::solver::SolverExplorer;
    for case in &CASES[..1] {
        let (_d, root) = fixture(case.fixture);
        let project = Project::load(&root).unwrap();
        let harness = model::load(&project).unwrap();
        let symbolic = model::load_symbolic(&project).unwrap();
        let texts: Vec<String> = model::harness_sources(&project)
            .unwrap()
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        let (initial, _) = project_runs(&project, &harness).unwrap();
        let mut data: Vec<Run> = initial.into_iter().map(|(_, r)| r).collect();
        let mut ex = SolverExplorer::new(&harness, symbolic, &data).unwrap();
        sfo(&mut ex, &mut data, usize::MAX, &mut |_, _| true);
        assert!(
            ex.problems.is_empty(),
            "{}: {:?}",
            case.fixture,
            ex.problems
        );
        let bounds = Bounds {
            max_draws: 12,
            max_runs: 200_000,
        };
        let mut population = Enumerator::new(&harness, vec![], wide_domain(&texts), bounds);
        let failing: Vec<Run> = population
            .population()
            .iter()
            .filter(|r| r.verdict.is_fail())
            .cloned()
            .collect();
        assert_eq!(
            common_to_failures(&data),
            common_to_failures(&failing),
            "{}",
            case.fixture
        );
        sfo_p(&mut ex, &mut data, 20, &mut |_, _| true);
        let fault = (case.fault.0.to_string(), case.fault.1);
        let rank = predict::ranking(&data, Formula::Ochiai)[&fault];
        eprintln!(
            "{}: solver: {} runs in the data, {} solver calls ({:?}), {} paths encoded ({:?}), {} mismatches; fault rank {}",
            case.fixture,
            data.len(),
            ex.stats().queries,
            ex.solve_time,
            ex.stats().population,
            ex.encode_time,
            ex.mismatches,
            rank.average
        );
        eprintln!("  formula: {:?} (variables, clauses)", ex.size());
        assert_eq!((rank.best, rank.worst), (1, 1), "{}", case.fixture);
        assert_eq!(ex.mismatches, 0, "{}", case.fixture);
    }
}
