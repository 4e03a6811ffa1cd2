//! Running one test process: its own coverage prefix, a timeout that stops
//! the whole process group, captured and capped output.

use crate::cancel::CancelToken;
use crate::testspec::{Invocation, TestSpec};
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// After SIGTERM, how long a timed-out test gets to write its coverage.
const GRACE: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, Default)]
pub struct Execution {
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub cancelled: bool,
    /// Why the process could not be started, if it could not.
    pub spawn_error: Option<String>,
    pub duration: Duration,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub truncated: bool,
}

/// Runs `spec` with coverage counters written under `prefix`.
pub fn execute(
    spec: &TestSpec,
    prefix: &Path,
    output_limit: usize,
    cancel: &CancelToken,
) -> Execution {
    let mut command = match &spec.invocation {
        Invocation::Argv(argv) => {
            let mut c = Command::new(&argv[0]);
            c.args(&argv[1..]);
            c
        }
        Invocation::Shell(line) => {
            let mut c = Command::new("sh");
            c.arg("-c").arg(line);
            c
        }
    };
    command
        .current_dir(&spec.cwd)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .env("GCOV_PREFIX", prefix)
        .env("GCOV_PREFIX_STRIP", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so a timeout stops everything it started.
        .process_group(0);
    let parent = std::process::id() as i32;
    // SAFETY: only async-signal-safe calls (prctl, getppid, _exit) between
    // fork and exec.
    unsafe {
        command.pre_exec(move || {
            // If faultlens itself is killed (even with SIGKILL), the test
            // dies too instead of running on unattended.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }

    let started = Instant::now();
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return Execution {
                spawn_error: Some(format!(
                    "cannot start `{}`: {e}",
                    spec.invocation.describe()
                )),
                duration: started.elapsed(),
                ..Execution::default()
            }
        }
    };
    let pid = child.id() as i32;

    let stdin_data = spec.stdin.clone();
    let mut stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(pipe) = stdin.as_mut() {
            // A program that exits without reading its input closes the pipe;
            // that is not an error of the test.
            let _ = pipe.write_all(&stdin_data);
        }
    });
    let out_reader = capped_reader(child.stdout.take(), output_limit);
    let err_reader = capped_reader(child.stderr.take(), output_limit);

    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });

    let mut timed_out = false;
    let mut cancelled = false;
    let mut term_sent_at: Option<Instant> = None;
    let status = loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(status) => break status.ok(),
            Err(mpsc::RecvTimeoutError::Disconnected) => break None,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let overdue = started.elapsed() > spec.timeout;
        if term_sent_at.is_none() && (overdue || cancel.is_cancelled()) {
            timed_out = overdue;
            cancelled = !overdue;
            signal_group(pid, libc::SIGTERM);
            term_sent_at = Some(Instant::now());
        }
        if term_sent_at.is_some_and(|t| t.elapsed() > GRACE) {
            signal_group(pid, libc::SIGKILL);
        }
    };
    // Children it left behind would hold the pipes open.
    signal_group(pid, libc::SIGKILL);
    let _ = waiter.join();
    let _ = writer.join();
    let (stdout, out_cut) = out_reader.join().unwrap_or_default();
    let (stderr, err_cut) = err_reader.join().unwrap_or_default();

    Execution {
        exit_code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| s.signal()),
        timed_out,
        cancelled,
        spawn_error: None,
        duration: started.elapsed(),
        stdout,
        stderr,
        truncated: out_cut || err_cut,
    }
}

fn signal_group(pgid: i32, signal: i32) {
    // SAFETY: kill has no memory-safety preconditions; a negative pid names
    // the process group we created for this test.
    unsafe {
        libc::kill(-pgid, signal);
    }
}

/// Reads a pipe to the end, keeping at most `limit` bytes.
fn capped_reader<R: Read + Send + 'static>(
    pipe: Option<R>,
    limit: usize,
) -> std::thread::JoinHandle<(Vec<u8>, bool)> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut truncated = false;
        let Some(mut pipe) = pipe else {
            return (kept, false);
        };
        let mut buf = [0u8; 16 * 1024];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = limit.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                    truncated |= n > room;
                }
            }
        }
        (kept, truncated)
    })
}
