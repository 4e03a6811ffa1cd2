//! Initializers, flattened to (offset, type, value) stores.

use super::*;
use crate::types::IntKind;

impl Lowerer {
    /// Lower the initializer `v` of an object of type `ty`; returns it and the
    /// completed type (`int a[] = {1, 2}` gets its length here).
    pub(super) fn initializer(&mut self, ty: &Type, v: Node) -> LResult<(Initializer, Type)> {
        let mut init = Initializer {
            zero: false,
            items: Vec::new(),
            bytes: None,
        };
        let ty = match (ty, v.kind()) {
            (Type::Array(el, len), "string_literal" | "concatenated_string")
                if matches!(
                    **el,
                    Type::Int(IntKind::Char | IntKind::SChar | IntKind::UChar)
                ) =>
            {
                let s = self.expr(v)?;
                let ExprKind::Str(id) = s.kind else {
                    unreachable!("a string literal lowers to Str")
                };
                let mut bytes = self.prog.strings[id].clone();
                let n = len.unwrap_or(bytes.len() as u64);
                if bytes.len() as u64 > n + 1 {
                    return self.invalid(v, "initializer-string is longer than the array");
                }
                bytes.resize(n as usize, 0);
                init.zero = true;
                init.bytes = Some(bytes);
                Type::Array(el.clone(), Some(n))
            }
            (_, "initializer_list") => {
                init.zero = true;
                self.init_list(ty, v, 0, &mut init.items)?
            }
            (Type::Array(..), _) => {
                return self.unsupported(v, "array initialised from an expression")
            }
            _ => {
                let e = self.rvalue(v)?;
                let e = self.convert(e, ty, v)?;
                init.items.push(InitItem {
                    offset: 0,
                    ty: ty.clone(),
                    value: e,
                });
                ty.clone()
            }
        };
        Ok((init, ty))
    }

    fn init_list(
        &mut self,
        ty: &Type,
        list: Node,
        base: u64,
        items: &mut Vec<InitItem>,
    ) -> LResult<Type> {
        let elems = named_children(list);
        match ty {
            Type::Array(el, len) => {
                let esize = self.size_of(list, el)?;
                let mut idx: u64 = 0;
                let mut max: u64 = 0;
                for e in elems {
                    let value = if e.kind() == "initializer_pair" {
                        let d = field(e, "designator").expect("designator");
                        if d.kind() != "subscript_designator" {
                            return self.unsupported(d, "this designator");
                        }
                        let i = self.const_int(named_children(d)[0])?;
                        idx = i as u64;
                        field(e, "value").expect("value")
                    } else {
                        e
                    };
                    if len.is_some_and(|n| idx >= n) {
                        return self.invalid(e, "excess elements in array initializer");
                    }
                    self.init_element(el, value, base + idx * esize, items)?;
                    idx += 1;
                    max = max.max(idx);
                }
                Ok(Type::Array(el.clone(), Some(len.unwrap_or(max.max(1)))))
            }
            Type::Struct(sid) => {
                let Some(fields) = self.prog.structs[*sid].fields.clone() else {
                    return self.invalid(list, "initializer for an incomplete struct");
                };
                let is_union = self.prog.structs[*sid].is_union;
                let mut fi = 0;
                for e in elems {
                    let value = if e.kind() == "initializer_pair" {
                        let d = field(e, "designator").expect("designator");
                        let fname = match d.kind() {
                            "field_designator" => self.text(named_children(d)[0]).to_string(),
                            "field_identifier" => self.text(d).to_string(),
                            _ => return self.unsupported(d, "this designator"),
                        };
                        let Some(i) = fields.iter().position(|f| f.name == fname) else {
                            return self.invalid(d, format!("no member named `{fname}`"));
                        };
                        fi = i;
                        field(e, "value").expect("value")
                    } else {
                        e
                    };
                    if fi >= fields.len() || (is_union && fi > 0 && e.kind() != "initializer_pair")
                    {
                        return self.invalid(e, "excess elements in struct initializer");
                    }
                    let f = &fields[fi];
                    self.init_element(&f.ty, value, base + f.offset, items)?;
                    fi += 1;
                }
                Ok(ty.clone())
            }
            _ => {
                // `int x = {5};`
                if elems.len() != 1 {
                    return self.invalid(list, "scalar initializer with other than one element");
                }
                self.init_element(ty, elems[0], base, items)?;
                Ok(ty.clone())
            }
        }
    }

    fn init_element(
        &mut self,
        ty: &Type,
        v: Node,
        offset: u64,
        items: &mut Vec<InitItem>,
    ) -> LResult<()> {
        if v.kind() == "initializer_list" {
            self.init_list(ty, v, offset, items)?;
            return Ok(());
        }
        match ty {
            Type::Array(el, Some(n))
                if matches!(v.kind(), "string_literal" | "concatenated_string") =>
            {
                let s = self.expr(v)?;
                let ExprKind::Str(id) = s.kind else {
                    unreachable!("a string literal lowers to Str")
                };
                let bytes = self.prog.strings[id].clone();
                if bytes.len() as u64 > n + 1 {
                    return self.invalid(v, "initializer-string is longer than the array");
                }
                for (i, b) in bytes.iter().take(*n as usize).enumerate() {
                    let value = self.const_expr(u64::from(*b), IntKind::Char, v);
                    items.push(InitItem {
                        offset: offset + i as u64,
                        ty: (**el).clone(),
                        value,
                    });
                }
                Ok(())
            }
            Type::Array(..) => self.unsupported(
                v,
                "initializer without braces for an array member (brace elision)",
            ),
            Type::Struct(_) => {
                let e = self.rvalue(v)?;
                if e.ty != *ty {
                    return self.unsupported(
                        v,
                        "initializer without braces for a struct member (brace elision)",
                    );
                }
                items.push(InitItem {
                    offset,
                    ty: ty.clone(),
                    value: e,
                });
                Ok(())
            }
            _ => {
                let e = self.rvalue(v)?;
                let e = self.convert(e, ty, v)?;
                items.push(InitItem {
                    offset,
                    ty: ty.clone(),
                    value: e,
                });
                Ok(())
            }
        }
    }
}
