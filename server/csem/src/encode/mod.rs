//! Symbolic encoding of one test run, along the path the concrete run took.
//!
//! The interpreter runs the test and records its trace; the encoder replays
//! the same statement instances with bit-vector values, through the one
//! evaluator (`crate::eval`) with this module as its domain. Every executed
//! statement is a component with a health literal `h`: its semantics hold
//! only if it is healthy (`h → out = F(in)`, `out` fresh; for a branch,
//! `h → cond = taken direction`; `h →` no undefined behaviour). Loops are
//! unrolled and calls instantiated exactly as often as the run executed them.
//! The test's inputs are constants; its expected stdout and exit status are
//! hard constraints. Unexplored paths are not encoded: a solution that needs
//! another path is an angelic branch for the next layer to explore.

mod checks;
mod domain;
mod host;
mod memory;
mod narrow;
mod output;
mod paths;

pub use checks::{force_failing_checks, ForcedChecks};
pub use paths::{apply_slots, Divergence, EncodeOptions, Formula, Slot, SlotRole, TestEncoding};

use crate::bv::{Bv, Cnf};
use crate::interp::{run, Outcome, Overrides, RunResult, TestInput, TraceEvent};
use crate::ir::*;
use crate::types::{IntKind, Type};
use memory::{SMem, SPtr, SVal};
use paths::RunInputs;
use rustsat::types::Lit;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What the test expects.
#[derive(Clone, Debug)]
pub struct Expected {
    /// Expected stdout; not constrained when absent.
    pub stdout: Option<Vec<u8>>,
    pub exit: i32,
}

impl Expected {
    /// Whether a run ends as expected: its exit status (128 + the signal
    /// for a killed run; -6 expects an abort) and, if given, its stdout.
    pub fn met_by(&self, r: &RunResult) -> bool {
        let code = match r.outcome {
            Outcome::Exited(c) => c,
            Outcome::Signaled(s) => 128 + s,
            _ => return false,
        };
        let exit_ok =
            code == self.exit || (matches!(r.outcome, Outcome::Signaled(6)) && self.exit == -6);
        exit_ok && self.stdout.as_ref().is_none_or(|want| *want == r.stdout)
    }
}

/// The encoding of one test run.
pub struct Encoding {
    pub cnf: Cnf,
    /// Health literal of each statement the run executed.
    pub health: BTreeMap<StmtId, Lit>,
    /// Statement instances encoded.
    pub instances: usize,
}

impl Encoding {
    /// Assumptions setting every health literal to `healthy`.
    pub fn all_health(&self, healthy: bool) -> Vec<Lit> {
        self.health
            .values()
            .map(|&h| if healthy { h } else { !h })
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// The run or a construct on its path is outside what the encoder handles.
    Unsupported(String),
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EncodeError::Unsupported(m) => write!(f, "unsupported in the encoding: {m}"),
        }
    }
}

type E<T> = Result<T, EncodeError>;

fn unsup<T>(m: impl Into<String>) -> E<T> {
    Err(EncodeError::Unsupported(m.into()))
}

/// How the replayed path ended.
enum End {
    Exit(Bv),
    Abort,
}

