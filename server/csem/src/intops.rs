//! Exact integer semantics of LP64 x86-64 C, shared by the constant folder,
//! the interpreter and (as the reference) the bit-vector encoder's tests.
//! Values are canonical bits: the low `bits()` bits of a `u64`.

use crate::ir::{BinOp, UnOp};
use crate::types::IntKind;

/// Undefined behaviour an operation would have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntUb {
    SignedOverflow(&'static str),
    DivByZero,
    ShiftCount(i128),
    ShiftOfNegative,
}

impl std::fmt::Display for IntUb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IntUb::SignedOverflow(op) => write!(f, "signed integer overflow in `{op}`"),
            IntUb::DivByZero => write!(f, "division by zero"),
            IntUb::ShiftCount(n) => write!(f, "shift by {n}, outside the width of the type"),
            IntUb::ShiftOfNegative => write!(f, "left shift of a negative value"),
        }
    }
}

/// Convert canonical bits of `from` to canonical bits of `to` (C11 6.3.1.3;
/// out-of-range signed results wrap modulo 2^N, as gcc defines them).
pub fn convert(from: IntKind, to: IntKind, bits: u64) -> u64 {
    let v = from.value(bits);
    if to == IntKind::Bool {
        return u64::from(v != 0);
    }
    to.wrap(v as u64)
}

fn from_value(k: IntKind, v: i128, op: &'static str) -> Result<u64, IntUb> {
    if k.signed() && (v < k.min() || v > k.max()) {
        return Err(IntUb::SignedOverflow(op));
    }
    Ok(k.wrap(v as u64))
}

/// `a op b` in type `k` (already the common, promoted type); comparisons give int 0/1.
/// For shifts, `b` is of type `kb` (the right operand's own promoted type).
pub fn binary(op: BinOp, k: IntKind, a: u64, b: u64, kb: IntKind) -> Result<u64, IntUb> {
    let (x, y) = (k.value(a), k.value(b));
    let sym = op.symbol();
    Ok(match op {
        BinOp::Add => {
            if k.signed() {
                from_value(k, x + y, sym)?
            } else {
                k.wrap(a.wrapping_add(b))
            }
        }
        BinOp::Sub => {
            if k.signed() {
                from_value(k, x - y, sym)?
            } else {
                k.wrap(a.wrapping_sub(b))
            }
        }
        BinOp::Mul => {
            if k.signed() {
                from_value(k, x * y, sym)?
            } else {
                k.wrap(a.wrapping_mul(b))
            }
        }
        BinOp::Div | BinOp::Rem => {
            if y == 0 {
                return Err(IntUb::DivByZero);
            }
            // Rust's i128 `/` and `%` truncate toward zero like C.
            let q = x / y;
            if k.signed() && (q < k.min() || q > k.max()) {
                return Err(IntUb::SignedOverflow(sym));
            }
            if op == BinOp::Div {
                k.wrap(q as u64)
            } else {
                k.wrap((x % y) as u64)
            }
        }
        BinOp::Shl | BinOp::Shr => {
            let n = kb.value(b);
            if n < 0 || n >= i128::from(k.bits()) {
                return Err(IntUb::ShiftCount(n));
            }
            if op == BinOp::Shl {
                if k.signed() {
                    if x < 0 {
                        return Err(IntUb::ShiftOfNegative);
                    }
                    from_value(k, x << n, sym)?
                } else {
                    k.wrap(a << n)
                }
            } else {
                // Right shift of a negative value is arithmetic in gcc.
                k.wrap((x >> n) as u64)
            }
        }
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Lt => u64::from(x < y),
        BinOp::Le => u64::from(x <= y),
        BinOp::Gt => u64::from(x > y),
        BinOp::Ge => u64::from(x >= y),
        BinOp::Eq => u64::from(x == y),
        BinOp::Ne => u64::from(x != y),
    })
}

/// Unary `-`, `~` in the promoted type `k`; `!` gives int 0/1.
pub fn unary(op: UnOp, k: IntKind, a: u64) -> Result<u64, IntUb> {
    Ok(match op {
        UnOp::Neg => {
            if k.signed() {
                from_value(k, -k.value(a), "-")?
            } else {
                k.wrap(a.wrapping_neg())
            }
        }
        UnOp::BitNot => k.wrap(!a),
        UnOp::LogNot => u64::from(a & k.mask() == 0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use IntKind::*;

    #[test]
    fn signed_overflow_and_division_edges() {
        let min = Int.wrap(i32::MIN as u64);
        let m1 = Int.wrap(-1i64 as u64);
        assert_eq!(
            binary(BinOp::Div, Int, min, m1, Int),
            Err(IntUb::SignedOverflow("/"))
        );
        assert_eq!(
            binary(BinOp::Rem, Int, min, m1, Int),
            Err(IntUb::SignedOverflow("%"))
        );
        assert_eq!(
            binary(BinOp::Div, Int, Int.wrap(-7i64 as u64), 2, Int),
            Ok(Int.wrap(-3i64 as u64))
        );
        assert_eq!(
            binary(BinOp::Rem, Int, Int.wrap(-7i64 as u64), 2, Int),
            Ok(Int.wrap(-1i64 as u64))
        );
        assert_eq!(binary(BinOp::Add, UInt, 0xffff_ffff, 1, UInt), Ok(0));
        assert!(binary(BinOp::Add, Int, 0x7fff_ffff, 1, Int).is_err());
        assert_eq!(binary(BinOp::Shr, Int, m1, 31, Int), Ok(m1));
        assert_eq!(binary(BinOp::Shl, UInt, 1, 31, Int), Ok(0x8000_0000));
        assert!(binary(BinOp::Shl, Int, 1, 31, Int).is_err());
        assert!(binary(BinOp::Shl, Long, 1, 64, Int).is_err());
        assert_eq!(binary(BinOp::Lt, UInt, m1, 0, UInt), Ok(0));
    }

    #[test]
    fn conversions_wrap() {
        assert_eq!(convert(Int, UChar, Int.wrap(-1i64 as u64)), 255);
        assert_eq!(convert(UInt, Int, 0x8000_0000), 0x8000_0000);
        assert_eq!(convert(Char, ULong, 0x80), 0xffff_ffff_ffff_ff80);
        assert_eq!(convert(Int, Bool, 256), 1);
    }
}
