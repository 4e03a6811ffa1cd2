//! The concrete interpreter: runs a test (arguments, stdin) over the IR and
//! yields the output, the exit status and the trace of statement instances.
//! Undefined behaviour stops the run with a runtime error and its location.

mod functional;
mod host;

pub use functional::{Functional, Observation};
pub mod memory;

use crate::intops;
use crate::ir::*;
use crate::types::{Conversion, IntKind, Type};
use memory::{Memory, ObjId, Ptr};
use std::collections::{BTreeMap, BTreeSet};

/// One test as plain data.
#[derive(Clone, Debug, Default)]
pub struct TestInput {
    pub args: Vec<String>,
    pub stdin: Vec<u8>,
    /// Values returned by successive `__VERIFIER_nondet_*()` calls (each
    /// converted to the function's return type); a run that needs more stops
    /// with an error saying so (unless [`RunOptions::nondet_fill`] is set).
    pub nondet: Vec<i64>,
}

/// The free-input functions of verification harnesses (SV-COMP style), modelled
/// when the program declares them without defining them (a definition wins).
pub const NONDET_FUNCTIONS: &[&str] = &[
    "__VERIFIER_nondet_int",
    "__VERIFIER_nondet_uint",
    "__VERIFIER_nondet_char",
    "__VERIFIER_nondet_uchar",
    "__VERIFIER_nondet_short",
    "__VERIFIER_nondet_ushort",
    "__VERIFIER_nondet_long",
    "__VERIFIER_nondet_ulong",
    "__VERIFIER_nondet_bool",
    "__VERIFIER_nondet__Bool",
];

/// Whether a call to `f` draws a free input: a declared, undefined
/// `__VERIFIER_nondet_*` function returning an integer.
pub fn is_nondet(f: &Function) -> bool {
    !f.defined && NONDET_FUNCTIONS.contains(&f.name.as_str()) && f.ret.as_int().is_some()
}

/// A nondet value as canonical bits of `k`.
pub(crate) fn nondet_bits(k: IntKind, v: i64) -> u64 {
    if k == IntKind::Bool {
        u64::from(v != 0)
    } else {
        k.wrap(v as u64)
    }
}

/// Values substituted for what statements produce, keyed by `(statement, instance)`;
/// the instance is 0-based: how many times the statement started before in this run
/// (calls in the statement that run it again count, so recursion numbers its
/// instances in the order they start).
///
/// What "the produced value" is, per statement (raw bits of the value's type;
/// a pointer's bits are its byte offset within the object it points into):
/// - a branch (`if`, loop condition): 1 or 0, the direction;
/// - a `switch`: the controlling value (after promotion);
/// - an expression statement whose top operator is `=`, `op=`, `++` or `--`: the stored value;
/// - a `return e`: the returned value;
/// - the declaration of a scalar local with an initializer: its initial value.
///
/// These are exactly the values the encoding relaxes (`h → out = F(in)`), so a value
/// read from a model replays faithfully. An override of an instance that never
/// runs, or of a statement that produces none of these values, is not applied and
/// is listed in [`RunResult::unapplied_overrides`]. An override does not suppress
/// undefined behaviour in computing the statement's own value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides(pub BTreeMap<(StmtId, u32), u64>);

