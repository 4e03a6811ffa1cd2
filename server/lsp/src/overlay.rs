//! One layer the editor shows over the project's files (the ranking, the
//! diagnosis): where that layer's lines are now in each document, through
//! edits, closing and reopening. The server's two layers are two instances
//! of this type, so they follow the documents the same way.

use crate::tracking::{Edit, LineTracker};
use std::collections::HashMap;
use std::hash::Hash;
use tower_lsp_server::ls_types::Uri;

/// `K` names a file of the layer (the results' file index, the diagnosis'
/// relative path) for the text read from disk.
#[derive(Debug)]
pub struct Overlay<K> {
    /// Where the layer's lines are in each open document.
    open: HashMap<Uri, LineTracker>,
    /// Documents closed since the layer was installed: their last text and
    /// where the lines were; a reopened document continues from there.
    closed: HashMap<Uri, (String, LineTracker)>,
    /// Text of the layer's files that are not open, read once per install.
    pub disk: HashMap<K, String>,
}

impl<K> Default for Overlay<K> {
    fn default() -> Self {
        Overlay {
            open: HashMap::new(),
            closed: HashMap::new(),
            disk: HashMap::new(),
        }
    }
}

impl<K: Eq + Hash> Overlay<K> {
    /// A document opened with `text`: it continues from where it was
    /// closed (its text may have changed on disk meanwhile), else from
    /// `fresh`, with `text` as the baseline.
    pub fn open(&mut self, uri: &Uri, text: &str, fresh: Option<LineTracker>) {
        let tracker = match self.closed.remove(uri) {
            Some((old, mut tracker)) => {
                if old != text {
                    tracker.apply_full(&old, text);
                }
                Some(tracker)
            }
            None => fresh,
        };
        match tracker {
            Some(tracker) => self.open.insert(uri.clone(), tracker),
            None => self.open.remove(uri),
        };
    }

    /// An edit of an open document.
    pub fn edit(&mut self, uri: &Uri, edit: &Edit) {
        if let Some(tracker) = self.open.get_mut(uri) {
            tracker.apply(edit);
        }
    }

    /// An open document's whole text replaced.
    pub fn replace(&mut self, uri: &Uri, old: &str, new: &str) {
        if let Some(tracker) = self.open.get_mut(uri) {
            tracker.apply_full(old, new);
        }
    }

    /// A document closed with `text`: kept with where its lines are.
    pub fn close(&mut self, uri: &Uri, text: &str) {
        if let Some(tracker) = self.open.remove(uri) {
            self.closed.insert(uri.clone(), (text.to_string(), tracker));
        }
    }

    /// The layer's content changed: every open document (`uri`, current
    /// text) starts over from `fresh(uri)`. The layer describes the files
    /// as saved; `on_disk` holds that text for open documents, so unsaved
    /// edits are tracked from it (changed lines start stale).
    pub fn install<'a>(
        &mut self,
        documents: impl Iterator<Item = (&'a Uri, &'a str)>,
        on_disk: &HashMap<Uri, String>,
        fresh: impl Fn(&Uri) -> Option<LineTracker>,
    ) {
        self.clear();
        for (uri, text) in documents {
            let Some(mut tracker) = fresh(uri) else {
                continue;
            };
            if let Some(saved) = on_disk.get(uri) {
                if saved != text {
                    tracker.apply_full(saved, text);
                }
            }
            self.open.insert(uri.clone(), tracker);
        }
    }

    /// The layer is gone.
    pub fn clear(&mut self) {
        self.open.clear();
        self.closed.clear();
        self.disk.clear();
    }

    /// Where the lines are in the open document `uri`.
    pub fn tracker(&self, uri: &Uri) -> Option<&LineTracker> {
        self.open.get(uri)
    }

    /// The last text of the closed document `uri`, and where its lines are.
    pub fn closed(&self, uri: &Uri) -> Option<(&str, &LineTracker)> {
        self.closed.get(uri).map(|(text, t)| (text.as_str(), t))
    }

    /// Whether an edit moved or changed any of the layer's lines.
    pub fn any_changed(&self) -> bool {
        self.open
            .values()
            .chain(self.closed.values().map(|(_, t)| t))
            .any(LineTracker::any_changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri() -> Uri {
        "file:///p/mid.c".parse().unwrap()
    }

    #[test]
    fn a_reopened_document_continues_where_its_lines_were() {
        let mut overlay: Overlay<u32> = Overlay::default();
        let fresh = || Some(LineTracker::new([2u32]));
        overlay.open(&uri(), "a\nb\nc\n", fresh());
        overlay.replace(&uri(), "a\nb\nc\n", "new\na\nb\nc\n");
        overlay.close(&uri(), "new\na\nb\nc\n");
        assert!(overlay.tracker(&uri()).is_none());
        assert!(overlay.closed(&uri()).is_some());
        // Reopened with one more line above: the line moves on again.
        overlay.open(&uri(), "x\nnew\na\nb\nc\n", fresh());
        assert_eq!(overlay.tracker(&uri()).unwrap().get(2).line, Some(4));
        assert!(!overlay.any_changed(), "lines moved, none changed");
        overlay.replace(&uri(), "x\nnew\na\nb\nc\n", "x\nnew\na\nb\nC\n");
        assert!(overlay.any_changed());
    }

    #[test]
    fn installing_tracks_unsaved_edits_from_the_saved_text() {
        let mut overlay: Overlay<u32> = Overlay::default();
        overlay.disk.insert(0, "old".into());
        let on_disk = HashMap::from([(uri(), "a\nb\n".to_string())]);
        let text = "top\na\nb\n";
        overlay.install(std::iter::once((&uri(), text)), &on_disk, |_| {
            Some(LineTracker::new([1u32]))
        });
        assert!(overlay.disk.is_empty());
        assert_eq!(overlay.tracker(&uri()).unwrap().get(1).line, Some(2));
        overlay.clear();
        assert!(overlay.tracker(&uri()).is_none() && !overlay.any_changed());
    }
}
