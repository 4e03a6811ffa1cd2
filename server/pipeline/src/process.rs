//! The one way the pipeline starts a process (a test, a build step, a
//! runner's list command), and the guarantee that nothing it started
//! outlives it.
//!
//! - Each process starts in a session of its own, so its whole group can
//!   be signalled and it has no terminal, with `posix_spawn` (`spawn.rs`),
//!   so faultlens's memory is not copied for every test.
//! - Each carries a marker in its environment (`FAULTLENS_PROCESS=owner/
//!   run/seq`) that its descendants inherit, also those that start a
//!   session of their own to escape the group. Scanning `/proc` for the
//!   marker finds them: a process that kept the output open after its
//!   parent exited, and at the end of a run ([`RunScope`]'s drop, on every
//!   exit path) whatever is left.
//! - One watchdog per faultlens process (a small `sh` in a process group of
//!   its own) waits for faultlens's end on a pipe and then kills every process
//!   carrying faultlens's marker: that covers faultlens killed outright
//!   (SIGKILL), when no code of its own runs.
//! - The timeout covers the whole of it: the process, everything that holds
//!   its output open, and the reading of that output.

use crate::pump::Pump;
use crate::spawn::spawn;
use faultlens_cancel::CancelToken;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The environment variable that marks every process faultlens starts.
pub const MARKER: &str = "FAULTLENS_PROCESS";

/// After SIGTERM, how long a stopped process gets to write its coverage.
pub const GRACE: Duration = Duration::from_secs(2);

/// This faultlens process's part of every marker: its pid and start time,
/// so a recycled pid never matches.
fn owner() -> &'static str {
    static OWNER: OnceLock<String> = OnceLock::new();
    OWNER.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        format!("{}-{nanos}", std::process::id())
    })
}

static SEQUENCE: AtomicU64 = AtomicU64::new(0);

fn next() -> u64 {
    SEQUENCE.fetch_add(1, Ordering::Relaxed)
}

/// The processes of one run (a localization, a build): dropping the scope
/// kills whatever of them is still alive, on every exit path.
#[derive(Debug)]
pub struct RunScope {
    prefix: String,
}

impl RunScope {
    pub fn new() -> RunScope {
        start_watchdog();
        RunScope {
            prefix: format!("{}/{}/", owner(), next()),
        }
    }

    /// A marker value for one process of this run.
    fn marker(&self) -> String {
        format!("{}{}", self.prefix, next())
    }
}

impl Default for RunScope {
    fn default() -> Self {
        RunScope::new()
    }
}

impl Drop for RunScope {
    fn drop(&mut self) {
        kill_marked(&self.prefix, true);
    }
}

/// What to run and under which limits.
pub struct Job<'a> {
    pub command: Command,
    pub stdin: Vec<u8>,
    /// Bytes kept of stdout and of stderr each; the rest is drained.
    pub output_limit: usize,
    pub timeout: Duration,
    pub cancel: &'a CancelToken,
    pub scope: &'a RunScope,
}

#[derive(Debug, Clone, Default)]
pub struct Ended {
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// The timeout passed before the process and its output ended.
    pub timed_out: bool,
    pub cancelled: bool,
    /// Why the process could not be started, if it could not.
    pub spawn_error: Option<String>,
    pub duration: Duration,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// More than `output_limit` bytes were written to stdout / stderr.
    pub stdout_cut: bool,
    pub stderr_cut: bool,
    /// The process exited, but a process it started kept its output open
    /// until the timeout, and was stopped then.
    pub output_held: bool,
    /// It did not stop on SIGTERM within [`GRACE`] and was killed.
    pub needed_kill: bool,
}

