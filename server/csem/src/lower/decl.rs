//! Types, declarators and file-scope declarations.

use super::*;
use crate::types::{Field, FloatKind, FuncType, IntKind};

/// What a declarator says: the declared name (None for abstract ones), its type,
/// and for function declarators the parameter list node.
pub(super) struct Declared<'t> {
    pub name: Option<String>,
    pub ty: Type,
    pub params: Option<Node<'t>>,
}

impl Lowerer {
    fn has_storage(&self, decl: Node, word: &str) -> bool {
        named_children(decl)
            .iter()
            .any(|c| c.kind() == "storage_class_specifier" && self.text(*c) == word)
    }

    /// The type named by a declaration's `type` field.
    pub(super) fn base_type(&mut self, decl: Node) -> LResult<Type> {
        let Some(ts) = field(decl, "type") else {
            return self.invalid(decl, "declaration without a type");
        };
        self.type_specifier(ts)
    }

    pub(super) fn type_specifier(&mut self, ts: Node) -> LResult<Type> {
        match ts.kind() {
            "primitive_type" => self.primitive(ts, self.text(ts).to_string().as_str()),
            "sized_type_specifier" => {
                let text = self.text(ts).to_string();
                let words: Vec<&str> = text.split_whitespace().collect();
                let longs = words.iter().filter(|w| **w == "long").count();
                let unsigned = words.contains(&"unsigned");
                let k = if words.iter().any(|w| *w == "double" || *w == "float") {
                    // `long double` is the x87's 80-bit type.
                    return self.unsupported(ts, format!("floating-point type `{text}`"));
                } else if words.contains(&"char") {
                    if unsigned {
                        IntKind::UChar
                    } else if words.contains(&"signed") {
                        IntKind::SChar
                    } else {
                        IntKind::Char
                    }
                } else if words.contains(&"short") {
                    if unsigned {
                        IntKind::UShort
                    } else {
                        IntKind::Short
                    }
                } else if longs == 1 {
                    if unsigned {
                        IntKind::ULong
                    } else {
                        IntKind::Long
                    }
                } else if longs >= 2 {
                    if unsigned {
                        IntKind::ULongLong
                    } else {
                        IntKind::LongLong
                    }
                } else if unsigned {
                    IntKind::UInt
                } else {
                    IntKind::Int
                };
                Ok(Type::Int(k))
            }
            "type_identifier" => self.type_specifier_named(ts),
            "struct_specifier" | "union_specifier" => self.struct_specifier(ts),
            "enum_specifier" => self.enum_specifier(ts),
            other => self.unsupported(ts, format!("type specifier `{other}`")),
        }
    }

    /// A type named by an identifier: a typedef, or `_Bool`.
    pub(super) fn type_specifier_named(&mut self, ts: Node) -> LResult<Type> {
        let name = self.text(ts).to_string();
        match self.lookup(&name) {
            Some(Sym::Typedef(Ok(t))) => Ok(t.clone()),
            Some(Sym::Typedef(Err(why))) => self.unsupported(ts, format!("type `{name}` ({why})")),
            _ if matches!(name.as_str(), "_Bool" | "bool") => Ok(Type::Int(IntKind::Bool)),
            _ => self.invalid(ts, format!("unknown type name `{name}`")),
        }
    }

    fn primitive(&mut self, n: Node, name: &str) -> LResult<Type> {
        use IntKind::*;
        let k = match name {
            "void" => return Ok(Type::Void),
            "char" => Char,
            "int" => Int,
            "short" => Short,
            "long" => Long,
            "signed" => Int,
            "unsigned" => UInt,
            "_Bool" | "bool" => Bool,
            "size_t" | "uintptr_t" | "uint64_t" => ULong,
            "ssize_t" | "ptrdiff_t" | "intptr_t" | "int64_t" => Long,
            "int8_t" => SChar,
            "uint8_t" => UChar,
            "int16_t" => Short,
            "uint16_t" => UShort,
            "int32_t" => Int,
            "uint32_t" => UInt,
            "float" => return Ok(Type::Float(FloatKind::Float)),
            "double" => return Ok(Type::Float(FloatKind::Double)),
            other => return self.unsupported(n, format!("type `{other}`")),
        };
        Ok(Type::Int(k))
    }

