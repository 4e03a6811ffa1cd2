//! Edge: the files a test's run opens, read from the test's working
//! directory (inside the project, bounded) and given to the C model, which
//! does no I/O itself. The model asks for a file by name when a run opens
//! one it was not given; the run is made again with it. The files are read
//! as they are when the model runs, after the test's own run: a test that
//! rewrites its input files is modelled on what it left.

use faultlens_confine::{confined, limits, read_regular};
use faultlens_csem::{run, Program, RunOptions, RunResult, TestInput};
use std::path::Path;

/// Files one test's run may be given at most.
const MAX_FILES: usize = 32;
/// Bytes of files one test's run may be given in all (each file is bounded
/// by `limits::MODEL_FILE` too).
const MAX_TOTAL: usize = 64 * 1024 * 1024;

/// Runs `test` in the model until its run opens no file it was not given,
/// reading each file it opens relative to `cwd` (inside the project
/// `root`). The test keeps the files for every later run (replays, the
/// encoding). `Err` says which file cannot be given, and why.
pub fn run_with_files(
    prog: &Program,
    root: &Path,
    cwd: &Path,
    test: &mut TestInput,
    opts: &RunOptions,
) -> Result<RunResult, String> {
    loop {
        let r = run(prog, test, opts);
        let Some(name) = r.needs_file.clone() else {
            return Ok(r);
        };
        if test.files.len() >= MAX_FILES {
            return Err(format!(
                "its run opens more than {MAX_FILES} files, which the model is not given"
            ));
        }
        let contents = read_for_model(root, cwd, &name)?;
        let total: usize = test.files.values().flatten().map(Vec::len).sum::<usize>()
            + contents.as_ref().map_or(0, Vec::len);
        if total > MAX_TOTAL {
            return Err(format!(
                "its run opens more than {} MiB of files, which the model is not given",
                MAX_TOTAL >> 20
            ));
        }
        test.files.insert(name, contents);
    }
}

/// The contents of the file `name` a run opens in `cwd`, `None` when it
/// does not exist.
fn read_for_model(root: &Path, cwd: &Path, name: &str) -> Result<Option<Vec<u8>>, String> {
    let outside =
        || format!("its run opens `{name}`, outside the project, which faultlens does not read");
    if name.is_empty() {
        // `fopen("")` fails (ENOENT).
        return Ok(None);
    }
    if Path::new(name).is_absolute() {
        return Err(outside());
    }
    let base = cwd.strip_prefix(root).map_err(|_| outside())?;
    let relative = base.join(name);
    let path = confined(root, &relative.to_string_lossy())
        .map_err(|e| format!("its run opens `{name}`: {e}"))?;
    match read_regular(&path, limits::MODEL_FILE) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(format!(
            "its run opens `{name}`, which the model cannot be given: {}",
            e.reason()
        )),
    }
}
