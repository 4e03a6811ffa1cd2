//! The progress bar on stderr while building and running tests, and while
//! diagnosing. When stderr
//! is not a terminal (CI logs), one plain line per phase instead.

use faultlens_diagnose::DiagnoseProgress;
use faultlens_pipeline::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;

pub struct Reporter {
    bar: ProgressBar,
    interactive: bool,
    last_phase: Mutex<Option<&'static str>>,
}

impl Reporter {
    pub fn new() -> Reporter {
        let interactive = std::io::stderr().is_terminal();
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        if !interactive {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("valid template"));
        Reporter {
            bar,
            interactive,
            last_phase: Mutex::new(None),
        }
    }

    pub fn update(&self, progress: Progress) {
        let phase = match &progress {
            Progress::Building => "building for coverage",
            Progress::Discovering => "discovering tests",
            Progress::Running { .. } => "running tests",
            Progress::Collecting => "reading coverage",
            Progress::Note(note) => {
                let kind = match note {
                    faultlens_pipeline::note::Note::Chose(_) => "",
                    _ => "note: ",
                };
                self.bar.suspend(|| eprintln!("faultlens: {kind}{note}"));
                return;
            }
        };
        let first_of_phase = {
            let mut last = self.last_phase.lock().unwrap();
            let first = *last != Some(phase);
            *last = Some(phase);
            first
        };
        match progress {
            Progress::Running { done, total, test } => {
                if first_of_phase {
                    self.bar.set_length(total as u64);
                    self.bar.set_style(
                        ProgressStyle::with_template("running tests [{bar:30}] {pos}/{len} {msg}")
                            .expect("valid template")
                            .progress_chars("=> "),
                    );
                    if !self.interactive {
                        eprintln!("faultlens: running {total} tests");
                    }
                }
                self.bar.set_position(done as u64);
                self.bar.set_message(test);
            }
            _ => {
                if first_of_phase {
                    self.bar.set_style(
                        ProgressStyle::with_template("{spinner} {msg}").expect("valid template"),
                    );
                    self.bar.set_message(phase);
                    self.bar
                        .enable_steady_tick(std::time::Duration::from_millis(100));
                    if !self.interactive {
                        eprintln!("faultlens: {phase}");
                    }
                }
            }
        }
    }

    /// The diagnosis's phases: one line each when stderr is not a terminal.
    pub fn update_diagnosis(&self, progress: DiagnoseProgress) {
        let (phase, detail) = match &progress {
            DiagnoseProgress::Loading => ("loading the C model", String::new()),
            DiagnoseProgress::Encoding { done, total, test } => (
                "encoding the failing tests",
                format!("{done}/{total} {test}"),
            ),
            DiagnoseProgress::Solving { found } => {
                ("searching diagnoses", format!("{found} found"))
            }
            DiagnoseProgress::Checking { done, total } => (
                "checking the spectrum's top lines one statement at a time",
                format!("{done}/{total}"),
            ),
            DiagnoseProgress::Verifying { done, total } => (
                "verifying angelic values by replay",
                format!("{done}/{total}"),
            ),
        };
        let first_of_phase = {
            let mut last = self.last_phase.lock().unwrap();
            let first = *last != Some(phase);
            *last = Some(phase);
            first
        };
        if first_of_phase {
            self.bar.set_style(
                ProgressStyle::with_template("{spinner} {msg}").expect("valid template"),
            );
            self.bar
                .enable_steady_tick(std::time::Duration::from_millis(100));
            if !self.interactive {
                eprintln!("faultlens: {phase}");
            }
        }
        if detail.is_empty() {
            self.bar.set_message(phase);
        } else {
            self.bar.set_message(format!("{phase}: {detail}"));
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
