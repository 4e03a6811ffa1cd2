//! Printing results to stdout. Rust ignores SIGPIPE, so a reader that goes
//! away (`faultlens tests | head`) turns into a write error; we end quietly
//! then, as Unix tools do. (Restoring SIGPIPE's default action instead would
//! let a test that exits before reading its stdin kill faultlens itself.)

use std::io::Write;

pub fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("faultlens: cannot write the output: {e}");
        std::process::exit(1);
    }
}

/// `println!` for command output.
macro_rules! outln {
    () => { $crate::output::print("\n") };
    ($($arg:tt)*) => { $crate::output::print(&format!("{}\n", format_args!($($arg)*))) };
}
pub(crate) use outln;
