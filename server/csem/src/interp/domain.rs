//! The interpreter as a [`Domain`]: concrete values; undefined behaviour
//! stops the run with a runtime error; every condition is known.

use super::memory::Ptr;
use super::{
    counts_instance, nondet_bits, ordinal, size_of, truth, with_bits, Machine, Stop, TraceValue,
    Val, C_STACK, R,
};
use crate::eval::{Decision, Domain, NewObject, Produced};
use crate::intops;
use crate::ir::*;
use crate::types::{IntKind, Type};

impl<'a> Domain<'a> for Machine<'a> {
    type Bool = bool;
    type Slot = u64;
    /// The bytes of the call's locals, and the caller's statement instance.
    type Frame = (u64, Caller);

    fn program(&self) -> &'a Program {
        self.prog
    }
    fn eval(&mut self, e: &Expr) -> R<Val> {
        Machine::eval(self, e)
    }

    fn local(&mut self, l: LocalId) -> Ptr {
        Ptr {
            obj: self.frames.last().map(|f| f.1[l]),
            off: 0,
        }
    }
    fn global(&mut self, g: GlobalId) -> Ptr {
        Ptr {
            obj: Some(self.globals[g]),
            off: 0,
        }
    }
    fn string(&mut self, s: StrId) -> Ptr {
        Ptr {
            obj: Some(self.strings[s]),
            off: 0,
        }
    }
    fn stream_ptr(&mut self, which: u8) -> Ptr {
        Ptr {
            obj: Some(self.stream_objs[usize::from(which)]),
            off: 0,
        }
    }
    fn function_ptr(&mut self, i: usize) -> Ptr {
        Ptr {
            obj: Some(self.functions[i]),
            off: 0,
        }
    }
    fn pointed_function(&mut self, p: &Ptr, range: SrcRange) -> R<usize> {
        let Some(obj) = p.obj else {
            return Err(Stop::Error(
                "call through a null function pointer".into(),
                range,
            ));
        };
        match self.functions.iter().position(|&f| f == obj) {
            Some(i) if p.off == 0 => Ok(i),
            _ => Err(Stop::Error(
                format!(
                    "call through a pointer to `{}`, which is not a function",
                    self.mem.objects[obj].name
                ),
                range,
            )),
        }
    }
    fn deref(&mut self, v: Val, range: SrcRange) -> R<Ptr> {
        match v {
            Val::Ptr(Ptr { obj: None, .. }) => {
                Err(Stop::Error("null pointer dereference".into(), range))
            }
            Val::Ptr(q) => Ok(q),
            _ => Err(Stop::Error(
                "use of the value of a function that returned no value".into(),
                range,
            )),
        }
    }
    fn load(&mut self, p: &Ptr, ty: &Type, range: SrcRange) -> R<Val> {
        Machine::load(self, *p, ty, range)
    }

    fn convert(&mut self, from: IntKind, to: IntKind, v: &u64) -> u64 {
        intops::convert(from, to, *v)
    }
    fn unary(&mut self, op: UnOp, k: IntKind, v: &u64, range: SrcRange) -> R<u64> {
        self.ub(intops::unary(op, k, *v), range)
    }
    fn binary(
        &mut self,
        op: BinOp,
        k: IntKind,
        a: &u64,
        b: &u64,
        kb: IntKind,
        range: SrcRange,
    ) -> R<u64> {
        self.ub(intops::binary(op, k, *a, *b, kb), range)
    }
    fn float_compare(
        &mut self,
        op: BinOp,
        k: crate::types::FloatKind,
        a: &u64,
        b: &u64,
        _range: SrcRange,
    ) -> R<u64> {
        Ok(crate::float::binary(op, k, *a, *b))
    }
    fn ptr_add(&mut self, p: &Ptr, i: &u64, elem: u64, sub: bool, range: SrcRange) -> R<Ptr> {
        let i = IntKind::Long.value(*i);
        let size = i128::from(elem);
        let delta = if sub { -i * size } else { i * size };
        let reach = crate::interp::FREE_READS_REACH / size.max(1);
        self.ptr_offset(*p, delta, i.abs() <= reach, range)
    }
    fn ptr_diff(&mut self, a: &Ptr, b: &Ptr, elem: u64, range: SrcRange) -> R<u64> {
        if a.obj != b.obj {
            return Err(Stop::Error(
                "subtraction of pointers into different objects".into(),
                range,
            ));
        }
        Ok((a.off.wrapping_sub(b.off) / elem.max(1) as i64) as u64)
    }
    fn ptr_cmp(&mut self, op: BinOp, a: &Ptr, b: &Ptr, range: SrcRange) -> R<u64> {
        let res = match op {
            BinOp::Eq => a == b,
            BinOp::Ne => a != b,
            _ => {
                if a.obj != b.obj || a.obj.is_none() {
                    return Err(Stop::Error(
                        "relational comparison of pointers into different objects".into(),
                        range,
                    ));
                }
                match op {
                    BinOp::Lt => a.off < b.off,
                    BinOp::Le => a.off <= b.off,
                    BinOp::Gt => a.off > b.off,
                    _ => a.off >= b.off,
                }
            }
        };
        Ok(u64::from(res))
    }

    fn truth(&mut self, v: &Val) -> bool {
        truth(v)
    }
    fn decide(
        &mut self,
        c: bool,
        _pinned: bool,
        _what: &str,
        _range: SrcRange,
    ) -> R<Decision<bool>> {
        Ok(Decision::Known(c))
    }
    fn undefined(&mut self, what: String, range: SrcRange) -> R<()> {
        Err(Stop::Error(what, range))
    }
    fn outcome(&mut self, c: bool, _what: &str, _range: SrcRange) -> R<bool> {
        Ok(c)
    }
    fn guarded<T>(&mut self, _c: bool, f: impl FnOnce(&mut Self) -> T) -> T {
        f(self)
    }
    fn and(&mut self, a: bool, b: bool) -> bool {
        a && b
    }
    fn or(&mut self, a: bool, b: bool) -> bool {
        a || b
    }
    fn not(&mut self, a: bool) -> bool {
        !a
    }
    fn bool_int(&mut self, b: bool) -> u64 {
        u64::from(b)
    }
    fn select(&mut self, c: bool, a: Val, b: Val, _range: SrcRange) -> R<Val> {
        Ok(if c { a } else { b })
    }

    fn take_slot(&mut self) -> Option<u64> {
        self.pending_store.take()
    }
    fn relax_store(&mut self, bits: u64, v: Val, ty: &Type) -> Val {
        self.mark_applied();
        with_bits(&v, ty, bits)
    }
    fn stored_outright(&mut self, bits: u64, ty: &Type) -> Option<Val> {
        // A pointer's bits are an offset into the object its value names.
        matches!(ty, Type::Int(_) | Type::Float(_)).then(|| {
            self.mark_applied();
            with_bits(&Val::Int(0), ty, bits)
        })
    }

    fn call_function(&mut self, f: FuncId, args: Vec<Val>, range: SrcRange) -> R<Val> {
        crate::eval::call(self, f, args, range)
    }

    fn new_object(&mut self, obj: NewObject<'_>, range: SrcRange) -> R<Ptr> {
        let id = match obj {
            NewObject::Stream(name) => {
                let id = self.mem.alloc(name, 1, true);
                self.mem.objects[id].readonly = true;
                self.stream_objs.push(id);
                id
            }
            NewObject::Literal(i, bytes) => {
                let name = format!("string literal #{i}");
                let id = self.mem.alloc(&name, bytes.len() as u64, true);
                self.mem.objects[id].bytes.copy_from_slice(bytes);
                self.mem.objects[id].readonly = true;
                self.strings.push(id);
                id
            }
            NewObject::Global(g, size) => {
                let name = &self.prog.globals[g].name;
                self.room(size, || format!("the global `{name}`"), range)?;
                let id = self.mem.alloc(name, size, true);
                self.globals.push(id);
                id
            }
            NewObject::Argument(name, size) => self.mem.alloc(&name, size, true),
            NewObject::Function(i) => {
                let name = match self.prog.address_taken[i] {
                    Callee::Func(f) => format!("function `{}`", self.prog.funcs[f].name),
                    Callee::Builtin(b) => format!("library function `{}`", b.c_name()),
                };
                // No bytes: any access through a function pointer is out of bounds.
                let id = self.mem.alloc(&name, 0, true);
                self.mem.objects[id].readonly = true;
                self.functions.push(id);
                id
            }
        };
        Ok(Ptr {
            obj: Some(id),
            off: 0,
        })
    }
    fn zero_fill(&mut self, p: &Ptr) {
        if let Some(id) = p.obj {
            let o = &mut self.mem.objects[id];
            o.bytes.iter_mut().for_each(|b| *b = 0);
            o.init.iter_mut().for_each(|b| *b = true);
            o.ptrs.clear();
        }
    }
    fn forget(&mut self, p: &Ptr) {
        if let Some(id) = p.obj {
            self.mem.set_uninit(id);
        }
    }
    fn nondet(&mut self, fid: FuncId, at: SrcRange) -> R<Val> {
        let f = &self.prog.funcs[fid];
        let k = f.ret.as_int().unwrap_or(IntKind::Int);
        let v = match (
            self.nondet.get(self.nondet_pos).copied(),
            self.opts.nondet_fill,
        ) {
            (Some(v), _) | (None, Some(v)) => v,
            (None, None) => {
                return Err(Stop::Error(
                    format!(
                        "`{}` is called for the {} time but the test gives {} nondet value{} \
                         (add values to the test's `nondet` list)",
                        f.name,
                        ordinal(self.nondet_pos + 1),
                        self.nondet.len(),
                        if self.nondet.len() == 1 { "" } else { "s" }
                    ),
                    at,
                ))
            }
        };
        self.nondet_pos += 1;
        Ok(Val::Int(nondet_bits(k, v)))
    }
    fn push_frame(&mut self, fid: FuncId, at: SrcRange) -> R<(u64, Caller)> {
        let prog = self.prog;
        let f = &prog.funcs[fid];
        if !f.defined {
            return Err(Stop::Error(
                format!(
                    "unsupported: call to `{}`, which has no definition in the sources",
                    f.name
                ),
                at,
            ));
        }
        let frame: u64 = f
            .locals
            .iter()
            .map(|l| size_of(prog, &l.ty))
            .fold(0, u64::saturating_add);
        if self.c_stack.saturating_add(frame) > C_STACK {
            return Err(Stop::Error(
                format!(
                    "stack overflow: the locals of `{}` take {frame} bytes, and with the {} bytes of the calls below it they pass the 8 MiB stack of a Linux process; the compiled program is killed by SIGSEGV here",
                    f.name, self.c_stack
                ),
                at,
            ));
        }
        self.room(frame, || format!("the locals of `{}`", f.name), at)?;
        let here = 0u8;
        let used = self.stack_base.saturating_sub(&here as *const u8 as usize);
        if self.depth >= self.opts.max_call_depth || used > self.stack_budget {
            return Err(Stop::Error(
                format!(
                    "call depth {} is more than the interpreter allows (stack overflow)",
                    self.depth
                ),
                at,
            ));
        }
        self.depth += 1;
        self.c_stack += frame;
        let locals = f
            .locals
            .iter()
            .map(|l| self.mem.alloc(&l.name, size_of(prog, &l.ty), false))
            .collect();
        self.frames.push((fid, locals));
        let caller = Caller {
            cur: self.cur,
            out_arg: self.out_arg,
            pending_store: self.pending_store.take(),
            fn_key: std::mem::take(&mut self.fn_key),
        };
        Ok((frame, caller))
    }
    fn pop_frame(&mut self, (bytes, caller): (u64, Caller)) {
        self.cur = caller.cur;
        self.out_arg = caller.out_arg;
        self.pending_store = caller.pending_store;
        self.fn_key = caller.fn_key;
        if let Some((_, locals)) = self.frames.pop() {
            for l in locals {
                self.mem.free(l);
            }
        }
        self.depth -= 1;
        self.c_stack -= bytes;
    }

    fn enter(&mut self, _f: FuncId, ins: &Instr) -> R<Option<u64>> {
        self.tick()?;
        if !counts_instance(&ins.kind) {
            return Ok(None);
        }
        let inst = self.counts[ins.stmt];
        self.counts[ins.stmt] += 1;
        self.cur = Some((ins.stmt, inst));
        self.out_arg = 0;
        self.fn_key.clear();
        Ok(self.override_of(ins.stmt, inst))
    }
    fn leave(&mut self, f: FuncId, ins: &Instr, produced: Produced<'_, Val, Ptr>) -> R<()> {
        let value = match produced {
            Produced::Nothing => None,
            Produced::Value(v, ty) => self.trace_value(v, ty),
            Produced::Initialized(p, ty) if self.opts.trace => {
                let v = Machine::load(self, *p, ty, ins.range)?;
                self.trace_value(&v, ty)
            }
            Produced::Initialized(..) => None,
        };
        self.record(f, ins, value);
        Ok(())
    }
    fn arm(&mut self, bits: u64) {
        self.pending_store = Some(bits);
    }
    fn disarm(&mut self) {
        self.pending_store = None;
    }
    fn direction(&mut self, f: FuncId, ins: &Instr, cond: &Val, slot: Option<u64>) -> R<bool> {
        let taken = match slot {
            Some(bits) => {
                self.mark_applied();
                bits != 0
            }
            None => {
                let b = u64::from(truth(cond));
                self.through_table(ins, b, (1, false)) != 0
            }
        };
        let traced = TraceValue::Int {
            kind: IntKind::Int,
            bits: u64::from(taken),
        };
        self.record(f, ins, Some(traced));
        Ok(taken)
    }
    fn switch_value(
        &mut self,
        f: FuncId,
        ins: &Instr,
        v: Val,
        ty: &Type,
        slot: Option<u64>,
    ) -> R<u64> {
        let v = match slot {
            Some(bits) => {
                self.mark_applied();
                with_bits(&v, ty, bits)
            }
            None => v,
        };
        let traced = self.trace_value(&v, ty);
        self.record(f, ins, traced);
        match v {
            Val::Int(bits) => Ok(bits),
            _ => Err(Stop::Error(
                "use of the value of a function that returned no value".into(),
                ins.range,
            )),
        }
    }
    fn returned(
        &mut self,
        f: FuncId,
        ins: &Instr,
        v: Val,
        ty: Option<&Type>,
        slot: Option<u64>,
    ) -> R<Val> {
        let v = match (ty, slot, &v) {
            (Some(t), Some(bits), _) if t.is_scalar() => {
                self.mark_applied();
                with_bits(&v, t, bits)
            }
            (Some(Type::Int(k)), None, Val::Int(bits)) => {
                let out = self.through_table(ins, *bits, (k.bits(), k.signed()));
                with_bits(&v, &Type::Int(*k), out)
            }
            _ => v,
        };
        let traced = ty.and_then(|t| self.trace_value(&v, t));
        self.record(f, ins, traced);
        Ok(v)
    }
}

/// The statement instance a call interrupts, restored when it returns.
pub(crate) struct Caller {
    cur: Option<(StmtId, u32)>,
    out_arg: u32,
    pending_store: Option<u64>,
    fn_key: Vec<u64>,
}