struct Enc<'a> {
    prog: &'a Program,
    /// The formula's size at which this path is given up as too large.
    clause_limit: usize,
    cnf: Cnf,
    mem: SMem,
    trace: &'a [TraceEvent],
    pos: usize,
    health: BTreeMap<StmtId, Lit>,
    /// See [`Formula::trusted`].
    trusted: BTreeSet<StmtId>,
    /// Undefined-behaviour literals of the statement being encoded, already guarded.
    ub: Vec<Lit>,
    /// Condition under which the current sub-expression is evaluated (short-circuit).
    guard: Lit,
    /// "The model follows this path so far": its points' directions (and
    /// pins) agree up to the last point, and up to the instruction being
    /// encoded (`reached`). Undefined behaviour is excluded where the model
    /// reaches it: paths share their prefix's values (see [`Reuse`]), so a
    /// path the model leaves must not constrain what happens after.
    on_path: Lit,
    reached: Lit,
    /// The health literal that relaxes the value the statement's top-level
    /// store writes, until that store takes it.
    pending_store: Option<Lit>,
    globals: Vec<usize>,
    strings: Vec<usize>,
    /// Objects standing for the functions of `prog.address_taken`.
    functions: Vec<usize>,
    frames: Vec<Vec<usize>>,
    out: Vec<output::Item>,
    /// The program's streams: stdin, the files it opens.
    io: crate::library::Streams<'a>,
    /// The objects standing for the streams, by stream number.
    stream_objs: Vec<usize>,
    /// The C library's own objects, by key (see `Host::library_object`).
    library_objs: Vec<(String, usize)>,
    instances: usize,
    /// The health literal of the statement being encoded (output statements relax printed values).
    cur_health: Option<Lit>,
    /// Where the statement being encoded is (for messages).
    cur_range: SrcRange,
    /// The overrides the run was made with (the relaxed values' shadows follow them).
    overrides: &'a Overrides,
    out_overrides: &'a BTreeMap<(StmtId, u32, u32), u64>,
    expr_overrides: &'a BTreeMap<(StmtId, u32, u32), u64>,
    /// Candidate sub-expressions of the statements being refined (see
    /// [`crate::subexpr`]), and their health literals, shared by all tests.
    sub_index: HashMap<usize, (StmtId, u32)>,
    sub_health: BTreeMap<(StmtId, u32), Lit>,
    /// Instances started per statement, as the interpreter counts them.
    counts: Vec<u32>,
    /// The statement instance being encoded, and the integers it printed so far.
    cur_key: (StmtId, u32),
    out_arg: u32,
    /// Items printed to stdout before the statement being encoded started.
    stmt_out_start: usize,
    /// Branch and switch instances on the path, in execution order.
    points: Vec<Point>,
    /// Every relaxed value on the path.
    slots: Vec<SlotRec>,
    /// Statements the path executes.
    stmts: BTreeSet<StmtId>,
    /// The run's `__VERIFIER_nondet_*()` values, and the free values drawn so far.
    nondet: &'a [i64],
    draws: Vec<(Bv, IntKind)>,
    /// Where this path parts from the one whose encoding it replays.
    parting: Option<&'a Reuse>,
}

/// What a path shares with the path it was forced from: the steps before
/// the first statement instance whose substituted value differs (or the
/// first differing free input) are the same, so their encoding is too
/// (the same variables, see [`crate::bv::Cnf::begin_log`]). A path's
/// clauses then are mostly its own suffix: a forced branch late in a long
/// run costs what comes after it.
pub(crate) struct Reuse {
    /// The parent's log of fresh variables.
    pub fresh: Vec<std::ops::Range<u32>>,
    /// Statement instances whose substituted values differ between the runs.
    pub differ: BTreeSet<(StmtId, u32)>,
    /// The first free-input draw that differs.
    pub nondet_from: usize,
}

/// A branch or switch instance on an encoded path.
#[derive(Clone, Debug)]
pub(crate) struct Point {
    pub stmt: StmtId,
    pub instance: u32,
    pub range: SrcRange,
    /// Relaxed values recorded on the path before this point.
    pub slots_before: usize,
    /// Items printed to stdout before this point.
    pub out_before: usize,
    pub kind: PointKind,
}

#[derive(Clone, Debug)]
pub(crate) enum PointKind {
    /// `d` is the direction literal (`h → d ↔ condition`); the path took `dir`.
    Branch { d: Lit, dir: bool },
    /// The run's values where the encoding follows them (true on the path).
    Pin { lit: Lit },
    /// The run's outcome of a decision a library function makes from values
    /// of the program (a comparison of `qsort`; true on the path).
    Outcome { lit: Lit },
    /// A bound the encoding assumes (operands narrow enough for a narrow
    /// circuit, see `narrow.rs`; true on the path): a model must keep it to
    /// pass along this path, and leaving there is never explored.
    Bound { lit: Lit },
    /// `v` is the relaxed controlling value; the path went to `target`.
    Switch {
        v: Bv,
        cases: Vec<(u64, usize)>,
        default: usize,
        target: usize,
    },
}

/// How the bits of a relaxed value read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Repr {
    pub signed: bool,
    pub float: Option<crate::types::FloatKind>,
}

