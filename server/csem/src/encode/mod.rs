//! Symbolic encoding of one test run, along the path the concrete run took.
//!
//! The interpreter runs the test and records its trace; the encoder replays
//! the same statement instances with bit-vector values. Every executed
//! statement is a component with a health literal `h`: its semantics hold
//! only if it is healthy (`h → out = F(in)`, `out` fresh; for a branch,
//! `h → cond = taken direction`; `h →` no undefined behaviour). Loops are
//! unrolled and calls instantiated exactly as often as the run executed them.
//! The test's inputs are constants; its expected stdout and exit status are
//! hard constraints. Unexplored paths are not encoded: a solution that needs
//! another path is an angelic branch for the next layer to explore.

mod host;
mod memory;
mod output;
mod paths;

pub use paths::{apply_slots, Divergence, EncodeOptions, Formula, Slot, SlotRole, TestEncoding};

use crate::bv::{Bv, Cnf};
use crate::interp::{
    counts_instance, run, Outcome, Overrides, RunOptions, TestInput, TraceEvent, TraceValue,
};
use crate::ir::*;
use crate::types::{Conversion, IntKind, Type};
use memory::{Cell, SMem, SPtr, SVal};
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
    /// Undefined-behaviour literals of the statement being encoded, already guarded.
    ub: Vec<Lit>,
    /// Condition under which the current sub-expression is evaluated (short-circuit).
    guard: Lit,
    globals: Vec<usize>,
    strings: Vec<usize>,
    frames: Vec<Vec<usize>>,
    out: Vec<output::Item>,
    input: crate::library::Input<'a>,
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
    /// `v` is the relaxed controlling value; the path went to `target`.
    Switch {
        v: Bv,
        cases: Vec<(u64, usize)>,
        default: usize,
        target: usize,
    },
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
        max_steps,
        usize::MAX,
        &RunInputs::of(test),
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
    max_steps: u64,
    max_clauses: usize,
    inputs: &RunInputs,
) -> E<PathParts> {
    let test = &TestInput {
        nondet: inputs.nondet.clone(),
        ..test.clone()
    };
    let opts = RunOptions {
        trace: true,
        max_trace: usize::MAX,
        max_steps,
        overrides: inputs.overrides.clone(),
        output_overrides: inputs.out.clone(),
        expr_overrides: inputs.expr.clone(),
        // Draws beyond the test's values are inputs the solver chooses anyway.
        nondet_fill: Some(0),
        ..RunOptions::default()
    };
    let r = run(prog, test, &opts);
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
    let before = taken.cnf.clauses.len();
    let limit = before.saturating_add(max_clauses);
    let mut run = || replay(&mut taken, prog, test, expected, &r.trace, inputs, limit);
    // The replay recurses like the program, and per level of a nested
    // expression (about 1 KiB, up to the front end's nesting limit): give it
    // a large stack, never the caller's, which may be too small.
    let result = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(1 << 30)
            .spawn_scoped(s, &mut run)
            .map(|h| h.join())
    });
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

fn replay(
    f: &mut Formula,
    prog: &Program,
    test: &TestInput,
    expected: &Expected,
    trace: &[TraceEvent],
    inputs: &RunInputs,
    clause_limit: usize,
) -> E<PathParts> {
    let mut enc = Enc {
        prog,
        clause_limit,
        cnf: std::mem::take(&mut f.cnf),
        mem: SMem::default(),
        trace,
        pos: 0,
        health: std::mem::take(&mut f.health),
        ub: Vec::new(),
        guard: Lit::positive(0),
        globals: Vec::new(),
        strings: Vec::new(),
        frames: Vec::new(),
        out: Vec::new(),
        input: crate::library::Input::new(&test.stdin),
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
    };
    enc.guard = enc.cnf.tru();
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
    f.cnf = std::mem::take(&mut enc.cnf);
    f.health = std::mem::take(&mut enc.health);
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
    })
}

fn size_of(prog: &Program, t: &Type) -> u64 {
    t.size(&prog.structs).unwrap_or(0)
}

