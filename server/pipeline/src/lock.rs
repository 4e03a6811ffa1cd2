//! One run at a time per project: two runs sharing `.faultlens/` would mix
//! their coverage counters. An advisory `flock` on `.faultlens/run.lock`,
//! released when the lock is dropped or the process dies.

use crate::error::{PipelineError, Result};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

pub struct RunLock {
    _file: File,
}

impl RunLock {
    /// Takes the lock of the project at `root` or fails at once, naming
    /// the directory in use.
    pub fn acquire(root: &Path) -> Result<RunLock> {
        let work = faultlens_confine::WorkDir::open(root)?;
        let work_dir = work.path();
        let path = work_dir.join("run.lock");
        // A link placed there by the repository is not opened through.
        if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
            let _ = std::fs::remove_file(&path);
        }
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| PipelineError::io(format!("opening {}", path.display()), e))?;
        // SAFETY: flock only reads the descriptor, which `file` keeps open.
        let taken = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
        if !taken {
            return Err(PipelineError::Busy(format!(
                "another faultlens run is using {}; wait for it to finish, then run again",
                work_dir.display()
            )));
        }
        Ok(RunLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_run_is_refused_until_the_first_ends() {
        let dir = tempfile::tempdir().unwrap();
        let first = RunLock::acquire(dir.path()).unwrap();
        let err = RunLock::acquire(dir.path()).err().unwrap().to_string();
        assert!(err.contains("another faultlens run"), "{err}");
        drop(first);
        assert!(RunLock::acquire(dir.path()).is_ok());
    }
}
