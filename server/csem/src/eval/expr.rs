//! Expressions: lvalues to addresses, rvalues to values, stores.

use super::{size_of, Decision, Domain, NO_VALUE};
use crate::float;
use crate::ir::*;
use crate::types::{Conversion, FloatKind, IntKind, Type};

/// The bits of a floating value as the run had them: floating arithmetic is
/// computed on concrete values in both domains (the encoder fixes a
/// symbolic operand to its run's value, a path condition a model may leave
/// by exploration).
fn float_bits<'a, D: Domain<'a>>(d: &mut D, v: &D::Int, range: SrcRange) -> Result<u64, D::Stop> {
    d.known(v, "a floating-point value", range)
}

fn float_val<'a, D: Domain<'a>>(d: &mut D, k: FloatKind, bits: u64) -> D::Val {
    D::from_int(d.constant(k.carrier(), bits))
}

/// The floating `bits` of type `from` converted to the integer type `to`
/// (undefined outside `to`'s range: 0 where the encoder goes on).
fn float_to_int<'a, D: Domain<'a>>(
    d: &mut D,
    from: FloatKind,
    to: IntKind,
    bits: u64,
    range: SrcRange,
) -> Result<D::Val, D::Stop> {
    let i = match float::to_int(from, to, bits) {
        Ok(i) => i,
        Err(m) => {
            d.undefined(m, range)?;
            0
        }
    };
    Ok(D::from_int(d.constant(to, i)))
}

/// The integer type whose bits hold a scalar value of type `t`.
fn bits_kind(t: &Type) -> IntKind {
    match t {
        Type::Int(k) => *k,
        Type::Float(k) => k.carrier(),
        _ => IntKind::Int,
    }
}

fn int<'a, D: Domain<'a>>(d: &mut D, e: &Expr) -> Result<D::Int, D::Stop> {
    let v = d.eval(e)?;
    D::as_int(&v).ok_or_else(|| d.error(NO_VALUE.into(), e.range))
}

fn ptr<'a, D: Domain<'a>>(d: &mut D, e: &Expr) -> Result<D::Ptr, D::Stop> {
    let v = d.eval(e)?;
    D::as_ptr(&v).ok_or_else(|| d.error(NO_VALUE.into(), e.range))
}

/// The address an lvalue designates.
pub(crate) fn addr<'a, D: Domain<'a>>(d: &mut D, e: &Expr) -> Result<D::Ptr, D::Stop> {
    Ok(match &e.kind {
        ExprKind::Local(l) => d.local(*l),
        ExprKind::Global(g) => d.global(*g),
        ExprKind::Str(s) => d.string(*s),
        ExprKind::Deref(p) => {
            let v = d.eval(p)?;
            d.deref(v, e.range)?
        }
        ExprKind::Member(base, off) => {
            let b = addr(d, base)?;
            d.offset(&b, *off)
        }
        _ => return Err(d.error("internal: address of an rvalue".into(), e.range)),
    })
}

/// The arguments of a call, evaluated right to left as gcc does on x86-64.
fn arguments<'a, D: Domain<'a>>(d: &mut D, args: &[Expr]) -> Result<Vec<D::Val>, D::Stop> {
    let mut vals = Vec::with_capacity(args.len());
    for a in args.iter().rev() {
        vals.push(d.eval(a)?);
    }
    vals.reverse();
    Ok(vals)
}

fn contains_call(e: &Expr) -> bool {
    let mut found = false;
    crate::ir::visit(e, &mut |x| {
        found |= matches!(
            x.kind,
            ExprKind::Call(..) | ExprKind::Builtin(..) | ExprKind::CallPtr(..)
        )
    });
    found
}

/// Whether evaluating `e` changes nothing: no call, no store.
fn free_of_effects(e: &Expr) -> bool {
    let mut effects = false;
    crate::ir::visit(e, &mut |x| {
        effects |= matches!(
            x.kind,
            ExprKind::Call(..)
                | ExprKind::Builtin(..)
                | ExprKind::CallPtr(..)
                | ExprKind::Assign(..)
                | ExprKind::CompoundAssign { .. }
                | ExprKind::IncDec { .. }
        )
    });
    !effects
}

