//! Statements, flattened to instructions with jumps.

use super::*;

impl Lowerer {
    fn fs(&mut self) -> &mut FnState {
        self.fs.as_mut().expect("in a function")
    }

    fn here(&mut self) -> usize {
        self.fs().body.len()
    }

    pub(super) fn emit(&mut self, kind: InstrKind, range: SrcRange, stmt: StmtId) -> usize {
        let fs = self.fs();
        fs.body.push(Instr { kind, range, stmt });
        fs.body.len() - 1
    }

    /// A jump whose target is patched later.
    fn emit_jump(&mut self, range: SrcRange, stmt: StmtId) -> usize {
        self.emit(InstrKind::Jump(usize::MAX), range, stmt)
    }

    fn patch(&mut self, at: usize, target: usize) {
        match &mut self.fs().body[at].kind {
            InstrKind::Jump(t) => *t = target,
            InstrKind::Branch { then, els, .. } => {
                if *then == usize::MAX {
                    *then = target;
                } else {
                    *els = target;
                }
            }
            _ => unreachable!("patching a non-jump"),
        }
    }

    pub(super) fn compound(&mut self, n: Node, new_scope: bool) -> LResult<()> {
        if new_scope {
            self.push_scope();
        }
        for c in named_children(n) {
            self.statement(c)?;
        }
        if new_scope {
            self.pop_scope();
        }
        Ok(())
    }

