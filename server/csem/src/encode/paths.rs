//! Several tests in one formula, and their paths explored on demand
//! (AgxFaults-style): a test starts with the path its concrete run takes;
//! where a model leaves that path (an unhealthy condition going the other
//! way), the interpreter re-runs the test forced into that direction and the
//! path it reaches is encoded as one more copy. Only clauses are ever added.
//!
//! Per encoded path `p` (a full copy of the run's values; health literals are
//! shared through [`Formula::health`]):
//! - each branch instance `j` has a direction literal `d_j` with `h → (d_j ↔ condition)`
//!   (a switch: its relaxed controlling value);
//! - `sel_p → ` every direction equals `p`'s ∧ `p`'s expected outcome holds;
//! - `open_{p,j,a} → ` the directions agree with `p` before `j` ∧ at `j` the model
//!   takes alternative `a` (the other direction, another case);
//! - `pass → sel_root ∨ ⋁ open_{root,j,a}`; exploring `open_{p,j,a}` encodes the path `q`
//!   of the run forced at `j` and adds `open_{p,j,a} → sel_q ∨ ⋁_{j' > j} open_{q,j',a'}`;
//!   closing it (the forced run cannot be modelled, or the path bound is reached) adds
//!   `¬open_{p,j,a}`.
//!
//! A copy forced from path `p` shares `p`'s prefix (the same variables up to
//! where the runs part, see [`Reuse`]), and undefined behaviour is ruled out
//! only where the model follows a copy (`on_path → ¬ub`), so a copy the model
//! leaves never constrains it; and `sel_q` alone describes a complete run
//! through `q` with the expected outcome: sound. Every run the model could
//! take is reachable by a chain of divergences of increasing position:
//! complete up to `max_paths` copies and `max_steps` per run.
//!
//! Loops are thus unrolled as far as the (forced) concrete runs go: forcing a
//! loop condition true runs one more iteration (and the concrete run decides
//! how it continues), forcing it false one fewer. When a divergence is
//! explored, the re-run also takes the values the model chose for the
//! unhealthy statements before the divergence (concolic), so it follows the
//! model as far as possible; if that re-run cannot be modelled, the plain
//! forced run is tried.

use super::{encode_path, Expected, Limits, PathParts, Point, PointKind, Reuse, SlotRec, E};
use crate::bv::{Bv, Cnf};
use crate::interp::{Overrides, RunOptions, TestInput};
use crate::ir::{Program, SrcRange, StmtId};
use crate::types::IntKind;
use rustsat::types::Lit;
use std::collections::{BTreeMap, BTreeSet};

/// The CNF shared by all tests' encodings, and one health literal per statement.
#[derive(Debug, Default)]
pub struct Formula {
    pub cnf: Cnf,
    pub health: BTreeMap<StmtId, Lit>,
    /// Statements whose candidate sub-expressions ([`crate::subexpr`]) get
    /// health literals of their own when encoded: set before encoding.
    pub refined: BTreeSet<StmtId>,
    /// `(statement, candidate)` → its health literal: false lets that
    /// sub-expression take any value while the statement's health literal
    /// keeps the rest of the statement as written.
    pub sub_health: BTreeMap<(StmtId, u32), Lit>,
    /// Statements that are the specification (a unit test's code, a
    /// framework's model): always healthy, so they get no health literal
    /// and their semantics hold unconditionally. Set before encoding.
    pub trusted: BTreeSet<StmtId>,
}

impl Formula {
    pub fn new() -> Self {
        Self::default()
    }

    /// Assumptions setting every health literal created so far to `healthy`.
    pub fn all_health(&self, healthy: bool) -> Vec<Lit> {
        self.health
            .values()
            .map(|&h| if healthy { h } else { !h })
            .collect()
    }
}

#[derive(Clone, Debug)]
pub struct EncodeOptions {
    /// Statement instances a (forced) run may take before it counts as not terminating.
    pub max_steps: u64,
    /// Encoded paths (copies) per test at most; divergences beyond are closed.
    pub max_paths: usize,
    /// Clauses one path may add; a larger path is not encoded (a divergence
    /// to it is closed). A forced run that loops over 64-bit divisions adds
    /// millions, and a formula carrying it makes every later solve slow.
    pub max_clauses_per_path: usize,
}

