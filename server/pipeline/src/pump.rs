//! The pipes of one process, served from the thread that runs it with
//! `poll(2)`: its input written as it reads it, its output and errors read
//! as they come (kept up to a limit, the rest drained), and its exit seen
//! through a pidfd. A thread per pipe and one to wait cost more than a
//! quick test itself (four thread starts and ends per test).

use crate::spawn::Spawned;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

/// One output pipe and what was kept of it.
struct Capture {
    fd: Option<OwnedFd>,
    kept: Vec<u8>,
    cut: bool,
    limit: usize,
}

impl Capture {
    fn new(fd: Option<OwnedFd>, limit: usize) -> Capture {
        Capture {
            fd: fd.inspect(|fd| non_blocking(fd.as_raw_fd())),
            kept: Vec::new(),
            cut: false,
            limit,
        }
    }

    /// Reads what is there; closes the pipe at its end.
    fn drain(&mut self) {
        let Some(fd) = &self.fd else { return };
        let mut buf = [0u8; 16 * 1024];
        loop {
            // SAFETY: reading into a valid buffer from a descriptor we own.
            let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n > 0 {
                let n = n as usize;
                let room = self.limit.saturating_sub(self.kept.len());
                self.kept.extend_from_slice(&buf[..n.min(room)]);
                self.cut |= n > room;
                continue;
            }
            if n < 0 {
                match std::io::Error::last_os_error().kind() {
                    std::io::ErrorKind::Interrupted => continue,
                    std::io::ErrorKind::WouldBlock => return,
                    _ => {}
                }
            }
            // The end of the pipe, or an error that ends it.
            self.fd = None;
            return;
        }
    }
}

fn non_blocking(fd: RawFd) {
    // SAFETY: fcntl on a descriptor this process owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

/// A process's pipes and its exit, served together.
pub struct Pump {
    stdin: Option<OwnedFd>,
    input: Vec<u8>,
    written: usize,
    out: Capture,
    err: Capture,
    /// Readable once the process has exited (Linux 5.3 and later).
    exit: Option<OwnedFd>,
}

impl Pump {
    /// Takes the process's pipes; `input` is written to its stdin.
    pub fn new(process: &mut Spawned, input: Vec<u8>, limit: usize) -> Pump {
        let stdin = process.stdin.take().filter(|_| !input.is_empty());
        if let Some(fd) = &stdin {
            non_blocking(fd.as_raw_fd());
        }
        Pump {
            stdin,
            input,
            written: 0,
            out: Capture::new(process.stdout.take(), limit),
            err: Capture::new(process.stderr.take(), limit),
            exit: pidfd(process.pid),
        }
    }

    /// Waits at most `timeout` for the process to read, write or exit,
    /// and serves what it did. Returns whether it may have exited (always,
    /// without a pidfd: the caller then asks).
    pub fn serve(&mut self, timeout: Duration) -> bool {
        let mut fds = Vec::with_capacity(4);
        let mut push = |fd: &Option<OwnedFd>, events: i16| {
            if let Some(fd) = fd {
                fds.push(libc::pollfd {
                    fd: fd.as_raw_fd(),
                    events,
                    revents: 0,
                });
            }
        };
        push(&self.out.fd, libc::POLLIN);
        push(&self.err.fd, libc::POLLIN);
        push(&self.stdin, libc::POLLOUT);
        push(&self.exit, libc::POLLIN);
        let mut wait = timeout.as_millis().min(i32::MAX as u128) as i32;
        if self.exit.is_none() && self.out.fd.is_none() && self.err.fd.is_none() {
            // Nothing will wake the poll when the process exits.
            wait = wait.min(1);
        }
        // SAFETY: `fds` is a valid array of `fds.len()` pollfd structures.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, wait) };
        if ready <= 0 {
            return self.exit.is_none();
        }
        self.out.drain();
        self.err.drain();
        self.feed();
        let exited = fds
            .iter()
            .any(|p| Some(p.fd) == self.exit.as_ref().map(|e| e.as_raw_fd()) && p.revents != 0);
        exited || self.exit.is_none()
    }

    /// Writes what the pipe takes of the input; closes it at the end or
    /// when the process closed its end (a program that exits without
    /// reading its input is not in error).
    fn feed(&mut self) {
        let Some(fd) = &self.stdin else { return };
        while self.written < self.input.len() {
            let rest = &self.input[self.written..];
            // SAFETY: writing from a valid buffer to a descriptor we own.
            let n = unsafe { libc::write(fd.as_raw_fd(), rest.as_ptr().cast(), rest.len()) };
            if n > 0 {
                self.written += n as usize;
                continue;
            }
            let error = std::io::Error::last_os_error();
            match error.kind() {
                std::io::ErrorKind::Interrupted => continue,
                std::io::ErrorKind::WouldBlock => return,
                _ => break,
            }
        }
        self.stdin = None;
    }

    /// The process has exited and been waited for: its pidfd, readable
    /// from now on, would wake every poll.
    pub fn exited(&mut self) {
        self.exit = None;
    }

    /// Whether stdout or stderr is still open (a process it started may
    /// hold them after it exited).
    pub fn output_open(&self) -> bool {
        self.out.fd.is_some() || self.err.fd.is_some()
    }

    /// Reads what is left without waiting, and gives the kept output and
    /// errors, each with whether it was cut.
    pub fn finish(mut self) -> ((Vec<u8>, bool), (Vec<u8>, bool)) {
        self.out.drain();
        self.err.drain();
        ((self.out.kept, self.out.cut), (self.err.kept, self.err.cut))
    }
}

/// A descriptor that becomes readable when process `pid` exits, where the
/// kernel has them.
fn pidfd(pid: i32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // SAFETY: a non-negative result is a descriptor this process now owns.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}
