//! Every encoded operator agrees with the interpreter's integer semantics
//! (`intops`) on edge and random values, checked by solving the encoding with
//! the inputs fixed by assumptions: the value and the undefined-behaviour flag.

use faultlens_csem::bv::{Bv, Cnf};
use faultlens_csem::intops;
use faultlens_csem::ir::{BinOp, UnOp};
use faultlens_csem::types::IntKind;
use rustsat::types::Lit;

const KINDS: [IntKind; 4] = [IntKind::Int, IntKind::UInt, IntKind::Long, IntKind::ULong];

fn edge_values(k: IntKind) -> Vec<u64> {
    let mut v: Vec<i128> = vec![0, 1, -1, 2, -2, 3, -7, 7, 31, 32, 63, 64, 100, -100];
    v.extend([k.min(), k.max(), k.min() + 1, k.max() - 1]);
    v.extend([
        i128::from(i32::MIN),
        i128::from(i32::MAX),
        i128::from(u32::MAX),
    ]);
    let mut out: Vec<u64> = v.into_iter().map(|x| k.wrap(x as u64)).collect();
    let mut seed = 0x1234_5678_9abc_def1u64 ^ u64::from(k.bits());
    for _ in 0..4 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        out.push(k.wrap(seed));
        out.push(k.wrap(seed >> (seed % 60)));
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn assume(v: &Bv, bits: u64) -> Vec<Lit> {
    v.0.iter()
        .enumerate()
        .map(|(i, l)| if (bits >> i) & 1 == 1 { *l } else { !*l })
        .collect()
}

#[test]
fn binary_operators_agree_with_the_interpreter() {
    let ops = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Rem,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::Eq,
        BinOp::Ne,
    ];
    let mut checked = 0;
    for op in ops {
        for k in KINDS {
            // Shift counts keep their own type: test an int count (signed) too.
            let kb = if matches!(op, BinOp::Shl | BinOp::Shr) {
                IntKind::Int
            } else {
                k
            };
            let mut cnf = Cnf::new();
            let a = cnf.bv_fresh(k.bits() as usize);
            let b = cnf.bv_fresh(kb.bits() as usize);
            let (r, ub) = cnf.c_binary(op, k, &a, &b, kb);
            let mut s = cnf.session().unwrap();
            for &x in &edge_values(k) {
                for &y in &edge_values(kb) {
                    let mut asm = assume(&a, x);
                    asm.extend(assume(&b, y));
                    let m = s
                        .solve(&asm)
                        .unwrap()
                        .expect("fixed inputs are satisfiable");
                    let expected = intops::binary(op, k, x, y, kb);
                    let got_ub = m.lit(ub);
                    match expected {
                        Ok(v) => {
                            assert!(!got_ub, "{op:?} {k:?} {x:#x} {y:#x}: encoding flags UB, interpreter gives {v:#x}");
                            assert_eq!(Cnf::bv_value(&m, &r), v, "{op:?} {k:?} {x:#x} {y:#x}");
                        }
                        Err(e) => assert!(got_ub, "{op:?} {k:?} {x:#x} {y:#x}: interpreter reports {e}, encoding does not"),
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn division_by_constants_agrees_with_the_interpreter() {
    // A constant divisor takes a different encoding (q·c + r = a).
    for op in [BinOp::Div, BinOp::Rem] {
        for k in KINDS {
            for &y in &edge_values(k) {
                let mut cnf = Cnf::new();
                let a = cnf.bv_fresh(k.bits() as usize);
                let b = cnf.bv_const(y, k.bits() as usize);
                let (r, ub) = cnf.c_binary(op, k, &a, &b, k);
                let mut s = cnf.session().unwrap();
                for &x in &edge_values(k) {
                    let m = s.solve(&assume(&a, x)).unwrap().expect("satisfiable");
                    match intops::binary(op, k, x, y, k) {
                        Ok(v) => {
                            assert!(!m.lit(ub), "{op:?} {k:?} {x:#x} {y:#x}");
                            assert_eq!(Cnf::bv_value(&m, &r), v, "{op:?} {k:?} {x:#x} {y:#x}");
                        }
                        Err(_) => assert!(m.lit(ub), "{op:?} {k:?} {x:#x} {y:#x}"),
                    }
                }
            }
        }
    }
}

#[test]
fn unary_operators_and_conversions_agree_with_the_interpreter() {
    for op in [UnOp::Neg, UnOp::BitNot, UnOp::LogNot] {
        for k in KINDS {
            let mut cnf = Cnf::new();
            let a = cnf.bv_fresh(k.bits() as usize);
            let (r, ub) = cnf.c_unary(op, k, &a);
            let mut s = cnf.session().unwrap();
            for &x in &edge_values(k) {
                let m = s.solve(&assume(&a, x)).unwrap().unwrap();
                match intops::unary(op, k, x) {
                    Ok(v) => {
                        assert!(!m.lit(ub), "{op:?} {k:?} {x:#x}");
                        assert_eq!(Cnf::bv_value(&m, &r), v, "{op:?} {k:?} {x:#x}");
                    }
                    Err(_) => assert!(m.lit(ub), "{op:?} {k:?} {x:#x}"),
                }
            }
        }
    }
    use IntKind::*;
    let all = [
        Bool, Char, SChar, UChar, Short, UShort, Int, UInt, Long, ULong, LongLong, ULongLong,
    ];
    for from in all {
        for to in all {
            let mut cnf = Cnf::new();
            let a = cnf.bv_fresh(from.bits() as usize);
            let r = cnf.c_convert(from, to, &a);
            let mut s = cnf.session().unwrap();
            for &x in &edge_values(from) {
                let x = if from == Bool { x & 1 } else { x };
                let m = s.solve(&assume(&a, x)).unwrap().unwrap();
                assert_eq!(
                    Cnf::bv_value(&m, &r),
                    intops::convert(from, to, x),
                    "{from:?} -> {to:?} {x:#x}"
                );
            }
        }
    }
}

/// A fresh `n`-bit value widened to `k` the way the encoder's narrow
/// values are: sign-extended (copies of its top bit) or zero-extended.
fn narrow_operand(cnf: &mut Cnf, k: IntKind, n: usize, signed: bool) -> (Bv, Bv) {
    let low = cnf.bv_fresh(n);
    let wide = match signed {
        true => cnf.bv_sext(&low, k.bits() as usize),
        false => cnf.bv_zext(&low, k.bits() as usize),
    };
    (low, wide)
}

/// Every value of an `n`-bit operand, as the raw bits of `k`.
fn narrow_values(k: IntKind, n: usize, signed: bool) -> Vec<u64> {
    (0..1u64 << n)
        .map(|v| match signed {
            true => k.wrap((((v << (64 - n)) as i64) >> (64 - n)) as u64),
            false => v,
        })
        .collect()
}

#[test]
fn operators_on_narrow_values_agree_with_the_interpreter_in_fewer_clauses() {
    let ops = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Div,
        BinOp::And,
    ];
    for op in ops {
        for k in KINDS {
            for (signed_a, signed_b) in [(true, true), (true, false), (false, true), (false, false)]
            {
                let mut cnf = Cnf::new();
                let (la, a) = narrow_operand(&mut cnf, k, 5, signed_a);
                let (lb, b) = narrow_operand(&mut cnf, k, 4, signed_b);
                let before = cnf.clauses.len();
                let (r, ub) = cnf.c_binary(op, k, &a, &b, k);
                let narrow_clauses = cnf.clauses.len() - before;
                let mut s = cnf.session().unwrap();
                for (x_low, &x) in narrow_values(k, 5, signed_a).iter().enumerate() {
                    for (y_low, &y) in narrow_values(k, 4, signed_b).iter().enumerate() {
                        let mut asm = assume(&la, x_low as u64);
                        asm.extend(assume(&lb, y_low as u64));
                        let m = s.solve(&asm).unwrap().expect("satisfiable");
                        let at = format!("{op:?} {k:?} {x:#x} {y:#x}");
                        match intops::binary(op, k, x, y, k) {
                            Ok(v) => {
                                assert!(!m.lit(ub), "{at}: encoding flags UB");
                                assert_eq!(Cnf::bv_value(&m, &r), v, "{at}");
                            }
                            Err(_) => assert!(m.lit(ub), "{at}: UB not flagged"),
                        }
                    }
                }
                if matches!(op, BinOp::Add | BinOp::Sub | BinOp::Lt | BinOp::Eq) {
                    let mut full = Cnf::new();
                    let (a, b) = (
                        full.bv_fresh(k.bits() as usize),
                        full.bv_fresh(k.bits() as usize),
                    );
                    let before = full.clauses.len();
                    full.c_binary(op, k, &a, &b, k);
                    let full_clauses = full.clauses.len() - before;
                    assert!(
                        narrow_clauses * 3 < full_clauses,
                        "{op:?} {k:?}: {narrow_clauses} clauses narrow, {full_clauses} full"
                    );
                }
            }
        }
    }
}