/// Runs `job` to its end, its timeout or its cancellation, and leaves
/// nothing of it running.
pub fn run(job: Job) -> Ended {
    let Job {
        mut command,
        stdin,
        output_limit,
        timeout,
        cancel,
        scope,
    } = job;
    let marker = scope.marker();
    // Its standard streams are always pipes (`spawn.rs`).
    command.env(MARKER, &marker);
    // A session of its own (`spawn.rs`): one signal reaches its whole
    // group, a terminal's Ctrl-C reaches only faultlens, which stops it,
    // and it has no terminal to stop on. If faultlens is killed outright
    // the watchdog kills the process (see above).
    let started = Instant::now();
    let deadline = started + timeout;
    let mut child = match spawn(&command) {
        Ok(child) => child,
        Err(e) => {
            return Ended {
                spawn_error: Some(e.to_string()),
                duration: started.elapsed(),
                ..Ended::default()
            }
        }
    };
    let pid = child.pid;

    let mut pump = Pump::new(&mut child, stdin, output_limit);

    let mut ended = Ended::default();
    let mut status = None;
    let mut exited = false;
    let mut term_sent_at: Option<Instant> = None;
    loop {
        let may_have_exited = pump.serve(Duration::from_millis(10));
        if !exited && may_have_exited {
            match child.try_wait() {
                Ok(Some(s)) => {
                    status = Some(s);
                    exited = true;
                    pump.exited();
                    // Its group may hold the pipes open: the process is
                    // done, so is its group.
                    signal_group(pid, libc::SIGKILL);
                }
                Ok(None) => {}
                Err(_) => {
                    exited = true;
                    pump.exited();
                    signal_group(pid, libc::SIGKILL);
                }
            }
        }
        let output_open = pump.output_open();
        if exited && !output_open {
            break;
        }
        let overdue = Instant::now() > deadline;
        if exited {
            // Only something that escaped its group still holds the output.
            // After our own SIGTERM its readers get the grace period to see
            // the pipes close: a process we stopped did not hold them.
            let give_up = match term_sent_at {
                Some(sent) => sent.elapsed() > GRACE,
                None => overdue || cancel.is_cancelled(),
            };
            if give_up {
                if term_sent_at.is_none() {
                    ended.output_held = overdue;
                    ended.cancelled = !overdue;
                }
                kill_marked(&marker, false);
                // Still held: wait for the last of them to die.
                pump.serve(Duration::from_millis(20));
                if pump.output_open() {
                    kill_marked(&marker, false);
                }
                break;
            }
            continue;
        }
        if term_sent_at.is_none() && (overdue || cancel.is_cancelled()) {
            ended.timed_out = overdue;
            ended.cancelled = !overdue;
            signal_group(pid, libc::SIGTERM);
            term_sent_at = Some(Instant::now());
        }
        if term_sent_at.is_some_and(|t| t.elapsed() > GRACE) && !ended.needed_kill {
            ended.needed_kill = true;
            signal_group(pid, libc::SIGKILL);
            kill_marked(&marker, false);
        }
    }
    let ((stdout, stdout_cut), (stderr, stderr_cut)) = pump.finish();
    ended.timed_out |= ended.output_held;
    Ended {
        exit_code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| s.signal()),
        duration: started.elapsed(),
        stdout,
        stderr,
        stdout_cut,
        stderr_cut,
        ..ended
    }
}

fn signal_group(pgid: i32, signal: i32) {
    // SAFETY: kill has no memory-safety preconditions; a negative pid names
    // the process group of the session the process started.
    unsafe {
        libc::kill(-pgid, signal);
    }
}

/// Kills (SIGKILL) every process whose environment holds the marker
/// `value` (exactly, or as a prefix when `prefix`), until none is left or
/// a few rounds passed (a process may fork while it is being killed).
/// Returns how many were killed.
pub fn kill_marked(value: &str, prefix: bool) -> usize {
    let needle = format!("{MARKER}={value}");
    let mut killed = 0;
    for _ in 0..5 {
        let found = marked_processes(needle.as_bytes(), prefix);
        if found.is_empty() {
            break;
        }
        for pid in &found {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe {
                libc::kill(*pid, libc::SIGKILL);
            }
        }
        killed += found.len();
        std::thread::sleep(Duration::from_millis(5));
    }
    killed
}

/// Pids of the live processes whose environment holds `needle` (an
/// exact `NAME=value` entry, or one starting with it).
fn marked_processes(needle: &[u8], prefix: bool) -> Vec<i32> {
    let me = std::process::id() as i32;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == me || is_zombie(pid) {
            continue;
        }
        // Other users' processes are not readable, and never ours.
        let Ok(file) = std::fs::File::open(format!("/proc/{pid}/environ")) else {
            continue;
        };
        let mut environ = Vec::new();
        if file.take(1 << 20).read_to_end(&mut environ).is_err() {
            continue;
        }
        let matches = environ.split(|&b| b == 0).any(|entry| {
            if prefix {
                entry.starts_with(needle)
            } else {
                entry == needle
            }
        });
        if matches {
            found.push(pid);
        }
    }
    found
}

fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        // The state follows the command name, which is in parentheses and
        // may itself hold spaces or parentheses.
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}

