//! Expressions: typing, implicit conversions, library calls.

use super::*;
use crate::intops;
use crate::types::{usual_arith, usual_float, FloatKind, FuncType, IntKind};

fn bx(e: Expr) -> Box<Expr> {
    Box::new(e)
}

impl Lowerer {
    fn mk(&self, kind: ExprKind, ty: Type, n: Node) -> Expr {
        Expr {
            kind,
            ty,
            range: self.range(n),
        }
    }

    pub(super) fn const_expr(&self, bits: u64, k: IntKind, n: Node) -> Expr {
        self.mk(ExprKind::Const(k.wrap(bits)), Type::Int(k), n)
    }

    /// An integer constant expression (array sizes, enum values, case labels).
    pub(super) fn const_int(&mut self, n: Node) -> LResult<i128> {
        let e = self.rvalue(n)?;
        let Some(k) = e.int_kind() else {
            return self.invalid(n, "expected an integer constant expression");
        };
        match fold(&e) {
            Some(bits) => Ok(k.value(bits)),
            None => self.unsupported(
                n,
                format!(
                    "non-constant expression `{}` where a constant is required",
                    self.snippet(n)
                ),
            ),
        }
    }

    /// An expression as an rvalue: lvalues are loaded, arrays decay.
    pub(super) fn rvalue(&mut self, n: Node) -> LResult<Expr> {
        let e = self.expr(n)?;
        self.as_rvalue(e, n)
    }

    pub(super) fn as_rvalue(&mut self, e: Expr, n: Node) -> LResult<Expr> {
        if !e.is_lvalue() {
            return Ok(e);
        }
        match &e.ty {
            Type::Array(el, _) => {
                let t = Type::ptr_to((**el).clone());
                Ok(self.mk(ExprKind::Decay(bx(e)), t, n))
            }
            Type::Func(_) => self.invalid(n, "a function used as an object"),
            t => {
                let t = t.clone();
                Ok(self.mk(ExprKind::Load(bx(e)), t, n))
            }
        }
    }

    /// A scalar rvalue (conditions, operands of `!`, `&&`, `||`, `?:`).
    fn scalar(&mut self, n: Node) -> LResult<Expr> {
        let e = self.rvalue(n)?;
        if !e.ty.is_scalar() {
            return self.invalid(n, format!("`{}` is not a scalar", self.snippet(n)));
        }
        Ok(self.nonzero(e, n))
    }

    /// A floating condition as `e != 0` (so `-0.0` is false and a NaN true,
    /// and the truth of a value is always that of an integer or pointer).
    fn nonzero(&mut self, e: Expr, n: Node) -> Expr {
        let Type::Float(k) = e.ty else {
            return e;
        };
        let zero = self.mk(ExprKind::Const(0), Type::Float(k), n);
        self.mk(ExprKind::Binary(BinOp::Ne, bx(e), bx(zero)), Type::INT, n)
    }

    /// A floating constant (`1.5`, `2e-3f`, `0x1p4`): the bits of its value
    /// rounded once to its type, as gcc reads it.
    fn float_constant(&mut self, text: &str, n: Node) -> LResult<Expr> {
        let lower = text.to_ascii_lowercase();
        let (body, k) = if let Some(b) = lower.strip_suffix('f') {
            (b, FloatKind::Float)
        } else if lower.ends_with('l') {
            return self.unsupported(n, format!("`long double` constant `{text}`"));
        } else {
            (lower.as_str(), FloatKind::Double)
        };
        let body = body.replace('\'', "");
        let bits = if lower.starts_with("0x") {
            let (v, used) = crate::float::strtod(body.as_bytes());
            if used != body.len() {
                return self.invalid(n, format!("malformed floating constant `{text}`"));
            }
            k.bits(v)
        } else {
            match k {
                FloatKind::Float => body.parse::<f32>().map(|v| u64::from(v.to_bits())),
                FloatKind::Double => body.parse::<f64>().map(f64::to_bits),
            }
            .or_else(|_| self.invalid(n, format!("malformed floating constant `{text}`")))?
        };
        Ok(self.mk(ExprKind::Const(bits), Type::Float(k), n))
    }

    pub(super) fn condition(&mut self, n: Node) -> LResult<Expr> {
        self.scalar(n)
    }

    fn int_rvalue(&mut self, n: Node) -> LResult<(Expr, IntKind)> {
        let e = self.rvalue(n)?;
        match e.int_kind() {
            Some(k) => Ok((e, k)),
            None => self.invalid(n, format!("`{}` is not an integer", self.snippet(n))),
        }
    }

    fn promote(&self, e: Expr) -> Expr {
        match e.int_kind() {
            Some(k) if k.promote() != k => self.cast_int(e, k.promote()),
            _ => e,
        }
    }

    fn cast_int(&self, e: Expr, to: IntKind) -> Expr {
        if e.ty == Type::Int(to) {
            return e;
        }
        let range = e.range;
        Expr {
            kind: ExprKind::Cast(bx(e)),
            ty: Type::Int(to),
            range,
        }
    }

