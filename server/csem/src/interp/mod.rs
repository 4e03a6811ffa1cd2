//! The concrete interpreter: runs a test (arguments, stdin) over the IR and
//! yields the output, the exit status and the trace of statement instances.
//! Undefined behaviour stops the run with a runtime error and its location.
//! The program is run by the one evaluator (`crate::eval`) with this
//! module's `Machine` as its concrete domain.

mod domain;
mod functional;
mod host;

pub use functional::{Functional, Observation};
pub mod memory;

use crate::intops;
use crate::ir::*;
use crate::types::{IntKind, Type};
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
    /// The files the run may open for reading, by the name the program
    /// opens them by (relative to the test's working directory): their
    /// contents, or `None` for a file that does not exist. A run that opens
    /// a name not listed stops with an error and [`RunResult::needs_file`]:
    /// the caller, which may read files, adds it and runs again.
    pub files: crate::library::Files,
    /// The environment `getenv` reads, `(name, value)`; a name not listed
    /// is unset.
    pub env: Vec<(String, String)>,
    /// The byte an out-of-bounds read of an integer reads, repeated over
    /// its width, instead of stopping the run: what the C standard leaves
    /// undefined, and a compiled program reads from whatever lies next to
    /// the object. Such reads are listed in [`RunResult::free_reads`].
    /// `None`: they stop the run with a runtime error.
    pub free_reads: Option<u8>,
}

/// An out-of-bounds read a run made under [`TestInput::free_reads`]: where,
/// what it read past, and how many times.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreeRead {
    pub range: SrcRange,
    pub message: String,
    pub count: u64,
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
/// is listed in [`RunResult::unapplied_overrides`]. An override of a number a
/// store or an initializer stores replaces it without computing the statement's
/// expression when that has no side effects, so undefined behaviour there (an
/// index out of bounds once earlier overrides changed it) does not stop the run,
/// as it would not once the statement is fixed; otherwise the expression is
/// computed, and its undefined behaviour stops the run.
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
    /// One read of a variable made to read another one instead.
    pub swap: Option<Swap>,
}

/// A read of a local variable (a `Load` of a `Local`, by its
/// [`crate::subexpr::node_key`]) that reads `local` instead: the fix of a
/// wrong variable, run. `local` must be a local of the function holding
/// the read, of the read's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swap {
    pub read: usize,
    pub local: crate::ir::LocalId,
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
            swap: None,
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
    /// A floating value: the bits of its encoding.
    Float {
        kind: crate::types::FloatKind,
        bits: u64,
    },
    /// A pointer, shown as `&object+offset` or `NULL`.
    Ptr(String),
}

