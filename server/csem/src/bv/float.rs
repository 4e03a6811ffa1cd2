//! IEEE-754 comparisons of floating values given as their bits (binary32
//! or binary64, sign-magnitude): a NaN is unordered (only `!=` holds), and
//! `-0 == +0`. Floating arithmetic is not bit-blasted (see the crate's
//! README); a comparison is, so a floating value the encoding leaves free
//! (a relaxed statement's) can be steered by the conditions that test it.

use super::{Bv, Cnf};
use crate::ir::BinOp;
use crate::types::FloatKind;
use rustsat::types::Lit;

/// `a op b` for a comparison `op` of two values of kind `k`.
pub fn compare(cnf: &mut Cnf, op: BinOp, k: FloatKind, a: &Bv, b: &Bv) -> Lit {
    let (exponent, mantissa) = match k {
        FloatKind::Float => (8, 23),
        FloatKind::Double => (11, 52),
    };
    let w = exponent + mantissa + 1;
    debug_assert!(
        a.width() == w && b.width() == w,
        "a floating value of {w} bits"
    );
    let nan = |cnf: &mut Cnf, x: &Bv| {
        let all_ones = cnf.and_all(&x.0[mantissa..mantissa + exponent]);
        let fraction = cnf.or_all(&x.0[..mantissa]);
        cnf.and(all_ones, fraction)
    };
    let (nan_a, nan_b) = (nan(cnf, a), nan(cnf, b));
    let unordered = cnf.or(nan_a, nan_b);
    let (mag_a, mag_b) = (Bv(a.0[..w - 1].to_vec()), Bv(b.0[..w - 1].to_vec()));
    let (zero_a, zero_b) = (cnf.bv_is_zero(&mag_a), cnf.bv_is_zero(&mag_b));
    let both_zero = cnf.and(zero_a, zero_b);
    let (neg_a, neg_b) = (a.0[w - 1], b.0[w - 1]);
    let signs_apart = cnf.xor(neg_a, neg_b);
    let same_bits = cnf.bv_eq(a, b);
    let equal = cnf.or(same_bits, both_zero);
    let eq = cnf.and(!unordered, equal);
    // Ordered and not both zero: signs apart, the negative one is less;
    // both positive, the smaller magnitude; both negative, the larger.
    let smaller = cnf.bv_ult(&mag_a, &mag_b);
    let larger = cnf.bv_ult(&mag_b, &mag_a);
    let same_sign_less = cnf.ite(neg_a, larger, smaller);
    let less = cnf.ite(signs_apart, neg_a, same_sign_less);
    let lt = cnf.and_all(&[!unordered, !both_zero, less]);
    let not_lt_or_eq = cnf.or(lt, eq);
    let gt = cnf.and(!unordered, !not_lt_or_eq);
    match op {
        BinOp::Lt => lt,
        BinOp::Le => cnf.or(lt, eq),
        BinOp::Gt => gt,
        BinOp::Ge => cnf.or(gt, eq),
        BinOp::Eq => eq,
        _ => !eq,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every comparison of every pair of interesting values, free bits
    /// constrained to each value, agrees with Rust's (IEEE's) comparison.
    #[test]
    fn comparisons_of_free_values_agree_with_ieee() {
        let values = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.75,
            0.7500000000000001,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let ops = [
            BinOp::Lt,
            BinOp::Le,
            BinOp::Gt,
            BinOp::Ge,
            BinOp::Eq,
            BinOp::Ne,
        ];
        let mut cnf = Cnf::new();
        let a: Bv = Bv((0..64).map(|_| cnf.fresh()).collect());
        let b: Bv = Bv((0..64).map(|_| cnf.fresh()).collect());
        let results: Vec<Lit> = ops
            .iter()
            .map(|op| compare(&mut cnf, *op, FloatKind::Double, &a, &b))
            .collect();
        let mut session = cnf.session().unwrap();
        for x in values {
            for y in values {
                let mut assume = Vec::new();
                for (i, l) in a.0.iter().enumerate() {
                    assume.push(if (x.to_bits() >> i) & 1 == 1 { *l } else { !*l });
                }
                for (i, l) in b.0.iter().enumerate() {
                    assume.push(if (y.to_bits() >> i) & 1 == 1 { *l } else { !*l });
                }
                let model = session.solve(&assume).unwrap().expect("satisfiable");
                let want = [x < y, x <= y, x > y, x >= y, x == y, x != y];
                for ((op, l), w) in ops.iter().zip(&results).zip(want) {
                    assert_eq!(model.lit(*l), w, "{x} {op:?} {y}");
                }
            }
        }
    }

    #[test]
    fn a_free_value_can_be_steered_into_a_range() {
        let mut cnf = Cnf::new();
        let x: Bv = Bv((0..64).map(|_| cnf.fresh()).collect());
        let lo = cnf.bv_const(0.7499_f64.to_bits(), 64);
        let hi = cnf.bv_const(0.7501_f64.to_bits(), 64);
        let above = compare(&mut cnf, BinOp::Ge, FloatKind::Double, &x, &lo);
        let below = compare(&mut cnf, BinOp::Le, FloatKind::Double, &x, &hi);
        let model = cnf
            .solve(&[above, below])
            .unwrap()
            .expect("a value in range");
        let bits =
            x.0.iter()
                .enumerate()
                .fold(0u64, |acc, (i, l)| acc | (u64::from(model.lit(*l)) << i));
        let v = f64::from_bits(bits);
        assert!((0.7499..=0.7501).contains(&v), "{v}");
    }
}