    fn is_null_constant(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Const(0) => e.int_kind().is_some(),
            ExprKind::Null => true,
            ExprKind::Cast(inner) => {
                matches!(&e.ty, Type::Ptr(p) if **p == Type::Void) && Self::is_null_constant(inner)
            }
            _ => false,
        }
    }

    /// Implicit conversion as by assignment.
    pub(super) fn convert(&mut self, e: Expr, to: &Type, n: Node) -> LResult<Expr> {
        if &e.ty == to {
            return Ok(e);
        }
        match (&e.ty, to) {
            (Type::Int(_), Type::Int(k)) => Ok(self.cast_int(e, *k)),
            (Type::Int(_) | Type::Float(_), Type::Int(_) | Type::Float(_)) => {
                Ok(self.mk(ExprKind::Cast(bx(e)), to.clone(), n))
            }
            (Type::Ptr(_), Type::Int(IntKind::Bool)) => {
                Ok(self.mk(ExprKind::Cast(bx(e)), to.clone(), n))
            }
            (Type::Int(_), Type::Ptr(_)) if Self::is_null_constant(&e) => {
                Ok(self.mk(ExprKind::Null, to.clone(), n))
            }
            (Type::Ptr(_), Type::Ptr(_)) => {
                if Self::is_null_constant(&e) {
                    Ok(self.mk(ExprKind::Null, to.clone(), n))
                } else {
                    Ok(self.mk(ExprKind::Cast(bx(e)), to.clone(), n))
                }
            }
            (Type::Struct(a), Type::Struct(b)) if a == b => Ok(e),
            (from, _) => {
                let (f, t) = (from.display(self.structs()), to.display(self.structs()));
                if matches!(
                    (from, to),
                    (Type::Ptr(_), Type::Int(_)) | (Type::Int(_), Type::Ptr(_))
                ) {
                    self.unsupported(
                        n,
                        format!("conversion between integer and pointer (`{f}` to `{t}`)"),
                    )
                } else {
                    self.invalid(n, format!("cannot convert `{f}` to `{t}`"))
                }
            }
        }
    }

    fn explicit_cast(&mut self, e: Expr, to: &Type, n: Node) -> LResult<Expr> {
        if *to == Type::Void {
            return Ok(self.mk(ExprKind::Cast(bx(e)), Type::Void, n));
        }
        if !to.is_scalar() {
            return self.unsupported(n, format!("cast to `{}`", to.display(self.structs())));
        }
        if let (Type::Int(k), Type::Int(_)) = (to, &e.ty) {
            let mut c = self.cast_int(e, *k);
            c.range = self.range(n);
            return Ok(c);
        }
        self.convert(e, to, n)
    }

    pub(super) fn type_descriptor(&mut self, td: Node) -> LResult<Type> {
        let base = self.type_specifier(field(td, "type").expect("type"))?;
        match field(td, "declarator") {
            Some(d) => Ok(self.declarator(base, d)?.ty),
            None => Ok(base),
        }
    }

    /// Lower an expression node; lvalues stay lvalues.
    pub(super) fn expr(&mut self, n: Node) -> LResult<Expr> {
        match n.kind() {
            "parenthesized_expression" => {
                let inner = named_children(n).into_iter().next().expect("inner");
                if inner.kind() == "compound_statement" {
                    return self.unsupported(n, "statement expression used as a value");
                }
                let mut e = self.expr(inner)?;
                e.range = self.range(n);
                Ok(e)
            }
            "extension_expression" => self.expr(named_children(n)[0]),
            "number_literal" => self.number(n),
            "char_literal" => self.char_literal(n),
            "true" => Ok(self.const_expr(1, IntKind::Int, n)),
            "false" => Ok(self.const_expr(0, IntKind::Int, n)),
            "null" => Ok(self.mk(ExprKind::Null, Type::ptr_to(Type::Void), n)),
            "string_literal" | "concatenated_string" => self.string(n),
            "identifier" => self.identifier(n),
            "unary_expression" => self.unary(n),
            "binary_expression" => self.binary(n),
            "pointer_expression" => self.pointer_expr(n),
            "subscript_expression" => {
                let a = self.rvalue(field(n, "argument").expect("argument"))?;
                let i = self.rvalue(field(n, "index").expect("index"))?;
                let (p, i) = if a.ty.pointee().is_some() {
                    (a, i)
                } else {
                    (i, a)
                };
                let sum = self.ptr_add(p, i, false, n)?;
                self.deref(sum, n)
            }
            "field_expression" => {
                let arg = field(n, "argument").expect("argument");
                let fname = self.text(field(n, "field").expect("field")).to_string();
                let op = field(n, "operator")
                    .map(|o| self.text(o).to_string())
                    .unwrap_or_default();
                let base = if op == "->" {
                    let p = self.rvalue(arg)?;
                    self.deref(p, n)?
                } else {
                    let b = self.expr(arg)?;
                    if !b.is_lvalue() {
                        return self.unsupported(n, "member of a struct rvalue");
                    }
                    b
                };
                let Type::Struct(sid) = base.ty else {
                    return self.invalid(n, format!("`{}` is not a struct", self.snippet(arg)));
                };
                let Some(fields) = &self.prog.structs[sid].fields else {
                    return self.invalid(n, "member of an incomplete struct");
                };
                let Some(f) = fields.iter().find(|f| f.name == fname) else {
                    return self.invalid(n, format!("no member named `{fname}`"));
                };
                let (off, ty) = (f.offset, f.ty.clone());
                Ok(self.mk(ExprKind::Member(bx(base), off), ty, n))
            }
            "assignment_expression" => self.assignment(n),
            "update_expression" => {
                let op = self
                    .text(field(n, "operator").expect("operator"))
                    .to_string();
                let arg = field(n, "argument").expect("argument");
                let lv = self.modifiable(arg)?;
                if !lv.ty.is_scalar() {
                    return self.invalid(n, "`++`/`--` on a non-scalar");
                }
                let prefix = n
                    .child(0)
                    .is_some_and(|c| c.kind() == "++" || c.kind() == "--");
                let ty = lv.ty.clone();
                Ok(self.mk(
                    ExprKind::IncDec {
                        lv: bx(lv),
                        inc: op == "++",
                        prefix,
                    },
                    ty,
                    n,
                ))
            }
            "conditional_expression" => {
                let c = self.scalar(field(n, "condition").expect("condition"))?;
                // GNU's `a ?: b` has no middle operand (found by fuzzing).
                let Some(consequence) = field(n, "consequence") else {
                    return self.unsupported(n, "`?:` without a middle operand (a GNU extension)");
                };
                let a = self.rvalue(consequence)?;
                let b = self.rvalue(field(n, "alternative").expect("alternative"))?;
                let (a, b, ty) = match (&a.ty, &b.ty) {
                    (Type::Int(x), Type::Int(y)) => {
                        let k = usual_arith(*x, *y);
                        (self.cast_int(a, k), self.cast_int(b, k), Type::Int(k))
                    }
                    (Type::Void, Type::Void) => (a, b, Type::Void),
                    (x, y) if x.is_arithmetic() && y.is_arithmetic() => {
                        let t = Type::Float(usual_float(x, y).unwrap_or(FloatKind::Double));
                        (self.convert(a, &t, n)?, self.convert(b, &t, n)?, t)
                    }
                    (Type::Ptr(_), Type::Ptr(_))
                    | (Type::Ptr(_), Type::Int(_))
                    | (Type::Int(_), Type::Ptr(_)) => {
                        let ty = if Self::is_null_constant(&a) {
                            b.ty.clone()
                        } else {
                            a.ty.clone()
                        };
                        (self.convert(a, &ty, n)?, self.convert(b, &ty, n)?, ty)
                    }
                    _ => return self.unsupported(n, "conditional expression of this type"),
                };
                Ok(self.mk(ExprKind::Cond(bx(c), bx(a), bx(b)), ty, n))
            }
            "comma_expression" => {
                let l = self.rvalue_or_void(field(n, "left").expect("left"))?;
                let r = self.rvalue_or_void(field(n, "right").expect("right"))?;
                let ty = r.ty.clone();
                Ok(self.mk(ExprKind::Comma(bx(l), bx(r)), ty, n))
            }
            "cast_expression" => {
                let ty = self.type_descriptor(field(n, "type").expect("type"))?;
                let v = self.rvalue_or_void(field(n, "value").expect("value"))?;
                self.explicit_cast(v, &ty, n)
            }
            "sizeof_expression" => {
                let ty = if let Some(td) = field(n, "type") {
                    self.type_descriptor(td)?
                } else {
                    let v = field(n, "value").expect("value");
                    let v = if v.kind() == "parenthesized_expression" {
                        named_children(v)[0]
                    } else {
                        v
                    };
                    // `sizeof(T)` with a typedef name or `_Bool` parses as an identifier.
                    let type_name = if v.kind() == "identifier" {
                        let name = self.text(v).to_string();
                        match self.lookup(&name) {
                            Some(Sym::Typedef(_)) => Some(name),
                            None if matches!(name.as_str(), "_Bool" | "bool") => Some(name),
                            _ => None,
                        }
                    } else {
                        None
                    };
                    match type_name {
                        Some(_) => self.type_specifier_named(v)?,
                        None => self.expr(v)?.ty,
                    }
                };
                let s = self.size_of(n, &ty)?;
                Ok(self.const_expr(s, IntKind::ULong, n))
            }
            "call_expression" => self.call(n),
            "compound_literal_expression" => self.unsupported(n, "compound literal"),
            "alignof_expression" => self.unsupported(n, "_Alignof"),
            other => self.unsupported(n, format!("expression `{other}`")),
        }
    }

    pub(super) fn rvalue_or_void(&mut self, n: Node) -> LResult<Expr> {
        let e = self.expr(n)?;
        self.as_rvalue(e, n)
    }

    fn modifiable(&mut self, n: Node) -> LResult<Expr> {
        let lv = self.expr(n)?;
        if !lv.is_lvalue()
            || matches!(lv.kind, ExprKind::Str(_))
            || matches!(lv.ty, Type::Array(..))
        {
            return self.invalid(n, format!("`{}` is not assignable", self.snippet(n)));
        }
        Ok(lv)
    }

    fn deref(&mut self, p: Expr, n: Node) -> LResult<Expr> {
        let Some(t) = p.ty.pointee().cloned() else {
            return self.invalid(n, format!("`{}` is not a pointer", self.snippet(n)));
        };
        match t {
            Type::Void => self.invalid(n, "dereference of `void *`"),
            // `*fp` designates the function, which converts back to its address.
            Type::Func(_) => Ok(p),
            t => Ok(self.mk(ExprKind::Deref(bx(p)), t, n)),
        }
    }

    fn ptr_add(&mut self, p: Expr, i: Expr, sub: bool, n: Node) -> LResult<Expr> {
        let Some(el) = p.ty.pointee() else {
            return self.invalid(n, "pointer arithmetic on a non-pointer");
        };
        if el.size(self.structs()).is_none() {
            return self.invalid(n, "arithmetic on a pointer to an incomplete type");
        }
        if i.int_kind().is_none() {
            return self.invalid(n, "pointer plus a non-integer");
        }
        let i = self.cast_int(self.promote(i), IntKind::Long);
        let ty = p.ty.clone();
        Ok(self.mk(
            ExprKind::PtrAdd {
                ptr: bx(p),
                index: bx(i),
                sub,
            },
            ty,
            n,
        ))
    }

    fn pointer_expr(&mut self, n: Node) -> LResult<Expr> {
        let op = self
            .text(field(n, "operator").expect("operator"))
            .to_string();
        let arg = field(n, "argument").expect("argument");
        if op == "*" {
            let p = self.rvalue(arg)?;
            return self.deref(p, n);
        }
        let lv = self.expr(arg)?;
        if is_function_designator(&lv) {
            // `&f` and `&*fp` are the function's address itself.
            return Ok(lv);
        }
        if !lv.is_lvalue() {
            return self.invalid(n, "`&` of a value that is not an object");
        }
        let ty = Type::ptr_to(lv.ty.clone());
        Ok(self.mk(ExprKind::AddrOf(bx(lv)), ty, n))
    }

    fn unary(&mut self, n: Node) -> LResult<Expr> {
        let op = self
            .text(field(n, "operator").expect("operator"))
            .to_string();
        let arg = field(n, "argument").expect("argument");
        if op == "!" {
            let e = self.scalar(arg)?;
            return Ok(self.mk(ExprKind::Unary(UnOp::LogNot, bx(e)), Type::INT, n));
        }
        let e = self.rvalue(arg)?;
        if let Type::Float(_) = e.ty {
            let ty = e.ty.clone();
            return match op.as_str() {
                "+" => {
                    let mut e = e;
                    e.range = self.range(n);
                    Ok(e)
                }
                "-" => Ok(self.mk(ExprKind::Unary(UnOp::Neg, bx(e)), ty, n)),
                other => self.invalid(n, format!("unary `{other}` on a floating value")),
            };
        }
        if e.int_kind().is_none() {
            return self.invalid(n, format!("`{}` is not an integer", self.snippet(arg)));
        }
        let e = self.promote(e);
        let ty = e.ty.clone();
        match op.as_str() {
            "+" => {
                let mut e = e;
                e.range = self.range(n);
                Ok(e)
            }
            "-" => Ok(self.mk(ExprKind::Unary(UnOp::Neg, bx(e)), ty, n)),
            "~" => Ok(self.mk(ExprKind::Unary(UnOp::BitNot, bx(e)), ty, n)),
            other => self.unsupported(n, format!("unary `{other}`")),
        }
    }

    /// `(T)` where T is a typedef name or `_Bool`: tree-sitter cannot tell it from a
    /// parenthesized variable.
    fn parenthesized_type_name(&mut self, n: Node) -> LResult<Option<Type>> {
        if n.kind() != "parenthesized_expression" {
            return Ok(None);
        }
        let inner = named_children(n);
        if inner.len() != 1 || inner[0].kind() != "identifier" {
            return Ok(None);
        }
        let name = self.text(inner[0]).to_string();
        let is_type = match self.lookup(&name) {
            Some(Sym::Typedef(_)) => true,
            None => matches!(name.as_str(), "_Bool" | "bool"),
            _ => false,
        };
        if !is_type {
            return Ok(None);
        }
        self.type_specifier_named(inner[0]).map(Some)
    }

    fn binop_of(s: &str) -> Option<BinOp> {
        Some(match s {
            "+" => BinOp::Add,
            "-" => BinOp::Sub,
            "*" => BinOp::Mul,
            "/" => BinOp::Div,
            "%" => BinOp::Rem,
            "<<" => BinOp::Shl,
            ">>" => BinOp::Shr,
            "&" => BinOp::And,
            "|" => BinOp::Or,
            "^" => BinOp::Xor,
            "<" => BinOp::Lt,
            "<=" => BinOp::Le,
            ">" => BinOp::Gt,
            ">=" => BinOp::Ge,
            "==" => BinOp::Eq,
            "!=" => BinOp::Ne,
            _ => return None,
        })
    }

    fn binary(&mut self, n: Node) -> LResult<Expr> {
        let op_s = self
            .text(field(n, "operator").expect("operator"))
            .to_string();
        let (ln, rn) = (
            field(n, "left").expect("left"),
            field(n, "right").expect("right"),
        );
        // `(T) -x` with a typedef name or `_Bool` parses as a subtraction from `(T)`.
        if let Some(ty) = self.parenthesized_type_name(ln)? {
            let primary = matches!(
                rn.kind(),
                "parenthesized_expression"
                    | "identifier"
                    | "number_literal"
                    | "char_literal"
                    | "call_expression"
                    | "subscript_expression"
                    | "field_expression"
            );
            if !primary || !matches!(op_s.as_str(), "-" | "+" | "*" | "&") {
                return self.unsupported(n, "cast to a typedef name followed by an operator; add parentheses around the operand");
            }
            let inner = match op_s.as_str() {
                "-" | "+" => {
                    let (e, _) = self.int_rvalue(rn)?;
                    let e = self.promote(e);
                    if op_s == "+" {
                        e
                    } else {
                        let t = e.ty.clone();
                        self.mk(ExprKind::Unary(UnOp::Neg, bx(e)), t, n)
                    }
                }
                "*" => {
                    let p = self.rvalue(rn)?;
                    let lv = self.deref(p, n)?;
                    self.as_rvalue(lv, n)?
                }
                _ => {
                    let lv = self.expr(rn)?;
                    if !lv.is_lvalue() {
                        return self.invalid(n, "`&` of a value that is not an object");
                    }
                    let t = Type::ptr_to(lv.ty.clone());
                    self.mk(ExprKind::AddrOf(bx(lv)), t, n)
                }
            };
            return self.explicit_cast(inner, &ty, n);
        }
        if op_s == "&&" || op_s == "||" {
            let l = self.scalar(ln)?;
            let r = self.scalar(rn)?;
            let k = if op_s == "&&" {
                ExprKind::LogAnd(bx(l), bx(r))
            } else {
                ExprKind::LogOr(bx(l), bx(r))
            };
            return Ok(self.mk(k, Type::INT, n));
        }
        let Some(op) = Self::binop_of(&op_s) else {
            return self.unsupported(n, format!("operator `{op_s}`"));
        };
        let l = self.rvalue(ln)?;
        let r = self.rvalue(rn)?;
        self.binary_values(op, l, r, n)
    }

    pub(super) fn binary_values(&mut self, op: BinOp, l: Expr, r: Expr, n: Node) -> LResult<Expr> {
        let (lp, rp) = (l.ty.pointee().is_some(), r.ty.pointee().is_some());
        if lp || rp {
            return match op {
                BinOp::Add if lp && !rp => self.ptr_add(l, r, false, n),
                BinOp::Add if rp && !lp => self.ptr_add(r, l, false, n),
                BinOp::Sub if lp && !rp => self.ptr_add(l, r, true, n),
                BinOp::Sub if lp && rp => {
                    if l.ty != r.ty {
                        return self.invalid(n, "subtraction of pointers to different types");
                    }
                    Ok(self.mk(ExprKind::PtrDiff(bx(l), bx(r)), Type::Int(IntKind::Long), n))
                }
                op if op.is_comparison() => {
                    let (l, r) = if !lp {
                        (self.convert(l, &r.ty.clone(), n)?, r)
                    } else if !rp {
                        let t = l.ty.clone();
                        (l, self.convert(r, &t, n)?)
                    } else {
                        (l, r)
                    };
                    Ok(self.mk(ExprKind::PtrCmp(op, bx(l), bx(r)), Type::INT, n))
                }
                _ => self.invalid(n, format!("operator `{}` on a pointer", op.symbol())),
            };
        }
        if l.ty.is_arithmetic() && r.ty.is_arithmetic() {
            if let Some(k) = usual_float(&l.ty, &r.ty) {
                if !matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div)
                    && !op.is_comparison()
                {
                    return self
                        .invalid(n, format!("operator `{}` on a floating value", op.symbol()));
                }
                let t = Type::Float(k);
                let (l, r) = (self.convert(l, &t, n)?, self.convert(r, &t, n)?);
                let ty = if op.is_comparison() { Type::INT } else { t };
                return Ok(self.mk(ExprKind::Binary(op, bx(l), bx(r)), ty, n));
            }
        }
        let (Some(lk), Some(rk)) = (l.int_kind(), r.int_kind()) else {
            return self.invalid(n, format!("operator `{}` on non-integers", op.symbol()));
        };
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            let l = self.promote(l);
            let r = self.promote(r);
            let ty = l.ty.clone();
            return Ok(self.mk(ExprKind::Binary(op, bx(l), bx(r)), ty, n));
        }
        let k = usual_arith(lk, rk);
        let (l, r) = (self.cast_int(l, k), self.cast_int(r, k));
        let ty = if op.is_comparison() {
            Type::INT
        } else {
            Type::Int(k)
        };
        Ok(self.mk(ExprKind::Binary(op, bx(l), bx(r)), ty, n))
    }

    fn assignment(&mut self, n: Node) -> LResult<Expr> {
        let op_s = self
            .text(field(n, "operator").expect("operator"))
            .to_string();
        let lv = self.modifiable(field(n, "left").expect("left"))?;
        let rn = field(n, "right").expect("right");
        let r = self.rvalue(rn)?;
        let lty = lv.ty.clone();
        if op_s == "=" {
            let r = self.convert(r, &lty, rn)?;
            return Ok(self.mk(ExprKind::Assign(bx(lv), bx(r)), lty, n));
        }
        let Some(op) = Self::binop_of(op_s.trim_end_matches('=')) else {
            return self.unsupported(n, format!("operator `{op_s}`"));
        };
        match (&lty, r.int_kind()) {
            (Type::Ptr(_), Some(_)) if matches!(op, BinOp::Add | BinOp::Sub) => {
                let r = self.cast_int(self.promote(r), IntKind::Long);
                Ok(self.mk(
                    ExprKind::CompoundAssign {
                        op,
                        lv: bx(lv),
                        rhs: bx(r),
                        op_ty: lty.clone(),
                    },
                    lty,
                    n,
                ))
            }
            (Type::Int(_) | Type::Float(_), _)
                if r.ty.is_arithmetic() && usual_float(&lty, &r.ty).is_some() =>
            {
                if !matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) {
                    return self.invalid(n, format!("operator `{op_s}` on a floating value"));
                }
                let op_ty = Type::Float(usual_float(&lty, &r.ty).unwrap_or(FloatKind::Double));
                let r = self.convert(r, &op_ty, rn)?;
                Ok(self.mk(
                    ExprKind::CompoundAssign {
                        op,
                        lv: bx(lv),
                        rhs: bx(r),
                        op_ty,
                    },
                    lty,
                    n,
                ))
            }
            (Type::Int(lk), Some(rk)) => {
                let (op_k, r) = if matches!(op, BinOp::Shl | BinOp::Shr) {
                    (lk.promote(), self.promote(r))
                } else {
                    let k = usual_arith(*lk, rk);
                    (k, self.cast_int(r, k))
                };
                Ok(self.mk(
                    ExprKind::CompoundAssign {
                        op,
                        lv: bx(lv),
                        rhs: bx(r),
                        op_ty: Type::Int(op_k),
                    },
                    lty,
                    n,
                ))
            }
            _ => self.invalid(n, format!("operator `{op_s}` on these operand types")),
        }
    }

    fn identifier(&mut self, n: Node) -> LResult<Expr> {
        let name = self.text(n).to_string();
        if matches!(
            name.as_str(),
            "__func__" | "__FUNCTION__" | "__PRETTY_FUNCTION__"
        ) {
            let fname = self.fs.as_ref().map(|f| f.name.clone()).unwrap_or_default();
            let mut bytes = fname.into_bytes();
            bytes.push(0);
            return Ok(self.string_bytes(bytes, n));
        }
        match self.lookup(&name).cloned() {
            Some(Sym::Local(id)) => {
                let ty = self.fs.as_ref().expect("in a function").locals[id]
                    .ty
                    .clone();
                Ok(self.mk(ExprKind::Local(id), ty, n))
            }
            Some(Sym::Global(id)) => {
                let ty = self.prog.globals[id].ty.clone();
                Ok(self.mk(ExprKind::Global(id), ty, n))
            }
            Some(Sym::EnumConst(v)) => Ok(self.const_expr(v as u64, IntKind::Int, n)),
            Some(Sym::Func(id)) => {
                let ft = FuncType {
                    ret: self.prog.funcs[id].ret.clone(),
                    params: self.param_types_of(id),
                    variadic: false,
                };
                Ok(self.function_address(Callee::Func(id), ft, n))
            }
            Some(Sym::Typedef(_)) => self.invalid(n, format!("type name `{name}` used as a value")),
            None => match name.as_str() {
                "stdin" | "stdout" | "stderr" => {
                    let which = match name.as_str() {
                        "stdin" => 0,
                        "stdout" => 1,
                        _ => 2,
                    };
                    Ok(self.mk(ExprKind::Stream(which), Type::ptr_to(Type::Void), n))
                }
                _ => match library_signature(&name) {
                    Some((b, params, false, ret)) => {
                        let ft = FuncType {
                            ret,
                            params,
                            variadic: false,
                        };
                        Ok(self.function_address(Callee::Builtin(b), ft, n))
                    }
                    Some(_) => self.unsupported(
                        n,
                        format!("the address of the variadic library function `{name}`"),
                    ),
                    None => self.invalid(n, format!("undeclared identifier `{name}`")),
                },
            },
        }
    }

    fn number(&mut self, n: Node) -> LResult<Expr> {
        let text = self.text(n).trim().to_string();
        // tree-sitter-c folds a leading sign into the literal: `-5` is `-(5)` in C.
        if let Some(rest) = text.strip_prefix(['-', '+']) {
            let e = self.number_text(rest.trim_start(), n)?;
            if text.starts_with('+') {
                return Ok(e);
            }
            let e = self.promote(e);
            let ty = e.ty.clone();
            return Ok(self.mk(ExprKind::Unary(UnOp::Neg, bx(e)), ty, n));
        }
        self.number_text(&text, n)
    }

    fn number_text(&mut self, text: &str, n: Node) -> LResult<Expr> {
        let text = text.to_string();
        let lower = text.to_ascii_lowercase();
        let is_hex = lower.starts_with("0x");
        if !is_hex && (lower.contains('.') || lower.contains('e')) || is_hex && lower.contains('p')
        {
            return self.float_constant(&text, n);
        }
        let digits_end = lower.trim_end_matches(['u', 'l']).len();
        let (digits, suffix) = lower.split_at(digits_end);
        let digits = digits.replace('\'', "");
        let (radix, body) = if is_hex {
            (16, &digits[2..])
        } else if let Some(b) = digits.strip_prefix("0b") {
            (2, b)
        } else if digits.len() > 1 && digits.starts_with('0') {
            (8, &digits[1..])
        } else {
            (10, &digits[..])
        };
        let Ok(v) = u128::from_str_radix(body, radix) else {
            return self.invalid(n, format!("malformed integer constant `{text}`"));
        };
        let unsigned = suffix.contains('u');
        let longs = suffix.matches('l').count();
        use IntKind::*;
        let candidates: &[IntKind] = match (unsigned, longs, radix == 10) {
            (false, 0, true) => &[Int, Long],
            (false, 0, false) => &[Int, UInt, Long, ULong],
            (true, 0, _) => &[UInt, ULong],
            (false, 1, true) => &[Long],
            (false, 1, false) => &[Long, ULong],
            (true, 1, _) => &[ULong],
            (false, _, true) => &[LongLong],
            (false, _, false) => &[LongLong, ULongLong],
            (true, _, _) => &[ULongLong],
        };
        match candidates.iter().find(|k| v <= k.max() as u128) {
            Some(k) => Ok(self.const_expr(v as u64, *k, n)),
            None => self.unsupported(
                n,
                format!("integer constant `{text}` too large for its type"),
            ),
        }
    }

    fn char_literal(&mut self, n: Node) -> LResult<Expr> {
        let text = self.text(n).to_string();
        if text.starts_with(['L', 'u', 'U']) {
            return self.unsupported(n, "wide character constant");
        }
        let inner = &text[1..text.len() - 1];
        let bytes = unescape(inner)
            .ok_or(())
            .or_else(|_| self.invalid(n, "bad escape sequence"))?;
        if bytes.len() != 1 {
            return self.unsupported(n, format!("multi-character constant {text}"));
        }
        // A char constant has type int; the char is signed on x86-64.
        Ok(self.const_expr(i64::from(bytes[0] as i8) as u64, IntKind::Int, n))
    }

    fn string(&mut self, n: Node) -> LResult<Expr> {
        let mut bytes = Vec::new();
        let parts = if n.kind() == "concatenated_string" {
            named_children(n)
        } else {
            vec![n]
        };
        for p in parts {
            if p.kind() != "string_literal" {
                return self.unsupported(p, "macro in string concatenation");
            }
            let t = self.text(p).to_string();
            if !t.starts_with('"') {
                return self.unsupported(p, "wide string literal");
            }
            let b = unescape(&t[1..t.len() - 1])
                .ok_or(())
                .or_else(|_| self.invalid(p, "bad escape sequence"))?;
            bytes.extend(b);
        }
        bytes.push(0);
        Ok(self.string_bytes(bytes, n))
    }

    pub(super) fn string_bytes(&mut self, bytes: Vec<u8>, n: Node) -> Expr {
        let len = bytes.len() as u64;
        self.prog.strings.push(bytes);
        let id = self.prog.strings.len() - 1;
        self.mk(
            ExprKind::Str(id),
            Type::Array(Box::new(Type::Int(IntKind::Char)), Some(len)),
            n,
        )
    }

    fn call(&mut self, n: Node) -> LResult<Expr> {
        let fnode = field(n, "function").expect("function");
        let args_node = field(n, "arguments").expect("arguments");
        let arg_nodes = named_children(args_node);
        // `(T)(x)` with a typedef name or `_Bool` parses as a call; it is a cast.
        if fnode.kind() == "parenthesized_expression" && !arg_nodes.is_empty() {
            let inner = named_children(fnode);
            if inner.len() == 1 && inner[0].kind() == "identifier" {
                let name = self.text(inner[0]).to_string();
                let is_type = match self.lookup(&name) {
                    Some(Sym::Typedef(_)) => true,
                    None => matches!(name.as_str(), "_Bool" | "bool"),
                    _ => false,
                };
                if is_type {
                    let ty = self.type_specifier_named(inner[0])?;
                    // `(T)(a, b)` is a cast of a comma expression.
                    let mut v = self.rvalue_or_void(arg_nodes[0])?;
                    for a in &arg_nodes[1..] {
                        let w = self.rvalue_or_void(*a)?;
                        let t = w.ty.clone();
                        v = self.mk(ExprKind::Comma(bx(v), bx(w)), t, *a);
                    }
                    return self.explicit_cast(v, &ty, n);
                }
            }
        }
        if fnode.kind() != "identifier" {
            return self.call_through_pointer(fnode, &arg_nodes, n);
        }
        let name = self.text(fnode).to_string();
        if let Some(Sym::Func(id)) = self.lookup(&name).cloned() {
            let mut params = self.param_types_of(id);
            if params.len() != arg_nodes.len() && !self.prog.funcs[id].defined {
                // `int f();` then calls, then the definition: K&R style.
                if let Some(from_def) = self
                    .later_definition(n, &name)
                    .and_then(|def| self.prototype_from_definition(id, def))
                {
                    params = from_def;
                }
            }
            if params.len() != arg_nodes.len() {
                return self.invalid(
                    n,
                    format!(
                        "`{name}` takes {} arguments, {} given",
                        params.len(),
                        arg_nodes.len()
                    ),
                );
            }
            let mut args = Vec::new();
            for (a, t) in arg_nodes.iter().zip(&params) {
                let v = self.rvalue(*a)?;
                args.push(self.convert(v, t, *a)?);
            }
            let ret = self.prog.funcs[id].ret.clone();
            return Ok(self.mk(ExprKind::Call(id, args), ret, n));
        }
        if self.lookup(&name).is_some() {
            return self.call_through_pointer(fnode, &arg_nodes, n);
        }
        self.builtin_call(&name, n, &arg_nodes)
    }

    /// `fp(args)`, `(*fp)(args)`, `s->hook(args)`: a call of whatever function
    /// the pointer holds when the call runs.
    fn call_through_pointer(&mut self, fnode: Node, arg_nodes: &[Node], n: Node) -> LResult<Expr> {
        let callee = self.rvalue(fnode)?;
        let Some(Type::Func(ft)) = callee.ty.pointee().cloned() else {
            return self.invalid(
                n,
                format!("call of `{}`, which is not a function", self.snippet(fnode)),
            );
        };
        if ft.variadic {
            return self.unsupported(n, "call through a pointer to a variadic function");
        }
        if ft.params.len() != arg_nodes.len() {
            return self.unsupported(
                n,
                format!(
                    "call through a pointer to a function of {} parameters with {} arguments \
                     (a pointer declared without a prototype, `()`, is outside the model)",
                    ft.params.len(),
                    arg_nodes.len()
                ),
            );
        }
        let mut args = Vec::new();
        for (a, t) in arg_nodes.iter().zip(&ft.params) {
            let v = self.rvalue(*a)?;
            args.push(self.convert(v, t, *a)?);
        }
        Ok(self.mk(ExprKind::CallPtr(bx(callee), args), ft.ret.clone(), n))
    }

    /// The address of function `c` of type `ft` (a function designator
    /// converts to one wherever it is used); the program keeps it as an
    /// object a pointer can point to.
    fn function_address(&mut self, c: Callee, ft: FuncType, n: Node) -> Expr {
        if !self.prog.address_taken.contains(&c) {
            self.prog.address_taken.push(c);
        }
        self.mk(
            ExprKind::FuncAddr(c),
            Type::ptr_to(Type::Func(Box::new(ft))),
            n,
        )
    }

    fn builtin_call(&mut self, name: &str, n: Node, arg_nodes: &[Node]) -> LResult<Expr> {
        let Some((b, params, variadic, ret)) = library_signature(name) else {
            match self.later_definition(n, name) {
                Some(def) => {
                    if let Err(why) = self.declare_implicitly(name, def) {
                        return self.unsupported(n, format!("call to `{name}` before any declaration of it (an implicit declaration: C99 removed them, gcc up to 13 accepts one with a warning), and {why}; declare `{name}` above this call"));
                    }
                    return self.call(n);
                }
                None => return self.unsupported(n, format!("call to `{name}`, which is neither defined in the sources nor a modelled library function")),
            }
        };
        if arg_nodes.len() < params.len() || (!variadic && arg_nodes.len() > params.len()) {
            return self.invalid(n, format!("wrong number of arguments to `{name}`"));
        }
        let mut args = Vec::new();
        for (i, a) in arg_nodes.iter().enumerate() {
            let v = self.rvalue(*a)?;
            let v = match params.get(i) {
                // Library pointer parameters accept any object pointer (`void *`, `const char *`).
                Some(Type::Ptr(_)) if v.ty.pointee().is_some() => v,
                Some(t) => self.convert(v, t, *a)?,
                None => match v.int_kind() {
                    Some(_) => self.promote(v),
                    // Default argument promotion: a `float` goes as a `double`.
                    None if v.ty.is_arithmetic() => {
                        self.convert(v, &Type::Float(FloatKind::Double), *a)?
                    }
                    None if v.ty.pointee().is_some() => v,
                    None => {
                        return self.unsupported(*a, "argument of this type to a variadic function")
                    }
                },
            };
            args.push(v);
        }
        Ok(self.mk(ExprKind::Builtin(b, args), ret, n))
    }
}