impl TraceValue {
    pub fn display(&self) -> String {
        match self {
            TraceValue::Int { kind, bits } => kind.value(*bits).to_string(),
            TraceValue::Float { kind, bits } => crate::float::show(kind.value(*bits)),
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
    /// The file the run opened that [`TestInput::files`] does not list.
    pub needs_file: Option<String>,
    /// What the program wrote to the files it opened for writing, by name.
    pub written_files: std::collections::BTreeMap<String, Vec<u8>>,
    /// The out-of-bounds reads [`TestInput::free_reads`] answered, by place.
    pub free_reads: Vec<FreeRead>,
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

thread_local! {
    static STEPS_RUN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The steps every [`run`] called from this thread has interpreted so far:
/// a count that only grows, deterministic for a deterministic caller (the
/// diagnosis's effort meter reads it, so that runs of the model, the
/// encoder's own included, count as work without being passed a meter).
pub fn steps_run_on_this_thread() -> u64 {
    STEPS_RUN.with(std::cell::Cell::get)
}

/// Run `main` of `prog` on one test.
pub fn run(prog: &Program, test: &TestInput, opts: &RunOptions) -> RunResult {
    let r = run_on_own_stack(prog, test, opts);
    STEPS_RUN.with(|n| n.set(n.get().saturating_add(r.steps)));
    r
}

fn run_on_own_stack(prog: &Program, test: &TestInput, opts: &RunOptions) -> RunResult {
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
        needs_file: None,
        written_files: Default::default(),
        free_reads: Vec::new(),
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
        functions: Vec::new(),
        stream_objs: Vec::new(),
        library_objs: Vec::new(),
        heap: std::collections::HashSet::new(),
        stdout_flushed: 0,
        stdout: Vec::new(),
        stderr: Vec::new(),
        io: crate::library::Streams::new(&test.stdin, &test.files, &test.env),
        nondet: &test.nondet,
        nondet_pos: 0,
        free_fill: test.free_reads,
        free_reads: Vec::new(),
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
            Some(f) => {
                let mut index = crate::subexpr::index_of(prog, [f.stmt]);
                let below = f
                    .target
                    .map(|t| crate::subexpr::descendants(prog, f.stmt, t));
                if let Some(keep) = f.operands.as_ref().or(below.as_ref()) {
                    index.retain(|_, (_, n)| keep.contains(n));
                }
                index
            }
            None => Default::default(),
        },
        fn_target: opts.functional.as_ref().and_then(|f| {
            let t = f.target?;
            crate::subexpr::of_statement(prog, f.stmt)
                .iter()
                .find(|s| s.index == t)
                .map(|s| crate::subexpr::node_key(s.expr))
        }),
        fn_key: Vec::new(),
        observed: Vec::new(),
    };
    let outcome = match crate::eval::start(&mut m, test) {
        // C99: reaching the end of main returns 0.
        Ok(Val::Int(v)) => Outcome::Exited(IntKind::Int.value(v) as i32 & 0xff),
        Ok(_) => Outcome::Exited(0),
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
        needs_file: m.io.needed.clone(),
        written_files: m.io.written(),
        free_reads: m.free_reads,
    }
}

/// How far (bytes) past its object an index may take a pointer under
/// [`TestInput::free_reads`], in the interpreter and the encoding alike (as
/// `|index| <= FREE_READS_REACH / element size`); beyond, the arithmetic
/// stops the run as before (the compiled program would crash reading there).
pub(crate) const FREE_READS_REACH: i128 = 1 << 40;

/// The value of a `k` whose every byte is `fill`.
pub(crate) fn fill_bits(k: IntKind, fill: u8) -> u64 {
    let bits = (0..k.size()).fold(0u64, |v, i| v | u64::from(fill) << (8 * i));
    if k == IntKind::Bool {
        bits & 1
    } else {
        bits
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
    /// Objects standing for the functions of `prog.address_taken`.
    functions: Vec<ObjId>,
    /// Objects standing for `stdin`, `stdout`, `stderr` (so `FILE *` values compare).
    pub(crate) stream_objs: Vec<ObjId>,
    /// The C library's own objects, by key (see `Host::library_object`).
    pub(crate) library_objs: Vec<(String, ObjId)>,
    /// Heap blocks from malloc/calloc/realloc not yet freed.
    pub(crate) heap: std::collections::HashSet<ObjId>,
    /// Bytes of stdout written out by `fflush` (kept when the program aborts).
    pub(crate) stdout_flushed: usize,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: Vec<u8>,
    /// The program's streams: stdin, the files it opens.
    pub(crate) io: crate::library::Streams<'a>,
    nondet: &'a [i64],
    nondet_pos: usize,
    /// [`TestInput::free_reads`], and the reads it answered.
    free_fill: Option<u8>,
    free_reads: Vec<FreeRead>,
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
    /// The node of [`Functional::target`], when the table replaces a
    /// sub-expression's value rather than the statement's.
    fn_target: Option<usize>,
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
        if self.fn_target.is_some() || self.opts.functional.is_none() {
            return computed;
        }
        let branch = matches!(ins.kind, InstrKind::Branch { .. });
        self.looked_up(ins.stmt, ins.range, branch, computed, (width, signed))
            .unwrap_or(computed)
    }

    /// The value the observed sub-expression ([`Functional::target`]) `e`
    /// produces: its table's for its operands, else `v`; recorded either way.
    fn target_through_table(&mut self, e: &Expr, v: Val) -> Val {
        let (Val::Int(bits), Type::Int(k)) = (&v, &e.ty) else {
            return v;
        };
        let Some(stmt) = self.cur.map(|c| c.0) else {
            return v;
        };
        match self.looked_up(stmt, e.range, false, *bits, (k.bits(), k.signed())) {
            Some(out) => with_bits(&v, &e.ty, out),
            None => v,
        }
    }

    /// The table's value for the current instance's operand key, or
    /// `computed`, when the current instance is of the observed statement
    /// (`stmt`); the instance is recorded. `None` for another statement.
    fn looked_up(
        &mut self,
        stmt: StmtId,
        range: SrcRange,
        branch: bool,
        computed: u64,
        (width, signed): (u32, bool),
    ) -> Option<u64> {
        let f = self.opts.functional.as_ref()?;
        let (_, instance) = self.cur.filter(|c| c.0 == f.stmt && stmt == f.stmt)?;
        let key = std::mem::take(&mut self.fn_key);
        let produced = f.table.get(&key).copied().unwrap_or(computed);
        self.observed.push(Observation {
            instance,
            range,
            branch,
            key,
            computed,
            produced,
            width,
            signed,
        });
        Some(produced)
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
            (Val::Int(bits), Type::Float(kind)) => Some(TraceValue::Float {
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

    // ---------- memory access ----------

    pub(crate) fn load(&mut self, p: Ptr, ty: &Type, range: SrcRange) -> R<Val> {
        let ty = &ty.in_memory();
        if let (Type::Int(k), Some(fill)) = (ty, self.free_fill) {
            if self.mem.outside_live_object(p, k.size()) {
                return Ok(Val::Int(self.free_read(p, *k, fill, range)));
            }
        }
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

    /// An out-of-bounds read of a `k` at `p` answered by `fill` (see
    /// [`TestInput::free_reads`]), noted by place.
    fn free_read(&mut self, p: Ptr, k: IntKind, fill: u8, range: SrcRange) -> u64 {
        match self.free_reads.iter_mut().find(|r| r.range == range) {
            Some(seen) => seen.count += 1,
            None => {
                let message = match self.mem.check(p, k.size(), false) {
                    Err(e) => e,
                    Ok(_) => "out-of-bounds read".into(),
                };
                self.free_reads.push(FreeRead {
                    range,
                    message,
                    count: 1,
                });
            }
        }
        fill_bits(k, fill)
    }

    pub(crate) fn store(&mut self, p: Ptr, ty: &Type, v: Val, range: SrcRange) -> R<()> {
        let ty = &ty.in_memory();
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

    /// `p` moved by `delta` bytes; `in_reach`: whether the index is within
    /// [`FREE_READS_REACH`], where free reads let it leave the object.
    fn ptr_offset(&self, p: Ptr, delta: i128, in_reach: bool, range: SrcRange) -> R<Ptr> {
        let Some(id) = p.obj else {
            if delta == 0 {
                return Ok(p);
            }
            return self.err("arithmetic on a null pointer", range);
        };
        let o = &self.mem.objects[id];
        let off = i128::from(p.off) + delta;
        // Under free reads the address is computed as the compiled program
        // computes it: what reading there gives is the test's byte.
        let answered = self.free_fill.is_some() && in_reach;
        if (off < 0 || off > o.bytes.len() as i128) && !answered {
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

    fn ub<T>(&self, r: Result<T, intops::IntUb>, range: SrcRange) -> R<T> {
        r.map_err(|e| Stop::Error(e.to_string(), range))
    }

    pub(crate) fn eval(&mut self, e: &Expr) -> R<Val> {
        let v = match self.opts.swap {
            Some(swap) if swap.read == crate::subexpr::node_key(e) && is_local_read(e) => {
                self.eval_node(&swapped(e, swap.local))?
            }
            _ => self.eval_node(e)?,
        };
        if !self.fn_index.is_empty() {
            self.note_operand(e, &v);
        }
        let v = match self.fn_target {
            Some(t) if t == crate::subexpr::node_key(e) => self.target_through_table(e, v),
            _ => v,
        };
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
        crate::eval::expr(self, e)
    }
}

fn is_local_read(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Load(v) if matches!(v.kind, ExprKind::Local(_)))
}

/// The read `e` of a local made a read of `local` (same type and range).
fn swapped(e: &Expr, local: crate::ir::LocalId) -> Expr {
    let var = Expr {
        kind: ExprKind::Local(local),
        ty: e.ty.clone(),
        range: e.range,
    };
    Expr {
        kind: ExprKind::Load(Box::new(var)),
        ty: e.ty.clone(),
        range: e.range,
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
        (_, Type::Float(k)) => Val::Int(k.carrier().wrap(bits)),
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
