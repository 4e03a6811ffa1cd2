//! Byte-addressed objects with provenance: a pointer is (object, offset), so
//! out-of-bounds accesses, dangling pointers and reads of indeterminate bytes
//! are detected instead of silently modelled.

use std::collections::BTreeMap;

pub type ObjId = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ptr {
    /// `None` is the null pointer.
    pub obj: Option<ObjId>,
    pub off: i64,
}

impl Ptr {
    pub const NULL: Ptr = Ptr { obj: None, off: 0 };
}

#[derive(Clone, Debug)]
pub struct Object {
    pub name: String,
    pub bytes: Vec<u8>,
    pub init: Vec<bool>,
    /// Pointers stored in the object, by the offset of their first byte.
    pub ptrs: BTreeMap<u64, Ptr>,
    pub alive: bool,
    pub readonly: bool,
}

/// What went wrong with an access (the interpreter adds the location).
pub type MemError = String;

/// A copied block: bytes, their init state, and the pointers inside it by offset.
pub type Block = (Vec<u8>, Vec<bool>, Vec<(u64, Ptr)>);

#[derive(Default, Clone, Debug)]
pub struct Memory {
    pub objects: Vec<Object>,
    /// Bytes of the objects alive now.
    live: u64,
}

impl Memory {
    /// Bytes of the objects alive now (the interpreter bounds it).
    pub fn live_bytes(&self) -> u64 {
        self.live
    }

    pub fn alloc(&mut self, name: &str, size: u64, zero: bool) -> ObjId {
        self.live += size;
        self.objects.push(Object {
            name: name.to_string(),
            bytes: vec![0; size as usize],
            init: vec![zero; size as usize],
            ptrs: BTreeMap::new(),
            alive: true,
            readonly: false,
        });
        self.objects.len() - 1
    }

    pub fn free(&mut self, id: ObjId) {
        let o = &mut self.objects[id];
        self.live -= o.bytes.len() as u64;
        o.alive = false;
        o.bytes = Vec::new();
        o.init = Vec::new();
        o.ptrs.clear();
    }

    /// The object and byte range of an access of `size` bytes at `p`.
    pub fn check(&self, p: Ptr, size: u64, write: bool) -> Result<(ObjId, usize), MemError> {
        let Some(id) = p.obj else {
            return Err("null pointer dereference".into());
        };
        let o = &self.objects[id];
        if !o.alive {
            return Err(format!(
                "access to `{}` after its lifetime ended (dangling pointer)",
                o.name
            ));
        }
        // A size near 2^64 (a negative length converted) must not wrap.
        if p.off < 0
            || (p.off as u64)
                .checked_add(size)
                .is_none_or(|end| end > o.bytes.len() as u64)
        {
            return Err(format!(
                "out-of-bounds access to `{}`: {} byte(s) at offset {} of an object of {} bytes",
                o.name,
                size,
                p.off,
                o.bytes.len()
            ));
        }
        if write && o.readonly {
            return Err(format!("write to read-only {}", o.name));
        }
        Ok((id, p.off as usize))
    }

    pub fn read_bytes(&self, p: Ptr, size: u64, need_init: bool) -> Result<&[u8], MemError> {
        let (id, off) = self.check(p, size, false)?;
        let o = &self.objects[id];
        if need_init && o.init[off..off + size as usize].iter().any(|b| !b) {
            return Err(format!("read of an uninitialized value in `{}`", o.name));
        }
        Ok(&o.bytes[off..off + size as usize])
    }

    /// Whether an access of `size` bytes at `p` lies (partly) outside a
    /// live object: the undefined read a compiled program carries on from,
    /// reading whatever lies next to the object.
    pub fn outside_live_object(&self, p: Ptr, size: u64) -> bool {
        let Some(o) = p.obj.map(|id| &self.objects[id]) else {
            return false;
        };
        o.alive
            && (p.off < 0
                || (p.off as u64)
                    .checked_add(size)
                    .is_none_or(|end| end > o.bytes.len() as u64))
    }

    pub fn read_uint(&self, p: Ptr, size: u64) -> Result<u64, MemError> {
        let b = self.read_bytes(p, size, true)?;
        let mut v = 0u64;
        for (i, byte) in b.iter().enumerate() {
            v |= u64::from(*byte) << (8 * i);
        }
        Ok(v)
    }