impl<'a> Enc<'a> {
    fn h(&mut self, stmt: StmtId) -> Lit {
        if let Some(&h) = self.health.get(&stmt) {
            return h;
        }
        let h = self.cnf.fresh();
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
            self.points.push(Point {
                stmt: self.cur_key.0,
                instance: self.cur_key.1,
                range: self.cur_range,
                slots_before: self.slots.len(),
                // What the statement printed itself may change with the values.
                out_before: self.stmt_out_start,
                kind: PointKind::Pin { lit },
            });
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
        self.cnf.clause(&[!any]);
    }

    /// The relaxed value of a statement: fresh, equal to `v` when healthy.
    /// Its shadow is the run's value: `v`'s, or the override the run was made with.
    /// Recorded as a slot of the path, with the key the interpreter's overrides use.
    fn relax(&mut self, h: Lit, v: SVal, role: paths::SlotRole, signed: bool) -> SVal {
        let (stmt, instance) = self.cur_key;
        let (arg, ov) = if role == paths::SlotRole::OutputArg {
            let n = self.out_arg;
            self.out_arg += 1;
            (n, self.out_overrides.get(&(stmt, instance, n)).copied())
        } else {
            (0, self.overrides.0.get(&(stmt, instance)).copied())
        };
        self.relax_slot(h, v, role, signed, arg, ov)
    }

