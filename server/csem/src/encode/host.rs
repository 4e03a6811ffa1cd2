//! The encoder as a [`Host`] of the library. The test's inputs are
//! constants, so what a library function reads (strings, sizes, bases) is
//! the run's value, fixed as a path condition where it was computed on the
//! path; output keeps its printed integers and strings symbolic.

use super::memory::{Cell, SPtr, SVal};
use super::output::Item;
use super::{paths::SlotRole, Enc, EncodeError, Repr, Stop, E};
use crate::bv::Bv;
use crate::format::{arg_kind, pad, Spec};
use crate::ir::SrcRange;
use crate::library::{Host, Streams};
use crate::types::{IntKind, Type};

impl Enc<'_> {
    fn stop(&self, e: EncodeError, range: SrcRange) -> Stop {
        let EncodeError::Unsupported(m) = e;
        Stop::Fail(EncodeError::Unsupported(format!(
            "{m} at {}",
            self.prog.location(range)
        )))
    }

    fn lift<T>(&self, r: E<T>, range: SrcRange) -> Result<T, Stop> {
        r.map_err(|e| self.stop(e, range))
    }

    /// The run's value of `b`, fixed as a path condition when it is not a constant.
    fn pinned(&mut self, b: &Bv) -> Option<u64> {
        if let Some(v) = self.cnf.const_value(b) {
            return Some(v);
        }
        let v = self.cnf.shadow_value(b)?;
        let k = self.cnf.bv_const(v, b.width());
        let eq = self.cnf.bv_eq(b, &k);
        self.mem.pins.push(eq);
        Some(v)
    }

    fn emit(&mut self, stream: u8, item: Item) {
        if stream == 1 {
            self.out.push(item);
        }
    }
}