    fn struct_specifier(&mut self, ts: Node) -> LResult<Type> {
        let is_union = ts.kind() == "union_specifier";
        let name = field(ts, "name").map(|n| self.text(n).to_string());
        let body = field(ts, "body");
        let id = match (&name, body) {
            (Some(name), None) => {
                // A reference: find the tag in scope, or forward-declare it here.
                if let Some(id) = self.struct_tags.iter().rev().find_map(|s| s.get(name)) {
                    return Ok(Type::Struct(*id));
                }
                self.new_struct(name.clone(), is_union)
            }
            (Some(name), Some(_)) => match self.struct_tags.last().and_then(|s| s.get(name)) {
                Some(&id) if self.prog.structs[id].fields.is_none() => id,
                _ => self.new_struct(name.clone(), is_union),
            },
            (None, _) => self.new_struct("<anonymous>".into(), is_union),
        };
        if let Some(body) = body {
            let mut fields = Vec::new();
            let (mut size, mut align) = (0u64, 1u64);
            for fd in named_children(body) {
                if fd.kind() != "field_declaration" {
                    return self.unsupported(fd, format!("`{}` in a struct", fd.kind()));
                }
                if named_children(fd)
                    .iter()
                    .any(|c| c.kind() == "bitfield_clause")
                {
                    return self.unsupported(fd, "bit-field");
                }
                let base = self.base_type(fd)?;
                let mut c = fd.walk();
                let decls: Vec<Node> = fd.children_by_field_name("declarator", &mut c).collect();
                if decls.is_empty() {
                    return self.unsupported(fd, "anonymous struct or union member");
                }
                for d in decls {
                    let dd = self.declarator(base.clone(), d)?;
                    let Some(fname) = dd.name else {
                        return self.invalid(d, "member without a name");
                    };
                    let fsize = self.size_of(d, &dd.ty)?;
                    let falign = dd.ty.align(self.structs());
                    let offset = if is_union {
                        0
                    } else {
                        size.div_ceil(falign) * falign
                    };
                    size = if is_union {
                        size.max(fsize)
                    } else {
                        offset + fsize
                    };
                    align = align.max(falign);
                    fields.push(Field {
                        name: fname,
                        ty: dd.ty,
                        offset,
                    });
                }
            }
            let s = &mut self.prog.structs[id];
            s.fields = Some(fields);
            s.align = align;
            s.size = size.div_ceil(align) * align;
        }
        Ok(Type::Struct(id))
    }

    fn new_struct(&mut self, name: String, is_union: bool) -> StructId {
        self.prog.structs.push(StructDef {
            name: name.clone(),
            is_union,
            fields: None,
            size: 0,
            align: 1,
        });
        let id = self.prog.structs.len() - 1;
        if name != "<anonymous>" {
            self.struct_tags
                .last_mut()
                .expect("a tag scope")
                .insert(name, id);
        }
        id
    }

    fn enum_specifier(&mut self, ts: Node) -> LResult<Type> {
        let Some(body) = field(ts, "body") else {
            return Ok(Type::Int(IntKind::UInt));
        };
        let mut next: i128 = 0;
        let mut any_negative = false;
        for e in named_children(body) {
            if e.kind() != "enumerator" {
                return self.unsupported(e, format!("`{}` in an enum", e.kind()));
            }
            let name = self
                .text(field(e, "name").expect("enumerator name"))
                .to_string();
            if let Some(v) = field(e, "value") {
                next = self.const_int(v)?;
            }
            any_negative |= next < 0;
            self.bind(&name, Sym::EnumConst(next));
            next += 1;
        }
        // gcc gives an enum with no negative constant the type unsigned int.
        Ok(Type::Int(if any_negative {
            IntKind::Int
        } else {
            IntKind::UInt
        }))
    }