    fn statement(&mut self, n: Node) -> LResult<()> {
        let range = self.range(n);
        match n.kind() {
            "compound_statement" => self.compound(n, true),
            "declaration" => self.local_declaration(n),
            "type_definition" | "struct_specifier" | "union_specifier" | "enum_specifier" => {
                self.top_item(n)
            }
            "expression_statement" => {
                let Some(e) = named_children(n).into_iter().next() else {
                    return Ok(());
                };
                self.expression_statement(e)
            }
            "if_statement" => {
                let stmt = self.new_stmt();
                let cn = field(n, "condition").expect("condition");
                let cond = self.condition(cn)?;
                let br = self.emit(
                    InstrKind::Branch {
                        cond,
                        then: usize::MAX,
                        els: usize::MAX,
                    },
                    self.range(cn),
                    stmt,
                );
                let then_at = self.here();
                self.patch(br, then_at);
                self.statement(field(n, "consequence").expect("consequence"))?;
                match field(n, "alternative") {
                    Some(alt) => {
                        let j = self.emit_jump(range, stmt);
                        let else_at = self.here();
                        self.patch(br, else_at);
                        for c in named_children(alt) {
                            self.statement(c)?;
                        }
                        let end = self.here();
                        self.patch(j, end);
                    }
                    None => {
                        let end = self.here();
                        self.patch(br, end);
                    }
                }
                Ok(())
            }
            "while_statement" => {
                let stmt = self.new_stmt();
                let cn = field(n, "condition").expect("condition");
                let top = self.here();
                let cond = self.condition(cn)?;
                let br = self.emit(
                    InstrKind::Branch {
                        cond,
                        then: usize::MAX,
                        els: usize::MAX,
                    },
                    self.range(cn),
                    stmt,
                );
                let body_at = self.here();
                self.patch(br, body_at);
                self.loop_body(field(n, "body").expect("body"), |s, conts| {
                    for c in conts {
                        s.patch(c, top);
                    }
                })?;
                let back = self.emit_jump(self.range(cn), stmt);
                self.patch(back, top);
                let end = self.here();
                self.patch(br, end);
                self.finish_breaks(end);
                Ok(())
            }
            "do_statement" => {
                let stmt = self.new_stmt();
                let top = self.here();
                let mut pending = Vec::new();
                self.loop_body(field(n, "body").expect("body"), |_, conts| pending = conts)?;
                let cn = field(n, "condition").expect("condition");
                let cond_at = self.here();
                for c in pending {
                    self.patch(c, cond_at);
                }
                let cond = self.condition(cn)?;
                self.emit(
                    InstrKind::Branch {
                        cond,
                        then: top,
                        els: usize::MAX,
                    },
                    self.range(cn),
                    stmt,
                );
                let end = self.here();
                if let InstrKind::Branch { els, .. } = &mut self.fs().body[cond_at].kind {
                    *els = end;
                }
                self.finish_breaks(end);
                Ok(())
            }
            "for_statement" => {
                self.push_scope();
                if let Some(init) = field(n, "initializer") {
                    if init.kind() == "declaration" {
                        self.local_declaration(init)?;
                    } else {
                        self.expression_statement(init)?;
                    }
                }
                let top = self.here();
                let br = match field(n, "condition") {
                    Some(cn) => {
                        let stmt = self.new_stmt();
                        let cond = self.condition(cn)?;
                        let br = self.emit(
                            InstrKind::Branch {
                                cond,
                                then: usize::MAX,
                                els: usize::MAX,
                            },
                            self.range(cn),
                            stmt,
                        );
                        let at = self.here();
                        self.patch(br, at);
                        Some(br)
                    }
                    None => None,
                };
                let mut pending = Vec::new();
                self.loop_body(field(n, "body").expect("body"), |_, conts| pending = conts)?;
                let update_at = self.here();
                for c in pending {
                    self.patch(c, update_at);
                }
                if let Some(u) = field(n, "update") {
                    self.expression_statement(u)?;
                }
                let stmt = self.new_stmt();
                let back = self.emit_jump(range, stmt);
                self.patch(back, top);
                let end = self.here();
                if let Some(br) = br {
                    self.patch(br, end);
                }
                self.finish_breaks(end);
                self.pop_scope();
                Ok(())
            }
            "switch_statement" => {
                let stmt = self.new_stmt();
                let cn = field(n, "condition").expect("condition");
                let v = self.rvalue(cn)?;
                let Some(k) = v.int_kind() else {
                    return self.invalid(cn, "switch on a non-integer");
                };
                let v = if k.promote() != k {
                    Expr {
                        kind: ExprKind::Cast(Box::new(v)),
                        ty: Type::Int(k.promote()),
                        range: self.range(cn),
                    }
                } else {
                    v
                };
                let sw = self.emit(
                    InstrKind::Switch {
                        value: v,
                        cases: Vec::new(),
                        default: usize::MAX,
                    },
                    self.range(cn),
                    stmt,
                );
                self.fs().switches.push(SwitchState {
                    kind: k.promote(),
                    cases: Vec::new(),
                    default: None,
                });
                self.fs().breaks.push(Vec::new());
                self.fs().continues.push(None);
                self.statement(field(n, "body").expect("body"))?;
                self.fs().continues.pop();
                let end = self.here();
                self.finish_breaks(end);
                let st = self.fs().switches.pop().expect("switch state");
                if let InstrKind::Switch { cases, default, .. } = &mut self.fs().body[sw].kind {
                    *cases = st.cases;
                    *default = st.default.unwrap_or(end);
                }
                Ok(())
            }
            "case_statement" => {
                let at = self.here();
                if self.fs().switches.is_empty() {
                    return self.invalid(n, "`case` outside a switch");
                }
                match field(n, "value") {
                    Some(vn) => {
                        let v = self.const_int(vn)?;
                        let sw = self.fs().switches.last_mut().expect("switch");
                        let bits = crate::intops::convert(
                            crate::types::IntKind::LongLong,
                            sw.kind,
                            v as u64,
                        );
                        if sw.cases.iter().any(|(b, _)| *b == bits) {
                            return self.invalid(vn, "duplicate case value");
                        }
                        sw.cases.push((bits, at));
                    }
                    None => self.fs().switches.last_mut().expect("switch").default = Some(at),
                }
                for c in named_children(n)
                    .into_iter()
                    .filter(|c| Some(*c) != field(n, "value"))
                {
                    self.statement(c)?;
                }
                Ok(())
            }
            "labeled_statement" => {
                let label = self.text(field(n, "label").expect("label")).to_string();
                let at = self.here();
                if self.fs().labels.insert(label.clone(), at).is_some() {
                    return self.invalid(n, format!("duplicate label `{label}`"));
                }
                for c in named_children(n).into_iter().skip(1) {
                    self.statement(c)?;
                }
                Ok(())
            }
            "goto_statement" => {
                let stmt = self.new_stmt();
                let label = self.text(field(n, "label").expect("label")).to_string();
                let j = self.emit_jump(range, stmt);
                self.fs().gotos.push((j, label, range));
                Ok(())
            }
            "break_statement" => {
                let stmt = self.new_stmt();
                if self.fs().breaks.is_empty() {
                    return self.invalid(n, "`break` outside a loop or switch");
                }
                let j = self.emit_jump(range, stmt);
                self.fs().breaks.last_mut().expect("break level").push(j);
                Ok(())
            }
            "continue_statement" => {
                let stmt = self.new_stmt();
                let j = self.emit_jump(range, stmt);
                match self
                    .fs()
                    .continues
                    .iter_mut()
                    .rev()
                    .find_map(|c| c.as_mut())
                {
                    Some(level) => {
                        level.push(j);
                        Ok(())
                    }
                    None => self.invalid(n, "`continue` outside a loop"),
                }
            }
            "return_statement" => {
                let stmt = self.new_stmt();
                let ret = self.fs().ret.clone();
                let value = match named_children(n).into_iter().next() {
                    Some(e) => {
                        let v = self.rvalue_or_void(e)?;
                        if ret == Type::Void {
                            if v.ty != Type::Void {
                                return self.invalid(n, "`return` with a value in a void function");
                            }
                            Some(v)
                        } else {
                            Some(self.convert(v, &ret, e)?)
                        }
                    }
                    None => None,
                };
                self.emit(InstrKind::Return(value), range, stmt);
                Ok(())
            }
            "function_definition" => self.unsupported(n, "nested function"),
            other => self.unsupported(n, format!("statement `{other}`")),
        }
    }

