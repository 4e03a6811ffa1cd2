//! Diagnoses shown before the search with paths explored: the concrete
//! witnesses' and the check's first pass's finds, each with the values that
//! make every test pass. The search accepts such a proposal as it is
//! ([`crate::joint::Joint::refine`]) instead of encoding the paths its
//! model takes until one stays on them: on numfmt's 8 tests the fault alone
//! was proposed 17 times, each time 300,000 to 700,000 clauses more.

use crate::bridge::ModelTest;
use crate::search::Values;
use crate::witnesses::Witnessed;
use faultlens_csem::encode::Slot;
use faultlens_csem::ir::StmtId;
use std::collections::{BTreeMap, BTreeSet};

/// A diagnosis shown already, with its values per test name.
pub(crate) struct Shown {
    pub stmts: BTreeSet<StmtId>,
    pub values: BTreeMap<String, Vec<Slot>>,
}

impl Shown {
    /// The witnesses' and the first pass's finds.
    pub fn all_of(w: &Witnessed) -> Vec<Shown> {
        w.found
            .iter()
            .map(|e| Shown {
                stmts: e.stmts.iter().copied().collect(),
                values: e
                    .slots
                    .iter()
                    .filter_map(|(&i, s)| Some((w.tests.get(i)?.clone(), s.clone())))
                    .collect(),
            })
            .collect()
    }

    /// Its values keyed by the index of each of `tests` (a joint formula's
    /// active tests), if it has values for all of them.
    pub fn for_tests(&self, tests: &[(usize, &ModelTest)]) -> Option<Values> {
        tests
            .iter()
            .map(|(i, t)| Some((*i, self.values.get(&t.name)?.clone())))
            .collect()
    }
}
