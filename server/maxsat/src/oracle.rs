//! The SAT oracle every engine uses: CaDiCaL with the budget wired in, a
//! variable manager for auxiliary encoding variables, and call statistics.

use rustsat::encodings::CollectClauses;
use rustsat::instances::{BasicVarManager, ManageVars};
use rustsat::solvers::{
    ControlSignal, Interrupt, LimitConflicts, PhaseLit, Solve, SolveIncremental, SolverResult,
    Terminate,
};
use rustsat::types::{Assignment, Clause, Lit, Var};
use rustsat_cadical::{CaDiCaL, Statistic};

use crate::budget::{Budget, StopReason};
use crate::instance::Instance;
use crate::Error;

/// Conflicts a SAT call runs before its work is counted and its budget
/// checked again (see [`Oracle::solve_limited`]).
pub(crate) const SLICE_CONFLICTS: u32 = 2000;
/// CaDiCaL search ticks per work unit of the [`Budget`]'s meter, and
/// literals of clauses loaded (encoded by the caller, then added) per work
/// unit: a unit is then about a microsecond. Fitted to the diagnoses of the
/// 28 fixtures the model runs (release build, 2026-12-06): 29 ticks and 3.9
/// literals a microsecond, with the interpreter's steps; the effort so
/// counted is within 30% of each diagnosis's wall time.
const TICKS_PER_UNIT: u64 = 25;
const LITERALS_PER_UNIT: u64 = 4;

/// The answer of one SAT call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    Sat,
    /// Unsatisfiable under the assumptions; the core is a subset of them.
    Unsat(Vec<Lit>),
    Stopped(StopReason),
    /// A conflict limit was reached.
    Unknown,
}

pub(crate) struct Oracle {
    solver: CaDiCaL<'static, 'static>,
    vars: BasicVarManager,
    budget: Budget,
    registration: Option<faultlens_cancel::Registration>,
    /// Variables from here on belong to the engine's encodings.
    first_auxiliary: u32,
    pub(crate) sat_calls: u64,
}

impl Oracle {
    /// A solver holding the hard clauses of `instance`.
    pub(crate) fn new(instance: &Instance, budget: &Budget) -> Result<Self, Error> {
        let mut solver = CaDiCaL::default();
        // CaDiCaL's "lucky" phases try a dozen trivial assignments before
        // every solve; on formulas of millions of clauses solved hundreds of
        // times they took two thirds of a diagnosis's time (perf on loop-cond).
        solver.set_option("lucky", 0).map_err(Error::solver)?;
        // Its congruence closure (gate extraction before the first search)
        // does not poll the terminator: on hang-loop's 12-million-clause
        // formula one call ran 30 s past its deadline (seen with gdb).
        solver.set_option("congruence", 0).map_err(Error::solver)?;
        // Chronological backtracking (CaDiCaL's default) backtracks one level
        // per conflict where the learned clause would jump far: on
        // settings-check's 1.3-million-clause formula one call went through
        // 335 conflicts in a row, one level each, each re-propagating 300,000
        // literals, for 21 s without a decision, and the terminator is only
        // polled between decisions (gdb: `stats.decisions` unchanged while
        // `level` fell from 456 to 121). Jumping to the assertion level ends
        // such runs in a few conflicts.
        solver.set_option("chrono", 0).map_err(Error::solver)?;
        // Its light preprocessing (fast variable elimination) runs again at
        // every solve: on the diagnosis of 8 numfmt tests (600,000 clauses)
        // it took 37% of the whole run (perf), and the first solve took
        // 1.4 s instead of 2.4 s without it.
        solver
            .set_option("preprocesslight", 0)
            .map_err(Error::solver)?;
        if let Some(max) = instance.n_vars().checked_sub(1) {
            // Soft literals outside every hard clause still get model values.
            solver.reserve(Var::new(max)).map_err(Error::solver)?;
        }
        let polled = budget.clone();
        solver.attach_terminator(move || match polled.interrupted() {
            Some(_) => ControlSignal::Terminate,
            None => ControlSignal::Continue,
        });
        let registration = budget.cancel_token().map(|token| {
            let interrupter = solver.interrupter();
            token.on_cancel(move || {
                use rustsat::solvers::InterruptSolver;
                interrupter.interrupt();
            })
        });
        let mut oracle = Oracle {
            solver,
            vars: BasicVarManager::from_next_free(Var::new(instance.n_vars())),
            budget: budget.clone(),
            registration,
            first_auxiliary: instance.n_vars(),
            sat_calls: 0,
        };
        for clause in instance.hard() {
            oracle.add_clause(clause.clone())?;
        }
        Ok(oracle)
    }

