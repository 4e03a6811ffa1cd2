//! The IR: typed expression trees with every conversion explicit, and function
//! bodies as flat instruction lists with jumps (so `goto`, `switch` and loops
//! are plain control flow). Every node keeps the source range it came from.

use crate::types::{IntKind, StructDef, Type};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Pos {
    /// 1-based line in the original (not preprocessed) file.
    pub line: u32,
    /// 1-based column; exact unless a macro expanded on that line.
    pub col: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SrcRange {
    /// Index into [`Program::files`].
    pub file: u32,
    pub start: Pos,
    pub end: Pos,
}

pub type LocalId = usize;
pub type GlobalId = usize;
pub type FuncId = usize;
pub type StrId = usize;
/// A statement: the unit the trace reports and formulas will rank.
pub type StmtId = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl BinOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        )
    }
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    BitNot,
    /// `!x`: operand is any scalar, result int 0/1.
    LogNot,
}

/// Library functions the model implements itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    Printf,
    Puts,
    Putchar,
    Scanf,
    Getchar,
    Atoi,
    Atol,
    Strtol,
    Abs,
    Labs,
    Strlen,
    Strcmp,
    Strncmp,
    Strcpy,
    Memset,
    Exit,
    /// `__assert_fail(expr, file, line, func)`, what glibc's `assert` expands to.
    AssertFail,
    Abort,
    Fprintf,
    Fputs,
    Fputc,
    Fgets,
    Fflush,
    Strtoul,
    Strchr,
    Strcspn,
    Strspn,
    Memcpy,
    /// `memmove`: `memcpy` whose source and destination may overlap (the
    /// model's copies read the whole source before writing).
    Memmove,
    Strcat,
    Strncpy,
    Malloc,
    Calloc,
    Realloc,
    Free,
    Qsort,
    Bsearch,
    Fopen,
    /// `getenv(name)`: the test's environment ([`crate::TestInput::env`]).
    Getenv,
    /// `__ctype_b_loc()`, `__ctype_tolower_loc()`, `__ctype_toupper_loc()`:
    /// what glibc's `<ctype.h>` macros index (the C locale's tables).
    CtypeB,
    CtypeTolower,
    CtypeToupper,
    Fclose,
    Fgetc,
    Fscanf,
    Fread,
    Feof,
    Ferror,
    Sprintf,
    Snprintf,
    Strtod,
    Strtof,
    Atof,
    /// A `<math.h>` function of `double`s.
    Math(crate::float::MathFn),
}

