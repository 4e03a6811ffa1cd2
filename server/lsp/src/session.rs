//! The server's shared state and everything computed from it without I/O:
//! which diagnostics to publish where, lenses and hovers of open documents,
//! the status line. The protocol layer locks the state, calls these, unlocks,
//! and only then talks to the client (the lock is never held across an
//! `.await`).

use crate::diagnoses::{self, Diagnoses};
use crate::diagnostics;
use crate::document::Document;
use crate::hover;
use crate::jobs::Jobs;
use crate::lenses;
use crate::localization::Localization;
use crate::overlay::Overlay;
use crate::placement::{FileView, NOT_IN_RESULTS};
use crate::protocol::{
    DiagnosisState, DiagnosisStatus, FailingTest, GenerationState, GenerationStatus, JobKind,
    ScoresParams, ServerState, StatusParams,
};
use crate::scores;
use crate::settings::Settings;
use crate::tracking::{Edit, LineTracker};
use faultlens_core::measures::Ranker;
use faultlens_core::results::RunResults;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;
use tower_lsp_server::ls_types::{
    CodeLens, Diagnostic, Hover, HoverContents, InlayHint, MarkupContent, MarkupKind, Position,
    Range, TextDocumentContentChangeEvent, Uri,
};

/// Identity of a results file on disk, to notice when it was replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileSignature {
    pub modified: SystemTime,
    pub len: u64,
}

/// What went wrong last, shown in the status until the next success.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// The results file is unreadable.
    Results(String),
    /// The last run failed (build error, no tests, ...).
    Run(String),
}

#[derive(Debug, Default)]
pub struct Session {
    root: Option<PathBuf>,
    trusted: bool,
    settings: Settings,
    client_supports_progress: bool,
    localization: Option<Arc<Localization>>,
    results_signature: Option<FileSignature>,
    /// The documents the client has open.
    docs: HashMap<Uri, Document>,
    /// Where the ranked lines are in each document (by results file index).
    ranked_lines: Overlay<u32>,
    /// URIs that currently show faultlens diagnostics, to clear them later.
    published: BTreeSet<String>,
    /// Compiler messages of the last failed build, by file URI.
    build_errors: BTreeMap<String, Vec<Diagnostic>>,
    /// The background jobs: localization, diagnosis, test generation.
    jobs: Jobs,
    save_generation: u64,
    /// Counts edits, so a burst of keystrokes publishes once.
    edit_generation: u64,
    problem: Option<Problem>,
    /// The last diagnosis (`.faultlens/diagnosis.json`).
    diagnoses: Option<Arc<Diagnoses>>,
    diagnosis_signature: Option<FileSignature>,
    /// The user asked for a diagnosis and the results were stale: the
    /// localization started for it diagnoses when it ends.
    diagnose_after_run: bool,
    /// Why the last diagnosis produced nothing (C the model cannot handle,
    /// an unreadable document), until the next one succeeds.
    diagnosis_problem: Option<String>,
    /// Where the diagnosed lines are in each document (by relative path).
    diagnosed_lines: Overlay<String>,
    /// The project is a harness with free inputs (test generation works
    /// on it): decided when results are read.
    harness: bool,
    /// What started the localization running or last finished, when it
    /// was the developer's own failing test run.
    trigger: Option<RunTrigger>,
    /// The untrusted workspace's "a run failed" was said once already.
    told_untrusted_run: bool,
    /// What the ranking shown now is, while it is a first ranking (the
    /// developer's failing tests with the previous results) and the full
    /// run goes on; the results file is not read meanwhile.
    first_ranking: Option<String>,
}

/// A developer's failing test run that started a localization.
#[derive(Debug, Clone)]
pub struct RunTrigger {
    /// "ctest in build/ failed 2 of 13 tests".
    pub reason: String,
    /// The runs' reports, for the agreement check (none for a terminal
    /// command that left no report).
    pub runs: Vec<faultlens_workspace::devruns::DevRun>,
    pub from_editor: bool,
    pub at: std::time::Instant,
}

/// Everything to send after a change, computed under the lock.
#[derive(Debug)]
pub struct Publication {
    pub diagnostics: Vec<(Uri, Vec<Diagnostic>, Option<i32>)>,
    pub scores: Option<ScoresParams>,
    pub status: StatusParams,
}

/// The session's state is private: the protocol layer reads it through
/// these accessors and changes it only through the named operations below,
/// so each invariant (a problem cleared by a success, a generation counter
/// bumped with the edit it counts) is kept in one place. Two parts are
/// handed out whole: the settings (plain values the client sets) and the
/// job scheduler (which keeps its own invariants).
impl Session {
    /// What the client said at `initialize`.
    pub fn configure(
        &mut self,
        root: Option<PathBuf>,
        trusted: bool,
        settings: Settings,
        client_supports_progress: bool,
    ) {
        self.root = root;
        self.trusted = trusted;
        self.settings = settings;
        self.client_supports_progress = client_supports_progress;
    }