impl Repr {
    pub fn of(ty: &Type) -> Repr {
        Repr {
            signed: ty.as_int().is_some_and(|k| k.signed()),
            float: ty.as_float(),
        }
    }
    pub fn int(signed: bool) -> Repr {
        Repr {
            signed,
            float: None,
        }
    }
}

/// A relaxed value: fresh, equal to the statement's value when it is healthy.
#[derive(Clone, Debug)]
pub(crate) struct SlotRec {
    pub stmt: StmtId,
    pub instance: u32,
    pub arg: u32,
    pub range: SrcRange,
    pub role: paths::SlotRole,
    pub bits: Bv,
    pub signed: bool,
    /// The floating type whose encoding the bits are, for a floating value.
    pub float: Option<crate::types::FloatKind>,
    /// The statement's health literal.
    pub health: Lit,
}

/// One encoded path: its copy of the program's values in the shared CNF.
pub(crate) struct PathParts {
    /// The expected outcome (exit status and stdout) holds at the path's end.
    pub ok: Lit,
    pub points: Vec<Point>,
    pub slots: Vec<SlotRec>,
    pub stmts: BTreeSet<StmtId>,
    pub instances: usize,
    /// The free inputs drawn on the path, in order.
    pub draws: Vec<(Bv, IntKind)>,
    /// `prefix_ok[i]`: the first `i` items printed to stdout are a prefix of
    /// the expected stdout (always true when the output is not constrained,
    /// or the test expects an abort, which may lose buffered output).
    pub prefix_ok: Vec<Lit>,
    /// The fresh variables its encoding took, in order (what a path
    /// forced from it replays).
    pub fresh: Vec<std::ops::Range<u32>>,
}

/// Encode `test` of `prog` with its expected outcome, along the run's own
/// path, in a CNF of its own (the expected outcome a hard constraint).
pub fn encode_run(
    prog: &Program,
    test: &TestInput,
    expected: &Expected,
    max_steps: u64,
) -> E<Encoding> {
    let mut f = Formula::new();
    let parts = encode_path(
        &mut f,
        prog,
        test,
        expected,
        Limits {
            max_steps,
            max_clauses: usize::MAX,
        },
        &RunInputs::of(test),
        None,
    )?;
    let Formula {
        mut cnf, health, ..
    } = f;
    cnf.clause(&[parts.ok]);
    // The run's own path: every branch, switch and pin as the run went.
    for pt in &parts.points {
        let (same, _) = paths::alternatives(&mut cnf, pt);
        cnf.clause(&[same]);
    }
    Ok(Encoding {
        cnf,
        health,
        instances: parts.instances,
    })
}

/// A path's bounds: statement instances its run may take, clauses its encoding may add.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub max_steps: u64,
    pub max_clauses: usize,
}

/// Calls deeper than this are not encoded.
const MAX_ENCODED_DEPTH: usize = 5_000;

/// Run `test` (with `inputs`: its overrides and free inputs) in the
/// interpreter and encode the path it takes into `f`, with fresh values and
/// the shared health literals. Nothing is asserted: the expected outcome is
/// the literal `ok`.
pub(crate) fn encode_path(
    f: &mut Formula,
    prog: &Program,
    test: &TestInput,
    expected: &Expected,
    limits: Limits,
    inputs: &RunInputs,
    reuse: Option<&Reuse>,
) -> E<PathParts> {
    let Limits {
        max_steps,
        max_clauses,
    } = limits;
    let test = &TestInput {
        nondet: inputs.nondet.clone(),
        ..test.clone()
    };
    let r = run(prog, test, &checks::run_options(inputs, max_steps));
    match &r.outcome {
        Outcome::RuntimeError {
            message, location, ..
        } => return unsup(format!("the run stops at {location}: {message}")),
        Outcome::StepLimit => return unsup("the run does not terminate within the step limit"),
        _ => {}
    }
    let mut taken = std::mem::take(f);
    // This path's clauses go to solvers of its test alone: nothing built
    // for another path or test may be reused.
    taken.cnf.forget_shared();
    taken.cnf.share_gates(true);
    let before = taken.cnf.clauses.len();
    let limit = before.saturating_add(max_clauses);
    let mut run = || {
        let path = Replayed {
            trace: &r.trace,
            inputs,
            reuse,
            clause_limit: limit,
        };
        replay(&mut taken, prog, test, expected, path)
    };
    // The replay recurses like the program, and per level of a nested
    // expression (about 1 KiB, up to the front end's nesting limit): give it
    // a large stack, never the caller's, which may be too small.
    let result = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(1 << 30)
            .spawn_scoped(s, &mut run)
            .map(|h| h.join())
    });
    taken.cnf.share_gates(false);
    let result = match result {
        Ok(Ok(r)) => r,
        Ok(Err(_)) => unsup("internal: the encoder panicked"),
        Err(e) => unsup(format!(
            "could not start the encoder's thread ({e}); the system is out of threads or memory"
        )),
    };
    if result.is_err() {
        // The clauses of a path given up on constrain only its own fresh
        // variables (and health literals, through them): dropping them
        // loosens nothing else, and keeps a formula that closed a large
        // path from carrying it.
        taken.cnf.truncate(before);
    }
    *f = taken;
    result
}

