//! faultlens-lsp: the language server.

/// Serves the Language Server Protocol on stdin/stdout until the client exits.
pub fn run_stdio() -> anyhow::Result<()> {
    Ok(())
}

pub mod diagnostics;
pub mod document;
pub mod hover;
pub mod lenses;
pub mod localization;
pub mod placement;
pub mod scores;
pub mod settings;
pub mod state;
pub mod tracking;
