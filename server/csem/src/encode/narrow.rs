//! Narrow arithmetic. A 64-bit division is a circuit of 64 subtractions
//! of 64 bits (about 80,000 clauses), a 64-bit product one of 4,096 full
//! adders: a loop over `size_t` indices modulo a capacity makes formulas of
//! millions of clauses, too large to solve within a budget. When the run's
//! operands are small, the encoding computes in as many bits as they need
//! (with a margin) and bounds the operands to that width: a condition of
//! the path that is never explored past (`PointKind::Bound`). A model that
//! would need operands 256 times the run's is not considered along this
//! path: an under-approximation (a diagnosis is verified by replay all the
//! same), where leaving the path there would make the search explore runs
//! with whatever values the solver picks first.

use super::Enc;
use crate::bv::Bv;
use crate::ir::BinOp;
use crate::types::IntKind;
use rustsat::types::Lit;

/// Bits beyond the run's operands the circuit keeps: values up to 256 times
/// larger stay on the path.
const MARGIN: usize = 8;
/// The narrowest circuit.
const MIN_BITS: usize = 8;
/// The narrowest replacement for a constant.
const CONST_MIN_BITS: usize = 16;

impl Enc<'_> {
    /// `a op b` of kind `k` computed narrow, with its undefined-behaviour
    /// literal, when `op` is a division, remainder or product of two
    /// non-constant operands whose run values are non-negative and small
    /// (else `None`: the full-width circuit).
    pub(super) fn narrowed(&mut self, op: BinOp, k: IntKind, a: &Bv, b: &Bv) -> Option<(Bv, Lit)> {
        if !matches!(op, BinOp::Div | BinOp::Rem | BinOp::Mul) {
            return None;
        }
        let w = a.width();
        if b.width() != w || self.cnf.const_value(a).is_some() || self.cnf.const_value(b).is_some()
        {
            return None;
        }
        let n = narrow_width(&[self.cnf.shadow_value(a)?, self.cnf.shadow_value(b)?]);
        // The result's width: a product of two n-bit values needs 2n bits.
        // Signed operands must also leave the sign bit clear (non-negative
        // operands make every signed case an unsigned one, and no overflow).
        let room = if op == BinOp::Mul { 2 * n } else { n };
        if room + usize::from(k.signed()) > w {
            return None;
        }
        let fits_a = self.high_bits_clear(a, n);
        let fits_b = self.high_bits_clear(b, n);
        let fits = self.cnf.and(fits_a, fits_b);
        self.bound_where_it_runs(fits);
        let (na, nb) = (Bv(a.0[..n].to_vec()), Bv(b.0[..n].to_vec()));
        let fls = self.cnf.fls();
        let (r, ub) = match op {
            BinOp::Mul => {
                let (wa, wb) = (self.cnf.bv_zext(&na, 2 * n), self.cnf.bv_zext(&nb, 2 * n));
                (self.cnf.bv_mul(&wa, &wb), fls)
            }
            _ => {
                let (q, r) = self.cnf.bv_udivrem(&na, &nb);
                // The whole divisor: its low bits alone are zero for a
                // divisor the bound rules out, on a path a model left.
                let ub = self.cnf.bv_is_zero(b);
                (if op == BinOp::Div { q } else { r }, ub)
            }
        };
        Some((self.cnf.bv_zext(&r, w), ub))
    }

    /// Whether bits `n..` of `v` are all zero.
    fn high_bits_clear(&mut self, v: &Bv, n: usize) -> Lit {
        let high: Vec<Lit> = v.0[n..].iter().map(|l| !*l).collect();
        self.cnf.and_all(&high)
    }

    /// How many low bits of a statement's relaxed value are free: as many
    /// as the run's value (or the override it ran with) needs, with the
    /// margin; the bits above are constant zero (unsigned) or copies of the
    /// highest free bit (signed), so that arithmetic on the value folds to a
    /// narrow circuit (a loop index otherwise costs 32- or 64-bit adders and
    /// comparisons at every iteration; see `narrow_pair` in the bit-vector
    /// layer). The value the statement computes keeps to that width where it
    /// runs, a bound of the path; the value a model gives the statement in
    /// its place is narrow too. `b.width()` when nothing is narrowed.
    pub(super) fn narrow_slot_bits(
        &mut self,
        b: &Bv,
        ov: Option<u64>,
        h: Lit,
        signed: bool,
    ) -> usize {
        let w = b.width();
        let Some(run) = self.cnf.shadow_value(b) else {
            return w;
        };
        let values = [run, ov.unwrap_or(0)];
        let mut n = match signed {
            true => signed_narrow_width(&values, w),
            false => narrow_width(&values),
        };
        if self.cnf.const_value(b).is_some() {
            // A constant (a literal, or what the test's input made of it):
            // a fix may need any value of its order, so a small one keeps
            // at least 16 bits.
            n = n.max(CONST_MIN_BITS);
        }
        if n >= w {
            return w;
        }
        let fits = match signed {
            true => self.sign_extends_from(b, n),
            false => self.high_bits_clear(b, n),
        };
        let unhealthy_or_fits = self.cnf.or(!h, fits);
        self.bound_where_it_runs(unhealthy_or_fits);
        n
    }

    /// Whether bits `n - 1..` of `v` are all equal (`v` is a signed `n`-bit value).
    fn sign_extends_from(&mut self, v: &Bv, n: usize) -> Lit {
        let top = v.0[n - 1];
        let same: Vec<Lit> = v.0[n..].iter().map(|l| self.cnf.iff(*l, top)).collect();
        self.cnf.and_all(&same)
    }

    /// `fits` as a bound of the path wherever the statement runs (an arm
    /// the run did not take computes nothing there).
    fn bound_where_it_runs(&mut self, fits: Lit) {
        let held = self.cnf.or(!self.guard, fits);
        if held != self.cnf.tru() {
            self.push_point(super::PointKind::Bound { lit: held });
        }
    }
}

/// The bits a narrow circuit keeps for values like `run`: as many as the
/// largest needs, with the margin, at least [`MIN_BITS`].
fn narrow_width(run: &[u64]) -> usize {
    let used = |v: &u64| (64 - v.leading_zeros()) as usize;
    (run.iter().map(used).max().unwrap_or(0) + MARGIN).max(MIN_BITS)
}

/// [`narrow_width`] for signed values of `w` bits (`run` holds their raw
/// bits): the bits their two's complement needs, the sign bit included.
fn signed_narrow_width(run: &[u64], w: usize) -> usize {
    let used = |v: &u64| {
        let shift = 64 - w.clamp(1, 64) as u32;
        let x = ((*v << shift) as i64) >> shift;
        let magnitude = if x < 0 { !x } else { x };
        (64 - magnitude.leading_zeros()) as usize + 1
    };
    (run.iter().map(used).max().unwrap_or(0) + MARGIN).max(MIN_BITS)
}