impl Overrides {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn insert(&mut self, stmt: StmtId, instance: u32, bits: u64) {
        self.0.insert((stmt, instance), bits);
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[derive(Clone, Debug)]
pub struct RunOptions {
    /// `argv[0]`; glibc's assertion message starts with it.
    pub program_name: String,
    /// Statement instances before the run is stopped (the model's timeout).
    pub max_steps: u64,
    pub max_call_depth: usize,
    pub trace: bool,
    /// Trace events kept at most (the run goes on; the trace says it was cut).
    pub max_trace: usize,
    /// Values substituted for what statement instances produce (see [`Overrides`]).
    pub overrides: Overrides,
    /// Values substituted for printed integers: `(statement, instance, n)` is the
    /// n-th (0-based) integer conversion (`%d %i %u %x %X %o %c`, `putchar`,
    /// `fputc`) printed by that statement instance (calls it makes print under
    /// their own statements); bits of the conversion's argument type.
    pub output_overrides: BTreeMap<(StmtId, u32, u32), u64>,
    /// Values substituted for sub-expressions: `(statement, instance, n)` is
    /// candidate `n` of [`crate::subexpr::of_statement`] as that statement
    /// instance evaluates it (computed, then replaced: its side effects and
    /// undefined behaviour stay); bits of the sub-expression's type.
    pub expr_overrides: BTreeMap<(StmtId, u32, u32), u64>,
    /// A statement to observe (operands and values, in
    /// [`RunResult::observed`]) and whose value to replace by operands.
    pub functional: Option<Functional>,
    /// The value of `__VERIFIER_nondet_*()` draws beyond [`TestInput::nondet`];
    /// `None` (the default) stops the run with an error instead.
    pub nondet_fill: Option<i64>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            program_name: "prog".into(),
            max_steps: 50_000_000,
            max_call_depth: 100_000,
            trace: false,
            max_trace: 1_000_000,
            overrides: Overrides::default(),
            output_overrides: BTreeMap::new(),
            expr_overrides: BTreeMap::new(),
            functional: None,
            nondet_fill: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Normal termination with this status (0..=255).
    Exited(i32),
    /// Killed by a signal (6 = SIGABRT from `assert`/`abort`).
    Signaled(i32),
    /// Undefined behaviour or a construct outside the model, at `range`.
    RuntimeError {
        message: String,
        range: SrcRange,
        location: String,
    },
    /// The step limit was reached (the run would be killed by the timeout).
    StepLimit,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceValue {
    Int {
        kind: IntKind,
        bits: u64,
    },
    /// A pointer, shown as `&object+offset` or `NULL`.
    Ptr(String),
}

impl TraceValue {
    pub fn display(&self) -> String {
        match self {
            TraceValue::Int { kind, bits } => kind.value(*bits).to_string(),
            TraceValue::Ptr(s) => s.clone(),
        }
    }
}

/// One executed statement instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    pub stmt: StmtId,
    pub func: FuncId,
    pub range: SrcRange,
    /// Which execution of the statement this is (0-based), as
    /// [`Overrides`] count them: a recursive call's instances end (and are
    /// traced) before the instance that made the call. 0 for a jump or a
    /// function's end, which are not instances of their own.
    pub instance: u32,
    /// The value it produced: the stored value, the condition, the returned value.
    pub value: Option<TraceValue>,
}

#[derive(Clone, Debug)]
pub struct RunResult {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub outcome: Outcome,
    pub trace: Vec<TraceEvent>,
    pub trace_truncated: bool,
    pub steps: u64,
    /// Overrides (from [`RunOptions::overrides`]) that were not applied: the
    /// instance never ran (or not before the run ended), or the statement
    /// produces no value an override can replace.
    pub unapplied_overrides: Vec<(StmtId, u32)>,
    /// Output overrides (from [`RunOptions::output_overrides`]) not applied.
    pub unapplied_output_overrides: Vec<(StmtId, u32, u32)>,
    /// Sub-expression overrides (from [`RunOptions::expr_overrides`]) not applied.
    pub unapplied_expr_overrides: Vec<(StmtId, u32, u32)>,
    /// The instances of [`RunOptions::functional`]'s statement, in order.
    pub observed: Vec<Observation>,
}

impl RunResult {
    /// The exit status as a shell reports it (128+signal for signals).
    pub fn exit_code(&self) -> Option<i32> {
        match self.outcome {
            Outcome::Exited(c) => Some(c),
            Outcome::Signaled(s) => Some(128 + s),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Val {
    Int(u64),
    Ptr(Ptr),
    Agg(Vec<u8>, Vec<bool>, Vec<(u64, Ptr)>),
    Void,
}

/// Why execution stops early.
/// The most memory of the program (globals, stack and heap together) the
/// interpreter holds at once: it keeps two bytes per byte, and a run must
/// not exhaust the machine (a `malloc` of 1 GiB aborted the process).
pub const MODEL_MEMORY: u64 = 128 << 20;

/// The stack of a Linux process (`ulimit -s`, 8 MiB by default): locals
/// beyond it crash the compiled program, so the model does not run them.
pub const C_STACK: u64 = 8 << 20;

pub(crate) enum Stop {
    Exit(i32),
    Abort,
    Error(String, SrcRange),
    StepLimit,
}

type R<T> = Result<T, Stop>;

/// Run `main` of `prog` on one test.
pub fn run(prog: &Program, test: &TestInput, opts: &RunOptions) -> RunResult {
    // Deep recursion in the C program recurses in the interpreter, and so
    // does evaluating a deeply nested expression (about 1 KiB per level, up
    // to the front end's nesting limit): give it room, with a smaller stack
    // where 1 GiB cannot be reserved. Never the caller's thread: its stack
    // may be too small for an expression the front end accepted.
    let mut failure = String::new();
    for stack in [1usize << 30, 1 << 26] {
        let result = std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(stack)
                .spawn_scoped(s, || run_here(prog, test, opts, stack - (1 << 22)))
                .map(|h| h.join())
        });
        match result {
            Ok(Ok(r)) => return r,
            Ok(Err(_)) => {
                return not_run(
                    opts,
                    "internal error: the interpreter panicked (please report this program)".into(),
                )
            }
            Err(e) => failure = e.to_string(),
        }
    }
    not_run(
        opts,
        format!("could not start the interpreter's thread ({failure}); the system is out of threads or memory"),
    )
}

/// The result of a run that never started or ended in a panic: `message`.
fn not_run(opts: &RunOptions, message: String) -> RunResult {
    RunResult {
        stdout: Vec::new(),
        stderr: Vec::new(),
        outcome: Outcome::RuntimeError {
            message,
            range: SrcRange::default(),
            location: String::new(),
        },
        trace: Vec::new(),
        trace_truncated: false,
        steps: 0,
        unapplied_overrides: opts.overrides.0.keys().copied().collect(),
        unapplied_output_overrides: opts.output_overrides.keys().copied().collect(),
        unapplied_expr_overrides: opts.expr_overrides.keys().copied().collect(),
        observed: Vec::new(),
    }
}

/// `stack_budget`: bytes of this thread's stack the interpreter may use.
fn run_here(prog: &Program, test: &TestInput, opts: &RunOptions, stack_budget: usize) -> RunResult {
    let base = 0u8;
    let mut m = Machine {
        stack_base: &base as *const u8 as usize,
        stack_budget,
        prog,
        opts,
        mem: Memory::default(),
        globals: Vec::new(),
        strings: Vec::new(),
        streams: Vec::new(),
        heap: std::collections::HashSet::new(),
        stdout_flushed: 0,
        stdout: Vec::new(),
        stderr: Vec::new(),
        input: crate::library::Input::new(&test.stdin),
        nondet: &test.nondet,
        nondet_pos: 0,
        trace: Vec::new(),
        trace_truncated: false,
        steps: 0,
        depth: 0,
        c_stack: 0,
        frames: Vec::new(),
        counts: vec![0; prog.stmt_count],
        cur: None,
        out_arg: 0,
        pending_store: None,
        applied: BTreeSet::new(),
        applied_out: BTreeSet::new(),
        expr_index: crate::subexpr::index_of(
            prog,
            opts.expr_overrides
                .keys()
                .map(|k| k.0)
                .collect::<BTreeSet<_>>(),
        ),
        applied_expr: BTreeSet::new(),
        fn_index: match &opts.functional {
            Some(f) => crate::subexpr::index_of(prog, [f.stmt]),
            None => Default::default(),
        },
        fn_key: Vec::new(),
        observed: Vec::new(),
    };
    let outcome = match m.start(test) {
        Ok(code) => Outcome::Exited(code & 0xff),
        Err(Stop::Exit(code)) => Outcome::Exited(code & 0xff),
        Err(Stop::Abort) => {
            // stdout to a pipe is fully buffered (4096 bytes); abort does not flush it.
            let kept = (m.stdout.len() - m.stdout.len() % 4096).max(m.stdout_flushed);
            m.stdout.truncate(kept);
            Outcome::Signaled(6)
        }
        Err(Stop::Error(message, range)) => Outcome::RuntimeError {
            location: prog.location(range),
            message,
            range,
        },
        Err(Stop::StepLimit) => Outcome::StepLimit,
    };
    let unapplied_overrides = not_applied(opts.overrides.0.keys(), &m.applied);
    let unapplied_output_overrides = not_applied(opts.output_overrides.keys(), &m.applied_out);
    let unapplied_expr_overrides = not_applied(opts.expr_overrides.keys(), &m.applied_expr);
    RunResult {
        stdout: m.stdout,
        stderr: m.stderr,
        outcome,
        trace: m.trace,
        trace_truncated: m.trace_truncated,
        steps: m.steps,
        unapplied_overrides,
        unapplied_output_overrides,
        unapplied_expr_overrides,
        observed: m.observed,
    }
}

/// The override keys a run never used, in order.
fn not_applied<'k, K: Ord + Copy + 'k>(
    keys: impl Iterator<Item = &'k K>,
    applied: &BTreeSet<K>,
) -> Vec<K> {
    keys.filter(|k| !applied.contains(k)).copied().collect()
}

pub(crate) struct Machine<'a> {
    prog: &'a Program,
    opts: &'a RunOptions,
    pub(crate) mem: Memory,
    globals: Vec<ObjId>,
    strings: Vec<ObjId>,
    /// Objects standing for `stdin`, `stdout`, `stderr` (so `FILE *` values compare).
    pub(crate) streams: Vec<ObjId>,
    /// Heap blocks from malloc/calloc/realloc not yet freed.
    pub(crate) heap: std::collections::HashSet<ObjId>,
    /// Bytes of stdout written out by `fflush` (kept when the program aborts).
    pub(crate) stdout_flushed: usize,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: Vec<u8>,
    input: crate::library::Input<'a>,
    nondet: &'a [i64],
    nondet_pos: usize,
    trace: Vec<TraceEvent>,
    trace_truncated: bool,
    steps: u64,
    depth: usize,
    /// Bytes of the locals of the calls in progress (see [`C_STACK`]).
    c_stack: u64,
    /// Address of a local at the start of the run and the stack the run may use:
    /// interpreted recursion deeper than that is reported as a stack overflow.
    stack_base: usize,
    stack_budget: usize,
    /// Locals of the active calls, innermost last.
    frames: Vec<(FuncId, Vec<ObjId>)>,
    /// How many times each statement has started (the next instance number).
    counts: Vec<u32>,
    /// The statement instance being executed (for output overrides).
    cur: Option<(StmtId, u32)>,
    /// Integer conversions printed so far by the current statement instance.
    out_arg: u32,
    /// An override for the stored value of the statement's top-level `=`/`op=`/`++`/`--`,
    /// taken by that operator before its operands are evaluated.
    pending_store: Option<u64>,
    applied: BTreeSet<(StmtId, u32)>,
    applied_out: BTreeSet<(StmtId, u32, u32)>,
    /// The overridden statements' candidate sub-expressions (see [`crate::subexpr`]).
    expr_index: std::collections::HashMap<usize, (StmtId, u32)>,
    applied_expr: BTreeSet<(StmtId, u32, u32)>,
    /// The observed statement's candidate sub-expressions, and the operand
    /// key of its current instance (see [`functional`]).
    fn_index: std::collections::HashMap<usize, (StmtId, u32)>,
    fn_key: Vec<u64>,
    observed: Vec<Observation>,
}

/// Whether an instruction starts a statement instance (jumps and the end of a
/// function share their statement with a branch or produce nothing).
pub(crate) fn counts_instance(kind: &InstrKind) -> bool {
    !matches!(kind, InstrKind::Jump(_) | InstrKind::FallOff)
}

fn size_of(prog: &Program, t: &Type) -> u64 {
    t.size(&prog.structs).unwrap_or(0)
}

impl<'a> Machine<'a> {
    fn err<T>(&self, msg: impl Into<String>, range: SrcRange) -> R<T> {
        Err(Stop::Error(msg.into(), range))
    }

