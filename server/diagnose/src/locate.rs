//! Where each statement of the C model is, as the results document names
//! lines: a path relative to the project root and the source line's text.

use faultlens_core::diagnosis::{DiagnosedStatement, SubExpression};
use faultlens_csem::ir::{Program, SrcRange, StmtId};
use std::path::{Path, PathBuf};

pub struct Locator {
    /// Per statement: its range (the first instruction carrying it).
    ranges: Vec<Option<SrcRange>>,
    /// Per program file: its path relative to the root, and its lines.
    files: Vec<(String, Vec<String>)>,
    /// `(file, line)` of lines that hold more than one statement.
    shared: std::collections::BTreeSet<(u32, u32)>,
    /// The lines as the preprocessor left them (see `Program::preprocessed_lines`).
    preprocessed: std::collections::HashMap<(u32, u32), String>,
}

impl Locator {
    /// Reads the program's source files (for the statements' text).
    pub fn new(prog: &Program, root: &Path) -> Locator {
        let mut ranges = vec![None; prog.stmt_count];
        for f in &prog.funcs {
            for ins in &f.body {
                if let Some(slot) = ranges.get_mut(ins.stmt) {
                    slot.get_or_insert(ins.range);
                }
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        let mut shared = std::collections::BTreeSet::new();
        for r in ranges.iter().flatten() {
            if !seen.insert((r.file, r.start.line)) {
                shared.insert((r.file, r.start.line));
            }
        }
        let files = prog
            .files
            .iter()
            .map(|p| {
                let abs = if p.is_absolute() {
                    p.clone()
                } else {
                    root.join(p)
                };
                // The model's own runtime lies in .faultlens/, outside what
                // `read_in_project` reads; it is never a diagnosed file.
                let text = faultlens_workspace::files::read_in_project(
                    root,
                    &abs,
                    faultlens_confine::limits::SOURCE,
                )
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
                (
                    relative(root, &abs),
                    text.lines().map(String::from).collect(),
                )
            })
            .collect();
        Locator {
            ranges,
            files,
            shared,
            preprocessed: prog.preprocessed_lines.clone(),
        }
    }

    pub fn statement_count(&self) -> usize {
        self.ranges.len()
    }

    pub fn range(&self, stmt: StmtId) -> Option<SrcRange> {
        self.ranges.get(stmt).copied().flatten()
    }

    /// Whether the line `r` starts on holds other statements too.
    pub fn shares_line(&self, r: SrcRange) -> bool {
        self.shared.contains(&(r.file, r.start.line))
    }

    pub fn file(&self, r: SrcRange) -> &str {
        self.files
            .get(r.file as usize)
            .map(|f| f.0.as_str())
            .unwrap_or("")
    }

    pub fn line_text(&self, r: SrcRange, line: u32) -> String {
        self.files
            .get(r.file as usize)
            .and_then(|f| f.1.get((line as usize).checked_sub(1)?))
            .map(|l| l.trim().to_string())
            .unwrap_or_default()
    }

    pub fn statement(&self, stmt: StmtId) -> DiagnosedStatement {
        let Some(r) = self.range(stmt) else {
            return DiagnosedStatement::default();
        };
        DiagnosedStatement {
            file: self.file(r).to_string(),
            line: r.start.line,
            text: self.line_text(r, r.start.line),
            column: self.shares_line(r).then_some(r.start.col),
            subexpression: None,
        }
    }

    /// A sub-expression's place and text, when it lies on one line that the
    /// preprocessor left as it is: columns come from the preprocessed text,
    /// which a macro expanded or a comment dropped on the line would shift.
    pub fn subexpression(&self, r: SrcRange) -> Option<SubExpression> {
        if r.start.line != r.end.line || r.end.col <= r.start.col {
            return None;
        }
        let line = self
            .files
            .get(r.file as usize)?
            .1
            .get((r.start.line as usize).checked_sub(1)?)?;
        let preprocessed = self.preprocessed.get(&(r.file, r.start.line))?;
        if preprocessed.trim_end() != line.trim_end() {
            return None;
        }
        let text = line.get(r.start.col as usize - 1..r.end.col as usize - 1)?;
        Some(SubExpression {
            text: text.to_string(),
            line: r.start.line,
            start_column: r.start.col,
            end_line: r.end.line,
            end_column: r.end.col,
        })
    }

    /// `(file, line)` of a statement.
    pub fn line_of(&self, stmt: StmtId) -> Option<(String, u32)> {
        let r = self.range(stmt)?;
        Some((self.file(r).to_string(), r.start.line))
    }
}

/// The names of the program's files as the results name them: relative to
/// `root` when under it (see [`relative`]), in the program's file order.
pub(crate) fn program_files(prog: &Program, root: &Path) -> Vec<String> {
    prog.files
        .iter()
        .map(|p| relative(root, &root.join(p)))
        .collect()
}

/// `path` relative to `root` with `/` separators when it lies under it.
pub(crate) fn relative(root: &Path, path: &Path) -> String {
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let (root, path) = (canon(root), canon(path));
    let rel: PathBuf = path
        .strip_prefix(&root)
        .map(Path::to_path_buf)
        .unwrap_or(path);
    rel.to_string_lossy().replace('\\', "/")
}