/// A library function the model implements, by name: the builtin, its
/// fixed parameter types, whether it is variadic, its return type.
#[rustfmt::skip]
pub(crate) fn library_signature(name: &str) -> Option<(Builtin, Vec<Type>, bool, Type)> {
    use Builtin as B;
    use IntKind::*;
    let cp = || Type::ptr_to(Type::Int(Char));
    let int = || Type::INT;
    let vp = || Type::ptr_to(Type::Void);
    let double = || Type::Float(FloatKind::Double);
    let comparator = || Type::ptr_to(Type::Func(Box::new(FuncType { ret: int(), params: vec![vp(), vp()], variadic: false })));
    let sig = match name {
        "printf" => (B::Printf, vec![cp()], true, int()),
        "scanf" => (B::Scanf, vec![cp()], true, int()),
        "puts" => (B::Puts, vec![cp()], false, int()),
        "putchar" => (B::Putchar, vec![int()], false, int()),
        "getchar" => (B::Getchar, vec![], false, int()),
        "atoi" => (B::Atoi, vec![cp()], false, int()),
        "atol" => (B::Atol, vec![cp()], false, Type::Int(Long)),
        "strtol" => (B::Strtol, vec![cp(), Type::ptr_to(cp()), int()], false, Type::Int(Long)),
        "abs" => (B::Abs, vec![int()], false, int()),
        "labs" => (B::Labs, vec![Type::Int(Long)], false, Type::Int(Long)),
        "strlen" => (B::Strlen, vec![cp()], false, Type::Int(ULong)),
        "strcmp" => (B::Strcmp, vec![cp(), cp()], false, int()),
        "strncmp" => (B::Strncmp, vec![cp(), cp(), Type::Int(ULong)], false, int()),
        "strcpy" => (B::Strcpy, vec![cp(), cp()], false, cp()),
        "memset" => (B::Memset, vec![Type::ptr_to(Type::Void), int(), Type::Int(ULong)], false, Type::ptr_to(Type::Void)),
        "exit" => (B::Exit, vec![int()], false, Type::Void),
        "abort" => (B::Abort, vec![], false, Type::Void),
        "fprintf" => (B::Fprintf, vec![vp(), cp()], true, int()),
        "fputs" => (B::Fputs, vec![cp(), vp()], false, int()),
        "fputc" | "putc" => (B::Fputc, vec![int(), vp()], false, int()),
        "fgets" => (B::Fgets, vec![cp(), int(), vp()], false, cp()),
        "fflush" => (B::Fflush, vec![vp()], false, int()),
        "strtoul" => (B::Strtoul, vec![cp(), Type::ptr_to(cp()), int()], false, Type::Int(ULong)),
        "strchr" => (B::Strchr, vec![cp(), int()], false, cp()),
        "strcspn" => (B::Strcspn, vec![cp(), cp()], false, Type::Int(ULong)),
        "strspn" => (B::Strspn, vec![cp(), cp()], false, Type::Int(ULong)),
        "memcpy" => (B::Memcpy, vec![vp(), vp(), Type::Int(ULong)], false, vp()),
        "memmove" => (B::Memmove, vec![vp(), vp(), Type::Int(ULong)], false, vp()),
        "strcat" => (B::Strcat, vec![cp(), cp()], false, cp()),
        "strncpy" => (B::Strncpy, vec![cp(), cp(), Type::Int(ULong)], false, cp()),
        "malloc" => (B::Malloc, vec![Type::Int(ULong)], false, vp()),
        "calloc" => (B::Calloc, vec![Type::Int(ULong), Type::Int(ULong)], false, vp()),
        "realloc" => (B::Realloc, vec![vp(), Type::Int(ULong)], false, vp()),
        "free" => (B::Free, vec![vp()], false, Type::Void),
        "__assert_fail" => (B::AssertFail, vec![cp(), cp(), Type::Int(UInt), cp()], false, Type::Void),
        "fopen" => (B::Fopen, vec![cp(), cp()], false, vp()),
        "getenv" => (B::Getenv, vec![cp()], false, cp()),
        "__ctype_b_loc" => (B::CtypeB, vec![], false, Type::ptr_to(Type::ptr_to(Type::Int(UShort)))),
        "__ctype_tolower_loc" => (B::CtypeTolower, vec![], false, Type::ptr_to(Type::ptr_to(Type::INT))),
        "__ctype_toupper_loc" => (B::CtypeToupper, vec![], false, Type::ptr_to(Type::ptr_to(Type::INT))),
        "fclose" => (B::Fclose, vec![vp()], false, int()),
        "fgetc" | "getc" => (B::Fgetc, vec![vp()], false, int()),
        "fscanf" => (B::Fscanf, vec![vp(), cp()], true, int()),
        "fread" => (B::Fread, vec![vp(), Type::Int(ULong), Type::Int(ULong), vp()], false, Type::Int(ULong)),
        "feof" => (B::Feof, vec![vp()], false, int()),
        "ferror" => (B::Ferror, vec![vp()], false, int()),
        "sprintf" => (B::Sprintf, vec![cp(), cp()], true, int()),
        "snprintf" => (B::Snprintf, vec![cp(), Type::Int(ULong), cp()], true, int()),
        "strtod" => (B::Strtod, vec![cp(), Type::ptr_to(cp())], false, double()),
        "strtof" => (B::Strtof, vec![cp(), Type::ptr_to(cp())], false, Type::Float(FloatKind::Float)),
        "atof" => (B::Atof, vec![cp()], false, double()),
        "qsort" => (B::Qsort, vec![vp(), Type::Int(ULong), Type::Int(ULong), comparator()], false, Type::Void),
        "bsearch" => (B::Bsearch, vec![vp(), vp(), Type::Int(ULong), Type::Int(ULong), comparator()], false, vp()),
        _ => {
            let f = crate::float::MathFn::by_name(name)?;
            (B::Math(f), vec![double(); f.arity()], false, double())
        }
    };
    Some(sig)
}