impl Builtin {
    /// The library function's name in C.
    pub fn c_name(self) -> &'static str {
        match self {
            Builtin::Printf => "printf",
            Builtin::Puts => "puts",
            Builtin::Putchar => "putchar",
            Builtin::Scanf => "scanf",
            Builtin::Getchar => "getchar",
            Builtin::Atoi => "atoi",
            Builtin::Atol => "atol",
            Builtin::Strtol => "strtol",
            Builtin::Abs => "abs",
            Builtin::Labs => "labs",
            Builtin::Strlen => "strlen",
            Builtin::Strcmp => "strcmp",
            Builtin::Strncmp => "strncmp",
            Builtin::Strcpy => "strcpy",
            Builtin::Memset => "memset",
            Builtin::Exit => "exit",
            Builtin::AssertFail => "__assert_fail",
            Builtin::Abort => "abort",
            Builtin::Fprintf => "fprintf",
            Builtin::Fputs => "fputs",
            Builtin::Fputc => "fputc",
            Builtin::Fgets => "fgets",
            Builtin::Fflush => "fflush",
            Builtin::Strtoul => "strtoul",
            Builtin::Strchr => "strchr",
            Builtin::Strcspn => "strcspn",
            Builtin::Strspn => "strspn",
            Builtin::Memcpy => "memcpy",
            Builtin::Memmove => "memmove",
            Builtin::Strcat => "strcat",
            Builtin::Strncpy => "strncpy",
            Builtin::Malloc => "malloc",
            Builtin::Calloc => "calloc",
            Builtin::Realloc => "realloc",
            Builtin::Free => "free",
            Builtin::Qsort => "qsort",
            Builtin::Bsearch => "bsearch",
            Builtin::Fopen => "fopen",
            Builtin::Getenv => "getenv",
            Builtin::CtypeB => "__ctype_b_loc",
            Builtin::CtypeTolower => "__ctype_tolower_loc",
            Builtin::CtypeToupper => "__ctype_toupper_loc",
            Builtin::Fclose => "fclose",
            Builtin::Fgetc => "fgetc",
            Builtin::Fscanf => "fscanf",
            Builtin::Fread => "fread",
            Builtin::Feof => "feof",
            Builtin::Ferror => "ferror",
            Builtin::Sprintf => "sprintf",
            Builtin::Snprintf => "snprintf",
            Builtin::Strtod => "strtod",
            Builtin::Strtof => "strtof",
            Builtin::Atof => "atof",
            Builtin::Math(f) => f.name(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    /// For lvalue kinds: the object's type. For rvalues: the value's type.
    pub ty: Type,
    pub range: SrcRange,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    // ---- lvalues (designate an object) ----
    Local(LocalId),
    Global(GlobalId),
    Str(StrId),
    /// `*p`: operand is a pointer rvalue.
    Deref(Box<Expr>),
    /// `s.f`: operand is a struct lvalue; the field sits at `offset`.
    Member(Box<Expr>, u64),

    // ---- rvalues ----
    /// `stdin` (0), `stdout` (1) or `stderr` (2), of type `void *`.
    Stream(u8),
    /// Canonical bits of an integer constant of type `ty`.
    Const(u64),
    /// A null pointer constant of pointer type `ty`.
    Null,
    /// Read the value of an lvalue (lvalue conversion).
    Load(Box<Expr>),
    /// `&lv`.
    AddrOf(Box<Expr>),
    /// Array lvalue to pointer to its first element.
    Decay(Box<Expr>),
    /// Conversion of a scalar to the scalar type `ty`.
    Cast(Box<Expr>),
    Unary(UnOp, Box<Expr>),
    /// Integer operation; operands already converted to the operation type
    /// (for comparisons the operands' common type; `ty` is then int).
    /// For shifts the right operand keeps its own promoted type.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Pointer plus (or, with `sub`, minus) an integer converted to `long`, scaled by the pointee size.
    PtrAdd {
        ptr: Box<Expr>,
        index: Box<Expr>,
        sub: bool,
    },
    /// Pointer minus pointer, in elements (`ty` long).
    PtrDiff(Box<Expr>, Box<Expr>),
    /// Pointer comparison (result int).
    PtrCmp(BinOp, Box<Expr>, Box<Expr>),
    LogAnd(Box<Expr>, Box<Expr>),
    LogOr(Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
    /// `lv = rhs` (rhs already converted to the lvalue's type); value is the stored value.
    Assign(Box<Expr>, Box<Expr>),
    /// `lv op= rhs`: load lv, convert to `op_ty`, apply op with rhs (already in `op_ty`, or the
    /// shift count's type), convert back. For pointers `op` is Add/Sub and is pointer arithmetic.
    CompoundAssign {
        op: BinOp,
        lv: Box<Expr>,
        rhs: Box<Expr>,
        op_ty: Type,
    },
    /// `++`/`--`, prefix or postfix, on an integer or pointer lvalue.
    IncDec {
        lv: Box<Expr>,
        inc: bool,
        prefix: bool,
    },
    Call(FuncId, Vec<Expr>),
    Builtin(Builtin, Vec<Expr>),
    /// A function designator converted to a pointer to it (`f`, `&f`, `*fp`);
    /// `ty` is a pointer to the function's type.
    FuncAddr(Callee),
    /// A call through the function pointer `callee`; the arguments are
    /// already converted to the pointer's parameter types.
    CallPtr(Box<Expr>, Vec<Expr>),
}

/// What a function pointer can point to: a function of the program, or a
/// library function the model implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callee {
    Func(FuncId),
    Builtin(Builtin),
}

impl Expr {
    pub fn is_lvalue(&self) -> bool {
        matches!(
            self.kind,
            ExprKind::Local(_)
                | ExprKind::Global(_)
                | ExprKind::Str(_)
                | ExprKind::Deref(_)
                | ExprKind::Member(..)
        )
    }
    pub fn int_kind(&self) -> Option<IntKind> {
        self.ty.as_int()
    }
}

impl Expr {
    /// The operands, in evaluation order where C fixes one.
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Deref(a)
            | ExprKind::Member(a, _)
            | ExprKind::Load(a)
            | ExprKind::AddrOf(a)
            | ExprKind::Decay(a)
            | ExprKind::Cast(a)
            | ExprKind::Unary(_, a)
            | ExprKind::IncDec { lv: a, .. } => vec![a],
            ExprKind::Binary(_, a, b)
            | ExprKind::PtrDiff(a, b)
            | ExprKind::PtrCmp(_, a, b)
            | ExprKind::LogAnd(a, b)
            | ExprKind::LogOr(a, b)
            | ExprKind::Comma(a, b)
            | ExprKind::Assign(a, b)
            | ExprKind::CompoundAssign { lv: a, rhs: b, .. }
            | ExprKind::PtrAdd {
                ptr: a, index: b, ..
            } => vec![a, b],
            ExprKind::Cond(a, b, c) => vec![a, b, c],
            ExprKind::Call(_, args) | ExprKind::Builtin(_, args) => args.iter().collect(),
            // gcc loads a function pointer held in memory before the
            // arguments (one in a local after them: see `eval`).
            ExprKind::CallPtr(callee, args) => [&**callee].into_iter().chain(args).collect(),
            _ => Vec::new(),
        }
    }
}

