//! faultlens-lsp: the language server.

/// Serves the Language Server Protocol on stdin/stdout until the client exits.
pub fn run_stdio() -> anyhow::Result<()> {
    Ok(())
}