/// A run to encode: its trace, what it was made with, and what it shares.
struct Replayed<'a> {
    trace: &'a [TraceEvent],
    inputs: &'a RunInputs,
    reuse: Option<&'a Reuse>,
    clause_limit: usize,
}

fn replay(
    f: &mut Formula,
    prog: &Program,
    test: &TestInput,
    expected: &Expected,
    path: Replayed<'_>,
) -> E<PathParts> {
    let Replayed {
        trace,
        inputs,
        reuse,
        clause_limit,
    } = path;
    let mut enc = Enc {
        prog,
        clause_limit,
        cnf: std::mem::take(&mut f.cnf),
        mem: SMem::answering_free_reads(test.free_reads),
        trace,
        pos: 0,
        health: std::mem::take(&mut f.health),
        trusted: std::mem::take(&mut f.trusted),
        ub: Vec::new(),
        guard: Lit::positive(0),
        on_path: Lit::positive(0),
        reached: Lit::positive(0),
        pending_store: None,
        globals: Vec::new(),
        strings: Vec::new(),
        functions: Vec::new(),
        frames: Vec::new(),
        out: Vec::new(),
        io: crate::library::Streams::new(&test.stdin, &test.files, &test.env),
        stream_objs: Vec::new(),
        library_objs: Vec::new(),
        instances: 0,
        cur_health: None,
        cur_range: SrcRange::default(),
        overrides: &inputs.overrides,
        out_overrides: &inputs.out,
        expr_overrides: &inputs.expr,
        sub_index: crate::subexpr::index_of(prog, f.refined.iter().copied()),
        sub_health: std::mem::take(&mut f.sub_health),
        counts: vec![0; prog.stmt_count],
        cur_key: (0, 0),
        out_arg: 0,
        stmt_out_start: 0,
        points: Vec::new(),
        slots: Vec::new(),
        stmts: BTreeSet::new(),
        nondet: &test.nondet,
        draws: Vec::new(),
        parting: reuse,
    };
    enc.guard = enc.cnf.tru();
    enc.cnf.begin_log(reuse.map(|r| r.fresh.clone()));
    // A panic while encoding must not lose the formula the encoder holds
    // (every test's clauses and the health literals): it is caught here,
    // the formula put back, and the path given up.
    let encoded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let end = enc.start(test);
        let ok = end.and_then(|end| {
            // Expected outcome: exit status, then stdout.
            let ok_exit = match end {
                End::Exit(v) => {
                    let low = Bv(v.0[..8].to_vec());
                    let want = enc.cnf.bv_const((expected.exit & 0xff) as u64, 8);
                    enc.cnf.bv_eq(&low, &want)
                }
                End::Abort => enc
                    .cnf
                    .constant(expected.exit == 134 || expected.exit == -6),
            };
            let ok_out = match &expected.stdout {
                Some(want) => output::matches(&mut enc.cnf, &enc.out, want)?,
                None => enc.cnf.tru(),
            };
            Ok(enc.cnf.and(ok_exit, ok_out))
        });
        let prefix_ok = match &expected.stdout {
            Some(want) if expected.exit != 134 => output::prefixes(&mut enc.cnf, &enc.out, want),
            _ => vec![enc.cnf.tru(); enc.out.len() + 1],
        };
        (ok, prefix_ok)
    }));
    let fresh = enc.cnf.end_log();
    f.cnf = std::mem::take(&mut enc.cnf);
    f.health = std::mem::take(&mut enc.health);
    f.trusted = std::mem::take(&mut enc.trusted);
    f.sub_health = std::mem::take(&mut enc.sub_health);
    let Ok((ok, prefix_ok)) = encoded else {
        return unsup("internal: the encoder panicked (please report this program)");
    };
    Ok(PathParts {
        ok: ok?,
        points: enc.points,
        slots: enc.slots,
        stmts: enc.stmts,
        instances: enc.instances,
        draws: enc.draws,
        prefix_ok,
        fresh,
    })
}