/// Calls `f` on `e` and every node below it, in pre-order.
pub fn visit(e: &Expr, f: &mut impl FnMut(&Expr)) {
    f(e);
    for c in e.children() {
        visit(c, f);
    }
}

/// One store of an initializer: `value` (converted to `ty`) goes at `offset` in the object.
#[derive(Clone, Debug)]
pub struct InitItem {
    pub offset: u64,
    pub ty: Type,
    pub value: Expr,
}

#[derive(Clone, Debug)]
pub struct Initializer {
    /// Zero the whole object first (aggregate initializers, statics).
    pub zero: bool,
    pub items: Vec<InitItem>,
    /// Raw bytes at offset 0 (a char array initialised from a string literal).
    pub bytes: Option<Vec<u8>>,
}

#[derive(Clone, Debug)]
pub enum InstrKind {
    /// An expression statement.
    Expr(Expr),
    /// A local's declaration is reached: `None` makes it indeterminate again.
    Init(LocalId, Option<Initializer>),
    Jump(usize),
    /// Go to `then` if the scalar `cond` is non-zero, else to `els`.
    Branch {
        cond: Expr,
        then: usize,
        els: usize,
    },
    /// `switch`: `value` is already promoted; case values are canonical bits of its type.
    Switch {
        value: Expr,
        cases: Vec<(u64, usize)>,
        default: usize,
    },
    Return(Option<Expr>),
    /// End of a function without `return`.
    FallOff,
}

#[derive(Clone, Debug)]
pub struct Instr {
    pub kind: InstrKind,
    pub range: SrcRange,
    pub stmt: StmtId,
}

#[derive(Clone, Debug)]
pub struct Local {
    pub name: String,
    pub ty: Type,
    pub range: SrcRange,
    /// `static` locals live in a global slot instead.
    pub is_param: bool,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub ret: Type,
    pub params: Vec<LocalId>,
    pub locals: Vec<Local>,
    pub body: Vec<Instr>,
    pub range: SrcRange,
    /// Whether a body was seen (a prototype-only function cannot be called).
    pub defined: bool,
}

#[derive(Clone, Debug)]
pub struct Global {
    pub name: String,
    pub ty: Type,
    pub init: Option<Initializer>,
    pub range: SrcRange,
}

#[derive(Clone, Debug, Default)]
pub struct Program {
    pub files: Vec<PathBuf>,
    pub structs: Vec<StructDef>,
    pub globals: Vec<Global>,
    pub funcs: Vec<Function>,
    /// String literals including their terminating NUL.
    pub strings: Vec<Vec<u8>>,
    pub main: Option<FuncId>,
    /// The functions whose address the program takes, in order of first
    /// use: each is an object a function pointer can point to.
    pub address_taken: Vec<Callee>,
    /// Number of statements (ids are `0..stmt_count`).
    pub stmt_count: usize,
    /// `(file, line)` → the line as the preprocessor left it, for the
    /// project's own lines: where it differs from the file's (a macro
    /// expanded, a comment dropped), columns on it are not the file's.
    pub preprocessed_lines: std::collections::HashMap<(u32, u32), String>,
}

impl Program {
    /// Whether `stmt` of `func` is a condition (an `if`'s, a loop's; its
    /// instructions a branch and the jump back): its trace values are
    /// directions.
    pub fn is_condition(&self, func: FuncId, stmt: StmtId) -> bool {
        let Some(f) = self.funcs.get(func) else {
            return false;
        };
        let mut any = false;
        let only_branches = f
            .body
            .iter()
            .filter(|i| i.stmt == stmt)
            .all(|i| match i.kind {
                InstrKind::Branch { .. } => {
                    any = true;
                    true
                }
                InstrKind::Jump(_) => true,
                _ => false,
            });
        any && only_branches
    }

    pub fn location(&self, r: SrcRange) -> String {
        let file = self
            .files
            .get(r.file as usize)
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        format!("{}:{}", file, r.start.line)
    }
}
