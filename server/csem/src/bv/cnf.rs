//! A CNF under construction with Tseitin gates that fold constants, and
//! solving it through rustsat (CaDiCaL by default, batsat without it).

use rustsat::solvers::{Solve, SolveIncremental, SolverResult};
use rustsat::types::{Clause, Lit, TernaryVal};
use std::collections::HashMap;
use std::ops::Range;

/// Two bit-vectors' literals: a divider's operands, or its quotient and remainder.
pub(crate) type Operands = (Vec<Lit>, Vec<Lit>);

/// Clauses over variables `0..n_vars`; variable 0 is the constant true.
#[derive(Clone, Debug)]
pub struct Cnf {
    pub clauses: Vec<Vec<Lit>>,
    n_vars: u32,
    /// A shadow assignment: each variable's value in the run being encoded
    /// (gates compute it from their inputs), `None` where it is free.
    shadow: Vec<Option<bool>>,
    /// Dividers built since [`Cnf::forget_shared`], by signedness and
    /// operands: `a / b` and `a % b` of the same operands share one (a
    /// 64-bit divider is some 80,000 clauses; division by a constant is
    /// cheaper and not shared).
    pub(crate) dividers: HashMap<(bool, Operands), Operands>,
    /// Gates built since [`Cnf::share_gates`] switched sharing on, by kind
    /// and inputs: a gate asked for again is the same literal (structural
    /// hashing), so `s[i] == '+' || s[i] == '-'` decodes `i` once. `None`:
    /// every gate is new.
    gates: Option<HashMap<Gate, Lit>>,
    /// The variables [`Cnf::fresh_valued`] returned since
    /// [`Cnf::begin_log`], in order, as runs: the sequence a later encoding
    /// of the same steps replays.
    log: Option<Vec<Range<u32>>>,
    /// While set, fresh variables are taken from an earlier encoding's log
    /// and clauses are not added (that encoding added them): see
    /// [`Cnf::begin_log`].
    replay: Option<Replay>,
}

/// Where a replay is in the log it follows: run `run`, `off` variables in.
#[derive(Clone, Debug)]
struct Replay {
    source: Vec<Range<u32>>,
    run: usize,
    off: u32,
}

impl Replay {
    fn peek(&self) -> Option<u32> {
        let r = self.source.get(self.run)?;
        Some(r.start + self.off).filter(|v| *v < r.end)
    }

    fn advance(&mut self) {
        self.off += 1;
        if self.peek().is_none() {
            self.run += 1;
            self.off = 0;
        }
    }
}

/// A gate's kind and inputs, normalised (`and` with ordered inputs, `xor`
/// of positive literals, `ite` with a positive condition).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Gate {
    And(Lit, Lit),
    Xor(Lit, Lit),
    Ite(Lit, Lit, Lit),
}

impl Default for Cnf {
    fn default() -> Self {
        Self::new()
    }
}

impl Cnf {
    pub fn new() -> Self {
        let mut c = Cnf {
            clauses: Vec::new(),
            n_vars: 1,
            shadow: vec![Some(true)],
            dividers: HashMap::new(),
            gates: None,
            log: None,
            replay: None,
        };
        c.clauses.push(vec![Lit::positive(0)]);
        c
    }

    /// Forgets the gates shared between encodings: call before encoding a
    /// part whose clauses may be given to a solver without the earlier
    /// parts' (another test, or a path that may be dropped).
    pub fn forget_shared(&mut self) {
        self.dividers.clear();
        if let Some(gates) = &mut self.gates {
            gates.clear();
        }
    }

    /// Switches the sharing of identical gates on (empty) or off. On only
    /// while one part is encoded whose clauses all go to the same solvers
    /// (one path of one test): a gate reused from elsewhere would have its
    /// defining clauses in another test's solver only.
    pub fn share_gates(&mut self, on: bool) {
        self.gates = on.then(HashMap::new);
    }

    fn shared(&self, g: Gate) -> Option<Lit> {
        self.gates.as_ref()?.get(&g).copied()
    }

    fn remember(&mut self, g: Gate, o: Lit) {
        if let Some(gates) = &mut self.gates {
            gates.insert(g, o);
        }
    }

    /// Drops the clauses from `len` on, with the gates they defined.
    pub fn truncate(&mut self, len: usize) {
        self.clauses.truncate(len);
        self.forget_shared();
    }

    pub fn tru(&self) -> Lit {
        Lit::positive(0)
    }