impl<'a> Host<'a> for Enc<'a> {
    type Int = Bv;
    type Ptr = SPtr;
    type Val = SVal;
    type Stop = Stop;

    fn as_int(v: &SVal) -> Option<Bv> {
        match v {
            SVal::Int(b) => Some(b.clone()),
            _ => None,
        }
    }
    fn as_ptr(v: &SVal) -> Option<SPtr> {
        match v {
            SVal::Ptr(p) => Some(p.clone()),
            _ => None,
        }
    }
    fn from_int(i: Bv) -> SVal {
        SVal::Int(i)
    }
    fn from_ptr(p: SPtr) -> SVal {
        SVal::Ptr(p)
    }
    fn void() -> SVal {
        SVal::Void
    }

    fn error(&self, message: String, range: SrcRange) -> Stop {
        let m = message
            .strip_prefix("unsupported: ")
            .unwrap_or(&message)
            .to_string();
        self.stop(EncodeError::Unsupported(m), range)
    }
    fn exit(&mut self, status: Bv) -> Stop {
        Stop::Exit(status)
    }
    fn abort(&mut self) -> Stop {
        Stop::Abort
    }

    fn constant(&mut self, k: IntKind, bits: u64) -> Bv {
        self.cnf.bv_const(k.wrap(bits), k.bits() as usize)
    }
    fn known(&mut self, v: &Bv, what: &str, range: SrcRange) -> Result<u64, Stop> {
        if let Some(n) = self.pinned(v) {
            return Ok(n);
        }
        // A value the run never computed: in an arm of `?:` (or a right
        // operand of `&&`/`||`) the run did not take. It is fixed to 0
        // there, a path condition that holds wherever the arm does not run.
        if self.cnf.shadow(self.guard) == Some(false) {
            let zero = self.cnf.bv_const(0, v.width());
            let eq = self.cnf.bv_eq(v, &zero);
            let held = self.cnf.or(!self.guard, eq);
            self.mem.pins.push(held);
            return Ok(0);
        }
        Err(self.error(format!("{what} with a free value"), range))
    }
    fn abs(&mut self, k: IntKind, a: &Bv, _range: SrcRange) -> Result<Bv, Stop> {
        let (n, ub) = self.cnf.c_unary(crate::ir::UnOp::Neg, k, a);
        let neg = *a.0.last().expect("bits");
        let ub = self.cnf.and(neg, ub);
        self.note_ub(ub);
        Ok(self.cnf.bv_ite(neg, &n, a))
    }
    fn low_byte(&mut self, v: &Bv) -> Bv {
        self.cnf.bv_zext(&Bv(v.0[..8].to_vec()), 32)
    }

    fn null(&mut self) -> SPtr {
        SPtr {
            obj: None,
            off: self.cnf.bv_const(0, 64),
        }
    }
    fn is_null(&self, p: &SPtr) -> bool {
        p.obj.is_none()
    }
    fn offset(&mut self, p: &SPtr, bytes: u64) -> SPtr {
        let d = self.cnf.bv_const(bytes, 64);
        SPtr {
            obj: p.obj,
            off: self.cnf.bv_add(&p.off, &d),
        }
    }
    fn stream(&self, p: &SPtr) -> Option<u8> {
        let obj = p.obj?;
        self.stream_objs
            .iter()
            .position(|s| *s == obj)
            .map(|i| i as u8)
    }
    fn streams(&mut self) -> &mut Streams<'a> {
        &mut self.io
    }
    fn stream_object(&mut self, id: u8) -> SPtr {
        let obj = self.mem.alloc(self.io.name(id), 1);
        self.stream_objs.push(obj);
        SPtr {
            obj: Some(obj),
            off: self.cnf.bv_const(0, 64),
        }
    }
    fn library_object(&mut self, key: &str, size: u64) -> (SPtr, bool) {
        let off = self.cnf.bv_const(0, 64);
        if let Some((_, obj)) = self.library_objs.iter().find(|(k, _)| k == key) {
            let p = SPtr {
                obj: Some(*obj),
                off,
            };
            return (p, false);
        }
        let obj = self.mem.alloc(key, size);
        self.mem.zero(obj, size, &self.cnf);
        self.library_objs.push((key.to_string(), obj));
        let p = SPtr {
            obj: Some(obj),
            off,
        };
        (p, true)
    }

    fn c_string(&mut self, p: &SPtr, range: SrcRange) -> Result<Vec<u8>, Stop> {
        let r = self.mem.const_string(&mut self.cnf, p);
        self.lift(r, range)
    }
    fn c_string_upto(&mut self, p: &SPtr, max: usize, range: SrcRange) -> Result<Vec<u8>, Stop> {
        // The encoder follows runs the interpreter completed; it reads the
        // string the run's bytes spell.
        let mut s = self.c_string(p, range)?;
        s.truncate(max);
        Ok(s)
    }
    fn write_bytes(&mut self, at: &SPtr, bytes: &[u8], range: SrcRange) -> Result<(), Stop> {
        let Some(obj) = at.obj else {
            return Err(self.error("a library write through a null pointer".into(), range));
        };
        let Some(off) = self.pinned(&at.off) else {
            return Err(self.error("a library write at a free address".into(), range));
        };
        if off.saturating_add(bytes.len() as u64) > self.mem.size(obj) {
            return Err(self.error("a library write out of bounds".into(), range));
        }
        for (i, b) in bytes.iter().enumerate() {
            let v = self.cnf.bv_const(u64::from(*b), 8);
            self.mem
                .set(obj, off + i as u64, Cell::int(IntKind::Char, v));
        }
        Ok(())
    }
    fn fill(&mut self, at: &SPtr, byte: u8, n: u64, range: SrcRange) -> Result<(), Stop> {
        if at.obj.is_some_and(|o| n > self.mem.size(o)) {
            return Err(self.error("a library write out of bounds".into(), range));
        }
        self.write_bytes(at, &vec![byte; n as usize], range)
    }
    fn store(&mut self, p: &SPtr, ty: &Type, v: SVal, range: SrcRange) -> Result<(), Stop> {
        let r = Enc::store(self, p, ty, v);
        self.lift(r, range)
    }
    fn copy(&mut self, dst: &SPtr, src: &SPtr, n: u64, range: SrcRange) -> Result<(), Stop> {
        let r = self.mem.copy(&mut self.cnf, dst, src, n);
        self.lift(r, range)
    }
    fn alloc(&mut self, n: u64, zero: bool, _range: SrcRange) -> Result<SPtr, Stop> {
        let id = self.mem.alloc("heap block", n);
        if zero {
            self.mem.zero(id, n, &self.cnf);
        }
        Ok(SPtr {
            obj: Some(id),
            off: self.cnf.bv_const(0, 64),
        })
    }
    fn heap_start(&mut self, p: &SPtr, range: SrcRange) -> Result<bool, Stop> {
        // The run freed and reallocated only blocks it allocated (else it
        // stopped with an error): the start is the run's offset 0.
        match self.pinned(&p.off) {
            Some(off) => Ok(off == 0),
            None => Err(self.error("a heap pointer with a free offset".into(), range)),
        }
    }
    fn object_size(&self, p: &SPtr) -> u64 {
        p.obj.map_or(0, |o| self.mem.size(o))
    }
    fn free(&mut self, p: &SPtr, range: SrcRange) -> Result<(), Stop> {
        // Nothing reads a freed block on a path whose run had no error.
        self.heap_start(p, range).map(|_| ())
    }

    fn print(&mut self, stream: u8, text: &[u8]) {
        self.emit(stream, Item::Text(text.to_vec()));
    }
    fn print_int(
        &mut self,
        stream: u8,
        spec: &Spec,
        v: &Bv,
        from: IntKind,
        range: SrcRange,
    ) -> Result<Bv, Stop> {
        let Some(k) = arg_kind(spec) else {
            return Err(self.error(format!("printf conversion `{}`", spec.text), range));
        };
        let b = self.cnf.c_convert(from, k, v);
        let h = self.cur_health.expect("in a statement");
        let SVal::Int(val) =
            self.relax(h, SVal::Int(b), SlotRole::OutputArg, Repr::int(k.signed()))
        else {
            unreachable!("an integer stays an integer")
        };
        self.emit(
            stream,
            Item::Int {
                spec: spec.clone(),
                val: val.clone(),
            },
        );
        Ok(val)
    }
    fn print_string(
        &mut self,
        stream: u8,
        spec: Option<&Spec>,
        p: &SPtr,
        range: SrcRange,
    ) -> Result<(), Stop> {
        let plain = Spec::default();
        let spec = spec.unwrap_or(&plain);
        if spec.prec.is_none() {
            let r = self.mem.symbolic_string(&mut self.cnf, p);
            if let Some(chars) = self.lift(r, range)? {
                let (width, left) = (spec.width.unwrap_or(0), spec.left);
                self.emit(stream, Item::Str { chars, width, left });
                return Ok(());
            }
        }
        let mut text = self.c_string(p, range)?;
        if let Some(n) = spec.prec {
            text.truncate(n);
        }
        self.emit(stream, Item::Text(pad(spec, text)));
        Ok(())
    }
    fn output_len(&self) -> Option<usize> {
        None
    }
    fn flush(&mut self, _p: &SPtr) {}
    fn program_name(&self) -> &str {
        "prog"
    }
    fn type_name(&self, t: &Type) -> String {
        t.display(&self.prog.structs)
    }
}
