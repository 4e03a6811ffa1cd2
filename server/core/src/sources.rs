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