impl<'a> Enc<'a> {
    fn h(&mut self, stmt: StmtId) -> Lit {
        if self.trusted.contains(&stmt) {
            return self.cnf.tru();
        }
        if let Some(&h) = self.health.get(&stmt) {
            return h;
        }
        // Outside the path's log: a path replaying this one meets the
        // statement's literal already made.
        let h = self.cnf.fresh_unlogged();
        self.health.insert(stmt, h);
        h
    }

    fn note_ub(&mut self, ub: Lit) {
        let g = self.cnf.and(self.guard, ub);
        self.ub.push(g);
    }

    /// Consume the trace event of an instruction that just ran.
    fn event(&mut self, ins: &Instr) -> E<TraceEvent> {
        let Some(ev) = self.trace.get(self.pos) else {
            return unsup("internal: the trace ended early");
        };
        if ev.stmt != ins.stmt {
            return unsup(format!(
                "internal: trace out of step at {}",
                self.prog.location(ins.range)
            ));
        }
        if self.cnf.clauses.len() > self.clause_limit {
            return unsup(format!(
                "the path's formula grows beyond the clause limit at {} (a long run of wide arithmetic, such as 64-bit division in a loop)",
                self.prog.location(ins.range)
            ));
        }
        self.pos += 1;
        self.instances += 1;
        Ok(ev.clone())
    }

    /// A point of the path where the statement being encoded is now (the
    /// relaxed values so far before it; what the statement printed itself
    /// may change with the values).
    pub(crate) fn push_point(&mut self, kind: PointKind) {
        self.add_point(Point {
            stmt: self.cur_key.0,
            instance: self.cur_key.1,
            range: self.cur_range,
            slots_before: self.slots.len(),
            out_before: self.stmt_out_start,
            kind,
        });
    }

    /// `¬ub` for the statement just encoded, and its pins as a point.
    /// The statement's pins (where the encoding follows the run's value: an
    /// address, a string, a short-circuit) become one point of the path: the
    /// path is followed only while they hold, and a model violating them
    /// leaves the path there (explored by re-running with the model's values).
    fn close_statement(&mut self, h: Lit) {
        let pins: Vec<Lit> = std::mem::take(&mut self.mem.pins)
            .into_iter()
            .filter(|l| *l != self.cnf.tru())
            .collect();
        if !pins.is_empty() {
            let lit = self.cnf.and_all(&pins);
            self.push_point(PointKind::Pin { lit });
        }
        // No undefined behaviour, healthy or not: an unhealthy statement's value
        // is replaced, but replaying it (overrides) still computes the original
        // value and its addresses, as the program would. Satisfiable in every
        // copy (its run had none), so copies stay independent.
        let _ = h;
        for garbage in std::mem::take(&mut self.mem.undefined) {
            self.note_ub(garbage);
        }
        let ub = std::mem::take(&mut self.ub);
        let any = self.cnf.or_all(&ub);
        self.cnf.clause(&[!self.reached, !any]);
    }

    /// Records a point of the path; the model follows the path past it
    /// only where it goes the path's way.
    fn add_point(&mut self, pt: Point) {
        let (same, _) = paths::alternatives(&mut self.cnf, &pt);
        self.on_path = self.cnf.and(self.on_path, same);
        self.points.push(pt);
    }