    /// Whether `bytes` more fit in [`MODEL_MEMORY`]; `what` names them.
    pub(crate) fn room(&self, bytes: u64, what: impl Fn() -> String, range: SrcRange) -> R<()> {
        if self.mem.live_bytes().saturating_add(bytes) > MODEL_MEMORY {
            return self.err(
                format!(
                    "unsupported: {} ({bytes} bytes) would take the program's memory past the {} MiB the model holds at once",
                    what(),
                    MODEL_MEMORY >> 20
                ),
                range,
            );
        }
        Ok(())
    }

    fn start(&mut self, test: &TestInput) -> R<i32> {
        let prog = self.prog;
        let Some(main) = prog.main else {
            return self.err("the program has no `main` function", SrcRange::default());
        };
        for name in ["stdin", "stdout", "stderr"] {
            let id = self.mem.alloc(name, 1, true);
            self.mem.objects[id].readonly = true;
            self.streams.push(id);
        }
        for (i, s) in prog.strings.iter().enumerate() {
            let id = self
                .mem
                .alloc(&format!("string literal #{i}"), s.len() as u64, true);
            self.mem.objects[id].bytes.copy_from_slice(s);
            self.mem.objects[id].readonly = true;
            self.strings.push(id);
        }
        for g in &prog.globals {
            let size = size_of(prog, &g.ty);
            self.room(size, || format!("the global `{}`", g.name), g.range)?;
            let id = self.mem.alloc(&g.name, size, true);
            self.globals.push(id);
        }
        for (gi, g) in prog.globals.iter().enumerate() {
            match &g.init {
                Some(init) => self.initialize(self.globals[gi], init)?,
                None => {
                    return self.err(
                        format!("`{}` is declared `extern` but never defined", g.name),
                        g.range,
                    )
                }
            }
        }
        // argv: the strings, then the array of pointers ending in NULL.
        let mut argv_strings = Vec::new();
        let mut all = vec![self.opts.program_name.clone()];
        all.extend(test.args.iter().cloned());
        for (i, a) in all.iter().enumerate() {
            let id = self
                .mem
                .alloc(&format!("argv[{i}]"), a.len() as u64 + 1, true);
            self.mem.objects[id].bytes[..a.len()].copy_from_slice(a.as_bytes());
            argv_strings.push(id);
        }
        let argv = self.mem.alloc("argv", 8 * (all.len() as u64 + 1), true);
        for (i, s) in argv_strings.iter().enumerate() {
            let at = Ptr {
                obj: Some(argv),
                off: 8 * i as i64,
            };
            self.mem
                .write_ptr(
                    at,
                    Ptr {
                        obj: Some(*s),
                        off: 0,
                    },
                )
                .map_err(|e| Stop::Error(e, SrcRange::default()))?;
        }
        let f = &prog.funcs[main];
        let args = match f.params.len() {
            0 => vec![],
            2 => vec![
                Val::Int(all.len() as u64),
                Val::Ptr(Ptr {
                    obj: Some(argv),
                    off: 0,
                }),
            ],
            _ => {
                return self.err(
                    "`main` must take no parameters or (int argc, char **argv)",
                    f.range,
                )
            }
        };
        match self.call(main, args, f.range)? {
            Val::Int(v) => Ok(IntKind::Int.value(v) as i32),
            // C99: reaching the end of main returns 0.
            _ => Ok(0),
        }
    }