    /// Sub-expression `n` of the statement being encoded, relaxed under its
    /// own health literal (the statement's stays on its value as a whole).
    fn relax_subexpr(&mut self, n: u32, e: &Expr, v: SVal) -> SVal {
        let (stmt, instance) = self.cur_key;
        let g = match self.sub_health.get(&(stmt, n)) {
            Some(&g) => g,
            None => {
                let g = self.cnf.fresh();
                self.sub_health.insert((stmt, n), g);
                g
            }
        };
        let shadow = self.expr_overrides.get(&(stmt, instance, n)).copied();
        let signed = e.ty.as_int().is_some_and(|k| k.signed());
        let range = std::mem::replace(&mut self.cur_range, e.range);
        let out = self.relax_slot(g, v, paths::SlotRole::Subexpr, signed, n, shadow);
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
        signed: bool,
        arg: u32,
        ov: Option<u64>,
    ) -> SVal {
        let (stmt, instance) = self.cur_key;
        let (b, signed) = match &v {
            SVal::Int(b) => (b.clone(), signed),
            SVal::Ptr(p) => (p.off.clone(), true),
            _ => return v,
        };
        let out = match ov {
            Some(bits) => Bv((0..b.width())
                .map(|i| self.cnf.fresh_valued(Some(i < 64 && (bits >> i) & 1 == 1)))
                .collect()),
            None => self.cnf.bv_fresh_like(&b),
        };
        let eq = self.cnf.bv_eq(&out, &b);
        self.cnf.implies(h, eq);
        self.slots.push(SlotRec {
            stmt,
            instance,
            arg,
            range: self.cur_range,
            role,
            bits: out.clone(),
            signed,
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
        let prog = self.prog;
        let main = prog.main.expect("the run found main");
        for name in ["stdin", "stdout", "stderr"] {
            self.mem.alloc(name, 1);
        }
        for s in &prog.strings {
            let id = self.mem.alloc("string literal", s.len() as u64);
            for (i, b) in s.iter().enumerate() {
                self.mem.set(
                    id,
                    i as u64,
                    Cell::int(IntKind::Char, self.cnf.bv_const(u64::from(*b), 8)),
                );
            }
            self.strings.push(id);
        }
        for g in &prog.globals {
            let id = self.mem.alloc(&g.name, size_of(prog, &g.ty));
            self.globals.push(id);
        }
        for (gi, g) in prog.globals.iter().enumerate() {
            if let Some(init) = &g.init {
                self.initialize(self.globals[gi], init, None)?;
                let _ = std::mem::take(&mut self.ub);
            }
        }
        let mut all = vec!["prog".to_string()];
        all.extend(test.args.iter().cloned());
        let mut arg_objs = Vec::new();
        for a in &all {
            let id = self.mem.alloc("argv string", a.len() as u64 + 1);
            let bytes: Vec<u8> = a.bytes().chain(std::iter::once(0)).collect();
            for (i, b) in bytes.iter().enumerate() {
                self.mem.set(
                    id,
                    i as u64,
                    Cell::int(IntKind::Char, self.cnf.bv_const(u64::from(*b), 8)),
                );
            }
            arg_objs.push(id);
        }
        let argv = self.mem.alloc("argv", 8 * (all.len() as u64 + 1));
        for (i, o) in arg_objs.iter().enumerate() {
            let p = SPtr {
                obj: Some(*o),
                off: self.cnf.bv_const(0, 64),
            };
            self.mem.set(argv, 8 * i as u64, Cell::ptr(p));
        }
        let null = SPtr {
            obj: None,
            off: self.cnf.bv_const(0, 64),
        };
        self.mem.set(argv, 8 * all.len() as u64, Cell::ptr(null));
        let f = &prog.funcs[main];
        let args = if f.params.len() == 2 {
            vec![
                SVal::Int(self.cnf.bv_const(all.len() as u64, 32)),
                SVal::Ptr(SPtr {
                    obj: Some(argv),
                    off: self.cnf.bv_const(0, 64),
                }),
            ]
        } else {
            vec![]
        };
        match self.call(main, args) {
            Ok(SVal::Int(v)) => Ok(End::Exit(v)),
            Ok(_) => Ok(End::Exit(self.cnf.bv_const(0, 32))),
            Err(Stop::Exit(v)) => Ok(End::Exit(v)),
            Err(Stop::Abort) => Ok(End::Abort),
            Err(Stop::Fail(e)) => Err(e),
        }
    }

    fn initialize(&mut self, obj: usize, init: &Initializer, h: Option<Lit>) -> E<()> {
        if init.zero {
            let size = self.mem.size(obj);
            self.mem.zero(obj, size, &self.cnf);
        }
        if let Some(bytes) = &init.bytes {
            for (i, b) in bytes.iter().enumerate() {
                let c = self.cnf.bv_const(u64::from(*b), 8);
                self.mem.set(obj, i as u64, Cell::int(IntKind::Char, c));
            }
        }
        for item in &init.items {
            let v = self.eval(&item.value).map_err(Stop::into_err)?;
            let v = match h {
                Some(h) => {
                    let signed = item.ty.as_int().is_some_and(|k| k.signed());
                    self.relax(h, v, paths::SlotRole::Value, signed)
                }
                None => v,
            };
            let p = SPtr {
                obj: Some(obj),
                off: self.cnf.bv_const(item.offset, 64),
            };
            self.store(&p, &item.ty, v)?;
        }
        Ok(())
    }

    fn call(&mut self, fid: FuncId, args: Vec<SVal>) -> Result<SVal, Stop> {
        let prog = self.prog;
        if self.frames.len() >= MAX_ENCODED_DEPTH {
            return Err(Stop::Fail(EncodeError::Unsupported(format!(
                "recursion deeper than {MAX_ENCODED_DEPTH} calls"
            ))));
        }
        let f = &prog.funcs[fid];
        if crate::interp::is_nondet(f) {
            // A free input: a fresh value (its shadow the run's draw).
            let k = f.ret.as_int().expect("integer nondet");
            let run_value = self.nondet.get(self.draws.len()).copied();
            let bits = crate::interp::nondet_bits(k, run_value.unwrap_or(0));
            let w = k.bits() as usize;
            let v = Bv((0..w)
                .map(|i| self.cnf.fresh_valued(Some(i < 64 && (bits >> i) & 1 == 1)))
                .collect());
            if k == IntKind::Bool {
                for l in &v.0[1..] {
                    self.cnf.clause(&[!*l]);
                }
            }
            self.draws.push((v.clone(), k));
            return Ok(SVal::Int(v));
        }
        let locals: Vec<usize> = f
            .locals
            .iter()
            .map(|l| self.mem.alloc(&l.name, size_of(prog, &l.ty)))
            .collect();
        for (p, v) in f.params.iter().zip(args) {
            let ptr = SPtr {
                obj: Some(locals[*p]),
                off: self.cnf.bv_const(0, 64),
            };
            self.store(&ptr, &f.locals[*p].ty, v)?;
        }
        self.frames.push(locals);
        let r = self.exec(fid);
        self.frames.pop();
        r
    }

    fn exec(&mut self, fid: FuncId) -> Result<SVal, Stop> {
        let f = &self.prog.funcs[fid];
        let mut pc = 0;
        loop {
            let ins = &f.body[pc];
            let h = self.h(ins.stmt);
            self.stmts.insert(ins.stmt);
            if counts_instance(&ins.kind) {
                let inst = self.counts[ins.stmt];
                self.counts[ins.stmt] += 1;
                self.cur_key = (ins.stmt, inst);
                self.out_arg = 0;
                self.stmt_out_start = self.out.len();
            }
            self.cur_health = Some(h);
            self.cur_range = ins.range;
            self.guard = self.cnf.tru();
            match &ins.kind {
                InstrKind::Expr(e) => {
                    self.statement_expr(e, h)?;
                    self.event(ins)?;
                    self.close_statement(h);
                    pc += 1;
                }
                InstrKind::Init(l, init) => {
                    let obj = self.frames.last().expect("frame")[*l];
                    match init {
                        None => self.mem.clear(obj),
                        // Only a scalar's initial value is relaxed (one value per instance).
                        Some(init) => {
                            let scalar = f.locals[*l].ty.is_scalar();
                            self.initialize(obj, init, scalar.then_some(h))?
                        }
                    }
                    self.event(ins)?;
                    self.close_statement(h);
                    pc += 1;
                }
                InstrKind::Jump(t) => {
                    self.event(ins)?;
                    pc = *t;
                }
                InstrKind::Branch { cond, then, els } => {
                    let c = self.eval(cond)?;
                    let t = self.truth(&c);
                    let ev = self.event(ins)?;
                    let taken = matches!(ev.value, Some(TraceValue::Int { bits: 1, .. }));
                    let forced = self.overrides.0.contains_key(&self.cur_key);
                    if !forced && self.cnf.shadow(t).is_some_and(|s| s != taken) {
                        return Err(Stop::Fail(EncodeError::Unsupported(format!(
                            "internal: the encoding diverges from the run at {}",
                            self.prog.location(ins.range)
                        ))));
                    }
                    // The direction: the condition when healthy, free (angelic) when not.
                    let d = self.cnf.fresh_valued(Some(taken));
                    let same = self.cnf.iff(d, t);
                    self.cnf.implies(h, same);
                    self.points.push(Point {
                        stmt: ins.stmt,
                        instance: self.cur_key.1,
                        range: ins.range,
                        slots_before: self.slots.len(),
                        out_before: self.out.len(),
                        kind: PointKind::Branch { d, dir: taken },
                    });
                    self.slots.push(SlotRec {
                        stmt: ins.stmt,
                        instance: self.cur_key.1,
                        arg: 0,
                        range: ins.range,
                        role: paths::SlotRole::Condition,
                        bits: Bv(vec![d]),
                        signed: false,
                        health: h,
                    });
                    self.close_statement(h);
                    pc = if taken { *then } else { *els };
                }
                InstrKind::Switch {
                    value,
                    cases,
                    default,
                } => {
                    let v = self.eval(value)?;
                    let ev = self.event(ins)?;
                    let Some(TraceValue::Int { bits, .. }) = ev.value else {
                        return Err(Stop::Fail(EncodeError::Unsupported(
                            "internal: switch without a value".into(),
                        )));
                    };
                    let SVal::Int(vb) = v else {
                        unreachable!("switch on an integer")
                    };
                    let signed = value.ty.as_int().is_some_and(|k| k.signed());
                    let SVal::Int(rv) =
                        self.relax(h, SVal::Int(vb), paths::SlotRole::SwitchValue, signed)
                    else {
                        unreachable!("int")
                    };
                    let target = cases.iter().find(|(c, _)| *c == bits).map(|(_, t)| *t);
                    self.points.push(Point {
                        stmt: ins.stmt,
                        instance: self.cur_key.1,
                        range: ins.range,
                        slots_before: self.slots.len() - 1,
                        out_before: self.out.len(),
                        kind: PointKind::Switch {
                            v: rv,
                            cases: cases.clone(),
                            default: *default,
                            target: target.unwrap_or(*default),
                        },
                    });
                    self.close_statement(h);
                    pc = target.unwrap_or(*default);
                }
                InstrKind::Return(e) => {
                    let v = match e {
                        Some(e) => self.eval(e)?,
                        None => SVal::Void,
                    };
                    let signed = f.ret.as_int().is_some_and(|k| k.signed());
                    let v = self.relax(h, v, paths::SlotRole::Return, signed);
                    self.event(ins)?;
                    self.close_statement(h);
                    return Ok(v);
                }
                InstrKind::FallOff => {
                    self.event(ins)?;
                    return Ok(SVal::Void);
                }
            }
        }
    }

    /// An expression statement: a top-level store has its stored value relaxed.
    fn statement_expr(&mut self, e: &Expr, h: Lit) -> Result<(), Stop> {
        match &e.kind {
            ExprKind::Assign(lv, rhs) => {
                let v = self.eval(rhs)?;
                let p = self.addr(lv)?;
                let signed = lv.ty.as_int().is_some_and(|k| k.signed());
                let v = self.relax(h, v, paths::SlotRole::Value, signed);
                self.store(&p, &lv.ty, v)?;
                Ok(())
            }
            ExprKind::CompoundAssign { .. } | ExprKind::IncDec { .. } => {
                self.store_op(e, Some(h))?;
                Ok(())
            }
            _ => {
                self.eval(e)?;
                Ok(())
            }
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

    fn addr(&mut self, e: &Expr) -> Result<SPtr, Stop> {
        let zero = self.cnf.bv_const(0, 64);
        Ok(match &e.kind {
            ExprKind::Local(l) => SPtr {
                obj: Some(self.frames.last().expect("frame")[*l]),
                off: zero,
            },
            ExprKind::Global(g) => SPtr {
                obj: Some(self.globals[*g]),
                off: zero,
            },
            ExprKind::Str(s) => SPtr {
                obj: Some(self.strings[*s]),
                off: zero,
            },
            ExprKind::Deref(p) => match self.eval(p)? {
                SVal::Ptr(q) => q,
                _ => unreachable!("deref of a non-pointer"),
            },
            ExprKind::Member(b, off) => {
                let base = self.addr(b)?;
                let o = self.cnf.bv_const(*off, 64);
                SPtr {
                    obj: base.obj,
                    off: self.cnf.bv_add(&base.off, &o),
                }
            }
            _ => unreachable!("address of an rvalue"),
        })
    }

    fn int(&mut self, e: &Expr) -> Result<Bv, Stop> {
        match self.eval(e)? {
            SVal::Int(b) => Ok(b),
            _ => Err(Stop::Fail(EncodeError::Unsupported(format!(
                "a non-integer value at {}",
                self.prog.location(e.range)
            )))),
        }
    }

    fn ptr(&mut self, e: &Expr) -> Result<SPtr, Stop> {
        match self.eval(e)? {
            SVal::Ptr(p) => Ok(p),
            _ => unreachable!("expected a pointer"),
        }
    }

    /// Pointer arithmetic; leaving the object (beyond one past its end) is
    /// undefined behaviour, as the interpreter reports it.
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
            let ub = self.cnf.or(outside, wrapped);
            self.note_ub(ub);
        }
        SPtr { obj: p.obj, off }
    }

    /// CompoundAssign / IncDec: load, operate, store; the stored value relaxed when `h` is given.
    fn store_op(&mut self, e: &Expr, h: Option<Lit>) -> Result<SVal, Stop> {
        let prog = self.prog;
        let (lv, new_of, prefix) = match &e.kind {
            ExprKind::CompoundAssign { lv, .. } => (lv, true, true),
            ExprKind::IncDec { lv, prefix, .. } => (lv, false, *prefix),
            _ => unreachable!("store_op"),
        };
        let rhs = match &e.kind {
            ExprKind::CompoundAssign { rhs, .. } => Some(self.eval(rhs)?),
            _ => None,
        };
        let p = self.addr(lv)?;
        let old = self.load(&p, &lv.ty)?;
        let new = match (&e.kind, &old, &lv.ty) {
            (
                ExprKind::CompoundAssign {
                    op,
                    op_ty,
                    rhs: rexpr,
                    ..
                },
                SVal::Int(a),
                Type::Int(lk),
            ) => {
                let ok = op_ty.as_int().expect("int op type");
                let a2 = self.cnf.c_convert(*lk, ok, a);
                let Some(SVal::Int(b)) = rhs else {
                    unreachable!("int rhs")
                };
                let kb = rexpr.int_kind().expect("int");
                let (r, ub) = self.cnf.c_binary(*op, ok, &a2, &b, kb);
                self.note_ub(ub);
                SVal::Int(self.cnf.c_convert(ok, *lk, &r))
            }
            (ExprKind::CompoundAssign { op, .. }, SVal::Ptr(q), Type::Ptr(el)) => {
                let Some(SVal::Int(b)) = rhs else {
                    unreachable!("int rhs")
                };
                let size = size_of(prog, el);
                SVal::Ptr(self.ptr_offset(q.clone(), &b, size, *op == BinOp::Sub))
            }
            (ExprKind::IncDec { inc, .. }, SVal::Int(a), Type::Int(k)) => {
                let pk = k.promote();
                let a2 = self.cnf.c_convert(*k, pk, a);
                let one = self.cnf.bv_const(1, pk.bits() as usize);
                let op = if *inc { BinOp::Add } else { BinOp::Sub };
                let (r, ub) = self.cnf.c_binary(op, pk, &a2, &one, pk);
                self.note_ub(ub);
                SVal::Int(self.cnf.c_convert(pk, *k, &r))
            }
            (ExprKind::IncDec { inc, .. }, SVal::Ptr(q), Type::Ptr(el)) => {
                let one = self.cnf.bv_const(1, 64);
                let size = size_of(prog, el);
                SVal::Ptr(self.ptr_offset(q.clone(), &one, size, !*inc))
            }
            _ => {
                return Err(Stop::Fail(EncodeError::Unsupported(
                    "compound assignment operands".into(),
                )))
            }
        };
        let new = match h {
            Some(h) => {
                let signed = lv.ty.as_int().is_some_and(|k| k.signed());
                self.relax(h, new, paths::SlotRole::Value, signed)
            }
            None => new,
        };
        self.store(&p, &lv.ty, new.clone())?;
        Ok(if new_of || prefix { new } else { old })
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
        let prog = self.prog;
        Ok(match &e.kind {
            ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::Str(_)
            | ExprKind::Deref(_)
            | ExprKind::Member(..) => {
                unreachable!("lvalue evaluated as a value")
            }
            ExprKind::Const(v) => SVal::Int(
                self.cnf
                    .bv_const(*v, e.ty.as_int().expect("int").bits() as usize),
            ),
            ExprKind::Null => SVal::Ptr(SPtr {
                obj: None,
                off: self.cnf.bv_const(0, 64),
            }),
            ExprKind::Stream(w) => SVal::Ptr(SPtr {
                obj: Some(usize::from(*w)),
                off: self.cnf.bv_const(0, 64),
            }),
            ExprKind::Load(lv) => {
                let p = self.addr(lv)?;
                self.load(&p, &lv.ty)?
            }
            ExprKind::AddrOf(lv) | ExprKind::Decay(lv) => SVal::Ptr(self.addr(lv)?),
            ExprKind::Cast(inner) => {
                let v = self.eval(inner)?;
                match (Conversion::of(&inner.ty, &e.ty), v) {
                    (Conversion::Discard, _) => SVal::Void,
                    (Conversion::Integer(f, t), SVal::Int(b)) => {
                        SVal::Int(self.cnf.c_convert(f, t, &b))
                    }
                    (Conversion::PointerToBool, SVal::Ptr(p)) => {
                        SVal::Int(self.cnf.bv_const(u64::from(p.obj.is_some()), 8))
                    }
                    (Conversion::Pointer, v @ SVal::Ptr(_)) => v,
                    _ => {
                        return Err(Stop::Fail(EncodeError::Unsupported(format!(
                            "a conversion from `{}` to `{}` at {}",
                            inner.ty.display(&prog.structs),
                            e.ty.display(&prog.structs),
                            prog.location(e.range)
                        ))))
                    }
                }
            }
            ExprKind::Unary(op, a) => match self.eval(a)? {
                SVal::Int(b) => {
                    let (r, ub) = self.cnf.c_unary(*op, a.int_kind().expect("int"), &b);
                    self.note_ub(ub);
                    SVal::Int(r)
                }
                SVal::Ptr(p) => SVal::Int(self.cnf.bv_const(u64::from(p.obj.is_none()), 32)),
                _ => return Err(Stop::Fail(EncodeError::Unsupported("unary operand".into()))),
            },
            ExprKind::Binary(op, l, r) => {
                let a = self.int(l)?;
                let b = self.int(r)?;
                let (v, ub) = self.cnf.c_binary(
                    *op,
                    l.int_kind().expect("int"),
                    &a,
                    &b,
                    r.int_kind().expect("int"),
                );
                self.note_ub(ub);
                SVal::Int(v)
            }
            ExprKind::PtrAdd { ptr, index, sub } => {
                let p = self.ptr(ptr)?;
                let i = self.int(index)?;
                let size = size_of(prog, e.ty.pointee().expect("pointer"));
                SVal::Ptr(self.ptr_offset(p, &i, size, *sub))
            }
            ExprKind::PtrDiff(l, r) => {
                let (a, b) = (self.ptr(l)?, self.ptr(r)?);
                if a.obj != b.obj {
                    return Err(Stop::Fail(EncodeError::Unsupported(
                        "pointer difference across objects".into(),
                    )));
                }
                let size = size_of(prog, l.ty.pointee().expect("pointer"));
                let d = self.cnf.bv_sub(&a.off, &b.off);
                let s = self.cnf.bv_const(size, 64);
                let (q, _) = self.cnf.bv_sdivrem(&d, &s);
                SVal::Int(q)
            }
            ExprKind::PtrCmp(op, l, r) => {
                let (a, b) = (self.ptr(l)?, self.ptr(r)?);
                let res = if a.obj != b.obj {
                    match op {
                        BinOp::Eq => self.cnf.fls(),
                        BinOp::Ne => self.cnf.tru(),
                        _ => {
                            return Err(Stop::Fail(EncodeError::Unsupported(
                                "pointer order across objects".into(),
                            )))
                        }
                    }
                } else {
                    let (v, _) =
                        self.cnf
                            .c_binary(*op, IntKind::Long, &a.off, &b.off, IntKind::Long);
                    v.0[0]
                };
                SVal::Int(self.cnf.bv_zext(&Bv(vec![res]), 32))
            }
            ExprKind::LogAnd(l, r) | ExprKind::LogOr(l, r) => {
                let is_and = matches!(e.kind, ExprKind::LogAnd(..));
                let lv = self.eval(l)?;
                let lt = self.truth(&lv);
                if contains_call(r) {
                    // The run decides whether the right operand (and its calls) ran.
                    let Some(run_lt) = self.cnf.shadow(lt) else {
                        return Err(Stop::Fail(EncodeError::Unsupported(format!(
                            "a call in the right operand of `&&`/`||` with a free left operand at {}",
                            prog.location(r.range)
                        ))));
                    };
                    self.mem.pins.push(if run_lt { lt } else { !lt });
                    if run_lt != is_and {
                        return Ok(SVal::Int(self.cnf.bv_zext(&Bv(vec![lt]), 32)));
                    }
                    let rv = self.eval(r)?;
                    let rt = self.truth(&rv);
                    return Ok(SVal::Int(self.cnf.bv_zext(&Bv(vec![rt]), 32)));
                }
                let saved = self.guard;
                self.guard = if is_and {
                    self.cnf.and(saved, lt)
                } else {
                    self.cnf.and(saved, !lt)
                };
                let rv = self.eval(r)?;
                self.guard = saved;
                let rt = self.truth(&rv);
                let res = if is_and {
                    self.cnf.and(lt, rt)
                } else {
                    self.cnf.or(lt, rt)
                };
                SVal::Int(self.cnf.bv_zext(&Bv(vec![res]), 32))
            }
            ExprKind::Cond(c, a, b) => {
                if contains_call(a) || contains_call(b) {
                    let cv = self.eval(c)?;
                    let ct = self.truth(&cv);
                    let Some(run_ct) = self.cnf.shadow(ct) else {
                        return Err(Stop::Fail(EncodeError::Unsupported(format!(
                            "a call in an arm of `?:` with a free condition at {}",
                            prog.location(e.range)
                        ))));
                    };
                    self.mem.pins.push(if run_ct { ct } else { !ct });
                    return self.eval(if run_ct { a } else { b });
                }
                let cv = self.eval(c)?;
                let ct = self.truth(&cv);
                let saved = self.guard;
                self.guard = self.cnf.and(saved, ct);
                let av = self.eval(a)?;
                self.guard = self.cnf.and(saved, !ct);
                let bv = self.eval(b)?;
                self.guard = saved;
                match (av, bv) {
                    (SVal::Int(x), SVal::Int(y)) => SVal::Int(self.cnf.bv_ite(ct, &x, &y)),
                    (SVal::Ptr(x), SVal::Ptr(y)) if x.obj == y.obj => SVal::Ptr(SPtr {
                        obj: x.obj,
                        off: self.cnf.bv_ite(ct, &x.off, &y.off),
                    }),
                    (SVal::Void, SVal::Void) => SVal::Void,
                    (x @ SVal::Ptr(_), y @ SVal::Ptr(_)) if self.cnf.shadow(ct).is_some() => {
                        // Pointers into different objects: follow the run's choice.
                        let run_ct = self.cnf.shadow(ct) == Some(true);
                        self.mem.pins.push(if run_ct { ct } else { !ct });
                        if run_ct {
                            x
                        } else {
                            y
                        }
                    }
                    _ => {
                        return Err(Stop::Fail(EncodeError::Unsupported(
                            "`?:` choosing between objects".into(),
                        )))
                    }
                }
            }
            ExprKind::Comma(a, b) => {
                self.eval(a)?;
                self.eval(b)?
            }
            ExprKind::Assign(lv, rhs) => {
                let v = self.eval(rhs)?;
                let p = self.addr(lv)?;
                self.store(&p, &lv.ty, v.clone())?;
                v
            }
            ExprKind::CompoundAssign { .. } | ExprKind::IncDec { .. } => self.store_op(e, None)?,
            ExprKind::Call(f, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args.iter().rev() {
                    vals.push(self.eval(a)?);
                }
                vals.reverse();
                // The callee's statements are components of their own.
                let (saved_ub, saved_pins, saved_guard, saved_h) = (
                    std::mem::take(&mut self.ub),
                    std::mem::take(&mut self.mem.pins),
                    self.guard,
                    self.cur_health,
                );
                let saved_key = (
                    self.cur_key,
                    self.out_arg,
                    self.cur_range,
                    self.stmt_out_start,
                );
                let r = self.call(*f, vals)?;
                self.ub = saved_ub;
                self.mem.pins = saved_pins;
                self.guard = saved_guard;
                self.cur_health = saved_h;
                (
                    self.cur_key,
                    self.out_arg,
                    self.cur_range,
                    self.stmt_out_start,
                ) = saved_key;
                r
            }
            ExprKind::Builtin(b, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args.iter().rev() {
                    vals.push(self.eval(a)?);
                }
                vals.reverse();
                crate::library::call(self, *b, args, vals, e.range)?
            }
        })
    }
}

fn contains_call(e: &Expr) -> bool {
    let mut found = false;
    crate::ir::visit(e, &mut |x| {
        found |= matches!(x.kind, ExprKind::Call(..) | ExprKind::Builtin(..))
    });
    found
}

/// Why replay stops early.
pub(crate) enum Stop {
    Exit(Bv),
    Abort,
    Fail(EncodeError),
}

impl Stop {
    fn into_err(self) -> EncodeError {
        match self {
            Stop::Fail(e) => e,
            _ => EncodeError::Unsupported("exit inside an initializer".into()),
        }
    }
}

impl From<EncodeError> for Stop {
    fn from(e: EncodeError) -> Self {
        Stop::Fail(e)
    }
}
