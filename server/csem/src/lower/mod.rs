//! Lowering of tree-sitter-c syntax trees (of preprocessed sources) to the IR:
//! name resolution, types, implicit conversions made explicit, control flow
//! flattened to jumps.
//!
//! Lowering recurses once per level of nesting (up to 4.2 KiB of stack per
//! level, measured on a chain of `||`), and so do the interpreter and the
//! encoder over the IR it builds: a top-level item nesting deeper than
//! [`MAX_NESTING`] is refused before it is lowered, and lowering runs on a
//! thread with a stack sized for that limit (see `crate::load`).

mod decl;
mod expr;
mod init;
pub(crate) use expr::library_signature;
mod stmt;

use crate::error::CsemError;
use crate::ir::*;
use crate::preprocess::Preprocessed;
use crate::types::{StructDef, StructId, Type};
use faultlens_cfg::nesting::{self, MAX_NESTING};
use std::collections::HashMap;
use std::path::PathBuf;
use tree_sitter::Node;

pub type LResult<T> = Result<T, CsemError>;

#[derive(Clone, Debug)]
enum Sym {
    Local(LocalId),
    Global(GlobalId),
    Func(FuncId),
    EnumConst(i128),
    /// A typedef; `Err` holds why its type is outside the model (reported on use).
    Typedef(Result<Type, String>),
}

/// State of the function being lowered.
#[derive(Default)]
struct FnState {
    name: String,
    ret: Type,
    locals: Vec<Local>,
    body: Vec<Instr>,
    labels: HashMap<String, usize>,
    gotos: Vec<(usize, String, SrcRange)>,
    /// Pending `break` jumps per enclosing loop/switch.
    breaks: Vec<Vec<usize>>,
    /// Pending `continue` jumps per enclosing loop (None for a switch level).
    continues: Vec<Option<Vec<usize>>>,
    /// Cases of enclosing switches: (value bits, target), default target, the switch's type.
    switches: Vec<SwitchState>,
}

struct SwitchState {
    kind: crate::types::IntKind,
    cases: Vec<(u64, usize)>,
    default: Option<usize>,
}

/// Program-wide lowering state; one translation unit at a time.
pub struct Lowerer {
    pub prog: Program,
    globals_by_name: HashMap<String, GlobalId>,
    funcs_by_name: HashMap<String, FuncId>,
    struct_tags: Vec<HashMap<String, StructId>>,
    scopes: Vec<HashMap<String, Sym>>,
    fs: Option<FnState>,
    // Current translation unit.
    src: String,
    origins: Vec<Option<(u32, u32, bool)>>,
    tu_file: PathBuf,
}

impl Default for Lowerer {
    fn default() -> Self {
        Self::new()
    }
}

impl Lowerer {
    pub fn new() -> Self {
        Lowerer {
            prog: Program::default(),
            globals_by_name: HashMap::new(),
            funcs_by_name: HashMap::new(),
            struct_tags: vec![HashMap::new()],
            scopes: vec![HashMap::new()],
            fs: None,
            src: String::new(),
            origins: Vec::new(),
            tu_file: PathBuf::new(),
        }
    }

    fn file_id(&mut self, p: &PathBuf) -> u32 {
        if let Some(i) = self.prog.files.iter().position(|f| f == p) {
            return i as u32;
        }
        self.prog.files.push(p.clone());
        (self.prog.files.len() - 1) as u32
    }

    /// Lower one preprocessed translation unit into the program.
    pub fn add_translation_unit(&mut self, file: PathBuf, pp: Preprocessed) -> LResult<()> {
        let mut origins = Vec::with_capacity(pp.origins.len());
        for o in &pp.origins {
            origins.push(
                o.as_ref()
                    .map(|o| (self.file_id(&o.file), o.line, o.system)),
            );
        }
        for (text, origin) in pp.text.split('\n').zip(&origins) {
            if let Some((file, line, false)) = *origin {
                self.prog
                    .preprocessed_lines
                    .insert((file, line), text.to_string());
            }
        }
        self.origins = origins;
        self.src = pp.text;
        self.tu_file = file;
        self.scopes = vec![HashMap::new()];
        self.struct_tags = vec![HashMap::new()];
        let tree = match faultlens_cfg::parse::parse_c(&self.src) {
            Ok(tree) => tree,
            Err(e @ faultlens_cfg::parse::ParseError::TooSlow(_)) => {
                return Err(CsemError::Unsupported {
                    construct: e.to_string(),
                    file: self.tu_file.clone(),
                    line: 1,
                })
            }
            Err(e) => return Err(CsemError::Io(e.to_string())),
        };
        let root = tree.root_node();
        let mut cursor = root.walk();
        let items: Vec<Node> = root.named_children(&mut cursor).collect();
        for item in items {
            if let Err(deep) = nesting::check(item, MAX_NESTING) {
                return self.unsupported(deep.node, deep.describe());
            }
            let system = self.is_system(item);
            if item.has_error() && !system {
                let bad = first_error(item).unwrap_or(item);
                return Err(CsemError::Syntax {
                    file: self.file_of(bad),
                    line: self.range(bad).start.line,
                    message: if bad.is_missing() {
                        // Zero width: tree-sitter names the token it expected.
                        format!("expected `{}` here", bad.kind())
                    } else {
                        format!("cannot parse `{}`", self.snippet(bad))
                    },
                });
            }
            if system {
                // Headers: keep the types they define; the model supplies the library itself.
                self.system_item(item);
            } else {
                self.top_item(item)?;
            }
        }
        Ok(())
    }

