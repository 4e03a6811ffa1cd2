//! The faultlens runtime: a tiny object linked into every coverage build.
//!
//! gcc's coverage counters are written by an exit handler, so a process that
//! dies of a signal writes nothing. The runtime installs handlers for the
//! fatal signals (and SIGTERM, which faultlens sends on timeout) that write
//! the counters with `__gcov_dump()` and then die of the same signal, so a
//! crashing or hanging test keeps the coverage it gathered. With clang's
//! coverage the handler calls `__llvm_profile_write_file()` instead. A
//! process that ends with `_exit` skips the exit handler too (Check's
//! forked child of a failing test does): the runtime's `_exit` writes the
//! counters first. It also lets faultlens choose the one case a CMocka
//! or Unity executable runs.

use crate::command::{run_step, Steps};
use crate::error::{PipelineError, Result};
use faultlens_confine::WorkDir;
use std::path::{Path, PathBuf};
use std::process::Command;

const SOURCE: &str = r#"/* Written by faultlens; linked into coverage builds only. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
extern void DUMP(void);
/* Set once exit() runs its handlers, which write the counters: an _exit
   after them must not write them again. */
static volatile int faultlens_exiting;
static void faultlens_on_exit(void) { faultlens_exiting = 1; }
/* Check ends the forked child of each test with _exit, which skips the
   exit handlers: a failing test would lose its coverage. The executable's
   _exit takes the place of glibc's (a shared library's call resolves to
   it too); it writes the counters and ends the process as glibc's does. */
void _exit(int status) {
  if (!faultlens_exiting)
    DUMP();
  syscall(SYS_exit_group, status);
  for (;;) {
  }
}
static void faultlens_on_signal(int sig) {
  DUMP();
  signal(sig, SIG_DFL);
  raise(sig);
}
/* CMocka has no command-line or environment filter: faultlens runs one
   case of a CMocka executable by naming it here (see discover::cases). The
   reference is weak, so programs without CMocka link as before. */
extern void cmocka_set_test_filter(const char *pattern) __attribute__((weak));
/* Unity's RUN_TEST(f) is UnityDefaultTestRun(f, "f", __LINE__), in a
   hand-written main too. Coverage builds link with
   -Wl,--wrap=UnityDefaultTestRun (LINK_OPTIONS), so every such call from
   the test's objects comes here first: with FAULTLENS_UNITY_LIST set it
   names the case on a line of its own and runs nothing; with
   FAULTLENS_UNITY_TEST set it runs only the case of that name. The real
   function is a weak reference: programs without Unity link as before. */
typedef void (*faultlens_unity_case)(void);
extern void __real_UnityDefaultTestRun(faultlens_unity_case, const char *, const int)
    __attribute__((weak));
