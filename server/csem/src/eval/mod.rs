//! C evaluated once for both back ends, over a value [`Domain`]: the
//! interpreter's concrete values and checked memory, or the encoder's
//! bit-vectors over the CNF whose branches follow the run's path. What the
//! program does is decided here: the order of evaluation (the right side of
//! `=` first, arguments right to left, as gcc does), what each operator
//! computes from its operands, which operand a conversion or a pointer
//! operation takes, which uses are outside the model, how a program starts
//! (`argv`, globals, string literals) and how a call and a function body
//! run. A domain decides what a value is, what undefined behaviour does to
//! it (a runtime error, or a literal the encoding rules out), where a
//! branch goes (the value's direction, or the run's) and what a statement
//! instance leaves behind (a trace event, or a component with a health
//! literal).

mod expr;
mod sort;
mod stmt;

pub(crate) use expr::expr;
pub(crate) use stmt::{call, start};

use crate::ir::*;
use crate::library::Host;
use crate::types::{IntKind, Type};

const NO_VALUE: &str = "use of the value of a function that returned no value";

fn size_of(prog: &Program, t: &Type) -> u64 {
    t.size(&prog.structs).unwrap_or(0)
}

/// How a domain follows a condition that decides what is evaluated next
/// (`&&`, `||`, `?:`).
pub(crate) enum Decision<B> {
    /// Evaluate one side only: the condition is (or is fixed to) this value.
    Known(bool),
    /// Evaluate both sides, each guarded by the condition (or its negation),
    /// and choose between their values by it.
    Both(B),
}

/// A value domain: the library's [`Host`] and the operations of C's operators.
pub(crate) trait Domain<'a>: Host<'a> {
    /// A truth value.
    type Bool: Copy;
    /// What a statement's top-level store (`=`, `op=`, `++`, `--`) may
    /// replace its stored value with: the interpreter's override, the
    /// encoder's health literal. A statement instance has one (see
    /// [`Domain::enter`]); the statement's value takes it.
    type Slot: Copy;
    /// What a call keeps until it returns.
    type Frame;

    fn program(&self) -> &'a Program;
    /// The value of `e` (through [`expr`], plus what the domain observes or
    /// replaces of a sub-expression's value).
    fn eval(&mut self, e: &Expr) -> Result<Self::Val, Self::Stop>;

    fn local(&mut self, l: LocalId) -> Self::Ptr;
    fn global(&mut self, g: GlobalId) -> Self::Ptr;
    fn string(&mut self, s: StrId) -> Self::Ptr;
    /// `stdin` (0), `stdout` (1), `stderr` (2).
    fn stream_ptr(&mut self, which: u8) -> Self::Ptr;
    /// The address of the program's function `prog.address_taken[i]`.
    fn function_ptr(&mut self, i: usize) -> Self::Ptr;
    /// Which function of `prog.address_taken` a call through `p` calls.
    fn pointed_function(&mut self, p: &Self::Ptr, range: SrcRange) -> Result<usize, Self::Stop>;
    /// The address `*v` designates.
    fn deref(&mut self, v: Self::Val, range: SrcRange) -> Result<Self::Ptr, Self::Stop>;
    fn load(&mut self, p: &Self::Ptr, ty: &Type, range: SrcRange) -> Result<Self::Val, Self::Stop>;