    /// Apply a declarator to a base type.
    pub(super) fn declarator<'t>(&mut self, base: Type, d: Node<'t>) -> LResult<Declared<'t>> {
        match d.kind() {
            "identifier" | "field_identifier" | "type_identifier" | "primitive_type" => {
                Ok(Declared {
                    name: Some(self.text(d).to_string()),
                    ty: base,
                    params: None,
                })
            }
            "pointer_declarator" | "abstract_pointer_declarator" => {
                let t = Type::ptr_to(base);
                match field(d, "declarator") {
                    Some(inner) => self.declarator(t, inner),
                    None => Ok(Declared {
                        name: None,
                        ty: t,
                        params: None,
                    }),
                }
            }
            "array_declarator" | "abstract_array_declarator" => {
                let len = match field(d, "size") {
                    Some(s) if s.kind() != "*" => {
                        let n = self.const_int(s)?;
                        if n <= 0 {
                            return self.invalid(s, format!("array size {n} is not positive"));
                        }
                        Some(n as u64)
                    }
                    _ => None,
                };
                if base.size(self.structs()).is_none() {
                    return self.invalid(d, "array of an incomplete type");
                }
                let t = Type::Array(Box::new(base), len);
                match field(d, "declarator") {
                    Some(inner) => self.declarator(t, inner),
                    None => Ok(Declared {
                        name: None,
                        ty: t,
                        params: None,
                    }),
                }
            }
            "function_declarator" | "abstract_function_declarator" => {
                let params_node = field(d, "parameters").expect("parameter list");
                let (params, variadic) = self.param_types(params_node)?;
                let t = Type::Func(Box::new(FuncType {
                    ret: base,
                    params,
                    variadic,
                }));
                match field(d, "declarator") {
                    Some(inner) => {
                        let mut r = self.declarator(t, inner)?;
                        if r.params.is_none() {
                            r.params = Some(params_node);
                        }
                        Ok(r)
                    }
                    None => Ok(Declared {
                        name: None,
                        ty: t,
                        params: Some(params_node),
                    }),
                }
            }
            "parenthesized_declarator"
            | "abstract_parenthesized_declarator"
            | "attributed_declarator" => {
                match named_children(d)
                    .into_iter()
                    .find(|c| c.kind() != "attribute_specifier")
                {
                    Some(inner) => self.declarator(base, inner),
                    None => Ok(Declared {
                        name: None,
                        ty: base,
                        params: None,
                    }),
                }
            }
            "init_declarator" => self.declarator(base, field(d, "declarator").expect("declarator")),
            other => self.unsupported(d, format!("declarator `{other}`")),
        }
    }

    /// Parameter types after adjustment (arrays become pointers).
    fn param_types(&mut self, list: Node) -> LResult<(Vec<Type>, bool)> {
        let mut out = Vec::new();
        let mut variadic = false;
        let params = named_children(list);
        for p in &params {
            if self.old_style_name(*p).is_some() {
                // An old-style (K&R) parameter: `int` until the definition's
                // declarations say otherwise (see `old_style_parameters`).
                out.push(Type::Int(IntKind::Int));
                continue;
            }
            match p.kind() {
                "variadic_parameter" => variadic = true,
                "parameter_declaration" => {
                    let base = self.base_type(*p)?;
                    let t = match field(*p, "declarator") {
                        Some(d) => self.declarator(base, d)?.ty,
                        None => base,
                    };
                    if t == Type::Void && params.len() == 1 {
                        break;
                    }
                    out.push(adjust_param(t));
                }
                other => return self.unsupported(*p, format!("parameter `{other}`")),
            }
        }
        if params.is_empty() {
            // `f()` declares no prototype; the model treats it as `f(void)`.
        }
        Ok((out, variadic))
    }

    /// A declaration from a system header: keep typedefs, structs and enums
    /// when the model can express them; skip everything else.
    pub(super) fn system_item(&mut self, item: Node) {
        match item.kind() {
            "type_definition" => {
                let _ = self.typedef(item, true);
            }
            "declaration" => {
                // Only struct/enum definitions matter (e.g. `struct tm`); their failures are ignored.
                if let Some(ts) = field(item, "type") {
                    if matches!(
                        ts.kind(),
                        "struct_specifier" | "union_specifier" | "enum_specifier"
                    ) && field(ts, "body").is_some()
                    {
                        let _ = self.type_specifier(ts);
                    }
                }
            }
            // `enum { _ISupper = ..., ... };` (glibc's <ctype.h>): a
            // definition with no declarator.
            "struct_specifier" | "union_specifier" | "enum_specifier"
                if field(item, "body").is_some() =>
            {
                let _ = self.type_specifier(item);
            }
            _ => {}
        }
    }

    fn typedef(&mut self, item: Node, lenient: bool) -> LResult<()> {
        let base = self.base_type(item);
        let mut c = item.walk();
        let decls: Vec<Node> = item.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            let r = match &base {
                Ok(b) => self.declarator(b.clone(), d),
                Err(e) => Err(e.clone()),
            };
            let name = match &r {
                Ok(dd) => dd.name.clone(),
                Err(_) => declared_name(self, d),
            };
            let Some(name) = name else { continue };
            match r {
                Ok(dd) => self.bind(&name, Sym::Typedef(Ok(dd.ty))),
                Err(e) if lenient => {
                    let why = match e {
                        CsemError::Unsupported { construct, .. } => construct,
                        other => other.to_string(),
                    };
                    self.bind(&name, Sym::Typedef(Err(why)));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    pub(super) fn top_item(&mut self, item: Node) -> LResult<()> {
        match item.kind() {
            "function_definition" => self.function_definition(item),
            "declaration" => self.global_declaration(item),
            "type_definition" => self.typedef(item, false),
            "struct_specifier" | "union_specifier" | "enum_specifier" => {
                self.type_specifier(item).map(|_| ())
            }
            "expression_statement" if self.text(item).trim() == ";" => Ok(()),
            "comment" => Ok(()),
            other => self.unsupported(item, format!("`{other}` at file scope")),
        }
    }

    /// A call of `name` before any declaration, defined later by `def`: C89's
    /// implicit declaration `int name()`, which gcc up to 13 accepts, with the
    /// parameter types of the definition (the arguments' default promotions
    /// followed by the callee's conversion, for the integer types the model
    /// has). The error says why it cannot be modelled so: gcc itself rejects
    /// a definition returning other than `int`, a `static` one, or one whose
    /// prototype has a parameter the promotions cannot reach; and a
    /// definition whose types are declared only after the call cannot be
    /// read at the call.
    pub(super) fn declare_implicitly(&mut self, name: &str, def: Node) -> Result<(), String> {
        let (ft, old_style) = self.later_signature(def)?;
        if !old_style
            && ft
                .params
                .iter()
                .any(|t| matches!(t, Type::Int(k) if k.bits() < 32))
        {
            return Err("its definition's prototype has a parameter narrower than `int`, which conflicts with the implicit declaration (gcc rejects it as conflicting types)".into());
        }
        if ft.ret != Type::Int(IntKind::Int) {
            return Err(
                "its definition returns other than the `int` an implicit declaration gives it, which gcc rejects as conflicting types".into(),
            );
        }
        if self.has_storage(def, "static") {
            return Err("its definition is `static`, which gcc rejects after an implicit (external) declaration".into());
        }
        let d = field(def, "declarator").ok_or("its definition has no declarator")?;
        self.declare_function(name, &ft, d)
            .map_err(|e| format!("its definition cannot be read at the call ({e})"))?;
        Ok(())
    }

    /// The type of the function `def` defines, read at a call before it, and
    /// whether the definition is old-style.
    pub(super) fn later_signature(&mut self, def: Node) -> Result<(FuncType, bool), String> {
        let why = |e: CsemError| format!("its definition cannot be read at the call ({e})");
        let base = self.base_type(def).map_err(why)?;
        let d = field(def, "declarator").ok_or("its definition has no declarator")?;
        let dd = self.declarator(base, d).map_err(why)?;
        let (Type::Func(mut ft), Some(params)) = (dd.ty, dd.params) else {
            return Err("its definition is not a function's".into());
        };
        let declared = self.old_style_parameters(def, params).map_err(why)?;
        let old_style = declared.is_some();
        if let Some(declared) = declared {
            ft.params = declared.into_iter().map(|(_, ty, _)| ty).collect();
        }
        Ok((*ft, old_style))
    }

    /// A call of `id`, declared without a prototype (`int f();`) and defined
    /// further on by `def`, with arguments: the definition's types are the
    /// call's, as for an implicit declaration.
    pub(super) fn prototype_from_definition(&mut self, id: FuncId, def: Node) -> Option<Vec<Type>> {
        let (ft, _) = self.later_signature(def).ok()?;
        self.prototypes_insert(id, ft.clone());
        Some(ft.params)
    }

    fn declare_function(&mut self, name: &str, ft: &FuncType, n: Node) -> LResult<FuncId> {
        if let Some(&id) = self.funcs_by_name.get(name) {
            self.bind(name, Sym::Func(id));
            return Ok(id);
        }
        if ft.variadic {
            return self.unsupported(n, format!("variadic function `{name}`"));
        }
        self.prog.funcs.push(Function {
            name: name.to_string(),
            ret: ft.ret.clone(),
            params: Vec::new(),
            locals: Vec::new(),
            body: Vec::new(),
            range: self.range(n),
            defined: false,
        });
        let id = self.prog.funcs.len() - 1;
        self.funcs_by_name.insert(name.to_string(), id);
        // Parameter types are remembered through locals when defined; keep the prototype here.
        self.prototypes_insert(id, ft.clone());
        self.bind(name, Sym::Func(id));
        Ok(id)
    }

    fn prototypes_insert(&mut self, id: FuncId, ft: FuncType) {
        let f = &mut self.prog.funcs[id];
        f.ret = ft.ret.clone();
        // Prototype parameters as unnamed locals until the definition replaces them.
        if !f.defined {
            f.locals = ft
                .params
                .iter()
                .map(|t| Local {
                    name: String::new(),
                    ty: t.clone(),
                    range: f.range,
                    is_param: true,
                })
                .collect();
            f.params = (0..ft.params.len()).collect();
        }
    }

    fn global_declaration(&mut self, item: Node) -> LResult<()> {
        let base = self.base_type(item)?;
        let is_extern = self.has_storage(item, "extern");
        let mut c = item.walk();
        let decls: Vec<Node> = item.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            let dd = self.declarator(base.clone(), d)?;
            let Some(name) = dd.name.clone() else {
                continue;
            };
            if let Type::Func(ft) = &dd.ty {
                self.declare_function(&name, ft, d)?;
                continue;
            }
            let value = if d.kind() == "init_declarator" {
                field(d, "value")
            } else {
                None
            };
            self.define_global(&name, dd.ty, value, is_extern, d)?;
        }
        Ok(())
    }

    /// Define (or re-declare) a global; returns its id.
    pub(super) fn define_global(
        &mut self,
        name: &str,
        mut ty: Type,
        value: Option<Node>,
        is_extern: bool,
        d: Node,
    ) -> LResult<GlobalId> {
        let init = match value {
            Some(v) => {
                let (init, t) = self.initializer(&ty, v)?;
                ty = t;
                Some(init)
            }
            None if is_extern => None,
            None => Some(Initializer {
                zero: true,
                items: Vec::new(),
                bytes: None,
            }),
        };
        if ty.size(self.structs()).is_none() && !is_extern {
            return self.invalid(d, format!("`{name}` has an incomplete type"));
        }
        let id = match self.globals_by_name.get(name) {
            Some(&id) => {
                if init.is_some() {
                    let g = &mut self.prog.globals[id];
                    if g.init
                        .as_ref()
                        .is_some_and(|i| !i.items.is_empty() || i.bytes.is_some())
                        && value.is_some()
                    {
                        return self.invalid(d, format!("redefinition of `{name}`"));
                    }
                    if value.is_some() || g.init.is_none() {
                        g.init = init;
                    }
                    g.ty = ty;
                }
                id
            }
            None => {
                self.prog.globals.push(Global {
                    name: name.to_string(),
                    ty,
                    init,
                    range: self.range(d),
                });
                let id = self.prog.globals.len() - 1;
                if !name.contains('.') {
                    self.globals_by_name.insert(name.to_string(), id);
                }
                id
            }
        };
        self.bind(name, Sym::Global(id));
        Ok(id)
    }

    fn function_definition(&mut self, item: Node) -> LResult<()> {
        let base = self.base_type(item)?;
        let d = field(item, "declarator").expect("declarator");
        let dd = self.declarator(base, d)?;
        let (Some(name), Type::Func(mut ft), Some(params)) =
            (dd.name.clone(), dd.ty.clone(), dd.params)
        else {
            return self.invalid(d, "function definition without a function declarator");
        };
        let old_style = self.old_style_parameters(item, params)?;
        if let Some(declared) = &old_style {
            ft.params = declared.iter().map(|(_, ty, _)| ty.clone()).collect();
        }
        let id = self.declare_function(&name, &ft, d)?;
        if self.prog.funcs[id].defined {
            return self.invalid(d, format!("redefinition of function `{name}`"));
        }
        self.prog.funcs[id].defined = true;
        self.fs = Some(FnState {
            name: name.clone(),
            ret: ft.ret.clone(),
            ..Default::default()
        });
        self.push_scope();
        let mut param_ids = Vec::new();
        for (pname, ty, at) in old_style.into_iter().flatten() {
            param_ids.push(self.new_local(&pname, ty, at, true));
        }
        for p in named_children(params) {
            if p.kind() != "parameter_declaration" || self.old_style_name(p).is_some() {
                continue;
            }
            let b = self.base_type(p)?;
            let Some(pd) = field(p, "declarator") else {
                continue;
            };
            let pdd = self.declarator(b, pd)?;
            let Some(pname) = pdd.name else {
                return self.unsupported(p, "unnamed parameter in a function definition");
            };
            let ty = adjust_param(pdd.ty);
            let lid = self.new_local(&pname, ty, pd, true);
            param_ids.push(lid);
        }
        let body = field(item, "body").expect("body");
        self.compound(body, false)?;
        let end = self.range(body);
        let end = SrcRange {
            start: end.end,
            ..end
        };
        let stmt = self.new_stmt();
        self.emit(InstrKind::FallOff, end, stmt);
        self.pop_scope();
        let fs = self.fs.take().expect("function state");
        let mut body_instrs = fs.body;
        for (at, label, range) in fs.gotos {
            let Some(&target) = fs.labels.get(&label) else {
                return Err(CsemError::Invalid {
                    message: format!("goto to undefined label `{label}`"),
                    file: self
                        .prog
                        .files
                        .get(range.file as usize)
                        .cloned()
                        .unwrap_or_default(),
                    line: range.start.line,
                });
            };
            body_instrs[at].kind = InstrKind::Jump(target);
        }
        let frange = self.range(item);
        let f = &mut self.prog.funcs[id];
        f.params = param_ids;
        f.locals = fs.locals;
        f.body = body_instrs;
        f.range = frange;
        f.ret = ft.ret.clone();
        Ok(())
    }

    /// The name of an old-style parameter: an identifier in the list, or
    /// (as tree-sitter reads `int f(x) { … }`, with no declarations
    /// before the body) a lone type name that names no type.
    fn old_style_name(&self, p: Node) -> Option<String> {
        if !p.parent().is_some_and(defines_a_function) {
            // In a prototype, a function pointer's parameters or a cast, an
            // unknown name is an unknown type, as gcc says.
            return None;
        }
        match p.kind() {
            "identifier" => Some(self.text(p).to_string()),
            "parameter_declaration" if field(p, "declarator").is_none() => {
                let t = field(p, "type").filter(|t| t.kind() == "type_identifier")?;
                if named_children(p).len() != 1 {
                    return None;
                }
                let name = self.text(t).to_string();
                match self.lookup(&name) {
                    Some(Sym::Typedef(_)) => None,
                    _ => Some(name),
                }
            }
            _ => None,
        }
    }

    /// The parameters of an old-style (K&R) definition, `int f(a, s) char
    /// *s; { … }`: each name in the list with the type the declarations
    /// between the declarator and the body give it (`int` when none does, as
    /// C89 reads it), adjusted as a prototype's would be. A caller converts
    /// each argument to that type, which for integers is what gcc's default
    /// promotions followed by the callee's conversion compute. `None` for a
    /// definition with a prototype.
    fn old_style_parameters<'t>(
        &mut self,
        item: Node<'t>,
        params: Node<'t>,
    ) -> LResult<Option<Vec<(String, Type, Node<'t>)>>> {
        let names: Vec<Node> = named_children(params)
            .into_iter()
            .filter(|p| self.old_style_name(*p).is_some())
            .collect();
        if names.is_empty() {
            return Ok(None);
        }
        let mut declared: HashMap<String, (Type, Node)> = HashMap::new();
        for decl in named_children(item)
            .into_iter()
            .filter(|c| c.kind() == "declaration")
        {
            let base = self.base_type(decl)?;
            let mut c = decl.walk();
            let decls: Vec<Node> = decl.children_by_field_name("declarator", &mut c).collect();
            for d in decls {
                let dd = self.declarator(base.clone(), d)?;
                let Some(pname) = dd.name else {
                    return self.invalid(d, "a parameter declaration without a name");
                };
                if !names
                    .iter()
                    .any(|n| self.old_style_name(*n).as_deref() == Some(&pname))
                {
                    return self.invalid(
                        d,
                        format!("`{pname}` is declared but is not a parameter of this old-style definition"),
                    );
                }
                if declared.insert(pname.clone(), (dd.ty, d)).is_some() {
                    return self.invalid(d, format!("parameter `{pname}` is declared twice"));
                }
            }
        }
        Ok(Some(
            names
                .iter()
                .map(|n| {
                    let pname = self.old_style_name(*n).unwrap_or_default();
                    let (ty, at) = declared
                        .remove(&pname)
                        .unwrap_or((Type::Int(IntKind::Int), *n));
                    (pname, adjust_param(ty), at)
                })
                .collect(),
        ))
    }

    pub(super) fn new_local(&mut self, name: &str, ty: Type, n: Node, is_param: bool) -> LocalId {
        let range = self.range(n);
        let fs = self.fs.as_mut().expect("in a function");
        fs.locals.push(Local {
            name: name.to_string(),
            ty,
            range,
            is_param,
        });
        let id = fs.locals.len() - 1;
        self.bind(name, Sym::Local(id));
        id
    }

    /// Parameter types of a function: from its definition or prototype.
    pub(super) fn param_types_of(&self, f: FuncId) -> Vec<Type> {
        let func = &self.prog.funcs[f];
        func.params
            .iter()
            .map(|&p| func.locals[p].ty.clone())
            .collect()
    }
}

fn adjust_param(t: Type) -> Type {
    match t {
        Type::Array(e, _) => Type::Ptr(e),
        t @ Type::Func(_) => Type::ptr_to(t),
        t => t,
    }
}

fn declared_name(l: &Lowerer, d: Node) -> Option<String> {
    match d.kind() {
        "identifier" | "type_identifier" | "field_identifier" | "primitive_type" => {
            Some(l.text(d).to_string())
        }
        _ => {
            if let Some(inner) = field(d, "declarator") {
                return declared_name(l, inner);
            }
            named_children(d)
                .into_iter()
                .find_map(|c| declared_name(l, c))
        }
    }
}

/// Whether `list`, a parameter list, is the one of a function definition's
/// own declarator: old-style parameter names are allowed there only.
fn defines_a_function(list: Node) -> bool {
    let mut at = list.parent();
    while let Some(n) = at {
        match n.kind() {
            "function_definition" => return true,
            k if k.ends_with("declarator") => at = n.parent(),
            _ => return false,
        }
    }
    false
}