/// Whether `e` is a function designator already converted to its address
/// (`f`, `*fp`), which `&` leaves as it is.
fn is_function_designator(e: &Expr) -> bool {
    !e.is_lvalue() && matches!(e.ty.pointee(), Some(Type::Func(_)))
}

/// C escape sequences to bytes.
pub(super) fn unescape(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let c = *b.get(i)?;
        i += 1;
        out.push(match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    match b.get(i) {
                        Some(d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                v as u8
            }
            b'x' => {
                let mut v = 0u32;
                let start = i;
                while let Some(d) = b.get(i).and_then(|d| (*d as char).to_digit(16)) {
                    v = v.wrapping_mul(16) + d;
                    i += 1;
                }
                if i == start {
                    return None;
                }
                v as u8
            }
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'e' => 27,
            b'\\' | b'\'' | b'"' | b'?' => c,
            _ => return None,
        });
    }
    Some(out)
}

/// Constant folding of integer constant expressions; None if not constant or UB.
pub(super) fn fold(e: &Expr) -> Option<u64> {
    let k = e.int_kind();
    match &e.kind {
        ExprKind::Const(v) => Some(*v),
        ExprKind::Cast(inner) => Some(intops::convert(inner.int_kind()?, k?, fold(inner)?)),
        ExprKind::Unary(op, a) => {
            let ak = a.int_kind()?;
            intops::unary(*op, ak, fold(a)?).ok()
        }
        ExprKind::Binary(op, a, b) => {
            intops::binary(*op, a.int_kind()?, fold(a)?, fold(b)?, b.int_kind()?).ok()
        }
        ExprKind::LogAnd(a, b) => Some(u64::from(fold(a)? != 0 && fold(b)? != 0)),
        ExprKind::LogOr(a, b) => Some(u64::from(fold(a)? != 0 || fold(b)? != 0)),
        ExprKind::Cond(c, a, b) => {
            if fold(c)? != 0 {
                fold(a)
            } else {
                fold(b)
            }
        }
        _ => None,
    }
}