    fn initialize(&mut self, obj: ObjId, init: &Initializer) -> R<()> {
        let base = Ptr {
            obj: Some(obj),
            off: 0,
        };
        if init.zero {
            let o = &mut self.mem.objects[obj];
            o.bytes.iter_mut().for_each(|b| *b = 0);
            o.init.iter_mut().for_each(|b| *b = true);
            o.ptrs.clear();
        }
        if let Some(bytes) = &init.bytes {
            let o = &mut self.mem.objects[obj];
            o.bytes[..bytes.len()].copy_from_slice(bytes);
        }
        for item in &init.items {
            let v = self.eval(&item.value)?;
            let at = Ptr {
                obj: Some(obj),
                off: base.off + item.offset as i64,
            };
            self.store(at, &item.ty, v, item.value.range)?;
        }
        Ok(())
    }

    /// Notes a candidate sub-expression's value into the current instance's
    /// operand key, when it belongs to the observed statement.
    fn note_operand(&mut self, e: &Expr, v: &Val) {
        let Some(&(stmt, n)) = self.fn_index.get(&crate::subexpr::node_key(e)) else {
            return;
        };
        if let (Some((cur, _)), Val::Int(bits)) = (self.cur, v) {
            if cur == stmt {
                self.fn_key.extend([u64::from(n), *bits]);
            }
        }
    }

    /// The value the observed statement produces: its table's for the
    /// operands just evaluated, else `computed`; recorded either way.
    fn through_table(&mut self, ins: &Instr, computed: u64, (width, signed): (u32, bool)) -> u64 {
        let Some(f) = &self.opts.functional else {
            return computed;
        };
        let Some((_, instance)) = self.cur.filter(|c| c.0 == f.stmt && ins.stmt == f.stmt) else {
            return computed;
        };
        let key = std::mem::take(&mut self.fn_key);
        let produced = f.table.get(&key).copied().unwrap_or(computed);
        self.observed.push(Observation {
            instance,
            range: ins.range,
            branch: matches!(ins.kind, InstrKind::Branch { .. }),
            key,
            computed,
            produced,
            width,
            signed,
        });
        produced
    }

    fn override_of(&self, stmt: StmtId, inst: u32) -> Option<u64> {
        if self.opts.overrides.0.is_empty() {
            return None;
        }
        self.opts.overrides.0.get(&(stmt, inst)).copied()
    }

    fn mark_applied(&mut self) {
        if let Some(k) = self.cur {
            self.applied.insert(k);
        }
    }

    /// The printed integer `bits` of the current statement instance's next
    /// integer conversion, or its override.
    pub(crate) fn printed(&mut self, bits: u64) -> u64 {
        let n = self.out_arg;
        self.out_arg += 1;
        let Some((stmt, inst)) = self.cur else {
            return bits;
        };
        if self.opts.output_overrides.is_empty() {
            return bits;
        }
        match self.opts.output_overrides.get(&(stmt, inst, n)) {
            Some(&b) => {
                self.applied_out.insert((stmt, inst, n));
                b
            }
            None => bits,
        }
    }

    fn tick(&mut self) -> R<()> {
        self.steps += 1;
        if self.steps > self.opts.max_steps {
            return Err(Stop::StepLimit);
        }
        Ok(())
    }