    /// Lower a loop body with fresh break/continue levels; `on_continue` gets the pending continues.
    fn loop_body(
        &mut self,
        body: Node,
        on_continue: impl FnOnce(&mut Self, Vec<usize>),
    ) -> LResult<()> {
        self.fs().breaks.push(Vec::new());
        self.fs().continues.push(Some(Vec::new()));
        self.statement(body)?;
        let conts = self.fs().continues.pop().flatten().unwrap_or_default();
        on_continue(self, conts);
        Ok(())
    }

    fn finish_breaks(&mut self, end: usize) {
        let pending = self.fs().breaks.pop().unwrap_or_default();
        for b in pending {
            self.patch(b, end);
        }
    }

    /// An expression used as a statement. GNU statement expressions, comma
    /// expressions and `(void)` casts at statement level (what glibc's `assert`
    /// expands to) become statements of their own.
    pub(super) fn expression_statement(&mut self, e: Node) -> LResult<()> {
        match e.kind() {
            "parenthesized_expression" | "extension_expression" => {
                let inner = named_children(e).into_iter().next().expect("inner");
                if inner.kind() == "compound_statement" {
                    return self.compound(inner, true);
                }
                self.expression_statement(inner)
            }
            "comma_expression" => {
                self.expression_statement(field(e, "left").expect("left"))?;
                self.expression_statement(field(e, "right").expect("right"))
            }
            "cast_expression" if self.text(field(e, "type").expect("type")).trim() == "void" => {
                let v = field(e, "value").expect("value");
                if v.kind() == "sizeof_expression" {
                    // `(void) sizeof (...)` has no effect, but must still be valid C.
                    self.expr(v)?;
                    return Ok(());
                }
                self.expression_statement(v)
            }
            _ => {
                let stmt = self.new_stmt();
                let x = self.rvalue_or_void(e)?;
                self.emit(InstrKind::Expr(x), self.range(e), stmt);
                Ok(())
            }
        }
    }

    fn local_declaration(&mut self, n: Node) -> LResult<()> {
        let base = self.base_type(n)?;
        let storage: Vec<String> = named_children(n)
            .iter()
            .filter(|c| c.kind() == "storage_class_specifier")
            .map(|c| self.text(*c).to_string())
            .collect();
        let mut c = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            let dd = self.declarator(base.clone(), d)?;
            let Some(name) = dd.name.clone() else {
                continue;
            };
            let value = if d.kind() == "init_declarator" {
                field(d, "value")
            } else {
                None
            };
            if matches!(dd.ty, Type::Func(_)) || storage.iter().any(|s| s == "extern") {
                return self.unsupported(d, "block-scope `extern` or function declaration");
            }
            if storage.iter().any(|s| s == "static") {
                let fname = self.fs().name.clone();
                let gid = self.define_global(&format!("{fname}.{name}"), dd.ty, value, false, d)?;
                self.bind(&name, Sym::Global(gid));
                continue;
            }
            let stmt = self.new_stmt();
            // The name is in scope inside its own initializer (`int x = x;` is legal C).
            let (init, ty) = match value {
                Some(v) => {
                    let lid = self.new_local(&name, dd.ty.clone(), d, false);
                    let (init, ty) = self.initializer(&dd.ty, v)?;
                    self.fs().locals[lid].ty = ty.clone();
                    (Some(init), (lid, ty))
                }
                None => {
                    if dd.ty.size(self.structs()).is_none() {
                        return self.invalid(d, format!("`{name}` has an incomplete type"));
                    }
                    let lid = self.new_local(&name, dd.ty.clone(), d, false);
                    (None, (lid, dd.ty))
                }
            };
            let (lid, _ty) = ty;
            self.emit(InstrKind::Init(lid, init), self.range(d), stmt);
        }
        Ok(())
    }
}