void __wrap_UnityDefaultTestRun(faultlens_unity_case func, const char *name, const int line) {
  if (getenv("FAULTLENS_UNITY_LIST")) {
    /* Unbuffered, whatever the program did to stdout's buffering. */
    static const char mark[] = "faultlens-unity-case ";
    if (write(1, mark, sizeof mark - 1) < 0 || write(1, name, strlen(name)) < 0 ||
        write(1, "\n", 1) < 0) {
    }
    return;
  }
  const char *only = getenv("FAULTLENS_UNITY_TEST");
  if (only && strcmp(only, name) != 0)
    return;
  if (__real_UnityDefaultTestRun)
    __real_UnityDefaultTestRun(func, name, line);
}
__attribute__((constructor)) static void faultlens_runtime_init(void) {
  atexit(faultlens_on_exit);
  const char *only = getenv("FAULTLENS_CMOCKA_TEST");
  if (only && cmocka_set_test_filter)
    cmocka_set_test_filter(only);
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

/// Linker options every coverage build of a test suite gets with the
/// runtime: the calls of the one function every Unity case passes through
/// go to the runtime first, which lists the cases or runs the one chosen
/// (see `discover::cases`).
pub const LINK_OPTIONS: &str = "-Wl,--wrap=UnityDefaultTestRun";

/// The runtime object and its [`LINK_OPTIONS`], for a build system's
/// linker flags (split on whitespace: the object's path has none).
pub fn link_flags(runtime: &Path) -> String {
    format!("{} {LINK_OPTIONS}", runtime.display())
}

/// Compiles the runtime and returns the object's path: under
/// `work_dir/rt/`, or, when that path holds characters that build tools
/// split or interpret (spaces, quotes), in a private directory under the
/// system's temporary directory. The object's path goes into `LDFLAGS` and
/// CMake's linker flags, which are split on whitespace.
/// `dump` is the coverage library's function that writes the counters
/// (`__gcov_dump`, or clang's `__llvm_profile_write_file`).
pub fn build_runtime(cc: &str, work: &WorkDir, dump: &str, steps: &Steps) -> Result<PathBuf> {
    let (dir, reusable) = match runtime_dir(work.path()) {
        // A directory under the shared temporary one is compiled into
        // afresh every time: another user could have put an object there.
        Some(outside) => (private_dir(&outside)?, false),
        None => (work.dir("rt")?, true),
    };
    let source = dir.join("faultlens_rt.c");
    let text = format!(
        "{}{}",
        SOURCE.replace("DUMP", dump),
        faultlens_workspace::nondet::native_source()
    );
    let object = dir.join("faultlens_rt.o");
    // The object of the same source and compiler from an earlier run is
    // reused: compiling it took a tenth of a small project's localization.
    let key_file = dir.join("faultlens_rt.key");
    let key = faultlens_core::sources::digest(
        format!("{}\n{text}", crate::toolchain::compiler_identity(cc)).as_bytes(),
    );
    let built_before = reusable
        && faultlens_confine::read_regular_no_link(&key_file, 1024)
            .is_ok_and(|k| k == key.as_bytes())
        && std::fs::symlink_metadata(&object).is_ok_and(|m| m.is_file() && m.len() > 0);
    if built_before {
        return Ok(object);
    }
    let _ = std::fs::remove_file(&key_file);
    std::fs::write(&source, &text)
        .map_err(|e| PipelineError::io(format!("writing {}", source.display()), e))?;
    let mut cmd = Command::new(cc);
    cmd.args(["-c", "-O0", "-fPIC"])
        .arg(&source)
        .arg("-o")
        .arg(&object);
    let step = run_step(cmd, &dir, &[], steps)?;
    if !step.success {
        return Err(PipelineError::Build {
            message: format!(
                "compiling faultlens's runtime with `{cc}` failed:\n{}",
                step.output
            ),
            diagnostics: Vec::new(),
        });
    }
    std::fs::write(&key_file, key.as_bytes())
        .map_err(|e| PipelineError::io(format!("writing {}", key_file.display()), e))?;
    Ok(object)
}

/// Creates `dir` and its parent (`faultlens-rt-<uid>`) readable by this
/// user alone, and refuses them if another user made them first or they
/// are links: the runtime compiled there is linked into the tests.
fn private_dir(dir: &Path) -> Result<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    // SAFETY: getuid cannot fail and has no preconditions.
    let uid = unsafe { libc::getuid() };
    for d in [dir.parent().unwrap_or(dir), dir] {
        let _ = std::fs::DirBuilder::new().mode(0o700).create(d);
        let private = std::fs::symlink_metadata(d)
            .is_ok_and(|m| m.is_dir() && m.uid() == uid && m.mode() & 0o077 == 0);
        if !private {
            return Err(PipelineError::Build {
                message: format!(
                    "{} is not a directory of yours that only you can read, so faultlens will not compile its runtime there; remove it, or move the project to a path without spaces or quotes (the runtime then goes into .faultlens/rt)",
                    d.display()
                ),
                diagnostics: Vec::new(),
            });
        }
    }
    Ok(dir.to_path_buf())
}

/// `None` for `.faultlens/rt`, else the private directory to use instead.
fn runtime_dir(work_dir: &Path) -> Option<PathBuf> {
    let plain = |p: &Path| {
        p.to_string_lossy()
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._+-".contains(c))
    };
    let inside = work_dir.join("rt");
    if plain(&inside) {
        return None;
    }
    // Distinct per project and user; the temporary directory itself is
    // assumed to have a plain path.
    let hash = faultlens_core::sources::digest(work_dir.to_string_lossy().as_bytes());
    // SAFETY: getuid cannot fail and has no preconditions.
    let uid = unsafe { libc::getuid() };
    Some(
        std::env::temp_dir()
            .join(format!("faultlens-rt-{uid}"))
            .join(hash),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::RunScope;
    use faultlens_cancel::CancelToken;
    use std::time::Duration;

    #[test]
    fn the_runtimes_directory_outside_the_project_is_private_or_refused() {
        use std::os::unix::fs::PermissionsExt;
        let base = tempfile::tempdir().unwrap();
        assert!(runtime_dir(&base.path().join("a project/.faultlens")).is_some());
        let dir = base.path().join("faultlens-rt-test").join("hash");
        assert_eq!(private_dir(&dir).unwrap(), dir);
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(dir.parent().unwrap()), 0o700);
        // Made readable to others (as another user's directory would be).
        std::fs::set_permissions(
            dir.parent().unwrap(),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        let err = private_dir(&dir).unwrap_err().to_string();
        assert!(err.contains("only you can read"), "{err}");
    }

    #[test]
    fn the_runtime_is_compiled_once_per_source_and_compiler() {
        let project = tempfile::tempdir().unwrap();
        let work = WorkDir::open(project.path()).unwrap();
        let (cancel, scope) = (CancelToken::new(), RunScope::new());
        let steps = Steps {
            cancel: &cancel,
            scope: &scope,
            timeout: Duration::from_secs(60),
        };
        let object = build_runtime("gcc", &work, "__gcov_dump", &steps).unwrap();
        std::fs::write(&object, b"kept").unwrap();
        let again = build_runtime("gcc", &work, "__gcov_dump", &steps).unwrap();
        assert_eq!(
            std::fs::read(&again).unwrap(),
            b"kept",
            "reused, not compiled"
        );
        let err = build_runtime("faultlens-no-such-cc", &work, "__gcov_dump", &steps);
        assert!(err.is_err(), "another compiler compiles it again");
        let rebuilt = build_runtime("gcc", &work, "__gcov_dump", &steps).unwrap();
        assert_ne!(std::fs::read(&rebuilt).unwrap(), b"kept");
    }
}
