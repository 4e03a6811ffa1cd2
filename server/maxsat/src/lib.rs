//! faultlens-maxsat: weighted partial MaxSAT on rustsat + CaDiCaL for
//! formula-based diagnosis.
//!
//! - [`Instance`]: hard clauses and weighted soft literals; [`write_wcnf`] /
//!   [`read_wcnf`] in the MaxSAT Evaluation format.
//! - [`MaxSat`]: an incremental solver (OLL, or the linear
//!   SAT-UNSAT baseline) that finds optima, enumerates all optimal solutions
//!   and all minimal correction sets in cost order, and takes new hard clauses
//!   between calls.
//! - [`minimal_core`]: a subset-minimal unsatisfiable core over assumptions.
//! - [`SatSession`]: plain incremental SAT under assumptions, for callers
//!   that add clauses as they explore.
//! - [`Budget`] and [`CancelToken`]: every call stops on a deadline or a
//!   cancellation and then returns the best answer known, marked unproven
//!   (OLL knows none before its first model, which is an optimum).
//!
//! Pure and deterministic apart from the budget: no I/O but the WCNF
//! functions, no threads of its own.

mod budget;
mod engine;
mod enumerate;
mod instance;
mod linear;
mod mus;
mod oll;
mod oracle;
mod session;
mod solver;
mod wcnf;

pub use budget::{Budget, CancelToken, Meter, StopReason, UNITS_PER_EFFORT};
pub use engine::Solution;
pub use enumerate::Enumeration;
pub use instance::{Instance, InstanceError, Soft, SoftId, MAX_TOTAL_WEIGHT};
pub use mus::{minimal_core, CoreOutcome};
pub use session::{SatAnswer, SatSession};
pub use solver::{
    enumerate_mcs, enumerate_optimal, solve, Algorithm, MaxSat, Outcome, Stats, Status,
};
pub use wcnf::{read_wcnf, write_wcnf, WcnfError};

/// Re-exported so callers build literals with the same rustsat version.
pub use rustsat;

/// A failure of the SAT backend or of the engine itself (never of the input:
/// bad input is rejected when the [`Instance`] is built).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("the SAT solver failed: {0}")]
    Solver(String),
    #[error("internal error in the MaxSAT engine (please report): {0}")]
    Internal(String),
    #[error(
        "variable {var} was added after the solver was created, but variables from \
         {first_auxiliary} on belong to its encodings; call Instance::declare_vars with \
         room for every variable the caller will use before creating the solver"
    )]
    VariableClash { var: u32, first_auxiliary: u32 },
    #[error(transparent)]
    Instance(#[from] InstanceError),
}

impl Error {
    pub(crate) fn solver(error: impl std::fmt::Display) -> Self {
        Error::Solver(error.to_string())
    }
}
