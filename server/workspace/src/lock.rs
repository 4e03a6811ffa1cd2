//! One run at a time per project: two runs sharing `.faultlens/` would mix
//! their coverage counters. An advisory `flock` on `.faultlens/run.lock`,
//! released when the lock is dropped or the process dies.

use crate::error::{Result, WorkspaceError};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a lock held by someone else is waited for before refusing.
const PATIENCE: Duration = Duration::from_millis(300);

pub struct RunLock {
    _file: File,
}

impl RunLock {
    /// Takes the lock of the project at `root` or fails (within
    /// [`PATIENCE`]), naming the directory in use.
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
            .map_err(|e| WorkspaceError::io(format!("opening {}", path.display()), e))?;
        // Between fork and exec, any process this one starts holds a copy
        // of the descriptor, and with it the lock, for an instant after
        // the run that took it has ended: a short patience tells that
        // apart from a run that is really going on.
        let patience = Instant::now() + PATIENCE;
        loop {
            // SAFETY: flock only reads the descriptor, which `file` keeps open.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                break;
            }
            let cause = std::io::Error::last_os_error();
            if cause.kind() != std::io::ErrorKind::WouldBlock {
                return Err(WorkspaceError::io(
                    format!("locking {}", path.display()),
                    cause,
                ));
            }
            if Instant::now() >= patience {
                return Err(WorkspaceError::Busy(format!(
                    "another faultlens run is using {}; wait for it to finish, then run again",
                    work_dir.display()
                )));
            }
            std::thread::sleep(Duration::from_millis(10));
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

    #[test]
    fn a_lock_released_while_processes_are_being_started_can_be_taken_again() {
        use std::os::unix::process::CommandExt;
        let dir = tempfile::tempdir().unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let starter = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let mut command = std::process::Command::new("true");
                    // SAFETY: an empty hook; it makes std fork, as the runs do.
                    unsafe { command.pre_exec(|| Ok(())) };
                    let _ = command.status();
                }
            })
        };
        for _ in 0..1000 {
            drop(RunLock::acquire(dir.path()).unwrap());
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        starter.join().unwrap();
    }
}
