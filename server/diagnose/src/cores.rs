//! A minimal unsatisfiable core per failing test, over the health literals
//! of its own run (SAT-TAR's cores): the test's path as the run took it
//! (`encode_run`: conditions pinned to the run's directions while healthy),
//! every statement healthy, is unsatisfiable with the expected outcome; a
//! subset-minimal set of statements that already forces that is the core.
//! (On the multi-path formula of the search, a statement left free could
//! make the model leave the path at an unexplored divergence, which counts
//! as passing there: the cores would say little.)

use faultlens_csem::encode::{encode_run, Expected};
use faultlens_csem::ir::{Program, StmtId};
use faultlens_csem::TestInput;
use faultlens_maxsat::{minimal_core, Budget, CoreOutcome, Instance};
use std::collections::BTreeMap;

/// The core's statements and whether it is proven minimal; `None` when the
/// run cannot be encoded, the core is empty, its formula is satisfiable (the model lets it
/// pass), or the budget ran out first.
pub fn core_of(
    prog: &Program,
    input: &TestInput,
    expected: &Expected,
    max_steps: u64,
    trusted: &std::collections::BTreeSet<StmtId>,
    budget: &Budget,
) -> Option<(Vec<StmtId>, bool)> {
    // Encoding a long run takes seconds; a core could not be sought anyway.
    if budget.exhausted().is_some() {
        return None;
    }
    let enc = encode_run(prog, input, expected, max_steps).ok()?;
    let mut inst = Instance::new();
    inst.declare_vars(enc.cnf.n_vars());
    for c in &enc.cnf.clauses {
        inst.add_hard(c.iter().copied());
    }
    // The specification is always healthy: a core is over the others.
    let mut assumptions = Vec::new();
    for (s, &l) in &enc.health {
        if trusted.contains(s) {
            inst.add_hard([l]);
        } else {
            assumptions.push(l);
        }
    }
    let stmt_of: BTreeMap<_, _> = enc.health.iter().map(|(&s, &l)| (l, s)).collect();
    match minimal_core(&inst, &assumptions, budget).ok()? {
        CoreOutcome::Core { lits, minimal, .. } => {
            let stmts: Vec<StmtId> = lits
                .iter()
                .filter_map(|l| stmt_of.get(l).copied())
                .collect();
            // Empty: the expected outcome is out of reach along this path
            // whatever the statements do; no statement is to blame here.
            (!stmts.is_empty()).then_some((stmts, minimal))
        }
        _ => None,
    }
}