    pub fn write_uint(&mut self, p: Ptr, size: u64, v: u64) -> Result<(), MemError> {
        let (id, off) = self.check(p, size, true)?;
        let o = &mut self.objects[id];
        clear_ptrs(o, off as u64, size);
        for i in 0..size as usize {
            o.bytes[off + i] = (v >> (8 * i)) as u8;
            o.init[off + i] = true;
        }
        Ok(())
    }

    pub fn read_ptr(&self, p: Ptr) -> Result<Ptr, MemError> {
        let raw = self.read_uint(p, 8)?;
        let (id, off) = self.check(p, 8, false)?;
        if let Some(q) = self.objects[id].ptrs.get(&(off as u64)) {
            return Ok(*q);
        }
        if raw == 0 {
            return Ok(Ptr::NULL);
        }
        Err("a pointer made from an integer or from partial bytes (outside the model)".into())
    }

    pub fn write_ptr(&mut self, p: Ptr, q: Ptr) -> Result<(), MemError> {
        // Non-null pointers are stored as non-zero bytes so that they never read back as null.
        self.write_uint(p, 8, if q.obj.is_some() { 1 } else { 0 })?;
        let (id, off) = self.check(p, 8, true)?;
        if q.obj.is_some() {
            self.objects[id].ptrs.insert(off as u64, q);
        }
        Ok(())
    }

    /// Copy `size` bytes with their init state and pointers (struct assignment).
    pub fn copy(&mut self, dst: Ptr, src: Ptr, size: u64) -> Result<(), MemError> {
        let (sid, soff) = self.check(src, size, false)?;
        let s = &self.objects[sid];
        let bytes = s.bytes[soff..soff + size as usize].to_vec();
        let init = s.init[soff..soff + size as usize].to_vec();
        let ptrs: Vec<(u64, Ptr)> = s
            .ptrs
            .range(soff as u64..soff as u64 + size)
            .map(|(k, v)| (k - soff as u64, *v))
            .collect();
        self.write_block(dst, &bytes, &init, &ptrs)
    }

    pub fn write_block(
        &mut self,
        dst: Ptr,
        bytes: &[u8],
        init: &[bool],
        ptrs: &[(u64, Ptr)],
    ) -> Result<(), MemError> {
        let size = bytes.len() as u64;
        let (did, doff) = self.check(dst, size, true)?;
        let d = &mut self.objects[did];
        clear_ptrs(d, doff as u64, size);
        d.bytes[doff..doff + size as usize].copy_from_slice(bytes);
        d.init[doff..doff + size as usize].copy_from_slice(init);
        for (k, v) in ptrs {
            d.ptrs.insert(doff as u64 + k, *v);
        }
        Ok(())
    }

    pub fn read_block(&self, src: Ptr, size: u64) -> Result<Block, MemError> {
        let (sid, soff) = self.check(src, size, false)?;
        let s = &self.objects[sid];
        Ok((
            s.bytes[soff..soff + size as usize].to_vec(),
            s.init[soff..soff + size as usize].to_vec(),
            s.ptrs
                .range(soff as u64..soff as u64 + size)
                .map(|(k, v)| (k - soff as u64, *v))
                .collect(),
        ))
    }

    pub fn set_uninit(&mut self, id: ObjId) {
        let o = &mut self.objects[id];
        o.init.iter_mut().for_each(|b| *b = false);
        o.ptrs.clear();
    }

    /// The NUL-terminated string at `p` (without the NUL).
    pub fn c_string(&self, p: Ptr) -> Result<Vec<u8>, MemError> {
        self.c_string_upto(p, usize::MAX)
    }

    /// The string at `p`, or its first `max` bytes (nothing past them is
    /// read, as `%.3s` reads an array without a NUL).
    pub fn c_string_upto(&self, p: Ptr, max: usize) -> Result<Vec<u8>, MemError> {
        let mut out = Vec::new();
        let mut q = p;
        while out.len() < max {
            let b = self
                .read_uint(q, 1)
                .map_err(|e| format!("reading a string: {e}"))? as u8;
            if b == 0 {
                return Ok(out);
            }
            out.push(b);
            q.off += 1;
        }
        Ok(out)
    }
}

fn clear_ptrs(o: &mut Object, off: u64, size: u64) {
    let lo = off.saturating_sub(7);
    let keys: Vec<u64> = o.ptrs.range(lo..off + size).map(|(k, _)| *k).collect();
    for k in keys {
        o.ptrs.remove(&k);
    }
}