impl EncodeOptions {
    pub(crate) fn limits(&self) -> Limits {
        Limits {
            max_steps: self.max_steps,
            max_clauses: self.max_clauses_per_path,
        }
    }
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            max_steps: 1_000_000,
            max_paths: 32,
            max_clauses_per_path: 1_000_000,
        }
    }
}

/// What a relaxed value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SlotRole {
    /// The stored value of `=`, `op=`, `++`, `--`, or a scalar's initial value.
    Value,
    /// A branch's direction (1 taken, 0 not).
    Condition,
    /// A switch's controlling value.
    SwitchValue,
    /// A returned value.
    Return,
    /// The `arg`-th integer printed by an output statement.
    OutputArg,
    /// The value of the statement's candidate sub-expression `arg`.
    Subexpr,
}

/// A relaxed value the model chose for an unhealthy statement instance:
/// exactly what [`RunOptions::overrides`] (or, for [`SlotRole::OutputArg`],
/// [`RunOptions::output_overrides`]; for [`SlotRole::Subexpr`],
/// [`RunOptions::expr_overrides`]) takes; see [`apply_slots`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    pub stmt: StmtId,
    /// 0-based instance, as the interpreter numbers them.
    pub instance: u32,
    pub range: SrcRange,
    pub role: SlotRole,
    /// Raw bits of the value's type (a pointer: its byte offset in its object).
    pub bits: u64,
    pub width: u32,
    pub signed: bool,
    /// For a floating value: the type whose encoding the bits are.
    pub float: Option<crate::types::FloatKind>,
    /// For [`SlotRole::OutputArg`]: which integer the statement instance
    /// printed (0-based); for [`SlotRole::Subexpr`]: which candidate.
    pub arg: u32,
}

impl Slot {
    /// The value as a number (sign-extended when the type is signed).
    pub fn value(&self) -> i64 {
        if self.signed && self.width < 64 && self.width > 0 {
            let shift = 64 - self.width;
            ((self.bits << shift) as i64) >> shift
        } else {
            self.bits as i64
        }
    }
}

/// Put slots into run options as overrides, for replaying a model's values.
pub fn apply_slots(opts: &mut RunOptions, slots: &[Slot]) {
    for s in slots {
        substitute(
            s,
            &mut opts.overrides,
            &mut opts.output_overrides,
            &mut opts.expr_overrides,
        );
    }
}

/// Puts a slot's value where its role says: a statement's, a printed
/// integer's or a sub-expression's override.
fn substitute(
    s: &Slot,
    overrides: &mut Overrides,
    out: &mut BTreeMap<(StmtId, u32, u32), u64>,
    expr: &mut BTreeMap<(StmtId, u32, u32), u64>,
) {
    let key = (s.stmt, s.instance, s.arg);
    match s.role {
        SlotRole::OutputArg => {
            out.insert(key, s.bits);
        }
        SlotRole::Subexpr => {
            expr.insert(key, s.bits);
        }
        _ => overrides.insert(s.stmt, s.instance, s.bits),
    }
}

/// What a run is made with: values substituted for statement instances,
/// printed integers and sub-expressions, and the free inputs it draws.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunInputs {
    pub overrides: Overrides,
    pub out: BTreeMap<(StmtId, u32, u32), u64>,
    pub expr: BTreeMap<(StmtId, u32, u32), u64>,
    pub nondet: Vec<i64>,
}

impl RunInputs {
    /// The test as given: nothing substituted.
    pub fn of(test: &TestInput) -> Self {
        RunInputs {
            nondet: test.nondet.clone(),
            ..RunInputs::default()
        }
    }

    /// Substitutes a model's value, where [`apply_slots`] would.
    fn set(&mut self, s: &Slot) {
        substitute(s, &mut self.overrides, &mut self.out, &mut self.expr);
    }
}

/// An unexplored place where a model leaves an encoded path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The encoded path, the branch/switch point on it, the alternative taken there.
    pub path: usize,
    pub point: usize,
    pub alt: usize,
    pub stmt: StmtId,
    pub instance: u32,
    pub range: SrcRange,
    /// The override that forces the run there (direction 1/0, or a switch value).
    pub forced_bits: u64,
    /// The model leaves the path through values, not a branch: an address, a
    /// string or a short-circuit the encoding took from the run (`forced_bits`
    /// is then unused; the re-run takes the model's values).
    pub by_values: bool,
    /// Through values, at a decision those values alone make (a comparison
    /// of `qsort`): the re-run decides it as the model does, so it is no
    /// divergence of the new path (an address or string pinned to the run
    /// may still differ on the re-run, and stays open there).
    pub decided_by_values: bool,
    /// The values the model chose for unhealthy statements before the point.
    pub values: Vec<Slot>,
    /// The free inputs (`__VERIFIER_nondet_*()` draws) the model chose on the path.
    pub nondet: Vec<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum OpenState {
    Unexplored,
    Explored(usize),
    Closed,
}