    /// Rejects caller literals over variables the engine may use itself.
    pub(crate) fn check_caller_lits<'a>(
        &self,
        lits: impl IntoIterator<Item = &'a Lit>,
    ) -> Result<(), Error> {
        match lits
            .into_iter()
            .find(|l| l.var().idx32() >= self.first_auxiliary)
        {
            Some(lit) => Err(Error::VariableClash {
                var: lit.var().idx32(),
                first_auxiliary: self.first_auxiliary,
            }),
            None => Ok(()),
        }
    }

    pub(crate) fn add_clause(&mut self, clause: Clause) -> Result<(), Error> {
        self.budget
            .charge((clause.len() as u64).div_ceil(LITERALS_PER_UNIT));
        Solve::add_clause(&mut self.solver, clause).map_err(Error::solver)
    }

    /// Makes the solver decide `lit`'s variable to `lit`'s value first.
    pub(crate) fn phase(&mut self, lit: Lit) -> Result<(), Error> {
        self.solver.phase_lit(lit).map_err(Error::solver)
    }

    /// Solves under `assumptions`, unless the budget is already spent.
    pub(crate) fn solve(&mut self, assumptions: &[Lit]) -> Result<Answer, Error> {
        self.solve_limited(assumptions, None)
    }

    /// Like [`Oracle::solve`], giving up with [`Answer::Unknown`] after
    /// `conflicts` conflicts.
    ///
    /// The call runs in slices of at most [`SLICE_CONFLICTS`] conflicts:
    /// after each, the solver's work is charged to the budget's meter and the
    /// budget checked, so an effort limit stops every machine at the same
    /// point (the terminator, polled during a slice, watches the clock and
    /// the cancellation only). Every call is sliced, limited or not, so a
    /// run under an effort limit searches exactly as one without.
    pub(crate) fn solve_limited(
        &mut self,
        assumptions: &[Lit],
        conflicts: Option<u32>,
    ) -> Result<Answer, Error> {
        if let Some(reason) = self.budget.exhausted() {
            return Ok(Answer::Stopped(reason));
        }
        self.sat_calls += 1;
        let mut left = conflicts;
        loop {
            let slice = left.map_or(SLICE_CONFLICTS, |l| l.min(SLICE_CONFLICTS));
            let (ticks, conflicts_before) = (self.ticks(), self.conflicts());
            self.solver
                .limit_conflicts(Some(slice))
                .map_err(Error::solver)?;
            let result = self
                .solver
                .solve_assumps(assumptions)
                .map_err(Error::solver)?;
            self.budget.note_end(std::time::Instant::now());
            self.budget
                .charge(self.ticks().saturating_sub(ticks) / TICKS_PER_UNIT);
            match result {
                SolverResult::Sat => return Ok(Answer::Sat),
                SolverResult::Unsat => {
                    // rustsat reports the core as a clause: negated failed assumptions.
                    let core = self.solver.core().map_err(Error::solver)?;
                    return Ok(Answer::Unsat(core.into_iter().map(|l| !l).collect()));
                }
                SolverResult::Interrupted => {
                    if let Some(reason) = self.budget.exhausted() {
                        return Ok(Answer::Stopped(reason));
                    }
                    let used = self.conflicts().saturating_sub(conflicts_before);
                    if used < u64::from(slice) {
                        // Interrupted before its limit and within the
                        // budget: only a cancellation does that.
                        return Ok(Answer::Stopped(StopReason::Cancelled));
                    }
                    match left.map(|l| l.saturating_sub(slice)) {
                        Some(0) => return Ok(Answer::Unknown),
                        rest => left = rest,
                    }
                }
            }
        }
    }

    /// CaDiCaL's count of its search's work (about a memory access each).
    fn ticks(&self) -> u64 {
        self.solver.get_statistic(Statistic::Ticks)
    }

    fn conflicts(&self) -> u64 {
        self.solver.get_statistic(Statistic::Conflicts)
    }

    /// The model of the last satisfiable call.
    pub(crate) fn model(&self) -> Result<Assignment, Error> {
        self.solver.full_solution().map_err(Error::solver)
    }

    /// Solver and variable manager, for rustsat encodings.
    pub(crate) fn encoding_parts(&mut self) -> (&mut impl CollectClauses, &mut dyn ManageVars) {
        (&mut self.solver, &mut self.vars)
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        // Unregister before the solver is freed: the token must never
        // interrupt a dangling solver handle.
        drop(self.registration.take());
    }
}