    fn record(&mut self, func: FuncId, ins: &Instr, value: Option<TraceValue>) {
        if !self.opts.trace {
            return;
        }
        if self.trace.len() >= self.opts.max_trace {
            self.trace_truncated = true;
            return;
        }
        // `cur` is the statement instance being executed (calls restore it).
        let instance = match self.cur {
            Some((stmt, inst)) if stmt == ins.stmt && counts_instance(&ins.kind) => inst,
            _ => 0,
        };
        self.trace.push(TraceEvent {
            stmt: ins.stmt,
            func,
            range: ins.range,
            instance,
            value,
        });
    }

    fn trace_value(&self, v: &Val, ty: &Type) -> Option<TraceValue> {
        match (v, ty) {
            (Val::Int(bits), Type::Int(kind)) => Some(TraceValue::Int {
                kind: *kind,
                bits: *bits,
            }),
            (Val::Ptr(p), _) => Some(TraceValue::Ptr(self.show_ptr(*p))),
            _ => None,
        }
    }

    fn show_ptr(&self, p: Ptr) -> String {
        match p.obj {
            None => "NULL".into(),
            Some(id) => format!("&{}+{}", self.mem.objects[id].name, p.off),
        }
    }

    pub(crate) fn call(&mut self, fid: FuncId, args: Vec<Val>, at: SrcRange) -> R<Val> {
        let prog = self.prog;
        let f = &prog.funcs[fid];
        if is_nondet(f) {
            let k = f.ret.as_int().expect("integer nondet");
            let v = match self.nondet.get(self.nondet_pos) {
                Some(v) => *v,
                None => match self.opts.nondet_fill {
                    Some(v) => v,
                    None => {
                        return self.err(
                            format!(
                            "`{}` is called for the {} time but the test gives {} nondet value{} \
                                 (add values to the test's `nondet` list)",
                            f.name,
                            ordinal(self.nondet_pos + 1),
                            self.nondet.len(),
                            if self.nondet.len() == 1 { "" } else { "s" }
                        ),
                            at,
                        )
                    }
                },
            };
            self.nondet_pos += 1;
            return Ok(Val::Int(nondet_bits(k, v)));
        }
        if !f.defined {
            return self.err(
                format!(
                    "unsupported: call to `{}`, which has no definition in the sources",
                    f.name
                ),
                at,
            );
        }
        let frame: u64 = f
            .locals
            .iter()
            .map(|l| size_of(prog, &l.ty))
            .fold(0, u64::saturating_add);
        if self.c_stack.saturating_add(frame) > C_STACK {
            return self.err(
                format!(
                    "stack overflow: the locals of `{}` take {frame} bytes, and with the {} bytes of the calls below it they pass the 8 MiB stack of a Linux process; the compiled program is killed by SIGSEGV here",
                    f.name, self.c_stack
                ),
                at,
            );
        }
        self.room(frame, || format!("the locals of `{}`", f.name), at)?;
        let here = 0u8;
        let used = self.stack_base.saturating_sub(&here as *const u8 as usize);
        if self.depth >= self.opts.max_call_depth || used > self.stack_budget {
            return self.err(
                format!(
                    "call depth {} is more than the interpreter allows (stack overflow)",
                    self.depth
                ),
                at,
            );
        }
        self.depth += 1;
        self.c_stack += frame;
        let locals: Vec<ObjId> = f
            .locals
            .iter()
            .map(|l| self.mem.alloc(&l.name, size_of(prog, &l.ty), false))
            .collect();
        for (p, v) in f.params.iter().zip(args) {
            let ptr = Ptr {
                obj: Some(locals[*p]),
                off: 0,
            };
            self.store(ptr, &f.locals[*p].ty, v, f.locals[*p].range)?;
        }
        self.frames.push((fid, locals));
        let saved = (self.cur, self.out_arg, self.pending_store.take());
        let key = std::mem::take(&mut self.fn_key);
        let r = self.exec(fid);
        (self.cur, self.out_arg, self.pending_store) = saved;
        self.fn_key = key;
        let (_, locals) = self.frames.pop().expect("frame");
        for l in locals {
            self.mem.free(l);
        }
        self.depth -= 1;
        self.c_stack -= frame;
        r
    }

