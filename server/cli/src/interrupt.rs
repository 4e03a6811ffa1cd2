//! Ctrl-C (SIGINT) and SIGTERM: one handler for the whole process (the
//! `ctrlc` crate allows only one) that cancels the running tests and the
//! diagnosis engine, so nothing is left orphaned or half written. A second
//! interrupt exits at once.

use std::sync::OnceLock;

#[derive(Clone)]
pub struct Interrupt {
    /// Stops test processes of a localization run.
    pub pipeline: faultlens_pipeline::CancelToken,
    /// Interrupts the diagnosis's SAT solver.
    pub diagnosis: faultlens_diagnose::CancelToken,
}

static INTERRUPT: OnceLock<Interrupt> = OnceLock::new();

/// The process's interrupt tokens, installing the handler on first use.
pub fn tokens() -> Interrupt {
    INTERRUPT.get_or_init(install).clone()
}

fn install() -> Interrupt {
    let tokens = Interrupt {
        pipeline: faultlens_pipeline::CancelToken::new(),
        diagnosis: faultlens_diagnose::CancelToken::new(),
    };
    let handler = tokens.clone();
    let installed = ctrlc::set_handler(move || {
        if handler.pipeline.is_cancelled() {
            std::process::exit(130);
        }
        eprintln!("\nfaultlens: stopping (press Ctrl-C again to quit at once)");
        handler.pipeline.cancel();
        handler.diagnosis.cancel();
    });
    if let Err(e) = installed {
        eprintln!("faultlens: Ctrl-C will not stop running tests cleanly: {e}");
    }
    tokens
}
