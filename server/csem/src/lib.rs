//! faultlens-csem: a faithful model of a subset of C (LP64 x86-64, as gcc -O0
//! builds it). Front end: the real preprocessor, tree-sitter-c, lowering to a
//! typed IR whose every node keeps its source range. One evaluator of C
//! (`eval`, with the C library in `library`) over two value domains: a
//! concrete interpreter (`interp`) and the bit-vector encoding of test runs
//! with health literals (`encode`, over `bv`).
//!
//! What is modelled and what is not: see `README.md` beside this crate.

pub mod bv;
pub mod compile_db;
pub mod encode;
pub mod error;
mod eval;
pub mod float;
pub mod format;
pub mod interp;
pub mod intops;
pub mod ir;
mod library;
mod lower;
pub mod preprocess;
pub mod subexpr;
pub mod types;

pub use error::CsemError;
pub use interp::{
    run, steps_run_on_this_thread, FreeRead, Functional, Observation, Outcome, Overrides,
    RunOptions, RunResult, Swap, TestInput, TraceEvent, TraceValue,
};
pub use ir::Program;
pub use library::Files;

use std::path::{Path, PathBuf};

/// How to build the program: the sources, the compiler and its flags.
#[derive(Clone, Debug)]
pub struct SourceSpec {
    /// Directory the compiler runs in; relative `sources` are relative to it.
    pub root: PathBuf,
    pub sources: Vec<PathBuf>,
    /// The compiler used as the preprocessor (`gcc`, or the project's `cc`).
    pub cc: String,
    /// The project's compiler flags (`-Iinclude`, `-DNDEBUG`, ...), passed to `cc -E`.
    pub cflags: Vec<String>,
    /// Flags for one source only, after `cflags` (a test file's
    /// `-include` of a framework's model).
    pub source_flags: Vec<(PathBuf, Vec<String>)>,
}

impl SourceSpec {
    pub fn new(root: impl Into<PathBuf>, sources: Vec<PathBuf>) -> Self {
        SourceSpec {
            root: root.into(),
            sources,
            cc: "gcc".into(),
            cflags: Vec::new(),
            source_flags: Vec::new(),
        }
    }

    /// `cflags`, then the flags of `source` alone.
    pub fn flags_of(&self, source: &Path) -> Vec<String> {
        let mut flags = self.cflags.clone();
        for (s, extra) in &self.source_flags {
            if s == source {
                flags.extend(extra.iter().cloned());
            }
        }
        flags
    }
}

/// Preprocess, parse and lower all sources into one program. Code nesting
/// deeper than [`faultlens_cfg::nesting::MAX_NESTING`] levels is refused as
/// unsupported, naming the construct and where it begins.
pub fn load(spec: &SourceSpec) -> Result<Program, CsemError> {
    on_front_end_stack(|| {
        let mut lowerer = lower::Lowerer::new();
        for src in &spec.sources {
            let pp = preprocess::preprocess(&spec.cc, &spec.flags_of(src), src, &spec.root)?;
            lowerer.add_translation_unit(src.clone(), pp)?;
        }
        lowerer.finish()
    })
}

/// Lower already-preprocessed text (for tests and tools that ran `cc -E` themselves).
pub fn load_preprocessed(file: &Path, text: &str) -> Result<Program, CsemError> {
    on_front_end_stack(|| {
        let mut lowerer = lower::Lowerer::new();
        lowerer
            .add_translation_unit(file.to_path_buf(), preprocess::map_line_markers(text, file))?;
        lowerer.finish()
    })
}

/// Runs the front end on a thread whose stack is sized for the nesting
/// limit: lowering recurses per level, and the caller's stack may be a
/// 2 MiB runtime thread's, less than lowering needs at the limit.
fn on_front_end_stack(
    front_end: impl FnOnce() -> Result<Program, CsemError> + Send,
) -> Result<Program, CsemError> {
    faultlens_cfg::nesting::on_walk_stack(front_end).unwrap_or_else(|e| {
        Err(CsemError::Io(format!(
            "could not start a thread for the C model's front end ({e}); the system is out of threads or memory"
        )))
    })
}

/// The trace as text, one statement instance per line: `file:line:col  value`.
pub fn render_trace(prog: &Program, result: &RunResult) -> String {
    let mut out = String::new();
    for ev in &result.trace {
        let r = ev.range;
        let file = prog
            .files
            .get(r.file as usize)
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let func = &prog.funcs[ev.func].name;
        match &ev.value {
            Some(v) => out.push_str(&format!(
                "{file}:{}:{}\t{func}\t{}\n",
                r.start.line,
                r.start.col,
                v.display()
            )),
            None => out.push_str(&format!(
                "{file}:{}:{}\t{func}\n",
                r.start.line, r.start.col
            )),
        }
    }
    if result.trace_truncated {
        out.push_str("... trace truncated\n");
    }
    out
}

/// A one-line description of how the run ended, as the CLI prints it.
pub fn describe_outcome(o: &Outcome) -> String {
    match o {
        Outcome::Exited(c) => format!("exit status {c}"),
        Outcome::Signaled(s) => format!("killed by signal {s}"),
        Outcome::RuntimeError {
            message, location, ..
        } => format!("runtime error at {location}: {message}"),
        Outcome::StepLimit => "stopped: step limit reached (the program may not terminate)".into(),
    }
}
