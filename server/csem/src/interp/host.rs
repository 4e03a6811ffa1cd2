//! The interpreter as a [`Host`] of the library: concrete values, its
//! checked memory (every undefined access is a runtime error), stdout and
//! stderr as bytes, printed integers through the output overrides.

use super::memory::Ptr;
use super::{Machine, Stop, Val, R};
use crate::format::{render, Spec};
use crate::ir::SrcRange;
use crate::library::{Host, Streams};
use crate::types::{IntKind, Type};

fn plus(p: &Ptr, bytes: u64) -> Ptr {
    Ptr {
        obj: p.obj,
        off: p.off + bytes as i64,
    }
}

impl Machine<'_> {
    fn merr<T>(&self, r: Result<T, String>, range: SrcRange) -> R<T> {
        r.map_err(|e| Stop::Error(e, range))
    }

    fn write_stream(&mut self, which: u8, bytes: &[u8]) {
        match which {
            1 => self.stdout.extend_from_slice(bytes),
            2 => self.stderr.extend_from_slice(bytes),
            file => self.io.write(file, bytes),
        }
    }
}

impl<'a> Host<'a> for Machine<'a> {
    type Int = u64;
    type Ptr = Ptr;
    type Val = Val;
    type Stop = Stop;

    fn as_int(v: &Val) -> Option<u64> {
        match v {
            Val::Int(b) => Some(*b),
            _ => None,
        }
    }
    fn as_ptr(v: &Val) -> Option<Ptr> {
        match v {
            Val::Ptr(p) => Some(*p),
            _ => None,
        }
    }
    fn from_int(i: u64) -> Val {
        Val::Int(i)
    }
    fn from_ptr(p: Ptr) -> Val {
        Val::Ptr(p)
    }
    fn void() -> Val {
        Val::Void
    }

    fn error(&self, message: String, range: SrcRange) -> Stop {
        Stop::Error(message, range)
    }
    fn exit(&mut self, status: u64) -> Stop {
        Stop::Exit(IntKind::Int.value(status) as i32)
    }
    fn abort(&mut self) -> Stop {
        Stop::Abort
    }

    fn constant(&mut self, k: IntKind, bits: u64) -> u64 {
        k.wrap(bits)
    }
    fn known(&mut self, v: &u64, _what: &str, _range: SrcRange) -> R<u64> {
        Ok(*v)
    }
    fn abs(&mut self, k: IntKind, v: &u64, range: SrcRange) -> R<u64> {
        let v = k.value(*v);
        if v == k.min() {
            let name = if k == IntKind::Int { "abs" } else { "labs" };
            return Err(Stop::Error(format!("{name}({v}) overflows"), range));
        }
        Ok(k.wrap(v.unsigned_abs() as u64))
    }
    fn low_byte(&mut self, v: &u64) -> u64 {
        v & 0xff
    }

    fn null(&mut self) -> Ptr {
        Ptr::NULL
    }
    fn is_null(&self, p: &Ptr) -> bool {
        p.obj.is_none()
    }
    fn offset(&mut self, p: &Ptr, bytes: u64) -> Ptr {
        plus(p, bytes)
    }
    fn stream(&self, p: &Ptr) -> Option<u8> {
        let obj = p.obj?;
        self.stream_objs
            .iter()
            .position(|s| *s == obj)
            .map(|i| i as u8)
    }
    fn streams(&mut self) -> &mut Streams<'a> {
        &mut self.io
    }
    fn stream_object(&mut self, id: u8) -> Ptr {
        let name = format!("the stream of `{}`", self.io.name(id));
        let obj = self.mem.alloc(&name, 1, true);
        self.mem.objects[obj].readonly = true;
        self.stream_objs.push(obj);
        Ptr {
            obj: Some(obj),
            off: 0,
        }
    }
    fn library_object(&mut self, key: &str, size: u64) -> (Ptr, bool) {
        if let Some((_, obj)) = self.library_objs.iter().find(|(k, _)| k == key) {
            let p = Ptr {
                obj: Some(*obj),
                off: 0,
            };
            return (p, false);
        }
        let obj = self.mem.alloc(key, size, true);
        self.library_objs.push((key.to_string(), obj));
        let p = Ptr {
            obj: Some(obj),
            off: 0,
        };
        (p, true)
    }

    fn c_string(&mut self, p: &Ptr, range: SrcRange) -> R<Vec<u8>> {
        let r = self.mem.c_string(*p);
        self.merr(r, range)
    }
    fn c_string_upto(&mut self, p: &Ptr, max: usize, range: SrcRange) -> R<Vec<u8>> {
        let r = self.mem.c_string_upto(*p, max);
        self.merr(r, range)
    }
    fn write_bytes(&mut self, at: &Ptr, bytes: &[u8], range: SrcRange) -> R<()> {
        let r = self.mem.check(*at, bytes.len() as u64, true);
        self.merr(r, range)?;
        for (i, c) in bytes.iter().enumerate() {
            let r = self.mem.write_uint(plus(at, i as u64), 1, u64::from(*c));
            self.merr(r, range)?;
        }
        Ok(())
    }
    fn fill(&mut self, at: &Ptr, byte: u8, n: u64, range: SrcRange) -> R<()> {
        let r = self.mem.check(*at, n, true);
        self.merr(r, range)?;
        for i in 0..n {
            let r = self.mem.write_uint(plus(at, i), 1, u64::from(byte));
            self.merr(r, range)?;
        }
        Ok(())
    }
    fn store(&mut self, p: &Ptr, ty: &Type, v: Val, range: SrcRange) -> R<()> {
        Machine::store(self, *p, ty, v, range)
    }
    fn copy(&mut self, dst: &Ptr, src: &Ptr, n: u64, range: SrcRange) -> R<()> {
        let r = self.mem.copy(*dst, *src, n);
        self.merr(r, range)
    }
    fn alloc(&mut self, n: u64, zero: bool, range: SrcRange) -> R<Ptr> {
        self.room(n, || "a heap block".into(), range)?;
        let id = self.mem.alloc("heap block", n, zero);
        self.heap.insert(id);
        Ok(Ptr {
            obj: Some(id),
            off: 0,
        })
    }
    fn heap_start(&mut self, p: &Ptr, _range: SrcRange) -> R<bool> {
        Ok(p.off == 0 && p.obj.is_some_and(|id| self.heap.contains(&id)))
    }
    fn object_size(&self, p: &Ptr) -> u64 {
        p.obj
            .map_or(0, |id| self.mem.objects[id].bytes.len() as u64)
    }
    fn free(&mut self, p: &Ptr, range: SrcRange) -> R<()> {
        let Some(id) = p.obj else {
            return Ok(());
        };
        if p.off != 0 || !self.heap.remove(&id) {
            let what = if self.mem.objects[id].alive {
                "invalid"
            } else {
                "double"
            };
            return Err(Stop::Error(
                format!(
                    "{what} free of a pointer to `{}`",
                    self.mem.objects[id].name
                ),
                range,
            ));
        }
        self.mem.free(id);
        Ok(())
    }

    fn print(&mut self, stream: u8, text: &[u8]) {
        self.write_stream(stream, text);
    }
    fn print_int(
        &mut self,
        stream: u8,
        spec: &Spec,
        v: &u64,
        _from: IntKind,
        _range: SrcRange,
    ) -> R<u64> {
        let bits = self.printed(*v);
        self.write_stream(stream, &render(spec, bits));
        Ok(bits)
    }
    fn print_string(&mut self, stream: u8, spec: Option<&Spec>, p: &Ptr, range: SrcRange) -> R<()> {
        let Some(spec) = spec else {
            let s = self.c_string(p, range)?;
            self.write_stream(stream, &s);
            return Ok(());
        };
        let prec = spec.prec;
        let body = if p.obj.is_none() {
            // glibc prints "(null)" when the whole string fits the precision.
            if prec.is_none_or(|p| p >= 6) {
                b"(null)".to_vec()
            } else {
                Vec::new()
            }
        } else {
            let mut s = Vec::new();
            let mut q = *p;
            while prec.is_none_or(|p| s.len() < p) {
                let r = self.mem.read_uint(q, 1);
                let c = self.merr(r, range)? as u8;
                if c == 0 {
                    break;
                }
                s.push(c);
                q.off += 1;
            }
            s
        };
        self.write_stream(stream, &crate::format::pad(spec, body));
        Ok(())
    }
    fn output_len(&self) -> Option<usize> {
        Some(self.stdout.len() + self.stderr.len())
    }
    fn flush(&mut self, p: &Ptr) {
        if p.obj.is_none() || p.obj == Some(self.stream_objs[1]) {
            self.stdout_flushed = self.stdout.len();
        }
    }
    fn program_name(&self) -> &str {
        &self.opts.program_name
    }
    fn type_name(&self, t: &Type) -> String {
        t.display(&self.prog.structs)
    }
}
