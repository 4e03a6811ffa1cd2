//! How a program starts, how a call runs and how a function body runs.

use super::{size_of, Domain, NewObject, Produced};
use crate::interp::{is_nondet, TestInput};
use crate::ir::*;
use crate::types::{IntKind, Type};

/// Starts the program on `test` and runs `main`: what `main` returned
/// (void when it ended without `return`, which C99 makes 0).
pub(crate) fn start<'a, D: Domain<'a>>(d: &mut D, test: &TestInput) -> Result<D::Val, D::Stop> {
    let prog = d.program();
    let Some(main) = prog.main else {
        return Err(d.error(
            "the program has no `main` function".into(),
            SrcRange::default(),
        ));
    };
    for name in ["stdin", "stdout", "stderr"] {
        d.new_object(NewObject::Stream(name), SrcRange::default())?;
    }
    for (i, s) in prog.strings.iter().enumerate() {
        d.new_object(NewObject::Literal(i, s), SrcRange::default())?;
    }
    for i in 0..prog.address_taken.len() {
        d.new_object(NewObject::Function(i), SrcRange::default())?;
    }
    let globals = prog
        .globals
        .iter()
        .enumerate()
        .map(|(i, g)| d.new_object(NewObject::Global(i, size_of(prog, &g.ty)), g.range))
        .collect::<Result<Vec<_>, _>>()?;
    for (g, p) in prog.globals.iter().zip(&globals) {
        let Some(init) = &g.init else {
            return Err(d.error(
                format!("`{}` is declared `extern` but never defined", g.name),
                g.range,
            ));
        };
        initialize(d, p, init, None)?;
    }
    // argv: the strings, then the array of pointers ending in NULL.
    let mut all = vec![d.program_name().to_string()];
    all.extend(test.args.iter().cloned());
    let mut strings = Vec::new();
    for (i, a) in all.iter().enumerate() {
        let bytes: Vec<u8> = a.bytes().chain([0]).collect();
        let p = d.new_object(
            NewObject::Argument(format!("argv[{i}]"), bytes.len() as u64),
            SrcRange::default(),
        )?;
        d.write_bytes(&p, &bytes, SrcRange::default())?;
        strings.push(p);
    }
    let argv = d.new_object(
        NewObject::Argument("argv".into(), 8 * (all.len() as u64 + 1)),
        SrcRange::default(),
    )?;
    let element = Type::ptr_to(Type::Int(IntKind::Char));
    let null = d.null();
    for (i, p) in strings.into_iter().chain([null]).enumerate() {
        let at = d.offset(&argv, 8 * i as u64);
        d.store(&at, &element, D::from_ptr(p), SrcRange::default())?;
    }
    let f = &prog.funcs[main];
    let args = match f.params.len() {
        0 => vec![],
        2 => vec![
            D::from_int(d.constant(IntKind::Int, all.len() as u64)),
            D::from_ptr(argv),
        ],
        _ => {
            return Err(d.error(
                "`main` must take no parameters or (int argc, char **argv)".into(),
                f.range,
            ))
        }
    };
    call(d, main, args, f.range)
}

/// The stores of initializer `init` into the object at `p`; a scalar's
/// value through `slot`.
fn initialize<'a, D: Domain<'a>>(
    d: &mut D,
    p: &D::Ptr,
    init: &Initializer,
    slot: Option<D::Slot>,
) -> Result<(), D::Stop> {
    if init.zero {
        d.zero_fill(p);
    }
    if let Some(bytes) = &init.bytes {
        d.write_bytes(p, bytes, SrcRange::default())?;
    }
    for item in &init.items {
        let v = super::expr::replaced_or_evaluated(d, slot, &item.value, &item.ty)?;
        let at = d.offset(p, item.offset);
        d.store(&at, &item.ty, v, item.value.range)?;
    }
    Ok(())
}

/// A call of the program's function `fid` with `args`, made at `at`.
pub(crate) fn call<'a, D: Domain<'a>>(
    d: &mut D,
    fid: FuncId,
    args: Vec<D::Val>,
    at: SrcRange,
) -> Result<D::Val, D::Stop> {
    let f = &d.program().funcs[fid];
    if is_nondet(f) {
        return d.nondet(fid, at);
    }
    let frame = d.push_frame(fid, at)?;
    for (p, v) in f.params.iter().zip(args) {
        let local = d.local(*p);
        d.store(&local, &f.locals[*p].ty, v, f.locals[*p].range)?;
    }
    let r = exec(d, fid);
    d.pop_frame(frame);
    r
}

/// Whether an expression statement's value is what its top-level store writes.
fn stores(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Assign(..) | ExprKind::CompoundAssign { .. } | ExprKind::IncDec { .. }
    )
}

/// Runs the body of `fid` to its `return` or its end.
fn exec<'a, D: Domain<'a>>(d: &mut D, fid: FuncId) -> Result<D::Val, D::Stop> {
    let f = &d.program().funcs[fid];
    let mut pc = 0;
    loop {
        let ins = &f.body[pc];
        let slot = d.enter(fid, ins)?;
        match &ins.kind {
            InstrKind::Expr(e) => {
                if let Some(s) = slot.filter(|_| stores(e)) {
                    d.arm(s);
                }
                let v = d.eval(e);
                d.disarm();
                let v = v?;
                d.leave(fid, ins, Produced::Value(&v, &e.ty))?;
                pc += 1;
            }
            InstrKind::Init(l, init) => {
                let p = d.local(*l);
                let ty = &f.locals[*l].ty;
                match init {
                    None => {
                        d.forget(&p);
                        d.leave(fid, ins, Produced::Nothing)?;
                    }
                    Some(init) => {
                        // Only a scalar's initial value is relaxed (one value per instance).
                        let scalar = ty.is_scalar();
                        initialize(d, &p, init, slot.filter(|_| scalar))?;
                        let produced = if scalar {
                            Produced::Initialized(&p, ty)
                        } else {
                            Produced::Nothing
                        };
                        d.leave(fid, ins, produced)?;
                    }
                }
                pc += 1;
            }
            InstrKind::Jump(t) => {
                d.leave(fid, ins, Produced::Nothing)?;
                pc = *t;
            }
            InstrKind::Branch { cond, then, els } => {
                let c = d.eval(cond)?;
                pc = if d.direction(fid, ins, &c, slot)? {
                    *then
                } else {
                    *els
                };
            }
            InstrKind::Switch {
                value,
                cases,
                default,
            } => {
                let v = d.eval(value)?;
                let bits = d.switch_value(fid, ins, v, &value.ty, slot)?;
                pc = cases
                    .iter()
                    .find(|(c, _)| *c == bits)
                    .map_or(*default, |(_, t)| *t);
            }
            InstrKind::Return(e) => {
                let (v, ty) = match e {
                    Some(e) => (d.eval(e)?, Some(&e.ty)),
                    None => (D::void(), None),
                };
                return d.returned(fid, ins, v, ty, slot);
            }
            InstrKind::FallOff => {
                d.leave(fid, ins, Produced::Nothing)?;
                return Ok(D::void());
            }
        }
    }
}
