//! Subset-minimal unsatisfiable cores over assumptions: the solver's core,
//! trimmed, then reduced by deletion (each literal is dropped if the rest is
//! still unsatisfiable; the solver's core of that call shrinks it further).

use rustsat::types::{Assignment, Lit};

use crate::budget::{Budget, StopReason};
use crate::instance::Instance;
use crate::oracle::{Answer, Oracle};
use crate::Error;

/// The result of [`minimal_core`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CoreOutcome {
    /// The hard clauses and all assumptions hold together.
    Satisfiable(Assignment),
    /// A subset of the assumptions the hard clauses refute, in the order given.
    /// `minimal` says whether dropping any one literal makes it satisfiable;
    /// it is false only when the budget stopped the reduction (`stopped`).
    Core {
        lits: Vec<Lit>,
        minimal: bool,
        stopped: Option<StopReason>,
        sat_calls: u64,
    },
    /// Stopped before the first answer.
    Stopped(StopReason),
}

/// A subset-minimal set of `assumptions` that, with the hard clauses of
/// `instance`, is unsatisfiable (empty if the hard clauses alone are).
///
/// # Errors
///
/// If the SAT solver fails.
pub fn minimal_core(
    instance: &Instance,
    assumptions: &[Lit],
    budget: &Budget,
) -> Result<CoreOutcome, Error> {
    let mut oracle = Oracle::new(instance, budget)?;
    let mut core = match oracle.solve(assumptions)? {
        Answer::Sat => return Ok(CoreOutcome::Satisfiable(oracle.model()?)),
        Answer::Stopped(reason) => return Ok(CoreOutcome::Stopped(reason)),
        Answer::Unknown => return Err(Error::Internal("unlimited call returned unknown".into())),
        Answer::Unsat(core) => core,
    };
    let order = |core: &mut Vec<Lit>| core.sort_by_key(|l| assumptions.iter().position(|a| a == l));
    order(&mut core);
    // A repeated assumption would survive its own deletion.
    core.dedup();
    // Literals before `index` are known to be necessary.
    let mut index = 0;
    while index < core.len() {
        let mut without = core.clone();
        without.remove(index);
        match oracle.solve(&without)? {
            Answer::Sat => index += 1,
            Answer::Unsat(smaller) => core.retain(|l| smaller.contains(l)),
            Answer::Stopped(reason) => {
                return Ok(CoreOutcome::Core {
                    lits: core,
                    minimal: false,
                    stopped: Some(reason),
                    sat_calls: oracle.sat_calls,
                })
            }
            Answer::Unknown => {
                return Err(Error::Internal("unlimited call returned unknown".into()))
            }
        }
    }
    Ok(CoreOutcome::Core {
        lits: core,
        minimal: true,
        stopped: None,
        sat_calls: oracle.sat_calls,
    })
}