    pub fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    pub fn trusted(&self) -> bool {
        self.trusted
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The settings, to apply a configuration change to.
    pub fn settings_mut(&mut self) -> &mut Settings {
        &mut self.settings
    }

    pub fn client_supports_progress(&self) -> bool {
        self.client_supports_progress
    }

    pub fn localization(&self) -> Option<Arc<Localization>> {
        self.localization.clone()
    }

    pub fn results_signature(&self) -> Option<FileSignature> {
        self.results_signature
    }

    pub fn has_diagnoses(&self) -> bool {
        self.diagnoses.is_some()
    }

    pub fn diagnosis_signature(&self) -> Option<FileSignature> {
        self.diagnosis_signature
    }

    pub fn jobs(&self) -> &Jobs {
        &self.jobs
    }

    /// The background jobs, to start, cancel or finish one.
    pub fn jobs_mut(&mut self) -> &mut Jobs {
        &mut self.jobs
    }

    /// Whether test generation works on the project (decided when the
    /// results are read).
    pub fn set_harness(&mut self, harness: bool) {
        self.harness = harness;
    }

    /// The results file cannot be read: says so in the status. True the
    /// first time for this version of the file (or when it could not be
    /// read at all), to tell the user once.
    pub fn results_broken(&mut self, message: String, signature: Option<FileSignature>) -> bool {
        let first = signature.is_none() || self.results_signature != signature;
        if signature.is_some() {
            self.results_signature = signature;
        }
        self.problem = Some(Problem::Results(message));
        first
    }

    /// The diagnosis file cannot be read; like [`Session::results_broken`].
    pub fn diagnosis_broken(&mut self, message: String, signature: FileSignature) -> bool {
        let first = self.diagnosis_signature != Some(signature);
        self.diagnosis_signature = Some(signature);
        self.diagnosis_problem = Some(message);
        first
    }

    /// Why the last diagnosis produced nothing (`None`: it succeeded).
    pub fn set_diagnosis_problem(&mut self, problem: Option<String>) {
        self.diagnosis_problem = problem;
    }

    /// The run now starting should diagnose when it ends.
    pub fn diagnose_after_run(&mut self) {
        self.diagnose_after_run = true;
    }

    /// Whether a diagnosis was asked for the run that just ended (and
    /// forgets it).
    pub fn take_diagnose_after_run(&mut self) -> bool {
        std::mem::take(&mut self.diagnose_after_run)
    }

    /// A run ended well: its problems are gone.
    /// A localization starts: `trigger` is the developer's run that
    /// started it, `None` for any other reason (a command, a save).
    pub fn run_starting(&mut self, trigger: Option<RunTrigger>) {
        self.trigger = trigger;
        self.first_ranking = None;
    }

    /// Shows a first ranking while the full run goes on; `message` says
    /// what it is made of.
    pub fn show_first_ranking(
        &mut self,
        loc: Localization,
        message: String,
        on_disk: &HashMap<Uri, String>,
    ) {
        self.install(loc, None, on_disk);
        self.first_ranking = Some(message);
    }

    /// A run stopped without results: a first ranking it showed gives way
    /// to the stored results again.
    pub fn run_stopped(&mut self) {
        self.first_ranking = None;
    }

    /// Whether a first ranking is shown (the results file waits for the full run).
    pub fn showing_first_ranking(&self) -> bool {
        self.first_ranking.is_some()
    }

    /// The developer's run behind the localization running now, if one
    /// started it.
    pub fn trigger(&self) -> Option<&RunTrigger> {
        self.trigger.as_ref()
    }

    /// The same run told again by its other source (the report after the
    /// editor's word, or the other way round): its reports join the
    /// agreement check and its words the status.
    pub fn add_to_trigger(&mut self, other: RunTrigger) {
        if let Some(trigger) = self.trigger.as_mut() {
            trigger.runs.extend(other.runs);
            trigger.reason = format!("{} ({})", trigger.reason, other.reason);
        }
    }

    /// Whether an untrusted workspace should say (once) that a run failed.
    pub fn first_untrusted_run(&mut self) -> bool {
        !std::mem::replace(&mut self.told_untrusted_run, true)
    }

    pub fn run_succeeded(&mut self) {
        self.first_ranking = None;
        self.build_errors.clear();
        self.problem = None;
    }

    /// A run failed: `message` goes to the status, and the compiler's
    /// messages (by file URI) to the diagnostics of their files.
    pub fn run_failed(&mut self, message: String, build_errors: BTreeMap<String, Vec<Diagnostic>>) {
        self.first_ranking = None;
        self.problem = Some(Problem::Run(message));
        self.build_errors = build_errors;
    }

    /// Counts an edit; the diagnosis running describes the text before it.
    /// Returns the edit's number (see [`Session::edit_generation`]).
    pub fn note_edit(&mut self) -> u64 {
        self.edit_generation += 1;
        self.jobs.cancel(JobKind::Diagnose);
        self.edit_generation
    }

    /// The last edit's number: a publication waits for typing to pause.
    pub fn edit_generation(&self) -> u64 {
        self.edit_generation
    }

    /// Counts a save that should start a run (the setting is on and the
    /// workspace trusted), returning its number; `None` when it should not.
    pub fn note_save(&mut self) -> Option<u64> {
        if !(self.settings.auto_run_on_save && self.trusted) {
            return None;
        }
        self.save_generation += 1;
        Some(self.save_generation)
    }

    pub fn save_generation(&self) -> u64 {
        self.save_generation
    }

    /// The path of `uri` relative to the root, with `/` separators.
    pub fn relative_path(&self, uri: &Uri) -> Option<String> {
        let root = self.root.as_ref()?;
        let path = uri.to_file_path()?;
        let relative = path.strip_prefix(root).ok()?;
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }

    fn file_index(&self, loc: &Localization, uri: &Uri) -> Option<u32> {
        loc.file_index(&self.relative_path(uri)?)
    }

    /// A tracker of every executable line of the document's file, taking
    /// the current text as the baseline.
    fn fresh_tracker(&self, uri: &Uri) -> Option<LineTracker> {
        let loc = self.localization.as_ref()?;
        let file = self.file_index(loc, uri)?;
        let lines = &loc.results.files[file as usize].lines;
        let mut tracker = LineTracker::new(lines.iter().map(|l| l.saturating_sub(1)));
        if loc.changed_on_disk.contains(&file) {
            tracker.mark_all_stale();
        }
        Some(tracker)
    }

    /// A tracker of the diagnosed lines of the document's file (and those a
    /// hover speaks of, see `Diagnoses::hover_lines_of`), taking the
    /// current text as the baseline.
    fn fresh_diag_tracker(&self, uri: &Uri) -> Option<LineTracker> {
        let diag = self.diagnoses.as_ref()?;
        let relative = self.relative_path(uri)?;
        let lines = diag.hover_lines_of(&relative);
        if lines.is_empty() {
            return None;
        }
        let mut tracker = LineTracker::new(lines.iter().map(|l| l.saturating_sub(1)));
        if diag.changed_on_disk.contains(&relative) {
            tracker.mark_all_stale();
        }
        Some(tracker)
    }

    pub fn open(&mut self, uri: Uri, text: String, version: i32) {
        let uri = canonical_uri(&uri);
        let ranked = self.fresh_tracker(&uri);
        self.ranked_lines.open(&uri, &text, ranked);
        let diagnosed = self.fresh_diag_tracker(&uri);
        self.diagnosed_lines.open(&uri, &text, diagnosed);
        self.docs.insert(uri, Document::new(text, version));
    }

    /// Applies the client's edits to an open document and moves its ranked
    /// lines. Unknown documents are ignored (returns false).
    pub fn change(
        &mut self,
        uri: &Uri,
        version: i32,
        changes: &[TextDocumentContentChangeEvent],
    ) -> bool {
        let uri = canonical_uri(uri);
        let Some(doc) = self.docs.get_mut(&uri) else {
            return false;
        };
        for change in changes {
            match change.range {
                Some(range) => {
                    let edit = Edit {
                        start_line: range.start.line,
                        start_col: range.start.character,
                        end_line: range.end.line,
                        end_col: range.end.character,
                        text: &change.text,
                    };
                    self.ranked_lines.edit(&uri, &edit);
                    self.diagnosed_lines.edit(&uri, &edit);
                    doc.replace(
                        (range.start.line, range.start.character),
                        (range.end.line, range.end.character),
                        &change.text,
                    );
                }
                None => {
                    self.ranked_lines.replace(&uri, &doc.text, &change.text);
                    self.diagnosed_lines.replace(&uri, &doc.text, &change.text);
                    doc.text = change.text.clone();
                }
            }
        }
        doc.version = version;
        true
    }

    pub fn close(&mut self, uri: &Uri) {
        let uri = canonical_uri(uri);
        if let Some(doc) = self.docs.remove(&uri) {
            self.ranked_lines.close(&uri, &doc.text);
            self.diagnosed_lines.close(&uri, &doc.text);
        }
    }

    /// Installs new results. The results describe the files as they were
    /// on disk; `on_disk` holds that text for open documents, so unsaved
    /// edits are tracked from it (changed lines start stale). Documents
    /// missing from `on_disk` take their current text as the baseline.
    pub fn install(
        &mut self,
        loc: Localization,
        signature: Option<FileSignature>,
        on_disk: &HashMap<Uri, String>,
    ) {
        self.localization = Some(Arc::new(loc));
        self.results_signature = signature;
        // New results answer a broken results file, not a failed run.
        if matches!(self.problem, Some(Problem::Results(_))) {
            self.problem = None;
        }
        let mut overlay = std::mem::take(&mut self.ranked_lines);
        let documents = self.docs.iter().map(|(u, d)| (u, d.text.as_str()));
        overlay.install(documents, on_disk, |uri| self.fresh_tracker(uri));
        self.ranked_lines = overlay;
    }

    /// Installs a diagnosis; like `install`, `on_disk` holds the saved text
    /// of open documents so unsaved edits are tracked from it.
    pub fn install_diagnosis(
        &mut self,
        diag: Diagnoses,
        signature: Option<FileSignature>,
        on_disk: &HashMap<Uri, String>,
    ) {
        self.diagnoses = Some(Arc::new(diag));
        self.diagnosis_signature = signature;
        self.diagnosis_problem = None;
        let mut overlay = std::mem::take(&mut self.diagnosed_lines);
        let documents = self.docs.iter().map(|(u, d)| (u, d.text.as_str()));
        overlay.install(documents, on_disk, |uri| self.fresh_diag_tracker(uri));
        self.diagnosed_lines = overlay;
    }

    /// Drops the diagnosis (its file was deleted).
    pub fn clear_diagnosis(&mut self) {
        self.diagnoses = None;
        self.diagnosis_signature = None;
        self.diagnosed_lines.clear();
    }

    /// The view of a diagnosed file (relative path): tracked through edits
    /// when open or closed after edits, else as on disk.
    fn diag_view<'a>(
        &'a self,
        diag: &Diagnoses,
        relative: &str,
        disk: &'a HashMap<String, String>,
    ) -> Option<FileView<'a>> {
        let uri = diag.uri_of(relative)?;
        if let Some(doc) = self.docs.get(&uri) {
            return Some(FileView {
                file: NOT_IN_RESULTS,
                tracker: self.diagnosed_lines.tracker(&uri),
                uri,
                lines: doc.text.split('\n').collect(),
                changed_on_disk: false,
            });
        }
        if let Some((text, tracker)) = self.diagnosed_lines.closed(&uri) {
            return Some(FileView {
                file: NOT_IN_RESULTS,
                uri,
                tracker: Some(tracker),
                lines: text.split('\n').collect(),
                changed_on_disk: false,
            });
        }
        Some(FileView {
            file: NOT_IN_RESULTS,
            uri,
            tracker: None,
            changed_on_disk: diag.changed_on_disk.contains(relative),
            lines: disk
                .get(relative)
                .map(|t| t.split('\n').collect())
                .unwrap_or_default(),
        })
    }

    /// Diagnosed files whose text must be read for the next publication,
    /// as (relative path, absolute path).
    pub fn diag_files_to_read(&self) -> Vec<(String, PathBuf)> {
        let Some(diag) = self.diagnoses.as_ref() else {
            return vec![];
        };
        diag.files()
            .filter(|f| !self.diagnosed_lines.disk.contains_key(*f))
            .filter(|f| {
                diag.uri_of(f).is_some_and(|u| {
                    !self.docs.contains_key(&u) && self.diagnosed_lines.closed(&u).is_none()
                })
            })
            .map(|f| (f.to_string(), diag.path_of(f)))
            .collect()
    }

    /// The inlay hints of a document within `range`: angelic values at the
    /// end of diagnosed statements.
    pub fn inlay_hints(&self, uri: &Uri, range: Range) -> Vec<InlayHint> {
        let Some(diag) = self.diagnoses.as_ref() else {
            return vec![];
        };
        let Some(relative) = self.relative_path(uri) else {
            return vec![];
        };
        let no_disk = HashMap::new();
        let Some(view) = self.diag_view(diag, &relative, &no_disk) else {
            return vec![];
        };
        diagnoses::inlay_hints(diag, &relative, &view, range)
    }

    /// The hover section of the diagnosed line under the cursor (or of one
    /// where a failing run read outside an object).
    fn diagnosis_hover(&self, uri: &Uri, position: Position) -> Option<(String, Range)> {
        let diag = self.diagnoses.as_ref()?;
        let relative = self.relative_path(uri)?;
        let no_disk = HashMap::new();
        let view = self.diag_view(diag, &relative, &no_disk)?;
        let lines = diag.hover_lines_of(&relative);
        let line = view.baseline_at(position.line, lines.into_iter())?;
        let placed = view.place_line(line)?;
        let md = diagnoses::hover_section(diag, &relative, line, placed.stale)?;
        Some((md, view.line_range(placed.line)))
    }

    /// Open documents as (URI, path), to read their saved text.
    pub fn open_paths(&self) -> Vec<(Uri, PathBuf)> {
        self.docs
            .keys()
            .filter_map(|u| Some((u.clone(), u.to_file_path()?.into_owned())))
            .collect()
    }

    /// Drops results (the file was deleted).
    pub fn clear_results(&mut self) {
        if matches!(self.problem, Some(Problem::Results(_))) {
            self.problem = None;
        }
        self.localization = None;
        self.results_signature = None;
        self.ranked_lines.clear();
    }

    /// The ranker the current results should be ranked by: the chosen
    /// measure, fused with the diagnosis when one of these very results is
    /// installed and the settings fuse (fusion is the default ranking
    /// wherever a diagnosis exists).
    fn wanted_ranker(&self, results: &RunResults) -> Ranker {
        let fuse = self.settings.fuse_diagnosis
            && self
                .diagnoses
                .as_ref()
                .is_some_and(|d| d.report.describes(results));
        if fuse {
            self.settings.measure.fused()
        } else {
            self.settings.measure
        }
    }

    /// What a re-ranking needs, when the ranker the results should have
    /// (the measure, fused or not) differs from the ranking's.
    pub fn rerank_job(&self) -> Option<(Arc<RunResults>, Ranker, PathBuf)> {
        let loc = self.localization.as_ref()?;
        let wanted = self.wanted_ranker(&loc.results);
        (loc.measure != wanted).then(|| (Arc::clone(&loc.results), wanted, loc.root.clone()))
    }

    /// Installs a re-ranking if it still fits: same results, and the
    /// ranker it used is still the one wanted. Trackers stay: the ranked
    /// lines did not move.
    pub fn apply_rerank(&mut self, mut fresh: Localization) -> bool {
        let fits = self
            .localization
            .as_ref()
            .is_some_and(|l| Arc::ptr_eq(&l.results, &fresh.results))
            && fresh.measure == self.wanted_ranker(&fresh.results);
        if fits {
            if let Some(old) = &self.localization {
                fresh.changed_on_disk = old.changed_on_disk.clone();
            }
            self.localization = Some(Arc::new(fresh));
        }
        fits
    }

    /// The view of one file: tracked through edits when open or closed
    /// after edits, else as on disk.
    fn view<'a>(
        &'a self,
        loc: &Localization,
        file: u32,
        disk: &'a HashMap<u32, String>,
    ) -> Option<FileView<'a>> {
        let relative = &loc.results.files.get(file as usize)?.path;
        let uri = loc.uri_of(relative)?;
        if let Some(doc) = self.docs.get(&uri) {
            return Some(FileView {
                file,
                tracker: self.ranked_lines.tracker(&uri),
                uri,
                lines: doc.text.split('\n').collect(),
                changed_on_disk: false,
            });
        }
        if let Some((text, tracker)) = self.ranked_lines.closed(&uri) {
            return Some(FileView {
                file,
                uri,
                tracker: Some(tracker),
                lines: text.split('\n').collect(),
                changed_on_disk: false,
            });
        }
        Some(FileView {
            file,
            uri,
            tracker: None,
            changed_on_disk: loc.changed_on_disk.contains(&file),
            lines: disk
                .get(&file)
                .map(|t| t.split('\n').collect())
                .unwrap_or_default(),
        })
    }

    /// Files whose text must be read from disk for the next publication
    /// (files with top lines that are not open), as (index, absolute path).
    pub fn files_to_read(&self) -> Vec<(u32, PathBuf)> {
        let Some(loc) = self.localization.as_ref() else {
            return vec![];
        };
        let mut files: Vec<u32> = loc.top(self.settings.top_n).map(|e| e.file).collect();
        files.sort_unstable();
        files.dedup();
        files
            .into_iter()
            .filter_map(|f| {
                let relative = &loc.results.files[f as usize].path;
                let open = loc.uri_of(relative).is_some_and(|u| {
                    self.docs.contains_key(&u) || self.ranked_lines.closed(&u).is_some()
                });
                (!open && !self.ranked_lines.disk.contains_key(&f))
                    .then(|| (f, loc.path_of(relative)))
            })
            .collect()
    }

    /// The saved text of diagnosed files just read (see
    /// `diag_files_to_read`), by relative path.
    pub fn diagnosed_files_read(&mut self, read: HashMap<String, String>) {
        self.diagnosed_lines.disk.extend(read);
    }

    /// Everything to publish now; remembers which URIs carry diagnostics.
    /// `read` holds the text of files just read (see `files_to_read`).
    pub fn publication(&mut self, read: HashMap<u32, String>) -> Publication {
        self.ranked_lines.disk.extend(read);
        let disk = std::mem::take(&mut self.ranked_lines.disk);
        let publication = self.publication_with(&disk);
        self.ranked_lines.disk = disk;
        publication
    }

    fn publication_with(&mut self, disk: &HashMap<u32, String>) -> Publication {
        let mut by_uri: BTreeMap<String, (Uri, Vec<Diagnostic>, Option<i32>)> = BTreeMap::new();
        let mut scores_payload = None;
        if let Some(loc) = self.localization.clone() {
            let files = loc.files_with_results();
            let views: Vec<FileView> = files
                .iter()
                .filter_map(|&f| self.view(&loc, f, disk))
                .collect();
            for view in &views {
                let list = diagnostics::for_file(&loc, view, self.settings.top_n);
                if !list.is_empty() {
                    let version = self.docs.get(&view.uri).map(|d| d.version);
                    by_uri.insert(
                        view.uri.as_str().to_string(),
                        (view.uri.clone(), list, version),
                    );
                }
            }
            scores_payload = Some(scores::payload(&loc, &views));
        }
        if let Some(diag) = self.diagnoses.clone() {
            let disk = std::mem::take(&mut self.diagnosed_lines.disk);
            for relative in diag.files() {
                let Some(view) = self.diag_view(&diag, relative, &disk) else {
                    continue;
                };
                let list = diagnoses::diagnostics(&diag, relative, &view);
                if list.is_empty() {
                    continue;
                }
                let version = self.docs.get(&view.uri).map(|d| d.version);
                by_uri
                    .entry(view.uri.as_str().to_string())
                    .or_insert((view.uri.clone(), vec![], version))
                    .1
                    .extend(list);
            }
            self.diagnosed_lines.disk = disk;
        }
        for (uri_text, list) in &self.build_errors {
            if let Ok(uri) = uri_text.parse::<Uri>() {
                let entry = by_uri
                    .entry(uri_text.clone())
                    .or_insert((uri, vec![], None));
                entry.1.extend(list.iter().cloned());
            }
        }
        let mut out = Vec::new();
        for old in &self.published {
            if !by_uri.contains_key(old) {
                if let Ok(uri) = old.parse::<Uri>() {
                    out.push((uri, vec![], None));
                }
            }
        }
        self.published = by_uri.keys().cloned().collect();
        out.extend(by_uri.into_values());
        Publication {
            diagnostics: out,
            scores: scores_payload,
            status: self.status(),
        }
    }

    /// The `faultlens/status` payload.
    pub fn status(&self) -> StatusParams {
        let (failing, total) = self
            .localization
            .as_ref()
            .map_or((0, 0), |l| l.failed_and_total());
        let stale = self.ranked_lines.any_changed()
            || self
                .localization
                .as_ref()
                .is_some_and(|l| !l.changed_on_disk.is_empty());
        let summary = format!("{failing} failing of {total} tests");
        let after = self
            .trigger
            .as_ref()
            .map(|t| format!(" after {}", t.reason))
            .unwrap_or_default();
        let (state, message) = if self.jobs.running(JobKind::Run).is_some() {
            let doing = match &self.first_ranking {
                Some(first) => first.clone(),
                None => "building and running the tests".to_string(),
            };
            (ServerState::Running, format!("localizing{after}: {doing}"))
        } else if let Some(problem) = &self.problem {
            match problem {
                Problem::Results(m) | Problem::Run(m) => (ServerState::Error, m.clone()),
            }
        } else if self.localization.is_none() {
            if self.trusted {
                (
                    ServerState::NoResults,
                    "no results yet: run faultlens.localize".to_string(),
                )
            } else {
                (ServerState::Untrusted, UNTRUSTED.to_string())
            }
        } else if stale {
            (
                ServerState::Stale,
                format!("{summary}; some ranked lines changed since the run"),
            )
        } else if after.is_empty() {
            (ServerState::Done, summary)
        } else {
            (ServerState::Done, format!("{summary} (localized{after})"))
        };
        StatusParams {
            state,
            message,
            failing,
            total,
            diagnosis: self.diagnosis_status(),
            generation: self.generation_status(),
        }
    }

    /// The `generation` part of the status (`faultlens.generateTests`).
    fn generation_status(&self) -> GenerationStatus {
        let (state, message) = match self.jobs.running(JobKind::Generate) {
            Some(_) => (GenerationState::Running, "generating tests"),
            None => (GenerationState::Idle, "no test generation running"),
        };
        GenerationStatus {
            state,
            message: message.into(),
        }
    }

    /// The `diagnosis` part of the status.
    fn diagnosis_status(&self) -> DiagnosisStatus {
        let (state, message) = if self.jobs.running(JobKind::Diagnose).is_some() {
            (
                DiagnosisState::Running,
                "diagnosing the failing tests".to_string(),
            )
        } else if let Some(problem) = &self.diagnosis_problem {
            (DiagnosisState::Error, problem.clone())
        } else if let Some(diag) = &self.diagnoses {
            (DiagnosisState::Done, diag.summary())
        } else {
            (DiagnosisState::None, "no diagnosis yet".to_string())
        };
        DiagnosisStatus { state, message }
    }

    /// Hover on an open document: the diagnoses the line under the cursor
    /// belongs to, then its ranking.
    pub fn hover(&self, uri: &Uri, position: Position) -> Option<Hover> {
        let diagnosis = self.diagnosis_hover(uri, position);
        let spectrum = self.spectrum_hover(uri, position);
        let (value, range) = match (diagnosis, spectrum) {
            (None, None) => return None,
            (Some((md, range)), None) | (None, Some((md, range))) => (md, range),
            (Some((d, range)), Some((s, _))) => (format!("{d}\n---\n\n{s}"), range),
        };
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value,
            }),
            range: Some(range),
        })
    }

    /// The ranked line under the cursor, as Markdown and its range.
    fn spectrum_hover(&self, uri: &Uri, position: Position) -> Option<(String, Range)> {
        let loc = self.localization.as_ref()?;
        let file = self.file_index(loc, uri)?;
        let no_disk = HashMap::new();
        let view = self.view(loc, file, &no_disk)?;
        let candidates = loc.results.files[file as usize].lines.iter().copied();
        let line = view.baseline_at(position.line, candidates)?;
        let entry = loc.entry(file, line)?;
        let placed = view.place(&entry)?;
        Some((
            hover::markdown(loc, &entry, placed.stale),
            view.line_range(placed.line),
        ))
    }

    /// Code lenses of a document (open or not).
    pub fn lenses(&self, uri: &Uri) -> Vec<CodeLens> {
        let mut lenses = self.spectrum_lenses(uri);
        if let (Some(diag), Some(relative)) = (self.diagnoses.as_ref(), self.relative_path(uri)) {
            let no_disk = HashMap::new();
            if let Some(view) = self.diag_view(diag, &relative, &no_disk) {
                lenses.extend(diagnoses::lenses(diag, &relative, &view, self.trusted));
            }
        }
        lenses
    }

    fn spectrum_lenses(&self, uri: &Uri) -> Vec<CodeLens> {
        let Some(loc) = self.localization.as_ref() else {
            return vec![];
        };
        let Some(file) = self.file_index(loc, uri) else {
            return vec![];
        };
        let no_disk = HashMap::new();
        let Some(view) = self.view(loc, file, &no_disk) else {
            return vec![];
        };
        let mut lenses = lenses::for_file(loc, &view, self.settings.top_n, self.trusted);
        if self.trusted && self.harness {
            lenses.extend(crate::generate_lens::tie_lenses(
                loc,
                &view,
                self.diagnoses.is_some(),
            ));
        }
        lenses
    }

    /// The failing tests that ran the ranked line shown at `line` of `uri`,
    /// or every failing test without a place. As JSON for the command's
    /// answer.
    pub fn failing_tests(&self, place: Option<(&Uri, u32)>) -> Vec<FailingTest> {
        let Some(loc) = self.localization.as_ref() else {
            return vec![];
        };
        let tests: Vec<&faultlens_core::results::TestRecord> = match place {
            None => loc
                .results
                .tests
                .iter()
                .filter(|t| t.verdict == faultlens_core::results::Verdict::Fail)
                .collect(),
            Some((uri, line)) => {
                let Some(file) = self.file_index(loc, uri) else {
                    return vec![];
                };
                let no_disk = HashMap::new();
                let Some(view) = self.view(loc, file, &no_disk) else {
                    return vec![];
                };
                let candidates = loc.results.files[file as usize].lines.iter().copied();
                let Some(baseline) = view.baseline_at(line, candidates) else {
                    return vec![];
                };
                let Some(entry) = loc.entry(file, baseline) else {
                    return vec![];
                };
                loc.failing_tests(&entry)
            }
        };
        tests
            .into_iter()
            .map(|t| FailingTest {
                name: t.name.clone(),
                reason: t.reason.clone(),
                location: diagnostics::test_location(loc, t),
            })
            .collect()
    }
}

