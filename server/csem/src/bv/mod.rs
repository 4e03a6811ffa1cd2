//! The bit-vector layer: C integer terms bit-blasted to CNF, with the same
//! semantics as [`crate::intops`] (the reference the operator tests check it
//! against). Each C operation yields its value and a literal that is true
//! exactly when the operation has undefined behaviour.

mod cnf;
pub mod float;
pub use cnf::{Cnf, Model, Session};

use crate::ir::{BinOp, UnOp};
use crate::types::IntKind;
use rustsat::types::Lit;

/// A bit-vector, least significant bit first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bv(pub Vec<Lit>);

impl Bv {
    pub fn width(&self) -> usize {
        self.0.len()
    }
    fn msb(&self) -> Lit {
        *self.0.last().expect("non-empty bit-vector")
    }

    /// The fewest low bits this vector is the sign extension of: its bits
    /// from `sext_bits() - 1` up are one literal (a narrow value, a small
    /// constant, a conversion from a narrower type).
    fn sext_bits(&self) -> usize {
        let Some(&top) = self.0.last() else {
            return 0;
        };
        let mut k = self.width();
        while k > 1 && self.0[k - 2] == top {
            k -= 1;
        }
        k
    }

    /// The low `k` bits.
    fn low(&self, k: usize) -> Bv {
        Bv(self.0[..k].to_vec())
    }
}

/// The width in which an operation on `a` and `b` is computed exactly when
/// both are sign extensions of fewer bits: the wider of the two, plus
/// `room` bits the result may need; `None` when that is not narrower than
/// the operands. Sign extension commutes with the operations computed
/// narrow (a sum of two `k`-bit values fits in `k + 1` bits, and so on), so
/// the circuit keeps the few bits that can differ: a loop index or a
/// small `int` costs as many bits as its values, not 32 or 64.
fn narrow_pair(a: &Bv, b: &Bv, room: usize) -> Option<usize> {
    let w = a.width();
    let k = a.sext_bits().max(b.sext_bits()) + room;
    (b.width() == w && k < w).then_some(k)
}

impl Cnf {
    pub fn bv_const(&self, bits: u64, width: usize) -> Bv {
        Bv((0..width)
            .map(|i| self.constant(i < 64 && (bits >> i) & 1 == 1))
            .collect())
    }

    pub fn bv_fresh(&mut self, width: usize) -> Bv {
        Bv((0..width).map(|_| self.fresh()).collect())
    }

    /// Value of a bit-vector in a model (at most 64 bits).
    pub fn bv_value(model: &Model, v: &Bv) -> u64 {
        v.0.iter()
            .enumerate()
            .fold(0u64, |acc, (i, l)| acc | (u64::from(model.lit(*l)) << i))
    }

    pub fn bv_not(&mut self, a: &Bv) -> Bv {
        Bv(a.0.iter().map(|l| !*l).collect())
    }

    fn bitwise(&mut self, a: &Bv, b: &Bv, f: fn(&mut Cnf, Lit, Lit) -> Lit) -> Bv {
        Bv(a.0.iter().zip(&b.0).map(|(x, y)| f(self, *x, *y)).collect())
    }

    /// `a + b + cin`, and the carry out.
    fn add_carry(&mut self, a: &Bv, b: &Bv, cin: Lit) -> (Bv, Lit) {
        let mut c = cin;
        let mut out = Vec::with_capacity(a.width());
        for (x, y) in a.0.iter().zip(&b.0) {
            let t = self.xor(*x, *y);
            out.push(self.xor(t, c));
            let g = self.and(*x, *y);
            let p = self.and(t, c);
            c = self.or(g, p);
        }
        (Bv(out), c)
    }

    pub fn bv_add(&mut self, a: &Bv, b: &Bv) -> Bv {
        if let Some(k) = narrow_pair(a, b, 1) {
            let r = self.bv_add(&a.low(k), &b.low(k));
            return self.bv_sext(&r, a.width());
        }
        let f = self.fls();
        self.add_carry(a, b, f).0
    }

    /// `a - b` and "no borrow" (`a >= b` unsigned).
    fn sub_borrow(&mut self, a: &Bv, b: &Bv) -> (Bv, Lit) {
        let nb = self.bv_not(b);
        let t = self.tru();
        self.add_carry(a, &nb, t)
    }