struct Open {
    lit: Lit,
    forced_bits: u64,
    state: OpenState,
}

struct Path {
    sel: Lit,
    /// What its run was made with.
    inputs: RunInputs,
    points: Vec<Point>,
    /// Per point, the alternatives the model may take there (empty before the
    /// point this path was forced at: those belong to its ancestors).
    opens: Vec<Vec<Open>>,
    slots: Vec<SlotRec>,
    stmts: BTreeSet<StmtId>,
    /// Its free inputs.
    draws: Vec<(Bv, IntKind)>,
    /// The fresh variables its encoding took (see [`Reuse`]), and the
    /// statements refined into sub-expressions then.
    fresh: Vec<std::ops::Range<u32>>,
    refined: BTreeSet<StmtId>,
}

/// One test in a [`Formula`]: its encoded paths and their divergences.
pub struct TestEncoding {
    test: TestInput,
    expected: Expected,
    opts: EncodeOptions,
    pass: Lit,
    paths: Vec<Path>,
    incomplete: Vec<String>,
    covers: Vec<(StmtId, Lit)>,
    instances: usize,
    /// The literal of [`TestEncoding::leaves`], while no divergence has been explored since.
    leaves: Option<Lit>,
    last_explored: Option<usize>,
}

impl TestEncoding {
    /// Encode the path the test's own run takes (no clause is asserted but
    /// the definitions: assert [`TestEncoding::pass`] for "the test passes").
    pub fn new(
        f: &mut Formula,
        prog: &Program,
        test: &TestInput,
        expected: &Expected,
        opts: &EncodeOptions,
    ) -> E<Self> {
        let inputs = super::checks::root_inputs(prog, test, expected, &f.trusted, opts.max_steps);
        let parts = encode_path(f, prog, test, expected, opts.limits(), &inputs, None)?;
        let mut te = TestEncoding {
            test: test.clone(),
            expected: expected.clone(),
            opts: opts.clone(),
            pass: f.cnf.fresh(),
            paths: Vec::new(),
            incomplete: Vec::new(),
            covers: Vec::new(),
            instances: 0,
            leaves: None,
            last_explored: None,
        };
        let (root, leaves) = te.add_path(f, parts, 0, inputs);
        let mut clause = vec![!te.pass, te.paths[root].sel];
        clause.extend(leaves);
        f.cnf.clause(&clause);
        Ok(te)
    }

    /// "This test passes": some encoded path is followed to the expected
    /// outcome, or the model leaves the encoded paths at an unexplored divergence.
    pub fn pass(&self) -> Lit {
        self.pass
    }

    /// Encoded paths (copies of the run).
    pub fn paths(&self) -> usize {
        self.paths.len()
    }

    /// Statement instances encoded over all paths.
    pub fn instances(&self) -> usize {
        self.instances
    }

    /// Whether every divergence explored so far could be modelled (none was
    /// closed for undefined behaviour, the step limit, an unsupported construct
    /// or the path bound).
    pub fn complete(&self) -> bool {
        self.incomplete.is_empty()
    }

    /// The literals of the divergences not explored yet: assume their
    /// negations to look for a model on the encoded paths first (and explore
    /// only when there is none).
    pub fn unexplored(&self) -> Vec<Lit> {
        self.unexplored_except(usize::MAX)
    }