    fn convert(&mut self, from: IntKind, to: IntKind, v: &Self::Int) -> Self::Int;
    fn unary(
        &mut self,
        op: UnOp,
        k: IntKind,
        v: &Self::Int,
        range: SrcRange,
    ) -> Result<Self::Int, Self::Stop>;
    fn binary(
        &mut self,
        op: BinOp,
        k: IntKind,
        a: &Self::Int,
        b: &Self::Int,
        kb: IntKind,
        range: SrcRange,
    ) -> Result<Self::Int, Self::Stop>;
    /// The comparison `a op b` of floating values of kind `k` (their bits),
    /// as an `int` 0 or 1: IEEE-754's (a NaN is unordered, `-0 == +0`).
    fn float_compare(
        &mut self,
        op: BinOp,
        k: crate::types::FloatKind,
        a: &Self::Int,
        b: &Self::Int,
        range: SrcRange,
    ) -> Result<Self::Int, Self::Stop>;
    /// `p ± i` elements of `elem` bytes (`i` a `long`).
    fn ptr_add(
        &mut self,
        p: &Self::Ptr,
        i: &Self::Int,
        elem: u64,
        sub: bool,
        range: SrcRange,
    ) -> Result<Self::Ptr, Self::Stop>;
    /// `a - b` in elements of `elem` bytes, a `long`.
    fn ptr_diff(
        &mut self,
        a: &Self::Ptr,
        b: &Self::Ptr,
        elem: u64,
        range: SrcRange,
    ) -> Result<Self::Int, Self::Stop>;
    /// A pointer comparison, an `int` 0 or 1.
    fn ptr_cmp(
        &mut self,
        op: BinOp,
        a: &Self::Ptr,
        b: &Self::Ptr,
        range: SrcRange,
    ) -> Result<Self::Int, Self::Stop>;

    fn truth(&mut self, v: &Self::Val) -> Self::Bool;
    /// How to follow condition `c`; `pinned`: the side it guards calls a
    /// function (its calls happen or not as in the run), `what` names the
    /// construct for an error.
    fn decide(
        &mut self,
        c: Self::Bool,
        pinned: bool,
        what: &str,
        range: SrcRange,
    ) -> Result<Decision<Self::Bool>, Self::Stop>;
    /// Undefined behaviour the evaluator found on concrete values (a
    /// floating value converted to an integer it does not fit): a runtime
    /// error, or for the encoder a literal ruled out where the current
    /// guard holds (an arm of `?:` the run did not take may compute it).
    fn undefined(&mut self, what: String, range: SrcRange) -> Result<(), Self::Stop>;
    /// The outcome of `c`, a decision inside a library function that calls
    /// the program (a comparison of `qsort`): the run's. The encoder makes
    /// each such decision a point of the path of its own, so that a model
    /// wanting another outcome leaves the path right there (the comparisons
    /// before it as the model has them, the ones after as the program
    /// makes them).
    fn outcome(&mut self, c: Self::Bool, what: &str, range: SrcRange) -> Result<bool, Self::Stop>;
    /// Runs `f` where `c` holds (undefined behaviour in it counts only then).
    fn guarded<T>(&mut self, c: Self::Bool, f: impl FnOnce(&mut Self) -> T) -> T;
    fn and(&mut self, a: Self::Bool, b: Self::Bool) -> Self::Bool;
    fn or(&mut self, a: Self::Bool, b: Self::Bool) -> Self::Bool;
    fn not(&mut self, a: Self::Bool) -> Self::Bool;
    /// `b` as an `int` 0 or 1.
    fn bool_int(&mut self, b: Self::Bool) -> Self::Int;
    /// `c ? a : b` of values both sides computed.
    fn select(
        &mut self,
        c: Self::Bool,
        a: Self::Val,
        b: Self::Val,
        range: SrcRange,
    ) -> Result<Self::Val, Self::Stop>;

    /// Taken by a store operator before its operands are evaluated: what
    /// may replace the value it stores, when it is its statement's top.
    fn take_slot(&mut self) -> Option<Self::Slot>;
    /// The stored value `v` of type `ty`, through `slot`.
    fn relax_store(&mut self, slot: Self::Slot, v: Self::Val, ty: &Type) -> Self::Val;
    /// The value of type `ty` that `slot` stores whatever the statement
    /// computes, when the domain knows it without that value (a concrete
    /// run's override of a number). The statement's expression, free of
    /// side effects, is then not evaluated: what it would do wrong (read
    /// out of bounds with the values the override let in) is gone once
    /// the statement is fixed, as the override stands for. `None`: the
    /// expression is evaluated and its value goes through `relax_store`.
    fn stored_outright(&mut self, _slot: Self::Slot, _ty: &Type) -> Option<Self::Val> {
        None
    }