    pub fn bv_sub(&mut self, a: &Bv, b: &Bv) -> Bv {
        if let Some(k) = narrow_pair(a, b, 1) {
            let r = self.bv_sub(&a.low(k), &b.low(k));
            return self.bv_sext(&r, a.width());
        }
        self.sub_borrow(a, b).0
    }

    pub fn bv_neg(&mut self, a: &Bv) -> Bv {
        let z = self.bv_const(0, a.width());
        self.bv_sub(&z, a)
    }

    pub fn bv_mul(&mut self, a: &Bv, b: &Bv) -> Bv {
        let w = a.width();
        // A product of a `ka`- and a `kb`-bit signed value fits in `ka + kb` bits.
        let k = a.sext_bits() + b.sext_bits();
        if b.width() == w && k < w {
            let r = self.bv_mul(&a.low(k), &b.low(k));
            return self.bv_sext(&r, w);
        }
        let mut acc = self.bv_const(0, w);
        for i in 0..w {
            // Partial product: (a << i) & b[i].
            let mut pp = vec![self.fls(); w];
            for j in 0..w - i {
                pp[i + j] = self.and(a.0[j], b.0[i]);
            }
            acc = self.bv_add(&acc, &Bv(pp));
        }
        acc
    }

    pub fn bv_ite(&mut self, c: Lit, t: &Bv, e: &Bv) -> Bv {
        if let Some(k) = narrow_pair(t, e, 0) {
            let r = self.bv_ite(c, &t.low(k), &e.low(k));
            return self.bv_sext(&r, t.width());
        }
        Bv(t.0
            .iter()
            .zip(&e.0)
            .map(|(x, y)| self.ite(c, *x, *y))
            .collect())
    }

    pub fn bv_eq(&mut self, a: &Bv, b: &Bv) -> Lit {
        if let Some(k) = narrow_pair(a, b, 0) {
            return self.bv_eq(&a.low(k), &b.low(k));
        }
        let eqs: Vec<Lit> =
            a.0.iter()
                .zip(&b.0)
                .map(|(x, y)| self.iff(*x, *y))
                .collect();
        self.and_all(&eqs)
    }

    pub fn bv_is_zero(&mut self, a: &Bv) -> Lit {
        let any = self.or_all(&a.0.clone());
        !any
    }

    pub fn bv_ult(&mut self, a: &Bv, b: &Bv) -> Lit {
        // Equal high bits compare as the low ones do; where the signs
        // differ, the negative one is the larger in both widths.
        if let Some(k) = narrow_pair(a, b, 0) {
            return self.bv_ult(&a.low(k), &b.low(k));
        }
        let (_, no_borrow) = self.sub_borrow(a, b);
        !no_borrow
    }

    pub fn bv_slt(&mut self, a: &Bv, b: &Bv) -> Lit {
        if let Some(k) = narrow_pair(a, b, 0) {
            return self.bv_slt(&a.low(k), &b.low(k));
        }
        // Flip the sign bits and compare unsigned.
        let mut a2 = a.clone();
        let mut b2 = b.clone();
        let (wa, wb) = (a2.width() - 1, b2.width() - 1);
        a2.0[wa] = !a2.0[wa];
        b2.0[wb] = !b2.0[wb];
        self.bv_ult(&a2, &b2)
    }

    /// Unsigned division and remainder (restoring long division); b = 0 gives garbage.
    pub fn bv_udivrem(&mut self, a: &Bv, b: &Bv) -> (Bv, Bv) {
        self.shared_divider(false, a, b, Self::build_udivrem)
    }

    /// The divider of `a` and `b` built earlier in this part of the
    /// formula, or a new one from `build`.
    fn shared_divider(
        &mut self,
        signed: bool,
        a: &Bv,
        b: &Bv,
        build: fn(&mut Self, &Bv, &Bv) -> (Bv, Bv),
    ) -> (Bv, Bv) {
        let key = (signed, (a.0.clone(), b.0.clone()));
        if let Some((q, r)) = self.dividers.get(&key) {
            return (Bv(q.clone()), Bv(r.clone()));
        }
        let (q, r) = build(self, a, b);
        self.dividers.insert(key, (q.0.clone(), r.0.clone()));
        (q, r)
    }