    pub fn fls(&self) -> Lit {
        Lit::negative(0)
    }

    pub fn constant(&self, b: bool) -> Lit {
        if b {
            self.tru()
        } else {
            self.fls()
        }
    }

    fn is_const(&self, l: Lit) -> Option<bool> {
        if l == self.tru() {
            Some(true)
        } else if l == self.fls() {
            Some(false)
        } else {
            None
        }
    }

    pub fn fresh(&mut self) -> Lit {
        self.fresh_valued(None)
    }

    /// A fresh variable whose shadow value is `v` (while replaying, the
    /// next one of the log followed, if its shadow is `v` too).
    pub fn fresh_valued(&mut self, v: Option<bool>) -> Lit {
        let var = match self.replayed(v) {
            Some(var) => var,
            None => self.fresh_unlogged_var(v),
        };
        if let Some(log) = &mut self.log {
            match log.last_mut() {
                Some(r) if r.end == var => r.end += 1,
                _ => log.push(var..var + 1),
            }
        }
        Lit::positive(var)
    }

    /// A fresh variable outside the log and any replay: one that lives
    /// across encodings (a statement's health literal).
    pub fn fresh_unlogged(&mut self) -> Lit {
        Lit::positive(self.fresh_unlogged_var(None))
    }

    fn fresh_unlogged_var(&mut self, v: Option<bool>) -> u32 {
        self.n_vars += 1;
        self.shadow.push(v);
        self.n_vars - 1
    }

    /// The next variable of the replayed log, if its shadow is `v`; at the
    /// first one that differs (or past the log's end) the replay ends.
    fn replayed(&mut self, v: Option<bool>) -> Option<u32> {
        let replay = self.replay.as_mut()?;
        match replay.peek() {
            Some(var) if self.shadow[var as usize] == v => {
                replay.advance();
                Some(var)
            }
            _ => {
                self.replay = None;
                None
            }
        }
    }

    /// Starts the log of fresh variables; if `source` (the log of an
    /// earlier encoding) is given, replays it: the steps encoded from now
    /// on are the same as that encoding's until [`Cnf::end_replay`] (the
    /// caller knows where they part), so they get its variables, and their
    /// clauses, which it added, are not added again. A replay also ends at
    /// the first fresh variable whose shadow differs from the log's.
    pub fn begin_log(&mut self, source: Option<Vec<Range<u32>>>) {
        self.log = Some(Vec::new());
        self.replay = source.map(|source| Replay {
            source,
            run: 0,
            off: 0,
        });
    }

    /// Ends the log (and any replay) and returns it.
    pub fn end_log(&mut self) -> Vec<Range<u32>> {
        self.replay = None;
        self.log.take().unwrap_or_default()
    }

    /// From now on, the steps differ from the replayed encoding's.
    pub fn end_replay(&mut self) {
        self.replay = None;
    }

    /// The shadow value of a literal.
    pub fn shadow(&self, l: Lit) -> Option<bool> {
        self.shadow[l.var().idx()].map(|v| v ^ l.is_neg())
    }

    pub fn n_vars(&self) -> u32 {
        self.n_vars
    }

    /// Adds a clause (while replaying, none: the replayed encoding has it).
    pub fn clause(&mut self, c: &[Lit]) {
        if self.replay.is_none() {
            self.clauses.push(c.to_vec());
        }
    }

    /// `a ∧ b`.
    pub fn and(&mut self, a: Lit, b: Lit) -> Lit {
        match (self.is_const(a), self.is_const(b)) {
            (Some(false), _) | (_, Some(false)) => return self.fls(),
            (Some(true), _) => return b,
            (_, Some(true)) => return a,
            _ => {}
        }
        if a == b {
            return a;
        }
        if a == !b {
            return self.fls();
        }
        let gate = Gate::And(a.min(b), a.max(b));
        if let Some(o) = self.shared(gate) {
            return o;
        }
        let v = match (self.shadow(a), self.shadow(b)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        };
        let o = self.fresh_valued(v);
        self.clause(&[!o, a]);
        self.clause(&[!o, b]);
        self.clause(&[o, !a, !b]);
        self.remember(gate, o);
        o
    }

    pub fn or(&mut self, a: Lit, b: Lit) -> Lit {
        !self.and(!a, !b)
    }

