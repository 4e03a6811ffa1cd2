//! The faultlens runtime: a tiny object linked into every coverage build.
//!
//! gcc's coverage counters are written by an exit handler, so a process that
//! dies of a signal writes nothing. The runtime installs handlers for the
//! fatal signals (and SIGTERM, which faultlens sends on timeout) that write
//! the counters with `__gcov_dump()` and then die of the same signal, so a
//! crashing or hanging test keeps the coverage it gathered.

use crate::command::run_step;
use crate::error::{PipelineError, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

const SOURCE: &str = r#"/* Written by faultlens; linked into coverage builds only. */
#include <signal.h>
#include <string.h>
extern void __gcov_dump(void);
static void faultlens_on_signal(int sig) {
  __gcov_dump();
  signal(sig, SIG_DFL);
  raise(sig);
}
__attribute__((constructor)) static void faultlens_runtime_init(void) {
  static const int sigs[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTERM};
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = faultlens_on_signal;
  for (unsigned i = 0; i < sizeof sigs / sizeof *sigs; i++) {
    struct sigaction old;
    /* Leave alone a handler the program installed before us. */
    if (sigaction(sigs[i], 0, &old) == 0 && old.sa_handler == SIG_DFL)
      sigaction(sigs[i], &sa, 0);
  }
}
"#;

/// Compiles the runtime under `work_dir/rt/` and returns the object's path.
pub fn build_runtime(cc: &str, work_dir: &Path) -> Result<PathBuf> {
    let dir = work_dir.join("rt");
    std::fs::create_dir_all(&dir)
        .map_err(|e| PipelineError::io(format!("creating {}", dir.display()), e))?;
    let source = dir.join("faultlens_rt.c");
    std::fs::write(&source, SOURCE)
        .map_err(|e| PipelineError::io(format!("writing {}", source.display()), e))?;
    let object = dir.join("faultlens_rt.o");
    let mut cmd = Command::new(cc);
    cmd.args(["-c", "-O0", "-fPIC"])
        .arg(&source)
        .arg("-o")
        .arg(&object);
    let step = run_step(cmd, &dir, &[])?;
    if !step.success {
        return Err(PipelineError::Build {
            message: format!(
                "compiling faultlens's runtime with `{cc}` failed:\n{}",
                step.output
            ),
            diagnostics: Vec::new(),
        });
    }
    Ok(object)
}
