//! The SAT oracle every engine uses: CaDiCaL with the budget wired in, a
//! variable manager for auxiliary encoding variables, and call statistics.

use rustsat::encodings::CollectClauses;
use rustsat::instances::{BasicVarManager, ManageVars};
use rustsat::solvers::{
    ControlSignal, Interrupt, LimitConflicts, PhaseLit, Solve, SolveIncremental, SolverResult,
    Terminate,
};
use rustsat::types::{Assignment, Clause, Lit, Var};
use rustsat_cadical::CaDiCaL;

use crate::budget::{Budget, StopReason};
use crate::instance::Instance;
use crate::Error;

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
        solver.attach_terminator(move || match polled.exhausted() {
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
    pub(crate) fn solve_limited(
        &mut self,
        assumptions: &[Lit],
        conflicts: Option<u32>,
    ) -> Result<Answer, Error> {
        if let Some(reason) = self.budget.exhausted() {
            return Ok(Answer::Stopped(reason));
        }
        self.sat_calls += 1;
        self.solver
            .limit_conflicts(conflicts)
            .map_err(Error::solver)?;
        match self
            .solver
            .solve_assumps(assumptions)
            .map_err(Error::solver)?
        {
            SolverResult::Sat => Ok(Answer::Sat),
            SolverResult::Unsat => {
                // rustsat reports the core as a clause: negated failed assumptions.
                let core = self.solver.core().map_err(Error::solver)?;
                Ok(Answer::Unsat(core.into_iter().map(|l| !l).collect()))
            }
            SolverResult::Interrupted => Ok(match self.budget.exhausted() {
                Some(reason) => Answer::Stopped(reason),
                None if conflicts.is_some() => Answer::Unknown,
                // Interrupted without a limit: only a cancellation does that.
                None => Answer::Stopped(StopReason::Cancelled),
            }),
        }
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