    /// A call of the program's function `f` with `args`.
    fn call_function(
        &mut self,
        f: FuncId,
        args: Vec<Self::Val>,
        range: SrcRange,
    ) -> Result<Self::Val, Self::Stop>;

    // ---------- programs, calls and function bodies ----------

    /// A new object: a stream, a string literal, a global, an argument.
    fn new_object(&mut self, obj: NewObject<'_>, range: SrcRange) -> Result<Self::Ptr, Self::Stop>;
    /// Every byte of the object `p` points to becomes 0 (static storage,
    /// aggregate initializers).
    fn zero_fill(&mut self, p: &Self::Ptr);
    /// The object `p` points to becomes indeterminate (a local's
    /// declaration without initializer is reached again).
    fn forget(&mut self, p: &Self::Ptr);
    /// A free input: the value of `__VERIFIER_nondet_*()` function `f`.
    fn nondet(&mut self, f: FuncId, at: SrcRange) -> Result<Self::Val, Self::Stop>;
    /// Enters function `f`, called at `at`: its locals exist from now on.
    fn push_frame(&mut self, f: FuncId, at: SrcRange) -> Result<Self::Frame, Self::Stop>;
    fn pop_frame(&mut self, frame: Self::Frame);

    /// Instruction `ins` of function `f` is reached (the step limit, the
    /// statement instance's number); the instance's slot, if it has one.
    fn enter(&mut self, f: FuncId, ins: &Instr) -> Result<Option<Self::Slot>, Self::Stop>;
    /// Instruction `ins` ran, producing `produced`.
    fn leave(
        &mut self,
        f: FuncId,
        ins: &Instr,
        produced: Produced<'_, Self::Val, Self::Ptr>,
    ) -> Result<(), Self::Stop>;
    /// The statement's top-level store takes `slot` (see [`Domain::take_slot`]).
    fn arm(&mut self, slot: Self::Slot);
    fn disarm(&mut self);
    /// Where branch `ins` goes with condition `cond` (then it has left).
    fn direction(
        &mut self,
        f: FuncId,
        ins: &Instr,
        cond: &Self::Val,
        slot: Option<Self::Slot>,
    ) -> Result<bool, Self::Stop>;
    /// The case value `switch` `ins` dispatches on, `v` of type `ty` (then it has left).
    fn switch_value(
        &mut self,
        f: FuncId,
        ins: &Instr,
        v: Self::Val,
        ty: &Type,
        slot: Option<Self::Slot>,
    ) -> Result<u64, Self::Stop>;
    /// What `return` `ins` returns for `v` of type `ty` (then it has left).
    fn returned(
        &mut self,
        f: FuncId,
        ins: &Instr,
        v: Self::Val,
        ty: Option<&Type>,
        slot: Option<Self::Slot>,
    ) -> Result<Self::Val, Self::Stop>;
}

/// An object a program starts with.
pub(crate) enum NewObject<'n> {
    /// `stdin`, `stdout`, `stderr`, in that order.
    Stream(&'n str),
    /// String literal `n` of the program with its bytes (read-only).
    Literal(StrId, &'n [u8]),
    /// Function `prog.address_taken[i]`, which pointers can point to but
    /// no access can read or write.
    Function(usize),
    Global(GlobalId, u64),
    /// `argv`'s strings and array.
    Argument(String, u64),
}

/// What an instruction produced, for a domain that records it.
pub(crate) enum Produced<'v, V, P> {
    Nothing,
    Value(&'v V, &'v Type),
    /// A scalar local just initialized, at `P`.
    Initialized(&'v P, &'v Type),
}
