//! One run at a time per project: two runs sharing `.faultlens/` would mix
//! their coverage counters. An advisory `flock` on `.faultlens/run.lock`,
//! released when the lock is dropped or the process dies.

use crate::error::{PipelineError, Result};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;

pub struct RunLock {
    _file: File,
}

impl RunLock {
    /// Takes the lock or fails at once, naming the directory in use.
    pub fn acquire(work_dir: &Path) -> Result<RunLock> {
        std::fs::create_dir_all(work_dir)
            .map_err(|e| PipelineError::io(format!("creating {}", work_dir.display()), e))?;
        let path = work_dir.join("run.lock");
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
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
