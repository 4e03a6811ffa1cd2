//! Symbolic memory of the encoder: objects hold typed cells at byte offsets.
//! Pointers keep their object concrete and their offset symbolic; an access
//! at a symbolic offset becomes an if-then-else over the object's cells.

use super::{unsup, E};
use crate::bv::{Bv, Cnf};
use crate::types::{IntKind, StructDef, Type};
use rustsat::types::Lit;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct SPtr {
    pub obj: Option<usize>,
    pub off: Bv,
}

#[derive(Clone, Debug)]
pub enum SVal {
    Int(Bv),
    Ptr(SPtr),
    /// A struct value: its cells by offset.
    Agg(Vec<(u64, Cell)>),
    Void,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellKind {
    Int(IntKind),
    Ptr,
}

impl CellKind {
    fn size(self) -> u64 {
        match self {
            CellKind::Int(k) => k.size(),
            CellKind::Ptr => 8,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Cell {
    pub kind: CellKind,
    pub val: SVal,
    /// When this holds the cell was never written (its value is garbage):
    /// a store at a symbolic offset writes some cell of the object, so each
    /// cell that was unwritten before stays so unless the store chose it;
    /// `memcpy` carries it along. Reading such a cell is undefined, as the
    /// interpreter says ("read of an uninitialized value"). `None`: written.
    pub uninit: Option<Lit>,
}

impl Cell {
    pub fn int(k: IntKind, v: Bv) -> Cell {
        Cell {
            kind: CellKind::Int(k),
            val: SVal::Int(v),
            uninit: None,
        }
    }
    fn written(kind: CellKind, val: SVal) -> Cell {
        Cell {
            kind,
            val,
            uninit: None,
        }
    }
}

#[derive(Default)]
struct SObj {
    size: u64,
    /// Missing cells read as zero (static storage, aggregate initializers).
    zeroed: bool,
    cells: BTreeMap<u64, Cell>,
}

#[derive(Default)]
pub struct SMem {
    objs: Vec<SObj>,
    /// Path conditions the accesses added (a symbolic address fixed to the run's);
    /// the encoder guards them with the statement's health.
    pub pins: Vec<Lit>,
    /// Conditions under which an access outside `load`/`store` (a library
    /// function reading a string) reads an unwritten cell: undefined
    /// behaviour the encoder rules out.
    pub undefined: Vec<Lit>,
    /// [`crate::TestInput::free_reads`]: what an integer read outside its
    /// object gives, as the interpreter answers it.
    free_fill: Option<u8>,
}

fn kind_of(ty: &Type) -> Option<CellKind> {
    match ty {
        Type::Int(k) => Some(CellKind::Int(*k)),
        Type::Ptr(_) => Some(CellKind::Ptr),
        _ => None,
    }
}

/// An access at a symbolic offset becomes a choice among the object's aligned
/// offsets when there are at most this many; in larger objects (line buffers)
/// the access follows the run's address, pinned under the statement's health.
const MAX_CANDIDATES: u64 = 64;

/// Characters a string printed with symbolic bytes may have at most (a
/// longer one is printed as the run printed it).
const MAX_SYMBOLIC_STRING: usize = 256;

impl SMem {
    /// Memory whose integer reads outside their objects give `fill` (see
    /// [`crate::TestInput::free_reads`]).
    pub fn answering_free_reads(fill: Option<u8>) -> SMem {
        SMem {
            free_fill: fill,
            ..SMem::default()
        }
    }

    /// Whether integer reads outside their objects give a fill (and
    /// addresses outside them are no undefined behaviour).
    pub fn answers_free_reads(&self) -> bool {
        self.free_fill.is_some()
    }

    /// Fix a symbolic offset to its value in the run (a path condition).
    pub(super) fn pin(&mut self, cnf: &mut Cnf, off: &Bv) -> E<u64> {
        if let Some(v) = cnf.const_value(off) {
            return Ok(v);
        }
        let Some(v) = cnf.shadow_value(off) else {
            return unsup("an address whose value in the run is unknown");
        };
        let c = cnf.bv_const(v, off.width());
        let eq = cnf.bv_eq(off, &c);
        self.pins.push(eq);
        Ok(v)
    }

    pub fn alloc(&mut self, _name: &str, size: u64) -> usize {
        self.objs.push(SObj {
            size,
            zeroed: false,
            cells: BTreeMap::new(),
        });
        self.objs.len() - 1
    }

    pub fn size(&self, id: usize) -> u64 {
        self.objs[id].size
    }

    pub fn set(&mut self, id: usize, off: u64, c: Cell) {
        self.objs[id].cells.insert(off, c);
    }

    pub fn clear(&mut self, id: usize) {
        let o = &mut self.objs[id];
        o.cells.clear();
        o.zeroed = false;
    }

    pub fn zero(&mut self, id: usize, _size: u64, _cnf: &Cnf) {
        let o = &mut self.objs[id];
        o.cells.clear();
        o.zeroed = true;
    }

    /// The value of the cell of `kind` at a constant offset, and when it is
    /// unwritten (false for a cell the encoder has no record of: outside
    /// what stores and copies track, the run's own reads are trusted).
    fn read_cell(
        &self,
        cnf: &mut Cnf,
        id: usize,
        off: u64,
        kind: CellKind,
        base: Option<usize>,
    ) -> E<(SVal, Lit)> {
        let o = &self.objs[id];
        if let Some(c) = o.cells.get(&off) {
            // Same-size integers share their bits (`char` read as `unsigned char`).
            let same = match (c.kind, kind) {
                (CellKind::Int(a), CellKind::Int(b)) => {
                    a == b || (a.size() == b.size() && a != IntKind::Bool && b != IntKind::Bool)
                }
                (a, b) => a == b,
            };
            if same {
                return Ok((c.val.clone(), c.uninit.unwrap_or(cnf.fls())));
            }
        }
        let end = off.saturating_add(kind.size());
        if o.cells
            .range(off.saturating_sub(7)..end)
            .any(|(k, c)| *k + c.kind.size() > off)
        {
            return unsup("an access that overlaps a differently typed value (type punning)");
        }
        let val = match kind {
            CellKind::Int(k) => {
                let w = k.bits() as usize;
                if o.zeroed {
                    SVal::Int(cnf.bv_const(0, w))
                } else {
                    SVal::Int(cnf.bv_fresh(w))
                }
            }
            CellKind::Ptr => {
                if o.zeroed {
                    SVal::Ptr(SPtr {
                        obj: None,
                        off: cnf.bv_const(0, 64),
                    })
                } else {
                    SVal::Ptr(SPtr {
                        obj: base,
                        off: cnf.bv_fresh(64),
                    })
                }
            }
        };
        Ok((val, cnf.fls()))
    }

    /// Whether a cell at `off` was unwritten before a store (a cell never
    /// stored in storage that is not zero-filled, or one marked so).
    fn unwritten_before(&self, cnf: &Cnf, id: usize, off: u64) -> Lit {
        let o = &self.objs[id];
        match o.cells.get(&off) {
            Some(c) => c.uninit.unwrap_or(cnf.fls()),
            None if o.zeroed => cnf.fls(),
            None => cnf.tru(),
        }
    }

    pub fn load(
        &mut self,
        cnf: &mut Cnf,
        p: &SPtr,
        ty: &Type,
        structs: &[StructDef],
    ) -> E<(SVal, Lit)> {
        let ty = &ty.in_memory();
        let Some(id) = p.obj else {
            let v = fresh_of(cnf, ty);
            return Ok((v, cnf.tru()));
        };
        if let Type::Struct(_) = ty {
            let off = self.pin(cnf, &p.off)?;
            let size = ty.size(structs).unwrap_or(0);
            if off.saturating_add(size) > self.objs[id].size {
                return unsup("a struct read outside its object");
            }
            let cells = self.objs[id]
                .cells
                .range(off..off.saturating_add(size))
                .map(|(k, c)| (k - off, c.clone()))
                .collect();
            return Ok((SVal::Agg(cells), cnf.fls()));
        }
        let Some(kind) = kind_of(ty) else {
            return unsup("a read of this type");
        };
        let size = self.objs[id].size;
        if let Some(off) = cnf.const_value(&p.off) {
            if off.saturating_add(kind.size()) > size {
                return Ok(self.outside(cnf, ty));
            }
            return self.read_cell(cnf, id, off, kind, p.obj);
        }
        let n = size / kind.size();
        if n > MAX_CANDIDATES || kind == CellKind::Ptr {
            // Pointers into different objects cannot be merged: follow the run's address.
            let off = self.pin(cnf, &p.off)?;
            if off.saturating_add(kind.size()) > size {
                return Ok(self.outside(cnf, ty));
            }
            return self.read_cell(cnf, id, off, kind, p.obj);
        }
        let mut val: Option<SVal> = None;
        let mut hits = Vec::new();
        let mut unwritten = Vec::new();
        let run_off = cnf.shadow_value(&p.off);
        let offset = Decoder::new(cnf, &p.off, size);
        for i in (0..n).rev() {
            let o = i * kind.size();
            // A cell never written (in storage that is not zero-filled) is not a
            // candidate either: reading it is undefined, as the interpreter says.
            // (The run's own offset always is: it read an initialised value.)
            let obj = &self.objs[id];
            if !obj.zeroed && !obj.cells.contains_key(&o) && run_off != Some(o) {
                continue;
            }
            // An offset holding a differently typed value is not a candidate (the access
            // would be undefined there: it counts as outside every candidate).
            let Ok((v, uninit)) = self.read_cell(cnf, id, o, kind, None) else {
                continue;
            };
            let eq = offset.is(cnf, o);
            hits.push(eq);
            unwritten.push(cnf.and(eq, uninit));
            val = Some(match val {
                None => v,
                Some(rest) => ite(cnf, eq, &v, &rest)?,
            });
        }
        let any = cnf.or_all(&hits);
        let garbage = cnf.or_all(&unwritten);
        let filled = match self.free_fill {
            Some(_) => self.outside(cnf, ty).0,
            None => SVal::Void,
        };
        let SVal::Int(filled) = filled else {
            let ub = cnf.or(!any, garbage);
            return Ok((val.unwrap_or_else(|| fresh_of(cnf, ty)), ub));
        };
        // Outside the object the read gives the fill; inside it, at no
        // candidate, it is undefined as before (a cell never written).
        let last = size
            .checked_sub(kind.size())
            .map(|l| cnf.bv_const(l + 1, p.off.width()));
        let inside = match last {
            Some(end) => cnf.bv_ult(&p.off, &end),
            None => cnf.fls(),
        };
        let uninitialized = cnf.and(!any, inside);
        let ub = cnf.or(uninitialized, garbage);
        let val = match val {
            Some(v) => ite(cnf, any, &v, &SVal::Int(filled))?,
            None => SVal::Int(filled),
        };
        Ok((val, ub))
    }

    /// What an integer read outside its object gives: the fill of
    /// [`crate::TestInput::free_reads`] and no undefined behaviour; without
    /// one (or for another type), a fresh value and undefined behaviour.
    fn outside(&self, cnf: &mut Cnf, ty: &Type) -> (SVal, Lit) {
        match (ty, self.free_fill) {
            (Type::Int(k), Some(fill)) => {
                let bits = crate::interp::fill_bits(*k, fill);
                (SVal::Int(cnf.bv_const(bits, k.bits() as usize)), cnf.fls())
            }
            _ => (fresh_of(cnf, ty), cnf.tru()),
        }
    }

    pub fn store(
        &mut self,
        cnf: &mut Cnf,
        p: &SPtr,
        ty: &Type,
        v: SVal,
        structs: &[StructDef],
    ) -> E<Lit> {
        let ty = &ty.in_memory();
        let Some(id) = p.obj else {
            return Ok(cnf.tru());
        };
        if let (Type::Struct(_), SVal::Agg(cells)) = (ty, &v) {
            let off = self.pin(cnf, &p.off)?;
            let size = ty.size(structs).unwrap_or(0);
            if off.saturating_add(size) > self.objs[id].size {
                return unsup("a struct stored outside its object");
            }
            let o = &mut self.objs[id];
            let keys: Vec<u64> = o
                .cells
                .range(off..off.saturating_add(size))
                .map(|(k, _)| *k)
                .collect();
            for k in keys {
                o.cells.remove(&k);
            }
            for (k, c) in cells {
                o.cells.insert(off + k, c.clone());
            }
            return Ok(cnf.fls());
        }
        let Some(kind) = kind_of(ty) else {
            return unsup("a write of this type");
        };
        let size = self.objs[id].size;
        if let Some(off) = cnf.const_value(&p.off) {
            if off.saturating_add(kind.size()) > size {
                return Ok(cnf.tru());
            }
            self.remove_overlaps(id, off, kind.size());
            self.objs[id].cells.insert(off, Cell::written(kind, v));
            return Ok(cnf.fls());
        }
        let n = size / kind.size();
        if n > MAX_CANDIDATES || kind == CellKind::Ptr {
            let off = self.pin(cnf, &p.off)?;
            if off.saturating_add(kind.size()) > size {
                return Ok(cnf.tru());
            }
            self.remove_overlaps(id, off, kind.size());
            self.objs[id].cells.insert(off, Cell::written(kind, v));
            return Ok(cnf.fls());
        }
        let mut hits = Vec::new();
        let offset = Decoder::new(cnf, &p.off, size);
        for i in 0..n {
            let o = i * kind.size();
            let was_unwritten = self.unwritten_before(cnf, id, o);
            let Ok((old, _)) = self.read_cell(cnf, id, o, kind, None) else {
                continue;
            };
            let eq = offset.is(cnf, o);
            hits.push(eq);
            // A cell never written holds `v` where the store hit it, and
            // is unwritten elsewhere (reading it there is undefined): its
            // old value never matters.
            let new = match was_unwritten == cnf.tru() {
                true => v.clone(),
                false => ite(cnf, eq, &v, &old)?,
            };
            let still = cnf.and(!eq, was_unwritten);
            let uninit = (still != cnf.fls()).then_some(still);
            self.objs[id].cells.insert(
                o,
                Cell {
                    kind,
                    val: new,
                    uninit,
                },
            );
        }
        let any = cnf.or_all(&hits);
        Ok(!any)
    }

    fn remove_overlaps(&mut self, id: usize, off: u64, size: u64) {
        let o = &mut self.objs[id];
        let keys: Vec<u64> = o
            .cells
            .range(off.saturating_sub(7)..off.saturating_add(size))
            .filter(|(k, c)| **k + c.kind.size() > off)
            .map(|(k, _)| *k)
            .collect();
        for k in keys {
            o.cells.remove(&k);
        }
    }

    /// Copy `n` bytes of cells (memcpy) between constant addresses.
    pub fn copy(&mut self, cnf: &mut Cnf, dst: &SPtr, src: &SPtr, n: u64) -> E<()> {
        let (Some(d), Some(sid)) = (dst.obj, src.obj) else {
            return unsup("memcpy through a null pointer");
        };
        let (doff, soff) = (self.pin(cnf, &dst.off)?, self.pin(cnf, &src.off)?);
        if doff.saturating_add(n) > self.objs[d].size
            || soff.saturating_add(n) > self.objs[sid].size
        {
            return unsup("memcpy out of bounds");
        }
        let cells: Vec<(u64, Cell)> = self.objs[sid]
            .cells
            .range(soff..soff.saturating_add(n))
            .map(|(k, c)| (k - soff, c.clone()))
            .collect();
        // Bytes of the source no cell covers are zero in zero-filled
        // storage (a zero-filled destination reads them so already), else
        // never written: so are their copies, even in zero-filled storage.
        let (src_zeroed, dst_zeroed) = (self.objs[sid].zeroed, self.objs[d].zeroed);
        let mut covered = vec![src_zeroed && dst_zeroed; n as usize];
        for (k, c) in &cells {
            for b in *k..(*k + c.kind.size()).min(n) {
                covered[b as usize] = true;
            }
        }
        self.remove_overlaps(d, doff, n);
        for (k, c) in cells {
            self.objs[d].cells.insert(doff + k, c);
        }
        for (b, _) in covered.iter().enumerate().filter(|(_, c)| !**c) {
            let byte = if src_zeroed {
                Cell::int(IntKind::Char, cnf.bv_const(0, 8))
            } else {
                Cell {
                    kind: CellKind::Int(IntKind::Char),
                    val: SVal::Int(cnf.bv_fresh(8)),
                    uninit: Some(cnf.tru()),
                }
            };
            self.objs[d].cells.insert(doff + b as u64, byte);
        }
        Ok(())
    }

    /// The characters of a NUL-terminated string as symbolic bytes, from its
    /// (pinned) address on, as far as the string could end: up to a byte
    /// that is 0 whatever the path, the end of its object, or a cell that is
    /// not a character. The string ends at the first of them that is 0; a
    /// printed string's length then follows the program's values instead of
    /// the run's. Reading an unwritten one, or past them all, is undefined.
    /// `None` when the run's own string does not end among them (the caller
    /// follows the run's characters instead).
    pub fn symbolic_string(&mut self, cnf: &mut Cnf, p: &SPtr) -> E<Option<Vec<Bv>>> {
        let Some(id) = p.obj else {
            return unsup("a string at a null address");
        };
        let start = self.pin(cnf, &p.off)?;
        let o = &self.objs[id];
        let mut chars = Vec::new();
        let mut unwritten = Vec::new();
        let mut off = start;
        while off < o.size && chars.len() < MAX_SYMBOLIC_STRING {
            let (v, u) = match o.cells.get(&off) {
                Some(Cell {
                    kind: CellKind::Int(k),
                    val: SVal::Int(v),
                    uninit,
                }) if k.size() == 1 => (v.clone(), *uninit),
                None if o.zeroed => (cnf.bv_const(0, 8), None),
                _ => break,
            };
            let surely_end = cnf.const_value(&v) == Some(0);
            chars.push(v);
            unwritten.push(u);
            off += 1;
            if surely_end {
                break;
            }
        }
        let run_ends = chars
            .iter()
            .any(|c| cnf.const_value(c).or_else(|| cnf.shadow_value(c)) == Some(0));
        if !run_ends {
            return Ok(None);
        }
        // `reached`: every character before this one is not 0.
        let mut reached = cnf.tru();
        let zero = cnf.bv_const(0, 8);
        for (c, u) in chars.iter().zip(&unwritten) {
            if let Some(u) = u {
                let garbage = cnf.and(reached, *u);
                self.undefined.push(garbage);
            }
            let is_zero = cnf.bv_eq(c, &zero);
            reached = cnf.and(reached, !is_zero);
        }
        self.undefined.push(reached);
        Ok(Some(chars))
    }

    /// The bytes of a NUL-terminated string (constant, or fixed to the run's characters).
    pub fn const_string(&mut self, cnf: &mut Cnf, p: &SPtr) -> E<Vec<u8>> {
        let Some(id) = p.obj else {
            return unsup("a string at a null address");
        };
        let mut off = self.pin(cnf, &p.off)?;
        let mut out = Vec::new();
        let mut garbage = Vec::new();
        loop {
            let o = &self.objs[id];
            let b = match o.cells.get(&off) {
                Some(Cell {
                    kind: CellKind::Int(k),
                    val: SVal::Int(v),
                    uninit,
                }) if k.size() == 1 => {
                    if let Some(u) = uninit {
                        garbage.push(*u);
                    }
                    match cnf.const_value(v) {
                        Some(b) => b as u8,
                        None => {
                            // Characters computed on the path: follow the run's value.
                            let Some(b) = cnf.shadow_value(v) else {
                                return unsup("a library string function on free characters");
                            };
                            let c = cnf.bv_const(b, 8);
                            let eq = cnf.bv_eq(v, &c);
                            self.pins.push(eq);
                            b as u8
                        }
                    }
                }
                None if o.zeroed && off < o.size => 0,
                _ => return unsup("a string the encoder cannot read"),
            };
            if b == 0 {
                self.undefined.extend(garbage);
                return Ok(out);
            }
            out.push(b);
            off += 1;
        }
    }
}

/// `off == c` for the offsets `c` of an object of `size` bytes, sharing
/// the test that the bits above the largest one are zero: about 10 clauses
/// a candidate instead of 65 for a 64-bit comparison.
struct Decoder {
    high_zero: Lit,
    low: Vec<Lit>,
}

impl Decoder {
    fn new(cnf: &mut Cnf, off: &Bv, size: u64) -> Decoder {
        let k = (64 - size.saturating_sub(1).leading_zeros() as usize).min(off.width());
        let high: Vec<Lit> = off.0[k..].iter().map(|l| !*l).collect();
        Decoder {
            high_zero: cnf.and_all(&high),
            low: off.0[..k].to_vec(),
        }
    }

    /// `off == c` (`c` below the object's size).
    fn is(&self, cnf: &mut Cnf, c: u64) -> Lit {
        let mut bits = vec![self.high_zero];
        bits.extend(
            self.low
                .iter()
                .enumerate()
                .map(|(i, l)| if (c >> i) & 1 == 1 { *l } else { !*l }),
        );
        cnf.and_all(&bits)
    }
}

fn fresh_of(cnf: &mut Cnf, ty: &Type) -> SVal {
    match ty {
        Type::Int(k) => SVal::Int(cnf.bv_fresh(k.bits() as usize)),
        Type::Ptr(_) => SVal::Ptr(SPtr {
            obj: None,
            off: cnf.bv_fresh(64),
        }),
        _ => SVal::Void,
    }
}

fn ite(cnf: &mut Cnf, c: Lit, a: &SVal, b: &SVal) -> E<SVal> {
    Ok(match (a, b) {
        (SVal::Int(x), SVal::Int(y)) => SVal::Int(cnf.bv_ite(c, x, y)),
        (SVal::Ptr(x), SVal::Ptr(y))
            if x.obj == y.obj || y.obj.is_none() && cnf.const_value(&y.off).is_none() =>
        {
            SVal::Ptr(SPtr {
                obj: x.obj,
                off: cnf.bv_ite(c, &x.off, &y.off),
            })
        }
        _ => return unsup("a pointer that may point into different objects"),
    })
}
