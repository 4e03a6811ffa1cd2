//! Starting a process in a session of its own with `posix_spawn`: the
//! kernel does not copy faultlens's memory for it (a fork copied its page
//! tables for every test), and the process has no controlling terminal
//! (a test that opens `/dev/tty` gets an error, as before, instead of
//! being stopped in the background). The standard library's `Command`
//! can do the first, not the second without running code between fork
//! and exec, which rules `posix_spawn` out.

use std::collections::BTreeMap;
use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus};

/// A started process and our ends of its standard streams (taken by
/// whoever serves them).
pub(crate) struct Spawned {
    pub pid: libc::pid_t,
    pub stdin: Option<OwnedFd>,
    pub stdout: Option<OwnedFd>,
    pub stderr: Option<OwnedFd>,
    reaped: bool,
}

impl Spawned {
    /// Its exit status, if it has exited (and reaps it).
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        let mut status = 0;
        // SAFETY: waitpid with a valid pointer to an int.
        let r = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG) };
        if r == 0 {
            Ok(None)
        } else if r == self.pid {
            self.reaped = true;
            Ok(Some(ExitStatus::from_raw(status)))
        } else {
            let error = io::Error::last_os_error();
            // Not our child (any more): its pid may be another's by now,
            // so it is never signalled or waited for again.
            if error.raw_os_error() == Some(libc::ECHILD) {
                self.reaped = true;
            }
            Err(error)
        }
    }
}

impl Drop for Spawned {
    /// A process never waited for is killed and reaped: no zombie stays.
    fn drop(&mut self) {
        if !self.reaped {
            // SAFETY: signalling and waiting for our own child.
            unsafe {
                libc::kill(self.pid, libc::SIGKILL);
                libc::waitpid(self.pid, std::ptr::null_mut(), 0);
            }
        }
    }
}

fn c_string(text: &OsStr) -> io::Result<CString> {
    CString::new(text.as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{text:?} holds a NUL byte"),
        )
    })
}

