//! Edge: loads a harness project into the C model, with the free-input
//! functions (`__VERIFIER_nondet_*`) as C, the same code the coverage build
//! links, written to `.faultlens/nondet/`.

use crate::run::Harness;
use faultlens_workspace::nondet;
use faultlens_workspace::Project;
use std::path::{Path, PathBuf};

/// Steps at most per model run (a run that needs more would time out natively).
pub const MAX_STEPS: u64 = 2_000_000;

#[derive(Debug)]
pub enum LoadError {
    /// Not a `[build] sources` project, or no source calls `__VERIFIER_nondet_*`.
    NotAHarness(String),
    /// The C model cannot load the program.
    NotModelled(String),
    Io(String),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::NotAHarness(m) | LoadError::NotModelled(m) | LoadError::Io(m) => {
                f.write_str(m)
            }
        }
    }
}

impl std::error::Error for LoadError {}

/// The project's sources as listed in `[build] sources`, with their texts.
pub fn harness_sources(project: &Project) -> Result<Vec<(PathBuf, String)>, LoadError> {
    let Some(sources) = &project.config.build.sources else {
        return Err(LoadError::NotAHarness(
            "test generation needs the program's sources: list them in [build] sources of faultlens.toml".into(),
        ));
    };
    let mut out = Vec::new();
    for s in sources {
        let text = faultlens_workspace::store::read_source(&project.root, s)
            .map_err(|e| LoadError::Io(format!("[build] sources lists {s:?}: {e}")))?;
        out.push((
            PathBuf::from(s),
            String::from_utf8_lossy(&text).into_owned(),
        ));
    }
    if !out.iter().any(|(_, t)| nondet::uses_nondet(t)) {
        return Err(LoadError::NotAHarness(
            "no source in [build] sources calls __VERIFIER_nondet_*(): test generation needs a harness whose free inputs come from those functions and whose specification is its asserts (see the README, \"Harnesses with free inputs\")".into(),
        ));
    }
    Ok(out)
}

/// Loads the harness of `project` into the C model.
pub fn load(project: &Project) -> Result<Harness, LoadError> {
    let sources = harness_sources(project)?;
    let runtime = nondet::write_model_file(project).map_err(|e| LoadError::Io(e.to_string()))?;

    let mut files: Vec<PathBuf> = sources.iter().map(|(p, _)| p.clone()).collect();
    files.push(runtime.clone());
    let mut spec = faultlens_csem::SourceSpec::new(&project.root, files);
    if let Some(cc) = &project.config.build.cc {
        spec.cc = cc.clone();
    }
    spec.cflags = project.config.build.cflags.clone();
    let prog = faultlens_csem::load(&spec).map_err(|e| {
        LoadError::NotModelled(format!(
            "the C model cannot load the harness: {e}; test generation needs a program the model handles (faultlens interpret shows what it runs)"
        ))
    })?;
    let file_names = prog
        .files
        .iter()
        .map(|f| project_relative(&project.root, f, &runtime))
        .collect();
    Ok(Harness {
        prog,
        file_names,
        max_steps: MAX_STEPS,
    })
}

/// The harness for the symbolic encoding: the project's sources alone, so
/// csem models the free-input functions itself (fresh values per draw).
pub fn load_symbolic(project: &Project) -> Result<faultlens_csem::Program, LoadError> {
    let sources = harness_sources(project)?;
    let mut spec = faultlens_csem::SourceSpec::new(
        &project.root,
        sources.into_iter().map(|(p, _)| p).collect(),
    );
    if let Some(cc) = &project.config.build.cc {
        spec.cc = cc.clone();
    }
    spec.cflags = project.config.build.cflags.clone();
    faultlens_csem::load(&spec)
        .map_err(|e| LoadError::NotModelled(format!("the C model cannot load the harness: {e}")))
}

/// `file` relative to `root`, or `None` for the runtime and files outside the project.
fn project_relative(root: &Path, file: &Path, runtime: &Path) -> Option<String> {
    let abs = if file.is_absolute() {
        file.to_path_buf()
    } else {
        root.join(file)
    };
    if abs == runtime || abs.starts_with(root.join(faultlens_workspace::project::WORK_DIR)) {
        return None;
    }
    let rel = abs.strip_prefix(root).ok()?;
    Some(rel.to_string_lossy().replace('\\', "/"))
}
