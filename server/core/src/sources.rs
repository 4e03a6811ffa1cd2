//! The text of source lines, for showing a ranked line next to its rank.
//! Loaded by whoever has file access (CLI, language server); the analyses
//! and renderers only read it.

use std::collections::HashMap;

#[derive(Debug, Clone, Default)]
pub struct SourceTexts {
    files: HashMap<String, Vec<String>>,
    texts: HashMap<String, String>,
}

impl SourceTexts {
    pub fn insert(&mut self, path: impl Into<String>, text: &str) {
        let path = path.into();
        self.files
            .insert(path.clone(), text.lines().map(String::from).collect());
        self.texts.insert(path, text.to_string());
    }

    /// The whole text of `path`, as read.
    pub fn text(&self, path: &str) -> Option<&str> {
        self.texts.get(path).map(String::as_str)
    }

    /// The 1-based `line` of `path`, without its line break.
    pub fn line(&self, path: &str, line: u32) -> Option<&str> {
        let index = (line as usize).checked_sub(1)?;
        self.files.get(path)?.get(index).map(String::as_str)
    }

    pub fn file(&self, path: &str) -> Option<&[String]> {
        self.files.get(path).map(Vec::as_slice)
    }
}

/// A short fingerprint of a file's content (64-bit FNV-1a, hex), to tell
/// whether a file changed since a run. Not cryptographic.
pub fn digest(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash = (hash ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_differ_when_content_does() {
        assert_eq!(digest(b""), "cbf29ce484222325");
        assert_ne!(digest(b"int x = 1;"), digest(b"int x = 2;"));
    }
}