/// A pipe whose ends close on exec: (read end, write end).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into a two-element array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both are new descriptors this process owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Starts `command` (its program, arguments, environment changes and
/// directory: nothing else of it is used) in a new session with piped
/// stdin, stdout and stderr. The program is looked up on faultlens's own
/// `PATH` when its name has no `/`. SIGPIPE is set back to its default and
/// no signal is blocked, as the standard library does.
pub(crate) fn spawn(command: &Command) -> io::Result<Spawned> {
    let program = c_string(command.get_program())?;
    let mut argv = vec![program.clone()];
    for arg in command.get_args() {
        argv.push(c_string(arg)?);
    }
    let mut env: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => env.insert(name.to_owned(), value.to_owned()),
            None => env.remove(name),
        };
    }
    let envp = env
        .iter()
        .map(|(name, value)| {
            let mut pair = name.as_bytes().to_vec();
            pair.push(b'=');
            pair.extend_from_slice(value.as_bytes());
            c_string(OsStr::from_bytes(&pair))
        })
        .collect::<io::Result<Vec<_>>>()?;
    let dir = command
        .get_current_dir()
        .map(|d| c_string(d.as_os_str()))
        .transpose()?;
    let pointers = |strings: &[CString]| {
        let mut p: Vec<*mut libc::c_char> = strings
            .iter()
            .map(|s| s.as_ptr() as *mut libc::c_char)
            .collect();
        p.push(std::ptr::null_mut());
        p
    };
    let (argv_p, envp_p) = (pointers(&argv), pointers(&envp));

    let (in_read, in_write) = pipe()?;
    let (out_read, out_write) = pipe()?;
    let (err_read, err_write) = pipe()?;
    let mut pid: libc::pid_t = 0;
    // SAFETY: the attribute and file-action objects are initialised before
    // use and destroyed after; every pointer handed over outlives the call.
    let status = unsafe {
        let mut actions: libc::posix_spawn_file_actions_t = std::mem::zeroed();
        let mut attr: libc::posix_spawnattr_t = std::mem::zeroed();
        libc::posix_spawn_file_actions_init(&mut actions);
        libc::posix_spawnattr_init(&mut attr);
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        let mut default: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut default);
        libc::sigaddset(&mut default, libc::SIGPIPE);
        let flags = i32::from(libc::POSIX_SPAWN_SETSID)
            | libc::POSIX_SPAWN_SETSIGMASK
            | libc::POSIX_SPAWN_SETSIGDEF;
        // Each step must succeed: a child that kept faultlens's own stdout
        // (the language server's protocol channel) or directory would be
        // worse than no child.
        let mut steps = vec![
            libc::posix_spawn_file_actions_adddup2(&mut actions, in_read.as_raw_fd(), 0),
            libc::posix_spawn_file_actions_adddup2(&mut actions, out_write.as_raw_fd(), 1),
            libc::posix_spawn_file_actions_adddup2(&mut actions, err_write.as_raw_fd(), 2),
            libc::posix_spawnattr_setsigmask(&mut attr, &empty),
            libc::posix_spawnattr_setsigdefault(&mut attr, &default),
            libc::posix_spawnattr_setflags(&mut attr, flags as libc::c_short),
        ];
        if let Some(dir) = &dir {
            steps.push(libc::posix_spawn_file_actions_addchdir_np(
                &mut actions,
                dir.as_ptr(),
            ));
        }
        let status = match steps.into_iter().find(|&s| s != 0) {
            Some(failed) => failed,
            None => {
                let start = if program.as_bytes().contains(&b'/') {
                    libc::posix_spawn
                } else {
                    libc::posix_spawnp
                };
                start(
                    &mut pid,
                    program.as_ptr(),
                    &actions,
                    &attr,
                    argv_p.as_ptr(),
                    envp_p.as_ptr(),
                )
            }
        };
        libc::posix_spawn_file_actions_destroy(&mut actions);
        libc::posix_spawnattr_destroy(&mut attr);
        status
    };
    if status != 0 {
        return Err(io::Error::from_raw_os_error(status));
    }
    Ok(Spawned {
        pid,
        stdin: Some(in_write),
        stdout: Some(out_read),
        stderr: Some(err_read),
        reaped: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn finish(mut child: Spawned) -> (ExitStatus, String, String) {
        drop(child.stdin.take());
        let mut out = String::new();
        let mut err = String::new();
        std::fs::File::from(child.stdout.take().unwrap())
            .read_to_string(&mut out)
            .unwrap();
        std::fs::File::from(child.stderr.take().unwrap())
            .read_to_string(&mut err)
            .unwrap();
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return (status, out, err);
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    #[test]
    fn a_process_gets_its_arguments_environment_directory_and_a_session() {
        let dir = tempfile::tempdir().unwrap();
        let mut command = Command::new("sh");
        command
            .args([
                "-c",
                "echo \"$1 $FAULTLENS_SPAWN_TEST $(pwd)\"; cut -d' ' -f6 /proc/$$/stat; \
                 echo oops >&2; exit 3",
                "sh",
                "arg",
            ])
            .env("FAULTLENS_SPAWN_TEST", "value")
            .env_remove("HOME")
            .current_dir(dir.path());
        let child = spawn(&command).unwrap();
        let pid = child.pid;
        let (status, out, err) = finish(child);
        assert_eq!(status.code(), Some(3));
        let mut lines = out.lines();
        let real = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(
            lines.next().unwrap(),
            format!("arg value {}", real.display())
        );
        assert_eq!(
            lines.next().unwrap().trim(),
            pid.to_string(),
            "the leader of a session of its own"
        );
        assert_eq!(err, "oops\n");
    }

    #[test]
    fn a_missing_program_is_an_error_naming_the_cause() {
        let err = spawn(&Command::new("faultlens-no-such-program"))
            .err()
            .unwrap();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
