//! The encoder as a [`Domain`]: bit-vector values over the CNF; undefined
//! behaviour is a literal the encoding rules out (under the short-circuit
//! guard it happens in); `&&`, `||` and `?:` evaluate both sides under
//! guards unless a side calls a function, where the run's choice is pinned.

use super::memory::{Cell, SPtr, SVal};
use super::paths::SlotRole;
use super::{Enc, EncodeError, Point, PointKind, Repr, SlotRec, Stop, MAX_ENCODED_DEPTH};
use crate::bv::Bv;
use crate::eval::{Decision, Domain, NewObject, Produced};
use crate::interp::{counts_instance, nondet_bits, TraceValue};
use crate::ir::*;
use crate::library::Host;
use crate::types::{IntKind, Type};
use rustsat::types::Lit;

impl Enc<'_> {
    fn zero_ptr(&mut self, obj: Option<usize>) -> SPtr {
        SPtr {
            obj,
            off: self.cnf.bv_const(0, 64),
        }
    }
}

impl<'a> Domain<'a> for Enc<'a> {
    type Bool = Lit;
    type Slot = Lit;
    type Frame = ();

    fn program(&self) -> &'a Program {
        self.prog
    }
    fn eval(&mut self, e: &Expr) -> Result<SVal, Stop> {
        Enc::eval(self, e)
    }

    fn local(&mut self, l: LocalId) -> SPtr {
        let obj = self.frames.last().map(|f| f[l]);
        self.zero_ptr(obj)
    }
    fn global(&mut self, g: GlobalId) -> SPtr {
        self.zero_ptr(Some(self.globals[g]))
    }
    fn string(&mut self, s: StrId) -> SPtr {
        self.zero_ptr(Some(self.strings[s]))
    }
    fn stream_ptr(&mut self, which: u8) -> SPtr {
        // The first three objects are stdin, stdout and stderr.
        self.zero_ptr(Some(usize::from(which)))
    }
    fn function_ptr(&mut self, i: usize) -> SPtr {
        self.zero_ptr(Some(self.functions[i]))
    }
    fn pointed_function(&mut self, p: &SPtr, range: SrcRange) -> Result<usize, Stop> {
        // The object is the run's (a pointer's object is never symbolic);
        // a relaxed offset is fixed to the run's, which was 0.
        let found = p
            .obj
            .and_then(|obj| self.functions.iter().position(|&f| f == obj));
        let Some(i) = found else {
            return Err(self.error("a call through a pointer to no function".into(), range));
        };
        match self.mem.pin(&mut self.cnf, &p.off) {
            Ok(0) => Ok(i),
            _ => Err(self.error(
                "a call through a function pointer with an offset".into(),
                range,
            )),
        }
    }
    fn deref(&mut self, v: SVal, range: SrcRange) -> Result<SPtr, Stop> {
        match v {
            SVal::Ptr(q) => Ok(q),
            _ => Err(self.error("a dereference of a non-pointer".into(), range)),
        }
    }
    fn load(&mut self, p: &SPtr, ty: &Type, _range: SrcRange) -> Result<SVal, Stop> {
        Ok(Enc::load(self, p, ty)?)
    }

    fn convert(&mut self, from: IntKind, to: IntKind, v: &Bv) -> Bv {
        self.cnf.c_convert(from, to, v)
    }
    fn unary(&mut self, op: UnOp, k: IntKind, v: &Bv, _range: SrcRange) -> Result<Bv, Stop> {
        let (r, ub) = self.cnf.c_unary(op, k, v);
        self.note_ub(ub);
        Ok(r)
    }
    fn binary(
        &mut self,
        op: BinOp,
        k: IntKind,
        a: &Bv,
        b: &Bv,
        kb: IntKind,
        _range: SrcRange,
    ) -> Result<Bv, Stop> {
        let (r, ub) = match self.narrowed(op, k, a, b) {
            Some(narrow) => narrow,
            None => self.cnf.c_binary(op, k, a, b, kb),
        };
        self.note_ub(ub);
        Ok(r)
    }
    fn float_compare(
        &mut self,
        op: BinOp,
        k: crate::types::FloatKind,
        a: &Bv,
        b: &Bv,
        _range: SrcRange,
    ) -> Result<Bv, Stop> {
        if let (Some(x), Some(y)) = (self.cnf.const_value(a), self.cnf.const_value(b)) {
            let r = crate::float::binary(op, k, x, y);
            return Ok(self.cnf.bv_const(r, 32));
        }
        let holds = crate::bv::float::compare(&mut self.cnf, op, k, a, b);
        Ok(self.cnf.bv_zext(&Bv(vec![holds]), 32))
    }
    fn ptr_add(
        &mut self,
        p: &SPtr,
        i: &Bv,
        elem: u64,
        sub: bool,
        _range: SrcRange,
    ) -> Result<SPtr, Stop> {
        Ok(self.ptr_offset(p.clone(), i, elem, sub))
    }
    fn ptr_diff(&mut self, a: &SPtr, b: &SPtr, elem: u64, range: SrcRange) -> Result<Bv, Stop> {
        if a.obj != b.obj {
            return Err(self.error("pointer difference across objects".into(), range));
        }
        let d = self.cnf.bv_sub(&a.off, &b.off);
        if elem <= 1 {
            return Ok(d);
        }
        // By a constant: `q·c + r = d`, not a 64-bit divider (a `char *`
        // difference in a parsing loop made a million clauses with one).
        let s = self.cnf.bv_const(elem, 64);
        let (q, _) = self
            .cnf
            .c_binary(BinOp::Div, IntKind::Long, &d, &s, IntKind::Long);
        Ok(q)
    }
    fn ptr_cmp(&mut self, op: BinOp, a: &SPtr, b: &SPtr, range: SrcRange) -> Result<Bv, Stop> {
        let res = if a.obj != b.obj {
            match op {
                BinOp::Eq => self.cnf.fls(),
                BinOp::Ne => self.cnf.tru(),
                _ => return Err(self.error("pointer order across objects".into(), range)),
            }
        } else {
            let (v, _) = self
                .cnf
                .c_binary(op, IntKind::Long, &a.off, &b.off, IntKind::Long);
            v.0[0]
        };
        Ok(self.bool_int(res))
    }

    fn truth(&mut self, v: &SVal) -> Lit {
        Enc::truth(self, v)
    }
    fn decide(
        &mut self,
        c: Lit,
        pinned: bool,
        what: &str,
        range: SrcRange,
    ) -> Result<Decision<Lit>, Stop> {
        if !pinned {
            return Ok(Decision::Both(c));
        }
        // The run decides whether the side with calls ran.
        match self.cnf.shadow(c) {
            Some(run) => {
                self.mem.pins.push(if run { c } else { !c });
                Ok(Decision::Known(run))
            }
            None => Err(self.error(what.into(), range)),
        }
    }
    fn undefined(&mut self, _what: String, _range: SrcRange) -> Result<(), Stop> {
        let here = self.cnf.tru();
        self.note_ub(here);
        Ok(())
    }
    fn outcome(&mut self, c: Lit, what: &str, range: SrcRange) -> Result<bool, Stop> {
        let Some(run) = self.cnf.shadow(c) else {
            return Err(self.error(what.into(), range));
        };
        let lit = if run { c } else { !c };
        if lit != self.cnf.tru() {
            self.push_point(PointKind::Outcome { lit });
        }
        Ok(run)
    }
    fn guarded<T>(&mut self, c: Lit, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.guard;
        self.guard = self.cnf.and(saved, c);
        let r = f(self);
        self.guard = saved;
        r
    }
    fn and(&mut self, a: Lit, b: Lit) -> Lit {
        self.cnf.and(a, b)
    }
    fn or(&mut self, a: Lit, b: Lit) -> Lit {
        self.cnf.or(a, b)
    }
    fn not(&mut self, a: Lit) -> Lit {
        !a
    }
    fn bool_int(&mut self, b: Lit) -> Bv {
        self.cnf.bv_zext(&Bv(vec![b]), 32)
    }
    fn select(&mut self, c: Lit, a: SVal, b: SVal, range: SrcRange) -> Result<SVal, Stop> {
        Ok(match (a, b) {
            (SVal::Int(x), SVal::Int(y)) => SVal::Int(self.cnf.bv_ite(c, &x, &y)),
            (SVal::Ptr(x), SVal::Ptr(y)) if x.obj == y.obj => SVal::Ptr(SPtr {
                obj: x.obj,
                off: self.cnf.bv_ite(c, &x.off, &y.off),
            }),
            (SVal::Void, SVal::Void) => SVal::Void,
            (x @ SVal::Ptr(_), y @ SVal::Ptr(_)) if self.cnf.shadow(c).is_some() => {
                // Pointers into different objects: follow the run's choice.
                let run = self.cnf.shadow(c) == Some(true);
                self.mem.pins.push(if run { c } else { !c });
                if run {
                    x
                } else {
                    y
                }
            }
            _ => return Err(self.error("`?:` choosing between objects".into(), range)),
        })
    }

    fn take_slot(&mut self) -> Option<Lit> {
        self.pending_store.take()
    }
    fn relax_store(&mut self, h: Lit, v: SVal, ty: &Type) -> SVal {
        self.relax(h, v, SlotRole::Value, Repr::of(ty))
    }

    fn call_function(&mut self, f: FuncId, args: Vec<SVal>, range: SrcRange) -> Result<SVal, Stop> {
        // The callee's statements are components of their own.
        let saved = (
            std::mem::take(&mut self.ub),
            std::mem::take(&mut self.mem.pins),
            self.guard,
            self.cur_health,
            self.cur_key,
            self.out_arg,
            self.cur_range,
            self.stmt_out_start,
        );
        let r = crate::eval::call(self, f, args, range)?;
        (
            self.ub,
            self.mem.pins,
            self.guard,
            self.cur_health,
            self.cur_key,
            self.out_arg,
            self.cur_range,
            self.stmt_out_start,
        ) = saved;
        Ok(r)
    }

    fn new_object(&mut self, obj: NewObject<'_>, _range: SrcRange) -> Result<SPtr, Stop> {
        let id = match obj {
            NewObject::Stream(name) => {
                let id = self.mem.alloc(name, 1);
                self.stream_objs.push(id);
                id
            }
            NewObject::Literal(_, bytes) => {
                let id = self.mem.alloc("string literal", bytes.len() as u64);
                for (i, b) in bytes.iter().enumerate() {
                    let c = self.cnf.bv_const(u64::from(*b), 8);
                    self.mem.set(id, i as u64, Cell::int(IntKind::Char, c));
                }
                self.strings.push(id);
                id
            }
            NewObject::Global(g, size) => {
                let id = self.mem.alloc(&self.prog.globals[g].name, size);
                self.globals.push(id);
                id
            }
            NewObject::Argument(name, size) => self.mem.alloc(&name, size),
            NewObject::Function(_) => {
                let id = self.mem.alloc("function", 0);
                self.functions.push(id);
                id
            }
        };
        Ok(self.zero_ptr(Some(id)))
    }
    fn zero_fill(&mut self, p: &SPtr) {
        if let Some(id) = p.obj {
            let size = self.mem.size(id);
            self.mem.zero(id, size, &self.cnf);
        }
    }
    fn forget(&mut self, p: &SPtr) {
        if let Some(id) = p.obj {
            self.mem.clear(id);
        }
    }
    fn nondet(&mut self, fid: FuncId, _at: SrcRange) -> Result<SVal, Stop> {
        // A free input: a fresh value (its shadow the run's draw).
        let k = self.prog.funcs[fid].ret.as_int().unwrap_or(IntKind::Int);
        let run_value = self.nondet.get(self.draws.len()).copied();
        if self
            .parting
            .is_some_and(|r| self.draws.len() >= r.nondet_from)
        {
            self.cnf.end_replay();
        }
        let bits = nondet_bits(k, run_value.unwrap_or(0));
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
        Ok(SVal::Int(v))
    }
    fn push_frame(&mut self, fid: FuncId, _at: SrcRange) -> Result<(), Stop> {
        if self.frames.len() >= MAX_ENCODED_DEPTH {
            return Err(Stop::Fail(EncodeError::Unsupported(format!(
                "recursion deeper than {MAX_ENCODED_DEPTH} calls"
            ))));
        }
        let prog = self.prog;
        let locals = prog.funcs[fid]
            .locals
            .iter()
            .map(|l| {
                self.mem
                    .alloc(&l.name, l.ty.size(&prog.structs).unwrap_or(0))
            })
            .collect();
        self.frames.push(locals);
        Ok(())
    }
    fn pop_frame(&mut self, _frame: ()) {
        self.frames.pop();
    }

    fn enter(&mut self, _f: FuncId, ins: &Instr) -> Result<Option<Lit>, Stop> {
        let h = self.h(ins.stmt);
        self.stmts.insert(ins.stmt);
        if counts_instance(&ins.kind) {
            let inst = self.counts[ins.stmt];
            self.counts[ins.stmt] += 1;
            self.cur_key = (ins.stmt, inst);
            if self
                .parting
                .is_some_and(|r| r.differ.contains(&self.cur_key))
            {
                self.cnf.end_replay();
            }
            self.out_arg = 0;
            self.stmt_out_start = self.out.len();
        }
        self.cur_health = Some(h);
        self.cur_range = ins.range;
        self.guard = self.cnf.tru();
        self.reached = self.on_path;
        Ok(Some(h))
    }
    fn leave(&mut self, _f: FuncId, ins: &Instr, _: Produced<'_, SVal, SPtr>) -> Result<(), Stop> {
        self.event(ins)?;
        if counts_instance(&ins.kind) {
            let h = self.h(ins.stmt);
            self.close_statement(h);
        }
        Ok(())
    }
    fn arm(&mut self, h: Lit) {
        self.pending_store = Some(h);
    }
    fn disarm(&mut self) {
        self.pending_store = None;
    }
    fn direction(
        &mut self,
        _f: FuncId,
        ins: &Instr,
        cond: &SVal,
        _slot: Option<Lit>,
    ) -> Result<bool, Stop> {
        let h = self.h(ins.stmt);
        let t = Enc::truth(self, cond);
        let ev = self.event(ins)?;
        let taken = matches!(ev.value, Some(TraceValue::Int { bits: 1, .. }));
        let forced = self.overrides.0.contains_key(&self.cur_key);
        if !forced && self.cnf.shadow(t).is_some_and(|s| s != taken) {
            return Err(Stop::Fail(EncodeError::Unsupported(format!(
                "internal: the encoding diverges from the run at {}",
                self.prog.location(ins.range)
            ))));
        }
        // The direction: the condition when healthy, free (angelic) when not
        // (a trusted statement's is its condition).
        let d = if h == self.cnf.tru() {
            t
        } else {
            let d = self.cnf.fresh_valued(Some(taken));
            let same = self.cnf.iff(d, t);
            self.cnf.implies(h, same);
            d
        };
        self.add_point(Point {
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
            role: SlotRole::Condition,
            bits: Bv(vec![d]),
            signed: false,
            float: None,
            health: h,
        });
        self.close_statement(h);
        Ok(taken)
    }
    fn switch_value(
        &mut self,
        _f: FuncId,
        ins: &Instr,
        v: SVal,
        ty: &Type,
        _slot: Option<Lit>,
    ) -> Result<u64, Stop> {
        let InstrKind::Switch { cases, default, .. } = &ins.kind else {
            return Err(self.error("internal: not a switch".into(), ins.range));
        };
        let h = self.h(ins.stmt);
        let ev = self.event(ins)?;
        let Some(TraceValue::Int { bits, .. }) = ev.value else {
            return Err(self.error("internal: switch without a value".into(), ins.range));
        };
        // Before the value's slot (a trusted statement's value has none).
        let slots_before = self.slots.len();
        let SVal::Int(rv) = self.relax(h, v, SlotRole::SwitchValue, Repr::of(ty)) else {
            return Err(self.error("internal: switch on a non-integer".into(), ins.range));
        };
        let target = cases.iter().find(|(c, _)| *c == bits).map(|(_, t)| *t);
        self.add_point(Point {
            stmt: ins.stmt,
            instance: self.cur_key.1,
            range: ins.range,
            slots_before,
            out_before: self.out.len(),
            kind: PointKind::Switch {
                v: rv,
                cases: cases.clone(),
                default: *default,
                target: target.unwrap_or(*default),
            },
        });
        self.close_statement(h);
        Ok(bits)
    }
    fn returned(
        &mut self,
        f: FuncId,
        ins: &Instr,
        v: SVal,
        _ty: Option<&Type>,
        _slot: Option<Lit>,
    ) -> Result<SVal, Stop> {
        let h = self.h(ins.stmt);
        let v = self.relax(h, v, SlotRole::Return, Repr::of(&self.prog.funcs[f].ret));
        self.event(ins)?;
        self.close_statement(h);
        Ok(v)
    }
}
