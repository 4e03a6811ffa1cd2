//! An open document's text, kept in step with the client's edits.
//!
//! LSP positions count UTF-16 code units within a line; this module converts
//! them to byte offsets. Positions past the end of a line or of the document
//! are clamped, so a confused client cannot make the server panic.

#[derive(Debug, Clone)]
pub struct Document {
    pub text: String,
    pub version: i32,
}

impl Document {
    pub fn new(text: String, version: i32) -> Document {
        Document { text, version }
    }

    /// Byte offset of a (line, UTF-16 column) position, clamped.
    pub fn offset(&self, line: u32, character: u32) -> usize {
        let mut start = 0usize;
        for _ in 0..line {
            match self.text[start..].find('\n') {
                Some(i) => start += i + 1,
                None => return self.text.len(),
            }
        }
        let end = self.text[start..]
            .find('\n')
            .map_or(self.text.len(), |i| start + i);
        let mut units = 0u32;
        for (i, ch) in self.text[start..end].char_indices() {
            if units >= character {
                return start + i;
            }
            units += ch.len_utf16() as u32;
        }
        end
    }

    /// Replaces the text between two positions.
    pub fn replace(&mut self, start: (u32, u32), end: (u32, u32), new_text: &str) {
        let a = self.offset(start.0, start.1);
        let b = self.offset(end.0, end.1).max(a);
        self.text.replace_range(a..b, new_text);
    }

    /// The text of a 0-based line without its line break.
    pub fn line(&self, line: u32) -> Option<&str> {
        self.text
            .split('\n')
            .nth(line as usize)
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_by_utf16_positions() {
        let mut d = Document::new("int a;\n/* é😀 */ x = 1;\nend\n".into(), 1);
        // "😀" is two UTF-16 units: column 6 is right after it.
        d.replace((1, 6), (1, 6), "!");
        assert_eq!(d.line(1), Some("/* é😀! */ x = 1;"));
        d.replace((0, 0), (1, 0), "");
        assert_eq!(d.line(0), Some("/* é😀! */ x = 1;"));
    }

    #[test]
    fn clamps_positions_out_of_range() {
        let mut d = Document::new("ab\ncd".into(), 1);
        d.replace((0, 99), (7, 3), "X");
        assert_eq!(d.text, "abX");
        assert_eq!(d.line(5), None);
    }
}