    fn exec(&mut self, fid: FuncId) -> R<Val> {
        let f = &self.prog.funcs[fid];
        let mut pc = 0;
        loop {
            self.tick()?;
            let ins = &f.body[pc];
            let ov = if counts_instance(&ins.kind) {
                let inst = self.counts[ins.stmt];
                self.counts[ins.stmt] += 1;
                self.cur = Some((ins.stmt, inst));
                self.out_arg = 0;
                self.fn_key.clear();
                self.override_of(ins.stmt, inst)
            } else {
                None
            };
            match &ins.kind {
                InstrKind::Expr(e) => {
                    if ov.is_some()
                        && matches!(
                            e.kind,
                            ExprKind::Assign(..)
                                | ExprKind::CompoundAssign { .. }
                                | ExprKind::IncDec { .. }
                        )
                    {
                        self.pending_store = ov;
                        self.mark_applied();
                    }
                    let v = self.eval(e)?;
                    self.pending_store = None;
                    let tv = self.trace_value(&v, &e.ty);
                    self.record(fid, ins, tv);
                    pc += 1;
                }
                InstrKind::Init(l, init) => {
                    let obj = self.frames.last().expect("frame").1[*l];
                    match init {
                        None => {
                            self.mem.set_uninit(obj);
                            self.record(fid, ins, None);
                        }
                        Some(init) => {
                            self.initialize(obj, init)?;
                            let ty = &f.locals[*l].ty;
                            let tv = if ty.is_scalar() {
                                let at = Ptr {
                                    obj: Some(obj),
                                    off: 0,
                                };
                                let mut v = self.load(at, ty, ins.range)?;
                                if let Some(bits) = ov {
                                    v = with_bits(&v, ty, bits);
                                    self.store(at, ty, v.clone(), ins.range)?;
                                    self.mark_applied();
                                }
                                self.trace_value(&v, ty)
                            } else {
                                None
                            };
                            self.record(fid, ins, tv);
                        }
                    }
                    pc += 1;
                }
                InstrKind::Jump(t) => {
                    self.record(fid, ins, None);
                    pc = *t;
                }
                InstrKind::Branch { cond, then, els } => {
                    let v = self.eval(cond)?;
                    let b = match ov {
                        Some(bits) => {
                            self.mark_applied();
                            bits != 0
                        }
                        None => {
                            let b = u64::from(truth(&v));
                            self.through_table(ins, b, (1, false)) != 0
                        }
                    };
                    self.record(
                        fid,
                        ins,
                        Some(TraceValue::Int {
                            kind: IntKind::Int,
                            bits: u64::from(b),
                        }),
                    );
                    pc = if b { *then } else { *els };
                }
                InstrKind::Switch {
                    value,
                    cases,
                    default,
                } => {
                    let mut v = self.eval(value)?;
                    if let Some(bits) = ov {
                        v = with_bits(&v, &value.ty, bits);
                        self.mark_applied();
                    }
                    let tv = self.trace_value(&v, &value.ty);
                    self.record(fid, ins, tv);
                    let Val::Int(bits) = v else {
                        unreachable!("switch on an integer")
                    };
                    pc = cases
                        .iter()
                        .find(|(c, _)| *c == bits)
                        .map(|(_, t)| *t)
                        .unwrap_or(*default);
                }
                InstrKind::Return(e) => {
                    let v = match e {
                        Some(e) => {
                            let v = self.eval(e)?;
                            match (ov, &v, e.ty.as_int()) {
                                (Some(bits), ..) if e.ty.is_scalar() => {
                                    self.mark_applied();
                                    with_bits(&v, &e.ty, bits)
                                }
                                (None, Val::Int(bits), Some(k)) => {
                                    let shape = (k.bits(), k.signed());
                                    let out = self.through_table(ins, *bits, shape);
                                    with_bits(&v, &e.ty, out)
                                }
                                _ => v,
                            }
                        }
                        None => Val::Void,
                    };
                    let tv = e.as_ref().and_then(|e| self.trace_value(&v, &e.ty));
                    self.record(fid, ins, tv);
                    return Ok(v);
                }
                InstrKind::FallOff => {
                    self.record(fid, ins, None);
                    return Ok(Val::Void);
                }
            }
        }
    }

    // ---------- memory access ----------

    pub(crate) fn load(&mut self, p: Ptr, ty: &Type, range: SrcRange) -> R<Val> {
        let r = match ty {
            Type::Int(k) => self.mem.read_uint(p, k.size()).map(|v| {
                if *k == IntKind::Bool {
                    Val::Int(v & 1)
                } else {
                    Val::Int(v)
                }
            }),
            Type::Ptr(_) => self.mem.read_ptr(p).map(Val::Ptr),
            Type::Struct(_) => {
                let size = size_of(self.prog, ty);
                self.mem
                    .read_block(p, size)
                    .map(|(b, i, ps)| Val::Agg(b, i, ps))
            }
            _ => Err(format!(
                "load of a value of type `{}`",
                ty.display(&self.prog.structs)
            )),
        };
        r.map_err(|e| Stop::Error(e, range))
    }

    pub(crate) fn store(&mut self, p: Ptr, ty: &Type, v: Val, range: SrcRange) -> R<()> {
        let r = match (ty, v) {
            (Type::Int(k), Val::Int(bits)) => self.mem.write_uint(p, k.size(), bits),
            (Type::Ptr(_), Val::Ptr(q)) => self.mem.write_ptr(p, q),
            (Type::Struct(_), Val::Agg(b, i, ps)) => self.mem.write_block(p, &b, &i, &ps),
            (_, Val::Void) => Err("use of the value of a function that returned no value".into()),
            (t, v) => Err(format!(
                "internal: store of {v:?} as `{}`",
                t.display(&self.prog.structs)
            )),
        };
        r.map_err(|e| Stop::Error(e, range))
    }

    /// The address an lvalue designates.
    fn addr(&mut self, e: &Expr) -> R<Ptr> {
        match &e.kind {
            ExprKind::Local(l) => Ok(Ptr {
                obj: Some(self.frames.last().expect("frame").1[*l]),
                off: 0,
            }),
            ExprKind::Global(g) => Ok(Ptr {
                obj: Some(self.globals[*g]),
                off: 0,
            }),
            ExprKind::Str(s) => Ok(Ptr {
                obj: Some(self.strings[*s]),
                off: 0,
            }),
            ExprKind::Deref(p) => match self.eval(p)? {
                Val::Ptr(Ptr { obj: None, .. }) => self.err("null pointer dereference", e.range),
                Val::Ptr(q) => Ok(q),
                _ => unreachable!("deref of a non-pointer"),
            },
            ExprKind::Member(base, off) => {
                let b = self.addr(base)?;
                Ok(Ptr {
                    obj: b.obj,
                    off: b.off + *off as i64,
                })
            }
            _ => unreachable!("address of an rvalue"),
        }
    }