    fn build_udivrem(&mut self, a: &Bv, b: &Bv) -> (Bv, Bv) {
        let w = a.width();
        let mut rem = self.bv_const(0, w);
        let mut q = vec![self.fls(); w];
        for i in (0..w).rev() {
            // rem = (rem << 1) | a[i], kept in w+1 bits so the shifted-out bit counts.
            let mut wide = vec![a.0[i]];
            wide.extend_from_slice(&rem.0);
            let mut bw = b.0.clone();
            bw.push(self.fls());
            let (diff, ge) = self.sub_borrow(&Bv(wide.clone()), &Bv(bw));
            q[i] = ge;
            let chosen = self.bv_ite(ge, &diff, &Bv(wide));
            rem = Bv(chosen.0[..w].to_vec());
        }
        (Bv(q), rem)
    }

    /// Unsigned division by a non-zero constant: fresh quotient and remainder
    /// constrained by `q·c + r = a` (computed without wrap-around) and `r < c`.
    pub fn bv_udivrem_const(&mut self, a: &Bv, c: u64) -> (Bv, Bv) {
        let w = a.width();
        let (sq, sr) = match self.shadow_value(a) {
            Some(v) => {
                let v = if w < 64 { v & ((1u64 << w) - 1) } else { v };
                (Some(v / c), Some(v % c))
            }
            None => (None, None),
        };
        let bits = |v: Option<u64>, i: usize| v.map(|x| i < 64 && (x >> i) & 1 == 1);
        let q = Bv((0..w).map(|i| self.fresh_valued(bits(sq, i))).collect());
        let r = Bv((0..w).map(|i| self.fresh_valued(bits(sr, i))).collect());
        let ww = w + 66;
        let qz = self.bv_zext(&q, ww);
        let rz = self.bv_zext(&r, ww);
        let prod = self.bv_mul_const(&qz, c);
        let sum = self.bv_add(&prod, &rz);
        let az = self.bv_zext(a, ww);
        let eq = self.bv_eq(&sum, &az);
        self.clause(&[eq]);
        let cb = self.bv_const(c, ww);
        let lt = self.bv_ult(&rz, &cb);
        self.clause(&[lt]);
        (q, r)
    }

    fn bv_abs(&mut self, a: &Bv) -> Bv {
        let n = self.bv_neg(a);
        self.bv_ite(a.msb(), &n, a)
    }

    /// Signed division truncating toward zero, and the remainder with the dividend's sign.
    pub fn bv_sdivrem(&mut self, a: &Bv, b: &Bv) -> (Bv, Bv) {
        self.shared_divider(true, a, b, Self::build_sdivrem)
    }

    fn build_sdivrem(&mut self, a: &Bv, b: &Bv) -> (Bv, Bv) {
        let (ua, ub) = (self.bv_abs(a), self.bv_abs(b));
        let (q, r) = self.bv_udivrem(&ua, &ub);
        let sign_q = self.xor(a.msb(), b.msb());
        let nq = self.bv_neg(&q);
        let nr = self.bv_neg(&r);
        (self.bv_ite(sign_q, &nq, &q), self.bv_ite(a.msb(), &nr, &r))
    }

    /// Barrel shifter by the low bits of `n` (the caller guarantees n < width).
    fn bv_shift(&mut self, a: &Bv, n: &Bv, left: bool, fill: Lit) -> Bv {
        let w = a.width();
        let mut cur = a.clone();
        let stages = usize::BITS - (w - 1).leading_zeros();
        for s in 0..stages as usize {
            let k = 1usize << s;
            let sel = n.0.get(s).copied().unwrap_or(self.fls());
            let shifted: Vec<Lit> = (0..w)
                .map(|i| {
                    if left {
                        if i >= k {
                            cur.0[i - k]
                        } else {
                            self.fls()
                        }
                    } else if i + k < w {
                        cur.0[i + k]
                    } else {
                        fill
                    }
                })
                .collect();
            cur = self.bv_ite(sel, &Bv(shifted), &cur);
        }
        cur
    }

    pub fn bv_zext(&self, a: &Bv, w: usize) -> Bv {
        let mut v = a.0.clone();
        v.truncate(w);
        while v.len() < w {
            v.push(self.fls());
        }
        Bv(v)
    }

