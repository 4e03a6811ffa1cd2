//! Ctrl-C (SIGINT) and SIGTERM: one handler for the whole process (the
//! `ctrlc` crate allows only one) that cancels the process's one token,
//! which stops running tests and builds and interrupts the diagnosis's SAT
//! solver, so nothing is left orphaned or half written. A second interrupt
//! exits at once.

use faultlens_pipeline::CancelToken;
use std::sync::OnceLock;

static INTERRUPT: OnceLock<CancelToken> = OnceLock::new();

/// The process's interrupt token, installing the handler on first use.
pub fn token() -> CancelToken {
    INTERRUPT.get_or_init(install).clone()
}

fn install() -> CancelToken {
    let token = CancelToken::new();
    let handler = token.clone();
    let installed = ctrlc::set_handler(move || {
        if handler.is_cancelled() {
            std::process::exit(130);
        }
        eprintln!("\nfaultlens: stopping (press Ctrl-C again to quit at once)");
        handler.cancel();
    });
    if let Err(e) = installed {
        eprintln!("faultlens: Ctrl-C will not stop running tests cleanly: {e}");
    }
    token
}