    /// The relaxed value of a statement: fresh, equal to `v` when healthy.
    /// Its shadow is the run's value: `v`'s, or the override the run was made with.
    /// Recorded as a slot of the path, with the key the interpreter's overrides use.
    fn relax(&mut self, h: Lit, v: SVal, role: paths::SlotRole, ty: Repr) -> SVal {
        let (stmt, instance) = self.cur_key;
        let (arg, ov) = if role == paths::SlotRole::OutputArg {
            let n = self.out_arg;
            self.out_arg += 1;
            (n, self.out_overrides.get(&(stmt, instance, n)).copied())
        } else {
            (0, self.overrides.0.get(&(stmt, instance)).copied())
        };
        self.relax_slot(h, v, role, ty, arg, ov)
    }

    /// Sub-expression `n` of the statement being encoded, relaxed under its
    /// own health literal (the statement's stays on its value as a whole).
    fn relax_subexpr(&mut self, n: u32, e: &Expr, v: SVal) -> SVal {
        let (stmt, instance) = self.cur_key;
        let g = match self.sub_health.get(&(stmt, n)) {
            Some(&g) => g,
            None => {
                let g = self.cnf.fresh_unlogged();
                self.sub_health.insert((stmt, n), g);
                g
            }
        };
        let shadow = self.expr_overrides.get(&(stmt, instance, n)).copied();
        let range = std::mem::replace(&mut self.cur_range, e.range);
        let out = self.relax_slot(g, v, paths::SlotRole::Subexpr, Repr::of(&e.ty), n, shadow);
        self.cur_range = range;
        out
    }

    /// A fresh value equal to `v` when `h` holds, recorded as a slot whose
    /// shadow is `ov` (the value the run was made with) or `v`'s.
    fn relax_slot(
        &mut self,
        h: Lit,
        v: SVal,
        role: paths::SlotRole,
        ty: Repr,
        arg: u32,
        ov: Option<u64>,
    ) -> SVal {
        if h == self.cnf.tru() {
            // A trusted statement's value is what it computes: no slot, and
            // no fresh copy to hide a constant from the formula.
            return v;
        }
        let (stmt, instance) = self.cur_key;
        let (b, signed) = match &v {
            SVal::Int(b) => (b.clone(), ty.signed),
            SVal::Ptr(p) => (p.off.clone(), true),
            _ => return v,
        };
        // (A floating value's bits are no number to narrow: 0.0's are all zero.)
        let narrow = match &v {
            SVal::Int(_) if ty.float.is_none() => self.narrow_slot_bits(&b, ov, h, signed),
            _ => b.width(),
        };
        let mut out = match ov {
            Some(bits) => Bv((0..narrow)
                .map(|i| self.cnf.fresh_valued(Some(i < 64 && (bits >> i) & 1 == 1)))
                .collect()),
            None => self.cnf.bv_fresh_like(&Bv(b.0[..narrow].to_vec())),
        };
        // The bits above a narrow value: zero, or the sign's copies.
        out = match signed {
            true => self.cnf.bv_sext(&out, b.width()),
            false => self.cnf.bv_zext(&out, b.width()),
        };
        let eq = self
            .cnf
            .bv_eq(&Bv(out.0[..narrow].to_vec()), &Bv(b.0[..narrow].to_vec()));
        self.cnf.implies(h, eq);
        self.slots.push(SlotRec {
            stmt,
            instance,
            arg,
            range: self.cur_range,
            role,
            bits: out.clone(),
            signed,
            float: ty.float,
            health: h,
        });
        match v {
            SVal::Ptr(p) => SVal::Ptr(SPtr {
                obj: p.obj,
                off: out,
            }),
            _ => SVal::Int(out),
        }
    }

    fn start(&mut self, test: &TestInput) -> E<End> {
        match crate::eval::start(self, test) {
            Ok(SVal::Int(v)) => Ok(End::Exit(v)),
            // C99: reaching the end of main returns 0.
            Ok(_) => Ok(End::Exit(self.cnf.bv_const(0, 32))),
            Err(Stop::Exit(v)) => Ok(End::Exit(v)),
            Err(Stop::Abort) => Ok(End::Abort),
            Err(Stop::Fail(e)) => Err(e),
        }
    }