    /// The unexplored divergences on every path but `path` (assume their
    /// negations to continue depth-first from the path explored last).
    pub fn unexplored_except(&self, path: usize) -> Vec<Lit> {
        self.paths
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != path)
            .flat_map(|(_, p)| p.opens.iter().flatten())
            .filter(|o| o.state == OpenState::Unexplored)
            .map(|o| o.lit)
            .collect()
    }

    /// A literal implied by taking any divergence not explored yet: assume
    /// its negation to look for a model on the encoded paths only (one
    /// assumption; a new literal after each exploration, the old ones stay
    /// harmless). Solvers otherwise readily satisfy `pass` by leaving the
    /// encoded paths, which costs explorations a model on them would not need.
    pub fn leaves(&mut self, f: &mut Formula) -> Lit {
        if let Some(l) = self.leaves {
            return l;
        }
        let l = f.cnf.fresh();
        for o in self.paths.iter().flat_map(|p| p.opens.iter().flatten()) {
            if o.state == OpenState::Unexplored {
                f.cnf.clause(&[!o.lit, l]);
            }
        }
        self.leaves = Some(l);
        l
    }

    /// The path the last successful [`TestEncoding::explore`] encoded.
    pub fn last_explored(&self) -> Option<usize> {
        self.last_explored
    }

    /// The literals of the unexplored divergences on `d`'s path at `d`'s
    /// point or before it: assume their negations to ask the solver for a
    /// later divergence (one that keeps a longer prefix of the path; on
    /// programs with many unhealthy statements the first divergence a solver
    /// finds is often the earliest, which makes exploration a blind search).
    pub fn at_or_before(&self, d: &Divergence) -> Vec<Lit> {
        let Some(path) = self.paths.get(d.path) else {
            return Vec::new();
        };
        path.opens
            .iter()
            .take(d.point + 1)
            .flatten()
            .filter(|o| o.state == OpenState::Unexplored)
            .map(|o| o.lit)
            .collect()
    }

    /// Why exploration is incomplete: one line per closed divergence.
    pub fn incomplete(&self) -> &[String] {
        &self.incomplete
    }

    /// Unexplored divergences the model takes; empty when the model follows an
    /// encoded path to its end (or does not make the test pass at all).
    pub fn open_divergences(&self, model: &dyn Fn(Lit) -> bool) -> Vec<Divergence> {
        let mut out = Vec::new();
        if self.walk(0, model, &mut out) {
            return Vec::new();
        }
        out
    }

    /// True when the model follows an encoded path from `p` to its end;
    /// otherwise collects the unexplored divergences it takes.
    fn walk(&self, p: usize, model: &dyn Fn(Lit) -> bool, out: &mut Vec<Divergence>) -> bool {
        let path = &self.paths[p];
        if model(path.sel) {
            return true;
        }
        for (j, alts) in path.opens.iter().enumerate() {
            for (a, o) in alts.iter().enumerate() {
                if !model(o.lit) {
                    continue;
                }
                match o.state {
                    OpenState::Explored(q) => {
                        if self.walk(q, model, out) {
                            return true;
                        }
                    }
                    OpenState::Unexplored => out.push(self.divergence(p, j, a, model)),
                    OpenState::Closed => {}
                }
            }
        }
        false
    }

    fn divergence(&self, p: usize, j: usize, a: usize, model: &dyn Fn(Lit) -> bool) -> Divergence {
        let path = &self.paths[p];
        let pt = &path.points[j];
        Divergence {
            path: p,
            point: j,
            alt: a,
            stmt: pt.stmt,
            instance: pt.instance,
            range: pt.range,
            forced_bits: path.opens[j][a].forced_bits,
            by_values: matches!(pt.kind, PointKind::Pin { .. } | PointKind::Outcome { .. }),
            decided_by_values: matches!(pt.kind, PointKind::Outcome { .. }),
            values: slot_values(&path.slots[..pt.slots_before], model),
            nondet: draw_values(&path.draws, model),
        }
    }

    /// Encode the path through `d` (the test re-run forced there), or close
    /// `d` when that run cannot be modelled or the path bound is reached.
    /// Only adds clauses. A divergence already explored or closed is left alone.
    pub fn explore(&mut self, f: &mut Formula, prog: &Program, d: &Divergence) -> E<()> {
        let Some(open) = self
            .paths
            .get(d.path)
            .and_then(|p| p.opens.get(d.point))
            .and_then(|o| o.get(d.alt))
        else {
            return super::unsup("internal: a divergence of another encoding");
        };
        if open.state != OpenState::Unexplored {
            return Ok(());
        }
        let lit = open.lit;
        let here = format!("{} (instance {})", prog.location(d.range), d.instance + 1);
        if self.paths.len() >= self.opts.max_paths {
            // The bound is reached: every divergence left is closed at once.
            let mut closed = 0;
            for path in &mut self.paths {
                for o in path.opens.iter_mut().flatten() {
                    if o.state == OpenState::Unexplored {
                        f.cnf.clause(&[!o.lit]);
                        o.state = OpenState::Closed;
                        closed += 1;
                    }
                }
            }
            self.incomplete.push(format!(
                "{here} and {} other divergences: more than {} paths",
                closed - 1,
                self.opts.max_paths
            ));
            return Ok(());
        }
        let parent = &self.paths[d.path];
        let mut plain = parent.inputs.clone();
        plain.overrides.insert(d.stmt, d.instance, d.forced_bits);
        let mut concolic = parent.inputs.clone();
        for s in &d.values {
            concolic.set(s);
        }
        if !d.by_values {
            concolic.overrides.insert(d.stmt, d.instance, d.forced_bits);
        }
        concolic.nondet = d.nondet.clone();
        let mut attempts = vec![concolic];
        if !d.by_values && (!d.values.is_empty() || d.nondet != parent.inputs.nondet) {
            attempts.push(plain);
        }
        let mut why = String::new();
        for inputs in attempts {
            let reuse = self.reuse(f, d.path, &inputs);
            match encode_path(
                f,
                prog,
                &self.test,
                &self.expected,
                self.opts.limits(),
                &inputs,
                reuse.as_ref(),
            ) {
                Ok(parts) => {
                    // Divergences on the new path: after the forced branch; for a
                    // divergence through values, from the same point on (the
                    // re-run shares the prefix before it).
                    let first_open = if d.decided_by_values {
                        Some(d.point + 1)
                    } else if d.by_values {
                        Some(d.point)
                    } else {
                        // The forced point itself: a statement instance can
                        // have several (a short-circuit's operands, then its
                        // branch), and one forced at its second must not stay
                        // open on the new path, where the model could flip it
                        // back and forth, a copy of the run each time.
                        let key = (d.stmt, d.instance);
                        let nth = self.paths[d.path].points[..d.point]
                            .iter()
                            .filter(|p| (p.stmt, p.instance) == key)
                            .count();
                        parts
                            .points
                            .iter()
                            .enumerate()
                            .filter(|(_, p)| (p.stmt, p.instance) == key)
                            .nth(nth)
                            .map(|(at, _)| at + 1)
                    };
                    let Some(first_open) = first_open else {
                        why = "internal: the forced run does not reach the divergence".into();
                        continue;
                    };
                    let (q, leaves) = self.add_path(f, parts, first_open, inputs);
                    let mut clause = vec![!lit, self.paths[q].sel];
                    clause.extend(leaves);
                    f.cnf.clause(&clause);
                    self.paths[d.path].opens[d.point][d.alt].state = OpenState::Explored(q);
                    self.last_explored = Some(q);
                    self.leaves = None;
                    return Ok(());
                }
                Err(e) => why = e.to_string(),
            }
        }
        self.close(f, d, format!("{here}: {why}"));
        Ok(())
    }

    /// Encodes, as one more copy beside the paths explored, the path the
    /// test's run takes with `overrides` substituted, and returns its
    /// selector: assume it to ask for a model along that path to the
    /// expected outcome. Given the values a corrected program produced (a
    /// witness), a model with every statement unhealthy shows the relaxed
    /// encoding satisfiable without searching for the path. The copy is no
    /// divergence of the others (`pass` does not reach it) and opens none.
    pub fn encode_witness(
        &mut self,
        f: &mut Formula,
        prog: &Program,
        overrides: Overrides,
    ) -> E<Lit> {
        let inputs = RunInputs {
            overrides,
            ..RunInputs::of(&self.test)
        };
        let parts = encode_path(
            f,
            prog,
            &self.test,
            &self.expected,
            self.opts.limits(),
            &inputs,
            None,
        )?;
        let no_opens = parts.points.len();
        let (q, _) = self.add_path(f, parts, no_opens, inputs);
        Ok(self.paths[q].sel)
    }

    /// What a run made with `inputs` shares with path `p`'s: nothing when
    /// the statements refined into sub-expressions changed since `p` was
    /// encoded (the same steps would be encoded differently).
    fn reuse(&self, f: &Formula, p: usize, inputs: &RunInputs) -> Option<Reuse> {
        let parent = &self.paths[p];
        if parent.refined != f.refined {
            return None;
        }
        let a = &parent.inputs;
        let mut differ = BTreeSet::new();
        differing_keys(&a.overrides.0, &inputs.overrides.0, |k| k, &mut differ);
        differing_keys(&a.out, &inputs.out, |k| (k.0, k.1), &mut differ);
        differing_keys(&a.expr, &inputs.expr, |k| (k.0, k.1), &mut differ);
        let nondet_from = a
            .nondet
            .iter()
            .zip(&inputs.nondet)
            .take_while(|(x, y)| x == y)
            .count();
        Some(Reuse {
            fresh: parent.fresh.clone(),
            differ,
            nondet_from,
        })
    }

    fn close(&mut self, f: &mut Formula, d: &Divergence, why: String) {
        let o = &mut self.paths[d.path].opens[d.point][d.alt];
        f.cnf.clause(&[!o.lit]);
        o.state = OpenState::Closed;
        self.incomplete.push(why);
    }

    /// Relaxed values of the unhealthy statements on the path the model follows
    /// to its end (empty when it follows none).
    pub fn slots(&self, model: &dyn Fn(Lit) -> bool) -> Vec<Slot> {
        let Some(p) = self.followed_or_any(model) else {
            return Vec::new();
        };
        let path = &self.paths[p];
        slot_values(&path.slots, model)
    }

    /// The free inputs (`__VERIFIER_nondet_*()` draws, in order) on the path
    /// the model follows to its end: with every statement healthy, running
    /// the test with `nondet` set to these follows that path (empty when it follows none).
    pub fn nondet_values(&self, model: &dyn Fn(Lit) -> bool) -> Vec<i64> {
        match self.followed_or_any(model) {
            Some(p) => draw_values(&self.paths[p].draws, model),
            None => Vec::new(),
        }
    }

    fn followed_or_any(&self, model: &dyn Fn(Lit) -> bool) -> Option<usize> {
        self.followed(0, model)
            .or_else(|| self.paths.iter().position(|p| model(p.sel)))
    }

    /// The path the model follows to its end, reached from `p` through explored divergences.
    fn followed(&self, p: usize, model: &dyn Fn(Lit) -> bool) -> Option<usize> {
        let path = &self.paths[p];
        if model(path.sel) {
            return Some(p);
        }
        for alts in &path.opens {
            for o in alts {
                if let OpenState::Explored(q) = o.state {
                    if model(o.lit) {
                        if let Some(x) = self.followed(q, model) {
                            return Some(x);
                        }
                    }
                }
            }
        }
        None
    }

    /// A literal implied by following (to its end) any encoded path that
    /// executes `stmt`, now or explored later: assert its negation to ask for
    /// a run that does not execute `stmt`.
    pub fn covers(&mut self, f: &mut Formula, stmt: StmtId) -> Lit {
        if let Some(&(_, c)) = self.covers.iter().find(|(s, _)| *s == stmt) {
            return c;
        }
        let c = f.cnf.fresh();
        for p in &self.paths {
            if p.stmts.contains(&stmt) {
                f.cnf.clause(&[!p.sel, c]);
            }
        }
        self.covers.push((stmt, c));
        c
    }

    /// Add an encoded path; returns its index and its divergence literals
    /// (opens at points from `first_open` on).
    fn add_path(
        &mut self,
        f: &mut Formula,
        parts: PathParts,
        first_open: usize,
        inputs: RunInputs,
    ) -> (usize, Vec<Lit>) {
        let cnf = &mut f.cnf;
        let sel = cnf.fresh();
        cnf.implies(sel, parts.ok);
        let mut agree = cnf.tru();
        let mut opens = Vec::with_capacity(parts.points.len());
        let mut leaves = Vec::new();
        for (j, pt) in parts.points.iter().enumerate() {
            let (same, alts) = alternatives(cnf, pt);
            let mut here = Vec::new();
            if j >= first_open {
                for (sel_alt, forced_bits) in alts {
                    // Negative: solvers decide fresh variables true first, so a
                    // model leaves the encoded paths only when it has to.
                    let lit = !cnf.fresh();
                    cnf.implies(lit, agree);
                    cnf.implies(lit, sel_alt);
                    // What the path printed before the divergence is printed by
                    // every run through it: it must begin the expected output.
                    cnf.implies(lit, parts.prefix_ok[pt.out_before]);
                    leaves.push(lit);
                    here.push(Open {
                        lit,
                        forced_bits,
                        state: OpenState::Unexplored,
                    });
                }
            }
            opens.push(here);
            cnf.implies(sel, same);
            agree = cnf.and(agree, same);
        }
        for &(stmt, c) in &self.covers {
            if parts.stmts.contains(&stmt) {
                cnf.clause(&[!sel, c]);
            }
        }
        self.instances += parts.instances;
        self.paths.push(Path {
            sel,
            inputs,
            points: parts.points,
            opens,
            slots: parts.slots,
            stmts: parts.stmts,
            draws: parts.draws,
            fresh: parts.fresh,
            refined: f.refined.clone(),
        });
        (self.paths.len() - 1, leaves)
    }
}