    pub fn xor(&mut self, a: Lit, b: Lit) -> Lit {
        match (self.is_const(a), self.is_const(b)) {
            (Some(x), _) => return if x { !b } else { b },
            (_, Some(y)) => return if y { !a } else { a },
            _ => {}
        }
        if a == b {
            return self.fls();
        }
        if a == !b {
            return self.tru();
        }
        // a ⊕ b = |a| ⊕ |b|, negated once for each negative input.
        let flip = a.is_neg() != b.is_neg();
        let (a, b) = (a.var().pos_lit(), b.var().pos_lit());
        let gate = Gate::Xor(a.min(b), a.max(b));
        let o = match self.shared(gate) {
            Some(o) => o,
            None => {
                let v = match (self.shadow(a), self.shadow(b)) {
                    (Some(x), Some(y)) => Some(x ^ y),
                    _ => None,
                };
                let o = self.fresh_valued(v);
                self.clause(&[!o, a, b]);
                self.clause(&[!o, !a, !b]);
                self.clause(&[o, !a, b]);
                self.clause(&[o, a, !b]);
                self.remember(gate, o);
                o
            }
        };
        if flip {
            !o
        } else {
            o
        }
    }

    pub fn iff(&mut self, a: Lit, b: Lit) -> Lit {
        !self.xor(a, b)
    }

    /// `c ? t : e`.
    pub fn ite(&mut self, c: Lit, t: Lit, e: Lit) -> Lit {
        match self.is_const(c) {
            Some(true) => return t,
            Some(false) => return e,
            None => {}
        }
        if t == e {
            return t;
        }
        let gate = match c.is_neg() {
            true => Gate::Ite(!c, e, t),
            false => Gate::Ite(c, t, e),
        };
        if let Some(o) = self.shared(gate) {
            return o;
        }
        let v = match self.shadow(c) {
            Some(true) => self.shadow(t),
            Some(false) => self.shadow(e),
            None => match (self.shadow(t), self.shadow(e)) {
                (Some(x), Some(y)) if x == y => Some(x),
                _ => None,
            },
        };
        let o = self.fresh_valued(v);
        self.clause(&[!c, !t, o]);
        self.clause(&[!c, t, !o]);
        self.clause(&[c, !e, o]);
        self.clause(&[c, e, !o]);
        self.remember(gate, o);
        o
    }

    /// The conjunction of `ls`, a literal repeated in a row once (a
    /// sign-extended value's high bits are one literal many times over).
    pub fn and_all(&mut self, ls: &[Lit]) -> Lit {
        let mut acc = self.tru();
        let mut last = None;
        for &l in ls {
            // Repeats come in runs (the high bits of a sign-extended value).
            if last != Some(l) {
                acc = self.and(acc, l);
                last = Some(l);
            }
        }
        acc
    }

    pub fn or_all(&mut self, ls: &[Lit]) -> Lit {
        let negated: Vec<Lit> = ls.iter().map(|l| !*l).collect();
        !self.and_all(&negated)
    }

    /// `a → b` as a hard clause.
    pub fn implies(&mut self, a: Lit, b: Lit) {
        self.clause(&[!a, b]);
    }

    /// Solve under assumptions; `None` if unsatisfiable, else the model.
    pub fn solve(&self, assumptions: &[Lit]) -> anyhow::Result<Option<Model>> {
        self.session()?.solve(assumptions)
    }

    /// A solver loaded with the clauses, for many solves under different assumptions.
    pub fn session(&self) -> anyhow::Result<Session> {
        let mut solver = new_solver()?;
        for c in &self.clauses {
            solver.add_clause(Clause::from(&c[..]))?;
        }
        self.phase_by_shadows(&mut solver)?;
        Ok(Session {
            solver,
            n_vars: self.n_vars,
        })
    }
}

impl Cnf {
    /// The solver first tries each variable at its shadow value: the run's
    /// own values satisfy the healthy formula, so a solve that keeps most of
    /// the run finds its model by propagation instead of searching
    /// (relational encodings such as division by a constant do not propagate;
    /// the generated-program encoding test: 41 s with these phases, 62 s without).
    #[cfg(feature = "cadical")]
    fn phase_by_shadows(&self, solver: &mut Backend) -> anyhow::Result<()> {
        use rustsat::solvers::PhaseLit;
        for (i, s) in self.shadow.iter().enumerate() {
            if let Some(v) = s {
                let l = Lit::positive(i as u32);
                solver.phase_lit(if *v { l } else { !l })?;
            }
        }
        Ok(())
    }