    fn ptr_offset(&self, p: Ptr, delta: i128, range: SrcRange) -> R<Ptr> {
        let Some(id) = p.obj else {
            if delta == 0 {
                return Ok(p);
            }
            return self.err("arithmetic on a null pointer", range);
        };
        let o = &self.mem.objects[id];
        let off = i128::from(p.off) + delta;
        if off < 0 || off > o.bytes.len() as i128 {
            return self.err(
                format!(
                    "pointer arithmetic leaves `{}` (offset {off} of an object of {} bytes)",
                    o.name,
                    o.bytes.len()
                ),
                range,
            );
        }
        Ok(Ptr {
            obj: p.obj,
            off: off as i64,
        })
    }

    // ---------- expressions ----------

    fn int(&mut self, e: &Expr) -> R<u64> {
        match self.eval(e)? {
            Val::Int(v) => Ok(v),
            Val::Void => self.err(
                "use of the value of a function that returned no value",
                e.range,
            ),
            v => unreachable!("expected an integer, got {v:?}"),
        }
    }

    fn ptr(&mut self, e: &Expr) -> R<Ptr> {
        match self.eval(e)? {
            Val::Ptr(p) => Ok(p),
            Val::Void => self.err(
                "use of the value of a function that returned no value",
                e.range,
            ),
            v => unreachable!("expected a pointer, got {v:?}"),
        }
    }

    fn ub<T>(&self, r: Result<T, intops::IntUb>, range: SrcRange) -> R<T> {
        r.map_err(|e| Stop::Error(e.to_string(), range))
    }

    pub(crate) fn eval(&mut self, e: &Expr) -> R<Val> {
        let v = self.eval_node(e)?;
        if !self.fn_index.is_empty() {
            self.note_operand(e, &v);
        }
        if self.expr_index.is_empty() {
            return Ok(v);
        }
        let Some(&(stmt, n)) = self.expr_index.get(&crate::subexpr::node_key(e)) else {
            return Ok(v);
        };
        let Some((cur, inst)) = self.cur.filter(|c| c.0 == stmt) else {
            return Ok(v);
        };
        match self.opts.expr_overrides.get(&(cur, inst, n)) {
            Some(&bits) => {
                self.applied_expr.insert((cur, inst, n));
                Ok(with_bits(&v, &e.ty, bits))
            }
            None => Ok(v),
        }
    }