/// The statement instances (through `key`) whose values differ between two
/// maps of substituted values.
fn differing_keys<K: Ord + Copy>(
    a: &BTreeMap<K, u64>,
    b: &BTreeMap<K, u64>,
    key: impl Fn(K) -> (StmtId, u32),
    out: &mut BTreeSet<(StmtId, u32)>,
) {
    for k in a.keys().chain(b.keys()) {
        if a.get(k) != b.get(k) {
            out.insert(key(*k));
        }
    }
}

/// At a point: the literal "the model goes where the path went", and for
/// each other way the literal "the model goes there" with the override that
/// forces the run there.
pub(crate) fn alternatives(cnf: &mut Cnf, pt: &Point) -> (Lit, Vec<(Lit, u64)>) {
    match &pt.kind {
        PointKind::Pin { lit } | PointKind::Outcome { lit } => (*lit, vec![(!*lit, 0)]),
        PointKind::Bound { lit } => (*lit, vec![]),
        PointKind::Branch { d, dir } => {
            let same = if *dir { *d } else { !*d };
            (same, vec![(!same, u64::from(!*dir))])
        }
        PointKind::Switch {
            v,
            cases,
            default,
            target,
        } => {
            let w = v.width();
            let eqs: Vec<Lit> = cases
                .iter()
                .map(|(c, _)| {
                    let cb = cnf.bv_const(*c, w);
                    cnf.bv_eq(v, &cb)
                })
                .collect();
            let none = {
                let neg: Vec<Lit> = eqs.iter().map(|l| !*l).collect();
                cnf.and_all(&neg)
            };
            let mut targets: Vec<usize> = cases.iter().map(|(_, t)| *t).collect();
            targets.push(*default);
            targets.sort_unstable();
            targets.dedup();
            let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
            let mut goes = |t: usize| -> (Lit, u64) {
                let mut ways: Vec<Lit> = Vec::new();
                let mut bits = None;
                for (i, (c, ct)) in cases.iter().enumerate() {
                    if *ct == t {
                        ways.push(eqs[i]);
                        bits.get_or_insert(*c);
                    }
                }
                if t == *default {
                    ways.push(none);
                    if bits.is_none() {
                        // The smallest value no case label has.
                        let labels: BTreeSet<u64> = cases.iter().map(|(c, _)| *c).collect();
                        bits = (0..=labels.len() as u64).find(|x| !labels.contains(&(x & mask)));
                    }
                }
                (cnf.or_all(&ways), bits.unwrap_or(0))
            };
            let (same, _) = goes(*target);
            let alts = targets
                .iter()
                .filter(|t| **t != *target)
                .map(|t| goes(*t))
                .collect();
            (same, alts)
        }
    }
}

/// The model's values of the slots whose statement is unhealthy in it.
fn slot_values(slots: &[SlotRec], model: &dyn Fn(Lit) -> bool) -> Vec<Slot> {
    slots
        .iter()
        .filter(|s| !model(s.health))
        .map(|s| Slot {
            stmt: s.stmt,
            instance: s.instance,
            range: s.range,
            role: s.role,
            bits: bv_bits(&s.bits, model),
            width: s.bits.width() as u32,
            signed: s.signed,
            float: s.float,
            arg: s.arg,
        })
        .collect()
}

fn bv_bits(b: &Bv, model: &dyn Fn(Lit) -> bool) -> u64 {
    b.0.iter()
        .take(64)
        .enumerate()
        .fold(0u64, |acc, (i, l)| acc | (u64::from(model(*l)) << i))
}

/// The model's values of free inputs, sign-extended from signed types.
fn draw_values(draws: &[(Bv, IntKind)], model: &dyn Fn(Lit) -> bool) -> Vec<i64> {
    draws
        .iter()
        .map(|(b, k)| k.value(bv_bits(b, model)) as i64)
        .collect()
}