/// The value a statement stores from `rhs` into an object of type `ty`,
/// through its `slot`: replaced outright, without evaluating `rhs`, when
/// the domain can and `rhs` changes nothing (see
/// [`Domain::stored_outright`]); else `rhs`'s value, relaxed.
pub(crate) fn replaced_or_evaluated<'a, D: Domain<'a>>(
    d: &mut D,
    slot: Option<D::Slot>,
    rhs: &Expr,
    ty: &Type,
) -> Result<D::Val, D::Stop> {
    let Some(s) = slot else {
        return d.eval(rhs);
    };
    if free_of_effects(rhs) {
        if let Some(v) = d.stored_outright(s, ty) {
            return Ok(v);
        }
    }
    let v = d.eval(rhs)?;
    Ok(d.relax_store(s, v, ty))
}

/// The value of `e` (without the domain's sub-expression hooks: see [`Domain::eval`]).
pub(crate) fn expr<'a, D: Domain<'a>>(d: &mut D, e: &Expr) -> Result<D::Val, D::Stop> {
    let prog = d.program();
    let range = e.range;
    Ok(match &e.kind {
        ExprKind::Local(_)
        | ExprKind::Global(_)
        | ExprKind::Str(_)
        | ExprKind::Deref(_)
        | ExprKind::Member(..) => {
            return Err(d.error("internal: an lvalue evaluated as a value".into(), range))
        }
        ExprKind::Const(v) => {
            let k = bits_kind(&e.ty);
            D::from_int(d.constant(k, *v))
        }
        ExprKind::Stream(w) => D::from_ptr(d.stream_ptr(*w)),
        ExprKind::Null => D::from_ptr(d.null()),
        ExprKind::Load(lv) => {
            let p = addr(d, lv)?;
            d.load(&p, &lv.ty, range)?
        }
        ExprKind::AddrOf(lv) | ExprKind::Decay(lv) => D::from_ptr(addr(d, lv)?),
        ExprKind::Cast(inner) => {
            let v = d.eval(inner)?;
            let conv = Conversion::of(&inner.ty, &e.ty);
            match (conv, D::as_int(&v), D::as_ptr(&v)) {
                (Conversion::Discard, ..) => D::void(),
                (Conversion::Integer(from, to), Some(b), _) => D::from_int(d.convert(from, to, &b)),
                (Conversion::PointerToBool, _, Some(p)) => {
                    let set = !d.is_null(&p);
                    D::from_int(d.constant(IntKind::Bool, u64::from(set)))
                }
                (Conversion::Pointer, _, Some(_)) => v,
                (Conversion::IntToFloat(from, to), Some(b), _) => {
                    let bits = d.known(&b, "an integer converted to floating point", range)?;
                    float_val(d, to, float::from_int(from, to, bits))
                }
                (Conversion::FloatToInt(from, to), Some(b), _) => {
                    let bits = float_bits(d, &b, range)?;
                    float_to_int(d, from, to, bits, range)?
                }
                (Conversion::FloatToFloat(from, to), Some(b), _) => {
                    let bits = float_bits(d, &b, range)?;
                    float_val(d, to, float::convert(from, to, bits))
                }
                (_, None, None) => return Err(d.error(NO_VALUE.into(), range)),
                _ => {
                    return Err(d.error(
                        format!(
                            "unsupported: conversion from `{}` to `{}`",
                            inner.ty.display(&prog.structs),
                            e.ty.display(&prog.structs)
                        ),
                        range,
                    ))
                }
            }
        }
        ExprKind::Unary(op, a) => {
            let v = d.eval(a)?;
            match (op, D::as_int(&v), D::as_ptr(&v)) {
                (UnOp::Neg, Some(b), _) if a.ty.as_float().is_some() => {
                    let k = a.ty.as_float().unwrap_or(FloatKind::Double);
                    let bits = float_bits(d, &b, range)?;
                    float_val(d, k, float::neg(k, bits))
                }
                (_, Some(b), _) => {
                    let k = a.int_kind().unwrap_or(IntKind::Int);
                    D::from_int(d.unary(*op, k, &b, range)?)
                }
                (UnOp::LogNot, _, Some(p)) => {
                    let null = d.is_null(&p);
                    D::from_int(d.constant(IntKind::Int, u64::from(null)))
                }
                _ => return Err(d.error(NO_VALUE.into(), a.range)),
            }
        }
        ExprKind::Binary(op, l, r) if l.ty.as_float().is_some() && op.is_comparison() => {
            // Compared as bits: a floating value the encoding leaves free
            // (a relaxed statement's) is compared without fixing it.
            let k = l.ty.as_float().unwrap_or(FloatKind::Double);
            let a = int(d, l)?;
            let b = int(d, r)?;
            D::from_int(d.float_compare(*op, k, &a, &b, range)?)
        }
        ExprKind::Binary(op, l, r) if l.ty.as_float().is_some() => {
            let k = l.ty.as_float().unwrap_or(FloatKind::Double);
            let a = int(d, l)?;
            let b = int(d, r)?;
            let (a, b) = (float_bits(d, &a, range)?, float_bits(d, &b, range)?);
            float_val(d, k, float::binary(*op, k, a, b))
        }
        ExprKind::Binary(op, l, r) => {
            let a = int(d, l)?;
            let b = int(d, r)?;
            let (k, kb) = (
                l.int_kind().unwrap_or(IntKind::Int),
                r.int_kind().unwrap_or(IntKind::Int),
            );
            D::from_int(d.binary(*op, k, &a, &b, kb, range)?)
        }
        ExprKind::PtrAdd { ptr: p, index, sub } => {
            let q = ptr(d, p)?;
            let i = int(d, index)?;
            let elem = e.ty.pointee().map_or(0, |t| size_of(prog, t));
            D::from_ptr(d.ptr_add(&q, &i, elem, *sub, range)?)
        }
        ExprKind::PtrDiff(l, r) => {
            let (a, b) = (ptr(d, l)?, ptr(d, r)?);
            let elem = l.ty.pointee().map_or(0, |t| size_of(prog, t));
            D::from_int(d.ptr_diff(&a, &b, elem, range)?)
        }
        ExprKind::PtrCmp(op, l, r) => {
            let (a, b) = (ptr(d, l)?, ptr(d, r)?);
            D::from_int(d.ptr_cmp(*op, &a, &b, range)?)
        }
        ExprKind::LogAnd(l, r) | ExprKind::LogOr(l, r) => {
            let is_and = matches!(e.kind, ExprKind::LogAnd(..));
            let lv = d.eval(l)?;
            let lt = d.truth(&lv);
            let what = "a call in the right operand of `&&`/`||` with a free left operand";
            let res = match d.decide(lt, contains_call(r), what, r.range)? {
                // The right operand decides only when the left one does not.
                Decision::Known(t) if t != is_and => lt,
                Decision::Known(_) => {
                    let rv = d.eval(r)?;
                    d.truth(&rv)
                }
                Decision::Both(lt) => {
                    let runs = if is_and { lt } else { d.not(lt) };
                    let rv = d.guarded(runs, |d| d.eval(r))?;
                    let rt = d.truth(&rv);
                    if is_and {
                        d.and(lt, rt)
                    } else {
                        d.or(lt, rt)
                    }
                }
            };
            D::from_int(d.bool_int(res))
        }
        ExprKind::Cond(c, a, b) => {
            let cv = d.eval(c)?;
            let ct = d.truth(&cv);
            let what = "a call in an arm of `?:` with a free condition";
            let pinned = contains_call(a) || contains_call(b);
            match d.decide(ct, pinned, what, range)? {
                Decision::Known(t) => d.eval(if t { a } else { b })?,
                Decision::Both(ct) => {
                    let av = d.guarded(ct, |d| d.eval(a))?;
                    let not = d.not(ct);
                    let bv = d.guarded(not, |d| d.eval(b))?;
                    d.select(ct, av, bv, range)?
                }
            }
        }
        ExprKind::Comma(a, b) => {
            d.eval(a)?;
            d.eval(b)?
        }
        ExprKind::Assign(lv, rhs) => {
            let slot = d.take_slot();
            // gcc -O0 evaluates the right side first.
            let v = replaced_or_evaluated(d, slot, rhs, &lv.ty)?;
            let p = addr(d, lv)?;
            d.store(&p, &lv.ty, v.clone(), range)?;
            v
        }
        ExprKind::CompoundAssign { .. } | ExprKind::IncDec { .. } => store_op(d, e)?,
        ExprKind::Call(f, args) => {
            let vals = arguments(d, args)?;
            d.call_function(*f, vals, range)?
        }
        ExprKind::Builtin(b, args) => {
            let vals = arguments(d, args)?;
            match b {
                Builtin::Qsort => super::sort::qsort(d, &vals, range)?,
                Builtin::Bsearch => super::sort::bsearch(d, &vals, range)?,
                _ => crate::library::call(d, *b, args, vals, range)?,
            }
        }
        ExprKind::FuncAddr(c) => match prog.address_taken.iter().position(|x| x == c) {
            Some(i) => D::from_ptr(d.function_ptr(i)),
            None => return Err(d.error("internal: a function address not recorded".into(), range)),
        },
        ExprKind::CallPtr(callee, args) => {
            // gcc loads a pointer held in memory (a global, a member, an
            // element) before the arguments, and reads a local after them.
            let local =
                matches!(&callee.kind, ExprKind::Load(lv) if matches!(lv.kind, ExprKind::Local(_)));
            let early = if local { None } else { Some(d.eval(callee)?) };
            let vals = arguments(d, args)?;
            let target = match early {
                Some(t) => t,
                None => d.eval(callee)?,
            };
            let Some(p) = D::as_ptr(&target) else {
                return Err(d.error("internal: a call through a non-pointer".into(), range));
            };
            let i = d.pointed_function(&p, range)?;
            let target = prog.address_taken[i];
            if !callable_as(prog, target, &callee.ty) {
                let name = match target {
                    Callee::Func(f) => prog.funcs[f].name.as_str(),
                    Callee::Builtin(b) => b.c_name(),
                };
                return Err(d.error(
                    format!(
                        "call of `{name}` through a pointer to another function type \
                         (undefined behaviour)"
                    ),
                    range,
                ));
            }
            match target {
                Callee::Func(f) => d.call_function(f, vals, range)?,
                Callee::Builtin(b @ (Builtin::Qsort | Builtin::Bsearch)) => {
                    return Err(d.error(
                        format!("unsupported: a call of `{}` through a pointer", b.c_name()),
                        range,
                    ))
                }
                Callee::Builtin(b) => crate::library::call(d, b, args, vals, range)?,
            }
        }
    })
}