    fn truth(&mut self, v: &SVal) -> Lit {
        match v {
            SVal::Int(b) => !self.cnf.bv_is_zero(b),
            SVal::Ptr(p) => self.cnf.constant(p.obj.is_some()),
            _ => self.cnf.fls(),
        }
    }

    fn at(&self, e: EncodeError) -> EncodeError {
        let EncodeError::Unsupported(m) = e;
        EncodeError::Unsupported(format!("{m} at {}", self.prog.location(self.cur_range)))
    }

    fn store(&mut self, p: &SPtr, ty: &Type, v: SVal) -> E<()> {
        let prog = self.prog;
        let ub = self
            .mem
            .store(&mut self.cnf, p, ty, v, &prog.structs)
            .map_err(|e| self.at(e))?;
        self.note_ub(ub);
        Ok(())
    }

    fn load(&mut self, p: &SPtr, ty: &Type) -> E<SVal> {
        let prog = self.prog;
        let (v, ub) = self
            .mem
            .load(&mut self.cnf, p, ty, &prog.structs)
            .map_err(|e| self.at(e))?;
        self.note_ub(ub);
        Ok(v)
    }

    /// Pointer arithmetic; leaving the object (beyond one past its end) is
    /// undefined behaviour, as the interpreter reports it, unless the test
    /// answers reads outside objects ([`crate::TestInput::free_reads`]).
    fn ptr_offset(&mut self, p: SPtr, index: &Bv, elem: u64, sub: bool) -> SPtr {
        let index = if index.width() < 64 {
            self.cnf.bv_sext(index, 64)
        } else {
            index.clone()
        };
        let scaled = self.cnf.bv_mul_const(&index, elem);
        let off = if sub {
            self.cnf.bv_sub(&p.off, &scaled)
        } else {
            self.cnf.bv_add(&p.off, &scaled)
        };
        if let Some(o) = p.obj {
            let size = self.mem.size(o);
            let size_bv = self.cnf.bv_const(size, 64);
            let neg_size = self.cnf.bv_const(size.wrapping_neg(), 64);
            // Out of [0, size], or an index so large the product wrapped.
            let outside = self.cnf.bv_ult(&size_bv, &off);
            let too_low = self.cnf.bv_slt(&index, &neg_size);
            let too_high = self.cnf.bv_slt(&size_bv, &index);
            let wrapped = self.cnf.or(too_low, too_high);
            let ub = match self.mem.answers_free_reads() {
                // Under free reads an address outside the object is
                // computed as the interpreter computes it (reading there
                // gives the fill), within the same reach.
                true => {
                    let reach = (crate::interp::FREE_READS_REACH / i128::from(elem.max(1))) as u64;
                    let reach_bv = self.cnf.bv_const(reach, 64);
                    let neg_reach = self.cnf.bv_const(reach.wrapping_neg(), 64);
                    let below = self.cnf.bv_slt(&index, &neg_reach);
                    let beyond = self.cnf.bv_slt(&reach_bv, &index);
                    self.cnf.or(below, beyond)
                }
                false => self.cnf.or(outside, wrapped),
            };
            self.note_ub(ub);
        }
        SPtr { obj: p.obj, off }
    }

    fn eval(&mut self, e: &Expr) -> Result<SVal, Stop> {
        let v = self.eval_node(e)?;
        if self.sub_index.is_empty() {
            return Ok(v);
        }
        match self.sub_index.get(&crate::subexpr::node_key(e)) {
            Some(&(stmt, n)) if stmt == self.cur_key.0 => Ok(self.relax_subexpr(n, e, v)),
            _ => Ok(v),
        }
    }

    fn eval_node(&mut self, e: &Expr) -> Result<SVal, Stop> {
        crate::eval::expr(self, e)
    }
}

/// Why replay stops early.
pub(crate) enum Stop {
    Exit(Bv),
    Abort,
    Fail(EncodeError),
}

impl From<EncodeError> for Stop {
    fn from(e: EncodeError) -> Self {
        Stop::Fail(e)
    }
}