    /// Check that every called function has a body and find `main`.
    pub fn finish(mut self) -> LResult<Program> {
        self.prog.main = self
            .funcs_by_name
            .get("main")
            .copied()
            .filter(|&f| self.prog.funcs[f].defined);
        Ok(self.prog)
    }

    // ---------- source positions and errors ----------

    fn is_system(&self, n: Node) -> bool {
        matches!(
            self.origins.get(n.start_position().row),
            Some(Some((_, _, true)))
        )
    }

    fn pos(&self, p: tree_sitter::Point) -> (u32, Pos) {
        match self.origins.get(p.row).copied().flatten() {
            Some((f, l, _)) => (
                f,
                Pos {
                    line: l,
                    col: p.column as u32 + 1,
                },
            ),
            None => (
                0,
                Pos {
                    line: 0,
                    col: p.column as u32 + 1,
                },
            ),
        }
    }

    fn range(&self, n: Node) -> SrcRange {
        let (file, start) = self.pos(n.start_position());
        let (_, mut end) = self.pos(n.end_position());
        if end.line < start.line {
            end = start;
        }
        SrcRange { file, start, end }
    }

    fn file_of(&self, n: Node) -> PathBuf {
        let r = self.range(n);
        self.prog
            .files
            .get(r.file as usize)
            .cloned()
            .unwrap_or_else(|| self.tu_file.clone())
    }

    /// The definition of a function `name` further on in the translation
    /// unit holding `n` (a call before it is an implicit declaration).
    fn later_definition<'t>(&self, n: Node<'t>, name: &str) -> Option<Node<'t>> {
        let mut root = n;
        while let Some(p) = root.parent() {
            root = p;
        }
        let mut cursor = root.walk();
        let found = root
            .named_children(&mut cursor)
            .filter(|d| d.kind() == "function_definition" && d.start_byte() > n.start_byte())
            .find(|d| {
                let mut decl = d.child_by_field_name("declarator");
                while let Some(x) = decl {
                    if x.kind() == "identifier" {
                        return self.text(x) == name;
                    }
                    decl = x.child_by_field_name("declarator");
                }
                false
            });
        found
    }

    fn text(&self, n: Node) -> &str {
        &self.src[n.byte_range()]
    }

    fn snippet(&self, n: Node) -> String {
        let t: String = self
            .text(n)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if t.chars().count() > 60 {
            format!("{}…", t.chars().take(60).collect::<String>())
        } else {
            t
        }
    }

    fn unsupported<T>(&self, n: Node, what: impl Into<String>) -> LResult<T> {
        Err(CsemError::Unsupported {
            construct: what.into(),
            file: self.file_of(n),
            line: self.range(n).start.line,
        })
    }

    fn invalid<T>(&self, n: Node, what: impl Into<String>) -> LResult<T> {
        Err(CsemError::Invalid {
            message: what.into(),
            file: self.file_of(n),
            line: self.range(n).start.line,
        })
    }

    // ---------- scopes ----------

    fn lookup(&self, name: &str) -> Option<&Sym> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn bind(&mut self, name: &str, sym: Sym) {
        self.scopes
            .last_mut()
            .expect("a scope")
            .insert(name.to_string(), sym);
    }

    fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
        self.struct_tags.push(HashMap::new());
    }

    fn pop_scope(&mut self) {
        self.scopes.pop();
        self.struct_tags.pop();
    }

    fn structs(&self) -> &[StructDef] {
        &self.prog.structs
    }

    fn size_of(&self, n: Node, t: &Type) -> LResult<u64> {
        match t.size(self.structs()) {
            Some(s) => Ok(s),
            None => self.invalid(
                n,
                format!("size of incomplete type `{}`", t.display(self.structs())),
            ),
        }
    }

    fn new_stmt(&mut self) -> StmtId {
        self.prog.stmt_count += 1;
        self.prog.stmt_count - 1
    }
}

/// The first error or missing node under `n` in pre-order, found without
/// recursion.
fn first_error(n: Node) -> Option<Node> {
    let mut cursor = n.walk();
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            return Some(node);
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        // Next sibling of this node or of the nearest ancestor that has one.
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return None;
            }
        }
    }
}

fn field<'t>(n: Node<'t>, name: &str) -> Option<Node<'t>> {
    n.child_by_field_name(name)
}

fn named_children(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|c| c.kind() != "comment")
        .collect()
}