    pub fn bv_sext(&self, a: &Bv, w: usize) -> Bv {
        let mut v = a.0.clone();
        let s = a.msb();
        v.truncate(w);
        while v.len() < w {
            v.push(s);
        }
        Bv(v)
    }

    /// C conversion between integer types ([`crate::intops::convert`]).
    pub fn c_convert(&mut self, from: IntKind, to: IntKind, a: &Bv) -> Bv {
        if to == IntKind::Bool {
            let z = self.bv_is_zero(a);
            return self.bv_zext(&Bv(vec![!z]), 8);
        }
        let w = to.bits() as usize;
        if from.signed() {
            self.bv_sext(a, w)
        } else {
            self.bv_zext(a, w)
        }
    }

    fn bool_int(&self, l: Lit) -> Bv {
        self.bv_zext(&Bv(vec![l]), 32)
    }

    /// `a op b` in type `k` (shift count of type `kb`), as [`crate::intops::binary`]:
    /// the value, and a literal true exactly when the operation is undefined.
    pub fn c_binary(&mut self, op: BinOp, k: IntKind, a: &Bv, b: &Bv, kb: IntKind) -> (Bv, Lit) {
        let f = self.fls();
        let signed = k.signed();
        match op {
            BinOp::Add | BinOp::Sub => {
                let r = if op == BinOp::Add {
                    self.bv_add(a, b)
                } else {
                    self.bv_sub(a, b)
                };
                if !signed || narrow_pair(a, b, 1).is_some() {
                    // (Operands narrower than the type cannot overflow it.)
                    return (r, f);
                }
                // Overflow: operands' signs agree (add) / differ (sub) and the result's sign differs.
                let same = self.iff(a.msb(), b.msb());
                let cond = if op == BinOp::Add { same } else { !same };
                let flipped = self.xor(r.msb(), a.msb());
                let ub = self.and(cond, flipped);
                (r, ub)
            }
            BinOp::Mul => {
                let w = a.width();
                if !signed {
                    return (self.bv_mul(a, b), f);
                }
                // The product in double width must sign-extend from its low half.
                let (a2, b2) = (self.bv_sext(a, 2 * w), self.bv_sext(b, 2 * w));
                let p = self.bv_mul(&a2, &b2);
                let low = Bv(p.0[..w].to_vec());
                let sign = low.msb();
                let diffs: Vec<Lit> = p.0[w..].iter().map(|h| self.xor(*h, sign)).collect();
                let ub = self.or_all(&diffs);
                (low, ub)
            }
            BinOp::Div | BinOp::Rem => {
                let zero = self.bv_is_zero(b);
                let divisor = self
                    .const_value(b)
                    .filter(|&c| c != 0 && !(signed && k.value(c) == -1));
                let (q, r) = match divisor {
                    // A constant divisor (the common `n / 10`): q·c + r = a, r < c.
                    Some(c) if !signed => self.bv_udivrem_const(a, c),
                    Some(c) => {
                        let neg_c = k.value(c) < 0;
                        let ua = self.bv_abs(a);
                        let (q, r) = self.bv_udivrem_const(&ua, k.value(c).unsigned_abs() as u64);
                        let sign_q = if neg_c { !a.msb() } else { a.msb() };
                        let nq = self.bv_neg(&q);
                        let nr = self.bv_neg(&r);
                        (self.bv_ite(sign_q, &nq, &q), self.bv_ite(a.msb(), &nr, &r))
                    }
                    None if signed => self.bv_sdivrem(a, b),
                    None => self.bv_udivrem(a, b),
                };
                let mut ub = zero;
                if signed {
                    // INT_MIN / -1 overflows (and so does INT_MIN % -1 in C11).
                    let min = self.bv_const(1u64 << (k.bits() - 1), a.width());
                    let m1 = self.bv_const(u64::MAX, a.width());
                    let is_min = self.bv_eq(a, &min);
                    let is_m1 = self.bv_eq(b, &m1);
                    let ov = self.and(is_min, is_m1);
                    ub = self.or(ub, ov);
                }
                (if op == BinOp::Div { q } else { r }, ub)
            }
            BinOp::Shl | BinOp::Shr => {
                let w = a.width();
                // The count must be in 0..w: compare it (in its own type) with w.
                let wconst = self.bv_const(w as u64, b.width());
                let too_big = if kb.signed() {
                    !self.bv_slt(b, &wconst)
                } else {
                    !self.bv_ult(b, &wconst)
                };
                let negative = if kb.signed() { b.msb() } else { f };
                let mut ub = self.or(too_big, negative);
                let r = if op == BinOp::Shl {
                    let r = self.bv_shift(a, b, true, f);
                    if signed {
                        // Undefined for a negative left operand, or when bits (including the
                        // new sign bit) shifted out are not all zero.
                        ub = self.or(ub, a.msb());
                        let back = self.bv_shift(&r, b, false, f);
                        let lost = self.bv_eq(&back, a);
                        ub = self.or(ub, !lost);
                        ub = self.or(ub, r.msb());
                    }
                    r
                } else {
                    let fill = if signed { a.msb() } else { f };
                    self.bv_shift(a, b, false, fill)
                };
                (r, ub)
            }
            BinOp::And => (self.bitwise(a, b, Cnf::and), f),
            BinOp::Or => (self.bitwise(a, b, Cnf::or), f),
            BinOp::Xor => (self.bitwise(a, b, Cnf::xor), f),
            BinOp::Eq | BinOp::Ne => {
                let e = self.bv_eq(a, b);
                (self.bool_int(if op == BinOp::Eq { e } else { !e }), f)
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let lt = |c: &mut Cnf, x: &Bv, y: &Bv| {
                    if signed {
                        c.bv_slt(x, y)
                    } else {
                        c.bv_ult(x, y)
                    }
                };
                let l = match op {
                    BinOp::Lt => lt(self, a, b),
                    BinOp::Gt => lt(self, b, a),
                    BinOp::Le => !lt(self, b, a),
                    _ => !lt(self, a, b),
                };
                (self.bool_int(l), f)
            }
        }
    }