/// Starts, once per faultlens process, the watchdog that kills every
/// process carrying this process's marker once faultlens is gone. Its
/// stdin is a pipe only faultlens holds (close-on-exec, so no child
/// inherits it): end of input means faultlens ended, however it ended.
fn start_watchdog() {
    static WATCHDOG: OnceLock<Mutex<Option<std::process::ChildStdin>>> = OnceLock::new();
    WATCHDOG.get_or_init(|| {
        let script = format!(
            "while read -r _; do :; done; \
             for p in /proc/[0-9]*; do \
               grep -qzx \"{MARKER}=$0/.*\" \"$p/environ\" 2>/dev/null && kill -9 \"${{p#/proc/}}\" 2>/dev/null; \
             done"
        );
        let child = Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(owner())
            .env_remove(MARKER)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own group: a terminal's Ctrl-C must not end it first.
            .process_group(0)
            .spawn();
        // Without a watchdog, processes still die with faultlens's own
        // exit paths; only SIGKILL of faultlens is not covered.
        Mutex::new(child.ok().and_then(|mut c| c.stdin.take()))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job<'a>(
        script: &str,
        timeout: f64,
        cancel: &'a CancelToken,
        scope: &'a RunScope,
    ) -> Job<'a> {
        let mut command = Command::new("sh");
        command.arg("-c").arg(script);
        Job {
            command,
            stdin: Vec::new(),
            output_limit: 1 << 20,
            timeout: Duration::from_secs_f64(timeout),
            cancel,
            scope,
        }
    }

    fn alive(pid: i32) -> bool {
        // SAFETY: signal 0 only checks that the process exists.
        let exists = unsafe { libc::kill(pid, 0) == 0 };
        exists && !is_zombie(pid)
    }

    #[test]
    fn a_plain_process_ends_with_its_status_and_output() {
        let (cancel, scope) = (CancelToken::new(), RunScope::new());
        let ended = run(job("echo hi; echo err >&2; exit 3", 10.0, &cancel, &scope));
        assert_eq!(ended.exit_code, Some(3));
        assert_eq!(ended.stdout, b"hi\n");
        assert_eq!(ended.stderr, b"err\n");
        assert!(!ended.timed_out && !ended.output_held);
    }

    #[test]
    fn a_process_stopped_at_its_timeout_is_not_said_to_have_held_its_output() {
        // Its pipes close as it dies; their readers may see that a moment
        // after the exit. (Once reported as "a process it started kept its
        // output open" for a test that simply hung.)
        let (cancel, scope) = (CancelToken::new(), RunScope::new());
        for _ in 0..40 {
            let ended = run(job("exec sleep 30", 0.05, &cancel, &scope));
            assert!(ended.timed_out && !ended.output_held, "{ended:?}");
        }
    }

    #[test]
    fn an_escaped_child_holding_the_output_is_stopped_at_the_timeout() {
        let (cancel, scope) = (CancelToken::new(), RunScope::new());
        let started = Instant::now();
        // setsid: the child leaves the process group; it keeps stdout open.
        let ended = run(job(
            // (The pause lets the child leave the group before the parent
            // exits and its group is killed.)
            "setsid -f sh -c 'echo $$; sleep 60'; sleep 0.3; exit 0",
            1.0,
            &cancel,
            &scope,
        ));
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert!(ended.output_held && ended.timed_out, "{ended:?}");
        assert_eq!(ended.exit_code, Some(0));
        let child: i32 = String::from_utf8_lossy(&ended.stdout)
            .trim()
            .parse()
            .unwrap();
        assert!(!alive(child), "the escaped child was killed");
    }

    #[test]
    fn a_detached_daemon_dies_with_its_run() {
        let cancel = CancelToken::new();
        let scope = RunScope::new();
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let script = format!(
            "setsid -f sh -c 'echo $$ > {0}; exec sleep 60' </dev/null >/dev/null 2>&1; \
             while [ ! -s {0} ]; do sleep 0.01; done; exit 0",
            pid_file.display()
        );
        let ended = run(job(&script, 10.0, &cancel, &scope));
        assert_eq!(ended.exit_code, Some(0));
        let deadline = Instant::now() + Duration::from_secs(5);
        let pid = loop {
            if let Some(pid) = std::fs::read_to_string(&pid_file)
                .ok()
                .and_then(|t| t.trim().parse::<i32>().ok())
            {
                break pid;
            }
            assert!(Instant::now() < deadline, "the daemon started");
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(alive(pid), "a daemon outlives its test until the run ends");
        drop(scope);
        std::thread::sleep(Duration::from_millis(50));
        assert!(!alive(pid), "the run's end killed it");
    }

    #[test]
    fn a_process_ignoring_sigterm_is_killed_after_the_grace() {
        let (cancel, scope) = (CancelToken::new(), RunScope::new());
        let ended = run(job("trap '' TERM; sleep 30", 0.5, &cancel, &scope));
        assert!(ended.timed_out && ended.needed_kill, "{ended:?}");
        assert_eq!(ended.signal, Some(libc::SIGKILL));
    }

    #[test]
    fn cancelling_stops_the_whole_group_promptly() {
        let cancel = CancelToken::new();
        let scope = RunScope::new();
        let stopper = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            stopper.cancel();
        });
        let started = Instant::now();
        let ended = run(job("sleep 30 & sleep 30; wait", 60.0, &cancel, &scope));
        assert!(ended.cancelled && !ended.timed_out, "{ended:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