    fn eval_node(&mut self, e: &Expr) -> R<Val> {
        match &e.kind {
            ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::Str(_)
            | ExprKind::Deref(_)
            | ExprKind::Member(..) => {
                unreachable!("lvalue evaluated as a value")
            }
            ExprKind::Const(v) => Ok(Val::Int(*v)),
            ExprKind::Stream(w) => Ok(Val::Ptr(Ptr {
                obj: Some(self.streams[usize::from(*w)]),
                off: 0,
            })),
            ExprKind::Null => Ok(Val::Ptr(Ptr::NULL)),
            ExprKind::Load(lv) => {
                let p = self.addr(lv)?;
                self.load(p, &lv.ty, e.range)
            }
            ExprKind::AddrOf(lv) | ExprKind::Decay(lv) => Ok(Val::Ptr(self.addr(lv)?)),
            ExprKind::Cast(inner) => {
                let v = self.eval(inner)?;
                Ok(match (Conversion::of(&inner.ty, &e.ty), v) {
                    (Conversion::Discard, _) => Val::Void,
                    (Conversion::Integer(from, to), Val::Int(bits)) => {
                        Val::Int(intops::convert(from, to, bits))
                    }
                    (Conversion::PointerToBool, Val::Ptr(p)) => {
                        Val::Int(u64::from(p.obj.is_some()))
                    }
                    (Conversion::Pointer, v @ Val::Ptr(_)) => v,
                    (_, Val::Void) => {
                        return self.err(
                            "use of the value of a function that returned no value",
                            e.range,
                        )
                    }
                    _ => {
                        return self.err(
                            format!(
                                "unsupported: conversion from `{}` to `{}`",
                                inner.ty.display(&self.prog.structs),
                                e.ty.display(&self.prog.structs)
                            ),
                            e.range,
                        )
                    }
                })
            }
            ExprKind::Unary(op, a) => {
                let v = self.eval(a)?;
                match (op, v) {
                    (UnOp::LogNot, Val::Ptr(p)) => Ok(Val::Int(u64::from(p.obj.is_none()))),
                    (op, Val::Int(bits)) => {
                        let k = a.int_kind().expect("integer operand");
                        Ok(Val::Int(self.ub(intops::unary(*op, k, bits), e.range)?))
                    }
                    _ => self.err(
                        "use of the value of a function that returned no value",
                        a.range,
                    ),
                }
            }
            ExprKind::Binary(op, l, r) => {
                let a = self.int(l)?;
                let b = self.int(r)?;
                let (k, kb) = (l.int_kind().expect("int"), r.int_kind().expect("int"));
                Ok(Val::Int(
                    self.ub(intops::binary(*op, k, a, b, kb), e.range)?,
                ))
            }
            ExprKind::PtrAdd { ptr, index, sub } => {
                let p = self.ptr(ptr)?;
                let i = IntKind::Long.value(self.int(index)?);
                let size = i128::from(size_of(self.prog, e.ty.pointee().expect("pointer")));
                let delta = if *sub { -i * size } else { i * size };
                Ok(Val::Ptr(self.ptr_offset(p, delta, e.range)?))
            }
            ExprKind::PtrDiff(l, r) => {
                let (a, b) = (self.ptr(l)?, self.ptr(r)?);
                if a.obj != b.obj {
                    return self.err("subtraction of pointers into different objects", e.range);
                }
                let size = size_of(self.prog, l.ty.pointee().expect("pointer")) as i64;
                Ok(Val::Int(((a.off - b.off) / size) as u64))
            }
            ExprKind::PtrCmp(op, l, r) => {
                let (a, b) = (self.ptr(l)?, self.ptr(r)?);
                let res = match op {
                    BinOp::Eq => a == b,
                    BinOp::Ne => a != b,
                    _ => {
                        if a.obj != b.obj || a.obj.is_none() {
                            return self.err(
                                "relational comparison of pointers into different objects",
                                e.range,
                            );
                        }
                        match op {
                            BinOp::Lt => a.off < b.off,
                            BinOp::Le => a.off <= b.off,
                            BinOp::Gt => a.off > b.off,
                            _ => a.off >= b.off,
                        }
                    }
                };
                Ok(Val::Int(u64::from(res)))
            }
            ExprKind::LogAnd(l, r) => {
                let v = self.eval(l)?;
                if !truth(&v) {
                    return Ok(Val::Int(0));
                }
                let w = self.eval(r)?;
                Ok(Val::Int(u64::from(truth(&w))))
            }
            ExprKind::LogOr(l, r) => {
                let v = self.eval(l)?;
                if truth(&v) {
                    return Ok(Val::Int(1));
                }
                let w = self.eval(r)?;
                Ok(Val::Int(u64::from(truth(&w))))
            }
            ExprKind::Cond(c, a, b) => {
                let v = self.eval(c)?;
                if truth(&v) {
                    self.eval(a)
                } else {
                    self.eval(b)
                }
            }
            ExprKind::Comma(a, b) => {
                self.eval(a)?;
                self.eval(b)
            }
            ExprKind::Assign(lv, rhs) => {
                let ov = self.pending_store.take();
                // gcc -O0 evaluates the right side first.
                let mut v = self.eval(rhs)?;
                if let Some(bits) = ov {
                    v = with_bits(&v, &lv.ty, bits);
                }
                let p = self.addr(lv)?;
                self.store(p, &lv.ty, v.clone(), e.range)?;
                Ok(v)
            }
            ExprKind::CompoundAssign { op, lv, rhs, op_ty } => {
                let ov = self.pending_store.take();
                let r = self.eval(rhs)?;
                let p = self.addr(lv)?;
                let old = self.load(p, &lv.ty, e.range)?;
                let new = match (old, r, &lv.ty, op_ty) {
                    (Val::Ptr(q), Val::Int(i), Type::Ptr(el), _) => {
                        let i = IntKind::Long.value(i);
                        let size = i128::from(size_of(self.prog, el));
                        let delta = if *op == BinOp::Sub {
                            -i * size
                        } else {
                            i * size
                        };
                        Val::Ptr(self.ptr_offset(q, delta, e.range)?)
                    }
                    (Val::Int(a), Val::Int(b), Type::Int(lk), Type::Int(ok)) => {
                        let a = intops::convert(*lk, *ok, a);
                        let kb = rhs.int_kind().expect("int");
                        let res = self.ub(intops::binary(*op, *ok, a, b, kb), e.range)?;
                        Val::Int(intops::convert(*ok, *lk, res))
                    }
                    _ => unreachable!("compound assignment operands"),
                };
                let new = match ov {
                    Some(bits) => with_bits(&new, &lv.ty, bits),
                    None => new,
                };
                self.store(p, &lv.ty, new.clone(), e.range)?;
                Ok(new)
            }
            ExprKind::IncDec { lv, inc, prefix } => {
                let ov = self.pending_store.take();
                let p = self.addr(lv)?;
                let old = self.load(p, &lv.ty, e.range)?;
                let new = match (&old, &lv.ty) {
                    (Val::Ptr(q), Type::Ptr(el)) => {
                        let size = i128::from(size_of(self.prog, el));
                        Val::Ptr(self.ptr_offset(*q, if *inc { size } else { -size }, e.range)?)
                    }
                    (Val::Int(a), Type::Int(k)) => {
                        let pk = k.promote();
                        let a = intops::convert(*k, pk, *a);
                        let op = if *inc { BinOp::Add } else { BinOp::Sub };
                        let res = self.ub(intops::binary(op, pk, a, 1, pk), e.range)?;
                        Val::Int(intops::convert(pk, *k, res))
                    }
                    _ => unreachable!("++/-- operand"),
                };
                let new = match ov {
                    Some(bits) => with_bits(&new, &lv.ty, bits),
                    None => new,
                };
                self.store(p, &lv.ty, new.clone(), e.range)?;
                Ok(if *prefix { new } else { old })
            }
            ExprKind::Call(f, args) => {
                // gcc on x86-64 evaluates arguments right to left.
                let mut vals = Vec::with_capacity(args.len());
                for a in args.iter().rev() {
                    vals.push(self.eval(a)?);
                }
                vals.reverse();
                self.call(*f, vals, e.range)
            }
            ExprKind::Builtin(b, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args.iter().rev() {
                    vals.push(self.eval(a)?);
                }
                vals.reverse();
                crate::library::call(self, *b, args, vals, e.range)
            }
        }
    }
}

pub(crate) fn truth(v: &Val) -> bool {
    match v {
        Val::Int(b) => *b != 0,
        Val::Ptr(p) => p.obj.is_some(),
        _ => false,
    }
}

/// `v` with its bits replaced by an override: an integer of type `ty` takes the
/// bits (wrapped to its width, `_Bool` to 0/1), a pointer keeps its object and
/// takes the bits as its byte offset.
pub(crate) fn with_bits(v: &Val, ty: &Type, bits: u64) -> Val {
    match (v, ty) {
        (_, Type::Int(IntKind::Bool)) => Val::Int(u64::from(bits != 0)),
        (_, Type::Int(k)) => Val::Int(k.wrap(bits)),
        (Val::Ptr(p), _) => Val::Ptr(Ptr {
            obj: p.obj,
            off: bits as i64,
        }),
        (v, _) => v.clone(),
    }
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}