    #[cfg(not(feature = "cadical"))]
    fn phase_by_shadows(&self, _solver: &mut Backend) -> anyhow::Result<()> {
        Ok(())
    }
}

/// An incremental solver holding a CNF.
pub struct Session {
    solver: Backend,
    n_vars: u32,
}

impl Session {
    /// Add the clauses of `cnf` from index `from` on (clauses are only ever
    /// appended, so a caller remembers how many it has given the solver).
    pub fn add_from(&mut self, cnf: &Cnf, from: usize) -> anyhow::Result<()> {
        for c in &cnf.clauses[from.min(cnf.clauses.len())..] {
            self.solver.add_clause(Clause::from(&c[..]))?;
        }
        self.n_vars = self.n_vars.max(cnf.n_vars);
        Ok(())
    }

    pub fn solve(&mut self, assumptions: &[Lit]) -> anyhow::Result<Option<Model>> {
        match self.solver.solve_assumps(assumptions)? {
            SolverResult::Sat => {
                let mut values = Vec::with_capacity(self.n_vars as usize);
                for v in 0..self.n_vars {
                    values.push(self.solver.lit_val(Lit::positive(v))? == TernaryVal::True);
                }
                Ok(Some(Model { values }))
            }
            SolverResult::Unsat => Ok(None),
            SolverResult::Interrupted => anyhow::bail!("the SAT solver was interrupted"),
        }
    }
}

/// A satisfying assignment.
#[derive(Clone, Debug)]
pub struct Model {
    values: Vec<bool>,
}

impl Model {
    pub fn lit(&self, l: Lit) -> bool {
        self.values[l.var().idx()] ^ l.is_neg()
    }
}

#[cfg(feature = "cadical")]
type Backend = rustsat_cadical::CaDiCaL<'static, 'static>;

#[cfg(all(not(feature = "cadical"), feature = "batsat"))]
type Backend = rustsat_batsat::BasicSolver;

#[cfg(feature = "cadical")]
fn new_solver() -> anyhow::Result<Backend> {
    // CaDiCaL's defaults, "lucky" phases included: the encoding's many small
    // solves find their models there (switching them off made the fixture
    // encoding test 3× slower; the MaxSAT oracle, solving one large formula
    // hundreds of times, switches them off). Its light preprocessing and
    // congruence closure, though, took half of every solve on the encodings
    // (perf on the generated-program test: 49% in `preprocess`, 4% in the
    // search); without them that test runs in 40 s instead of 91 s.
    let mut s = Backend::default();
    s.set_option("preprocesslight", 0)?;
    s.set_option("congruence", 0)?;
    Ok(s)
}

#[cfg(all(not(feature = "cadical"), feature = "batsat"))]
fn new_solver() -> anyhow::Result<Backend> {
    Ok(Backend::default())
}

#[cfg(all(not(feature = "cadical"), not(feature = "batsat")))]
compile_error!(
    "faultlens-csem needs a SAT backend: enable the `cadical` (default) or `batsat` feature"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_asked_for_again_are_shared_only_while_sharing_is_on() {
        let mut cnf = Cnf::new();
        let (a, b, c) = (cnf.fresh(), cnf.fresh(), cnf.fresh());
        assert_ne!(cnf.and(a, b), cnf.and(a, b), "off: every gate is new");
        cnf.share_gates(true);
        let and = cnf.and(a, b);
        assert_eq!(cnf.and(b, a), and);
        // ¬a ⊕ b is the negation of a ⊕ b, and ¬a ⊕ ¬b is a ⊕ b.
        let xor = cnf.xor(a, b);
        assert_eq!(cnf.xor(!a, b), !xor);
        assert_eq!(cnf.xor(!a, !b), xor);
        // ite(¬c, t, e) is ite(c, e, t).
        assert_eq!(cnf.ite(!c, a, b), cnf.ite(c, b, a));
        let clauses = cnf.clauses.len();
        cnf.forget_shared();
        assert_ne!(cnf.and(a, b), and, "forgotten: built anew");
        assert!(cnf.clauses.len() > clauses);
        // Shared or not, the gates mean what they say.
        for (va, vb) in [(false, false), (false, true), (true, false), (true, true)] {
            let set = |l: Lit, v: bool| if v { l } else { !l };
            let m = cnf.solve(&[set(a, va), set(b, vb)]).unwrap().unwrap();
            assert_eq!(m.lit(and), va && vb);
            assert_eq!(m.lit(xor), va != vb);
        }
    }
}