    /// Unary operations as [`crate::intops::unary`].
    pub fn c_unary(&mut self, op: UnOp, k: IntKind, a: &Bv) -> (Bv, Lit) {
        let f = self.fls();
        match op {
            UnOp::Neg => {
                let r = self.bv_neg(a);
                if !k.signed() {
                    return (r, f);
                }
                let min = self.bv_const(1u64 << (k.bits() - 1), a.width());
                let ub = self.bv_eq(a, &min);
                (r, ub)
            }
            UnOp::BitNot => (self.bv_not(a), f),
            UnOp::LogNot => {
                let z = self.bv_is_zero(a);
                (self.bool_int(z), f)
            }
        }
    }
}

impl Cnf {
    /// The value of a bit-vector whose bits are all constant.
    pub fn const_value(&self, v: &Bv) -> Option<u64> {
        let mut out = 0u64;
        for (i, l) in v.0.iter().enumerate() {
            if *l == self.tru() {
                if i < 64 {
                    out |= 1 << i;
                }
            } else if *l != self.fls() {
                return None;
            }
        }
        Some(out)
    }

    /// The shadow value of a bit-vector (see [`Cnf::shadow`]).
    pub fn shadow_value(&self, v: &Bv) -> Option<u64> {
        let mut out = 0u64;
        for (i, l) in v.0.iter().enumerate() {
            if self.shadow(*l)? && i < 64 {
                out |= 1 << i;
            }
        }
        Some(out)
    }

    /// A fresh bit-vector with the shadow value of `v`.
    pub fn bv_fresh_like(&mut self, v: &Bv) -> Bv {
        Bv(v.0
            .iter()
            .map(|l| {
                let s = self.shadow(*l);
                self.fresh_valued(s)
            })
            .collect())
    }

    /// `a * c` for a constant `c` (shift-and-add over its set bits).
    pub fn bv_mul_const(&mut self, a: &Bv, c: u64) -> Bv {
        let w = a.width();
        let mut acc = self.bv_const(0, w);
        for i in 0..w.min(64) {
            if (c >> i) & 1 == 1 {
                let mut shifted = vec![self.fls(); w];
                shifted[i..w].copy_from_slice(&a.0[..(w - i)]);
                acc = self.bv_add(&acc, &Bv(shifted));
            }
        }
        acc
    }
}