pub const UNTRUSTED: &str = "this workspace is not trusted, so faultlens will not build or run its code; results already in .faultlens/results.json are still shown. Trust the workspace (initialization option \"trusted\": true) to let faultlens run the tests.";

/// The server's spelling of a file URI (clients percent-encode differently),
/// so documents are found under the URIs the results produce.
pub fn canonical_uri(uri: &Uri) -> Uri {
    if uri.scheme().as_str() != "file" {
        return uri.clone();
    }
    uri.to_file_path()
        .and_then(|p| Uri::from_file_path(p.as_ref()))
        .unwrap_or_else(|| uri.clone())
}

/// The root of a workspace from the initialize parameters.
pub fn root_from(
    root_uri: Option<&Uri>,
    folders: Option<&[Uri]>,
    root_path: Option<&str>,
) -> Option<PathBuf> {
    folders
        .and_then(|f| f.first())
        .or(root_uri)
        .and_then(|u| u.to_file_path().map(|p| p.into_owned()))
        .or_else(|| root_path.map(|p| Path::new(p).to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localization::fixtures::{results, SOURCE};
    use faultlens_core::measures::Formula;
    use tower_lsp_server::ls_types::Range;

    fn state_with_results() -> (Session, Uri) {
        let mut state = Session {
            root: Some(PathBuf::from("/project")),
            ..Session::default()
        };
        let loc = Localization::new(results(), Formula::Ochiai, Path::new("/project"));
        state.install(loc, None, &HashMap::new());
        let uri: Uri = "file:///project/src/sum.c".parse().unwrap();
        (state, uri)
    }

    #[test]
    fn publishes_for_unopened_files_and_clears_later() {
        let (mut state, uri) = state_with_results();
        let mut disk = HashMap::new();
        disk.insert(0, SOURCE.to_string());
        assert_eq!(
            state.files_to_read(),
            vec![(0, PathBuf::from("/project/src/sum.c"))]
        );
        let p = state.publication(disk.clone());
        assert_eq!(p.diagnostics.len(), 1);
        assert_eq!(p.diagnostics[0].0, uri);
        assert_eq!(p.diagnostics[0].1[0].range.start.character, 4);
        assert_eq!(p.status.state, ServerState::Done);
        assert_eq!(p.status.message, "2 failing of 5 tests");
        // The text read is kept until the next results.
        assert!(state.files_to_read().is_empty());
        state.clear_results();
        let p = state.publication(disk.clone());
        assert_eq!(p.diagnostics, vec![(uri, vec![], None)]);
        assert!(state.publication(disk.clone()).diagnostics.is_empty());
    }

    #[test]
    fn the_status_says_whether_tests_are_being_generated() {
        let (mut state, _) = state_with_results();
        assert_eq!(state.status().generation.state, GenerationState::Idle);
        state.jobs.start(JobKind::Generate);
        assert_eq!(state.status().generation.state, GenerationState::Running);
        assert!(state.jobs.cancel(JobKind::Generate));
        assert_eq!(state.status().generation.state, GenerationState::Idle);
    }

    #[test]
    fn edits_move_hover_and_mark_stale() {
        let (mut state, uri) = state_with_results();
        state.open(uri.clone(), SOURCE.into(), 1);
        assert!(state.hover(&uri, Position::new(5, 0)).is_some());
        assert!(state.hover(&uri, Position::new(0, 0)).is_none());
        // Insert a line at the top: the faulty line moves to 6.
        let insert = TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(0, 0), Position::new(0, 0))),
            range_length: None,
            text: "// note\n".into(),
        };
        assert!(state.change(&uri, 2, &[insert]));
        let hover = state.hover(&uri, Position::new(6, 3)).unwrap();
        let HoverContents::Markup(md) = hover.contents else {
            panic!()
        };
        assert!(md.value.contains("#1 of 5"));
        assert!(!md.value.contains("Stale"));
        assert_eq!(state.status().state, ServerState::Done);
        // Edit the faulty line itself.
        let edit = TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(6, 6), Position::new(6, 7))),
            range_length: None,
            text: "t".into(),
        };
        state.change(&uri, 3, &[edit]);
        let HoverContents::Markup(md) = state.hover(&uri, Position::new(6, 0)).unwrap().contents
        else {
            panic!()
        };
        assert!(md.value.contains("Stale"));
        assert_eq!(state.status().state, ServerState::Stale);
        let p = state.publication(HashMap::new());
        let (_, diags, version) = &p.diagnostics[0];
        assert_eq!(*version, Some(3));
        let stale = diags.iter().find(|d| d.range.start.line == 6).unwrap();
        assert!(stale.message.contains("stale"));
        let scores = p.scores.unwrap();
        let first = &scores.files[0].lines[0];
        assert_eq!(first.line, 6);
        assert!(first.stale);
        // Lenses follow too; failing tests are found by the current line.
        assert!(state.lenses(&uri).iter().any(|l| l.range.start.line == 6));
        assert_eq!(state.failing_tests(Some((&uri, 6))).len(), 2);
        assert_eq!(state.failing_tests(None).len(), 2);
    }

    #[test]
    fn closing_and_reopening_keeps_lines_where_edits_moved_them() {
        let (mut state, uri) = state_with_results();
        state.open(uri.clone(), SOURCE.into(), 1);
        let insert = TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(0, 0), Position::new(0, 0))),
            range_length: None,
            text: "// note\n".into(),
        };
        state.change(&uri, 2, &[insert]);
        state.close(&uri);
        // Closed: the diagnostics still sit on the moved line.
        let p = state.publication(HashMap::new());
        assert_eq!(p.diagnostics[0].1[0].range.start.line, 6);
        // Reopened from disk with one more line above: it moves once more.
        let saved = format!("// a\n// note\n{SOURCE}");
        state.open(uri.clone(), saved, 1);
        let HoverContents::Markup(md) = state.hover(&uri, Position::new(7, 4)).unwrap().contents
        else {
            panic!()
        };
        assert!(md.value.contains("#1 of 5"), "{}", md.value);
        assert!(!md.value.contains("Stale"));
    }

    #[test]
    fn unsaved_edits_are_tracked_from_the_saved_text() {
        let mut state = Session {
            root: Some(PathBuf::from("/project")),
            ..Session::default()
        };
        let uri: Uri = "file:///project/src/sum.c".parse().unwrap();
        // Unsaved: a line added at the top and the faulty line edited.
        let unsaved = format!("// new\n{}", SOURCE.replace("s += a[i]", "s -= a[i]"));
        state.open(uri.clone(), unsaved, 3);
        let loc = Localization::new(results(), Formula::Ochiai, Path::new("/project"));
        let mut disk = HashMap::new();
        disk.insert(uri.clone(), SOURCE.to_string());
        state.install(loc, None, &disk);
        let HoverContents::Markup(md) = state.hover(&uri, Position::new(6, 4)).unwrap().contents
        else {
            panic!()
        };
        assert!(
            md.value.contains("#1 of 5") && md.value.contains("Stale"),
            "{}",
            md.value
        );
        assert!(state.hover(&uri, Position::new(4, 4)).is_some()); // "int s = 0;" moved down
    }

    #[test]
    fn documents_are_found_however_the_client_encodes_their_uri() {
        let (mut state, _) = state_with_results();
        let odd: Uri = "file:///project/src/%73um.c".parse().unwrap();
        state.open(odd.clone(), SOURCE.into(), 1);
        let insert = TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(0, 0), Position::new(0, 0))),
            range_length: None,
            text: "\n".into(),
        };
        assert!(state.change(&odd, 2, &[insert]));
        // The edit moved the faulty line, whichever spelling is used.
        assert!(state.hover(&odd, Position::new(6, 4)).is_some());
        let p = state.publication(HashMap::new());
        assert_eq!(p.diagnostics[0].2, Some(2));
        assert_eq!(p.diagnostics[0].1[0].range.start.line, 6);
    }

    #[test]
    fn files_changed_on_disk_after_the_run_are_stale() {
        let mut state = Session {
            root: Some(PathBuf::from("/project")),
            ..Session::default()
        };
        let mut loc = Localization::new(results(), Formula::Ochiai, Path::new("/project"));
        loc.changed_on_disk.insert(0);
        state.install(loc, None, &HashMap::new());
        let p = state.publication(HashMap::new());
        assert!(p.diagnostics[0]
            .1
            .iter()
            .all(|d| d.message.contains("stale")));
        assert_eq!(p.status.state, ServerState::Stale);
        let uri: Uri = "file:///project/src/sum.c".parse().unwrap();
        state.open(uri.clone(), SOURCE.into(), 1);
        let HoverContents::Markup(md) = state.hover(&uri, Position::new(5, 4)).unwrap().contents
        else {
            panic!()
        };
        assert!(md.value.contains("Stale"));
    }

    #[test]
    fn unknown_documents_are_ignored() {
        let (mut state, _) = state_with_results();
        let other: Uri = "file:///elsewhere/x.c".parse().unwrap();
        assert!(!state.change(&other, 1, &[]));
        assert!(state.hover(&other, Position::new(0, 0)).is_none());
        assert!(state.lenses(&other).is_empty());
    }

    #[test]
    fn status_says_why_nothing_runs_when_untrusted() {
        let state = Session::default();
        assert_eq!(state.status().state, ServerState::Untrusted);
        assert!(state.status().message.contains("not trusted"));
    }

    #[test]
    fn a_new_measure_reranks() {
        let (mut state, _) = state_with_results();
        state.settings.measure = Ranker::Formula(Formula::DStar(2));
        let (results, measure, root) = state.rerank_job().expect("the measure changed");
        state.apply_rerank(crate::reload::rank(results, measure, &root).unwrap());
        assert!(state.rerank_job().is_none(), "ranked under the new measure");
        assert_eq!(
            state.localization.as_ref().unwrap().measure,
            Ranker::Formula(Formula::DStar(2))
        );
    }

    #[test]
    fn a_diagnosis_of_these_results_fuses_the_ranking_until_turned_off() {
        let (mut state, _) = state_with_results();
        let results = Arc::clone(&state.localization.as_ref().unwrap().results);
        // A diagnosis that names no run (another tool's) is not fused.
        let mut report = crate::diagnoses::fixtures::report();
        state.install_diagnosis(
            Diagnoses::new(report.clone(), Path::new("/project")),
            None,
            &HashMap::new(),
        );
        assert!(state.rerank_job().is_none());
        report.results_created_unix_ms = Some(results.created_unix_ms);
        state.install_diagnosis(
            Diagnoses::new(report.clone(), Path::new("/project")),
            None,
            &HashMap::new(),
        );
        let (job_results, wanted, root) = state.rerank_job().expect("fusion is wanted");
        assert_eq!(wanted, Ranker::FUSION);
        let analysis = faultlens_report::Analysis::compute(
            job_results,
            wanted,
            false,
            &Default::default(),
            Some(&report),
        )
        .unwrap();
        assert!(state.apply_rerank(Localization::from_analysis(analysis, &root)));
        assert!(state.rerank_job().is_none(), "ranked by fusion");
        // Turned off: the measure alone again.
        state.settings.fuse_diagnosis = false;
        let (_, wanted, _) = state.rerank_job().expect("the plain measure is wanted");
        assert_eq!(wanted, Ranker::Formula(Formula::Ochiai));
    }

    #[test]
    fn a_diagnosis_shows_in_diagnostics_hover_hints_and_lenses_and_follows_edits() {
        let (mut state, uri) = state_with_results();
        let diag = Diagnoses::new(crate::diagnoses::fixtures::report(), Path::new("/project"));
        state.open(uri.clone(), SOURCE.into(), 1);
        state.install_diagnosis(diag, None, &HashMap::new());
        let all = Range::new(Position::new(0, 0), Position::new(100, 0));
        let hints = state.inlay_hints(&uri, all);
        assert_eq!(hints.len(), 2);
        let HoverContents::Markup(md) = state.hover(&uri, Position::new(5, 0)).unwrap().contents
        else {
            panic!()
        };
        let md = md.value;
        assert!(
            md.starts_with("**faultlens diagnosis**") && md.contains("#1 of 5"),
            "the diagnosis first, then the ranking: {md}"
        );
        assert!(state
            .lenses(&uri)
            .iter()
            .any(|l| l.command.as_ref().unwrap().command == "faultlens.diagnose"));
        let p = state.publication(HashMap::new());
        let codes: Vec<_> = p.diagnostics[0]
            .1
            .iter()
            .filter_map(|d| d.code.clone())
            .collect();
        assert!(
            codes.contains(&tower_lsp_server::ls_types::NumberOrString::String(
                "diagnosis".into()
            ))
        );
        assert_eq!(p.status.diagnosis.state, DiagnosisState::Done);
        // Edit line 6 (0-based 5): its hint goes, line 4's stays.
        let edit = TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(5, 6), Position::new(5, 8))),
            range_length: None,
            text: "-=".into(),
        };
        state.change(&uri, 2, &[edit]);
        let hints = state.inlay_hints(&uri, all);
        assert_eq!(hints.len(), 1);
        assert_eq!(hints[0].position.line, 3);
        // Closed and reopened with a line inserted above: the hint moves.
        state.close(&uri);
        let saved = format!("// new\n{}", SOURCE.replace("s +=", "s -="));
        state.open(uri.clone(), saved, 3);
        let hints = state.inlay_hints(&uri, all);
        assert_eq!(hints.len(), 1);
        assert_eq!(hints[0].position.line, 4);
        state.clear_diagnosis();
        assert!(state.inlay_hints(&uri, all).is_empty());
        assert_eq!(state.status().diagnosis.state, DiagnosisState::None);
    }

    #[test]
    fn hovering_a_line_that_read_outside_an_object_says_which_byte_it_read() {
        let (mut state, uri) = state_with_results();
        let mut report = crate::diagnoses::fixtures::report();
        report.free_reads = vec![faultlens_core::diagnosis::FreeReadNote {
            test: "sum_negative".into(),
            file: "src/sum.c".into(),
            line: 5,
            what: "out-of-bounds access to `v`".into(),
            reads: 1,
            byte: 0,
        }];
        state.open(uri.clone(), SOURCE.into(), 1);
        state.install_diagnosis(
            Diagnoses::new(report, Path::new("/project")),
            None,
            &HashMap::new(),
        );
        // Line 5 is in no diagnosis: the hover says what it read.
        let HoverContents::Markup(md) = state.hover(&uri, Position::new(4, 0)).unwrap().contents
        else {
            panic!()
        };
        assert!(
            md.value
                .contains("- out-of-bounds access to `v`: byte 0 in sum_negative"),
            "{}",
            md.value
        );
    }
}