/// Whether function `c` can be called through a pointer of type `ptr_ty`:
/// as many parameters, each of the same arithmetic type or both pointers
/// (C makes any other mismatch undefined), and a value where one is used.
fn callable_as(prog: &Program, c: Callee, ptr_ty: &Type) -> bool {
    let Some(Type::Func(ft)) = ptr_ty.pointee() else {
        return false;
    };
    let (params, ret) = match c {
        Callee::Func(f) => {
            let func = &prog.funcs[f];
            let params: Vec<Type> = func
                .params
                .iter()
                .map(|&l| func.locals[l].ty.clone())
                .collect();
            (params, func.ret.clone())
        }
        Callee::Builtin(b) => match crate::lower::library_signature(b.c_name()) {
            Some((_, params, false, ret)) => (params, ret),
            _ => return false,
        },
    };
    let alike = |a: &Type, b: &Type| match (a, b) {
        (Type::Ptr(_), Type::Ptr(_)) => true,
        _ => a == b,
    };
    params.len() == ft.params.len()
        && params.iter().zip(&ft.params).all(|(a, b)| alike(a, b))
        && (ft.ret == Type::Void || alike(&ret, &ft.ret))
}

/// `lv op= rhs`, `++`, `--`: the right side, then the address, the old
/// value, the new one stored.
fn store_op<'a, D: Domain<'a>>(d: &mut D, e: &Expr) -> Result<D::Val, D::Stop> {
    let prog = d.program();
    let range = e.range;
    let slot = d.take_slot();
    let (lv, returns_new) = match &e.kind {
        ExprKind::CompoundAssign { lv, .. } => (lv, true),
        ExprKind::IncDec { lv, prefix, .. } => (lv, *prefix),
        _ => return Err(d.error("internal: not a store operator".into(), range)),
    };
    let rhs = match &e.kind {
        ExprKind::CompoundAssign { rhs, .. } => Some(int(d, rhs)?),
        _ => None,
    };
    let p = addr(d, lv)?;
    let old = d.load(&p, &lv.ty, range)?;
    let new = match (&e.kind, &lv.ty, D::as_int(&old), D::as_ptr(&old), rhs) {
        (
            ExprKind::CompoundAssign {
                op,
                op_ty: Type::Float(fk),
                ..
            },
            lty,
            Some(a),
            _,
            Some(b),
        ) => {
            let (a, b) = (float_bits(d, &a, range)?, float_bits(d, &b, range)?);
            let a = match lty {
                Type::Float(lk) => float::convert(*lk, *fk, a),
                _ => float::from_int(bits_kind(lty), *fk, a),
            };
            let r = float::binary(*op, *fk, a, b);
            match lty {
                Type::Float(lk) => float_val(d, *lk, float::convert(*fk, *lk, r)),
                _ => float_to_int(d, *fk, bits_kind(lty), r, range)?,
            }
        }
        (ExprKind::IncDec { inc, .. }, Type::Float(k), Some(a), ..) => {
            let a = float_bits(d, &a, range)?;
            let op = if *inc { BinOp::Add } else { BinOp::Sub };
            float_val(d, *k, float::binary(op, *k, a, k.bits(1.0)))
        }
        (ExprKind::CompoundAssign { op, .. }, Type::Ptr(el), _, Some(q), Some(i)) => {
            let elem = size_of(prog, el);
            D::from_ptr(d.ptr_add(&q, &i, elem, *op == BinOp::Sub, range)?)
        }
        (
            ExprKind::CompoundAssign {
                op,
                op_ty,
                rhs: rexpr,
                ..
            },
            Type::Int(lk),
            Some(a),
            _,
            Some(b),
        ) => {
            let ok = op_ty.as_int().unwrap_or(*lk);
            let kb = rexpr.int_kind().unwrap_or(ok);
            let a = d.convert(*lk, ok, &a);
            let r = d.binary(*op, ok, &a, &b, kb, range)?;
            D::from_int(d.convert(ok, *lk, &r))
        }
        (ExprKind::IncDec { inc, .. }, Type::Ptr(el), _, Some(q), _) => {
            let one = d.constant(IntKind::Long, 1);
            let elem = size_of(prog, el);
            D::from_ptr(d.ptr_add(&q, &one, elem, !*inc, range)?)
        }
        (ExprKind::IncDec { inc, .. }, Type::Int(k), Some(a), ..) => {
            let pk = k.promote();
            let a = d.convert(*k, pk, &a);
            let one = d.constant(pk, 1);
            let op = if *inc { BinOp::Add } else { BinOp::Sub };
            let r = d.binary(op, pk, &a, &one, pk, range)?;
            D::from_int(d.convert(pk, *k, &r))
        }
        _ => return Err(d.error(NO_VALUE.into(), range)),
    };
    let new = match slot {
        Some(s) => d.relax_store(s, new, &lv.ty),
        None => new,
    };
    d.store(&p, &lv.ty, new.clone(), range)?;
    Ok(if returns_new { new } else { old })
}
