//! The driver: runs a target on its corpus, then on mutated and generated
//! inputs, from a fixed seed, for a number of inputs or a time budget.
//!
//! A failure is a panic anywhere while an input runs (on any thread: the
//! hook below sees panics that tokio or the interpreter catch), or an input
//! that runs longer than the target's bound. A panic is caught and
//! reported, and the run goes on; a hang cannot be interrupted, so a
//! watchdog thread reports it and ends the process with status 3. Where a
//! campaign asks for it, each input is written to a file before it runs, so
//! an input that kills the process (a stack overflow aborts) is known.

use crate::mutate::mutate;
use crate::{fnv, read_inputs, Rng, Target};
use std::collections::HashSet;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Exit status of a process whose watchdog found a hang.
pub const HANG_EXIT: i32 = 3;

/// Most corpus entries kept in memory (new signatures beyond it are not kept).
const MAX_CORPUS: usize = 4000;

#[derive(Clone, Debug, Default)]
pub struct Options {
    pub seed: u64,
    /// Stop after this many inputs (corpus replay included).
    pub inputs: Option<u64>,
    /// Stop after this long.
    pub time: Option<Duration>,
    /// Where new corpus entries (`corpus/`) and failing inputs (`findings/`) go.
    pub out: Option<PathBuf>,
    /// Write each input here before running it.
    pub current: Option<PathBuf>,
    /// Print a line of figures this often.
    pub progress: Option<Duration>,
    /// Also replay these inputs first (a campaign's corpus so far).
    pub extra_seeds: Vec<Vec<u8>>,
}

#[derive(Clone, Debug)]
pub struct Failure {
    pub kind: &'static str,
    pub message: String,
    pub input: Vec<u8>,
    pub elapsed: Duration,
}

#[derive(Clone, Debug, Default)]
pub struct Report {
    pub inputs: u64,
    pub elapsed: Duration,
    pub seeds: usize,
    pub corpus: usize,
    pub signatures: usize,
    pub slowest: Duration,
    pub failures: Vec<Failure>,
}

impl Report {
    pub fn line(&self, name: &str) -> String {
        format!(
            "{name}: {} inputs in {:.1} s ({:.0}/s), corpus {} ({} seeds), {} signatures, slowest {:.3} s, {} failures",
            self.inputs,
            self.elapsed.as_secs_f64(),
            self.inputs as f64 / self.elapsed.as_secs_f64().max(1e-9),
            self.corpus,
            self.seeds,
            self.signatures,
            self.slowest.as_secs_f64(),
            self.failures.len()
        )
    }
}

/// Panics seen since the process started (the hook counts them all).
static PANICS: AtomicUsize = AtomicUsize::new(0);
static LAST_PANIC: Mutex<String> = Mutex::new(String::new());
/// One target runs at a time in a process, so every panic belongs to it.
static EXCLUSIVE: Mutex<()> = Mutex::new(());

fn install_hook() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        std::panic::set_hook(Box::new(|info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            let thread = std::thread::current();
            let message = format!(
                "thread {:?} panicked: {info}\n{}",
                thread.name().unwrap_or("<unnamed>"),
                std::backtrace::Backtrace::force_capture()
            );
            if let Ok(mut last) = LAST_PANIC.lock() {
                *last = message;
            }
        }));
    });
}

/// Runs one input: its signature, or the failure.
pub fn run_one(target: &Target, data: &[u8]) -> Result<(String, Duration), Failure> {
    install_hook();
    let before = PANICS.load(Ordering::SeqCst);
    let start = Instant::now();
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| (target.run)(data)));
    let elapsed = start.elapsed();
    let panicked = PANICS.load(Ordering::SeqCst) != before;
    let failure = |kind, message| Failure {
        kind,
        message,
        input: data.to_vec(),
        elapsed,
    };
    match result {
        Ok(_) | Err(_) if panicked => Err(failure(
            "panic",
            LAST_PANIC.lock().map(|m| m.clone()).unwrap_or_default(),
        )),
        Err(_) => Err(failure("panic", "a panic the hook did not see".into())),
        Ok(_) if elapsed > hang_limit(target) => Err(failure(
            "slow",
            format!(
                "took {:.2} s, more than the bound of {:.2} s",
                elapsed.as_secs_f64(),
                hang_limit(target).as_secs_f64()
            ),
        )),
        Ok(signature) => Ok((signature, elapsed)),
    }
}

/// The per-input bound: the target's (release builds), 5× that in debug builds.
pub fn hang_limit(target: &Target) -> Duration {
    if cfg!(debug_assertions) {
        target.hang_limit * 5
    } else {
        target.hang_limit
    }
}

/// The input running now, for the watchdog.
struct Current {
    started: AtomicU64,
    input: Mutex<Vec<u8>>,
}

/// Ends the process when one input runs longer than twice the bound (a
/// slow input that finishes is reported by `run_one`).
fn watchdog(target: &Target, current: Arc<Current>, out: Option<PathBuf>, epoch: Instant) {
    let limit = hang_limit(target) * 2 + Duration::from_secs(1);
    let name = target.name;
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(200));
        let started = current.started.load(Ordering::SeqCst);
        if started == 0 {
            continue;
        }
        let running = epoch
            .elapsed()
            .saturating_sub(Duration::from_nanos(started));
        if running > limit {
            let input = current.input.lock().map(|i| i.clone()).unwrap_or_default();
            let mut message = format!(
                "fuzz target {name}: hang: an input has run for {:.1} s (bound {:.1} s)",
                running.as_secs_f64(),
                limit.as_secs_f64()
            );
            if let Some(out) = &out {
                if let Ok(path) = save(
                    out,
                    "findings",
                    &format!("hang-{:016x}", fnv(&input)),
                    &input,
                ) {
                    message.push_str(&format!("; input saved to {}", path.display()));
                }
            }
            eprintln!("{message}\ninput: {}", preview(&input));
            let _ = std::io::stderr().flush();
            std::process::exit(HANG_EXIT);
        }
    });
}

/// Fuzzes `target`: the committed corpus and regressions first, then
/// mutated and generated inputs until the budget is spent.
pub fn fuzz(target: &Target, options: &Options) -> Report {
    let _exclusive = EXCLUSIVE.lock().unwrap_or_else(|e| e.into_inner());
    install_hook();
    let mut rng = Rng::new(options.seed);
    let mut corpus: Vec<Vec<u8>> = read_inputs(&crate::corpus_dir(target.name))
        .into_iter()
        .chain(read_inputs(&crate::regressions_dir(target.name)))
        .map(|(_, bytes)| bytes)
        .collect();
    corpus.extend(options.extra_seeds.iter().cloned());
    let seeds = corpus.len();
    let mut report = Report {
        seeds,
        ..Report::default()
    };
    let epoch = Instant::now();
    let current = Arc::new(Current {
        started: AtomicU64::new(0),
        input: Mutex::new(Vec::new()),
    });
    watchdog(target, current.clone(), options.out.clone(), epoch);
    let current_file = options
        .current
        .as_ref()
        .and_then(|p| std::fs::File::create(p).ok());
    let mut signatures = HashSet::new();
    let mut failed = HashSet::new();
    let mut last_progress = Instant::now();
    let mut replay = 0;
    loop {
        let elapsed = epoch.elapsed();
        if options.inputs.is_some_and(|n| report.inputs >= n)
            || options.time.is_some_and(|t| elapsed >= t)
        {
            break;
        }
        if let Some(every) = options.progress {
            if last_progress.elapsed() >= every {
                last_progress = Instant::now();
                report.elapsed = elapsed;
                report.corpus = corpus.len();
                report.signatures = signatures.len();
                eprintln!("{}", report.line(target.name));
            }
        }
        let input = if replay < seeds {
            replay += 1;
            corpus[replay - 1].clone()
        } else if corpus.is_empty() || rng.one_in(3) {
            let mut generated = (target.generate)(&mut rng, &corpus);
            generated.truncate(target.max_len);
            generated
        } else {
            let a = rng.below(corpus.len());
            let b = rng.below(corpus.len());
            mutate(
                &mut rng,
                &corpus[a],
                &corpus[b],
                target.dictionary,
                target.max_len,
            )
        };
        if let Some(file) = &current_file {
            let _ = file.set_len(0);
            let _ = file.write_all_at(&input, 0);
        }
        if let Ok(mut slot) = current.input.lock() {
            slot.clone_from(&input);
        }
        current
            .started
            .store(epoch.elapsed().as_nanos().max(1) as u64, Ordering::SeqCst);
        let result = run_one(target, &input);
        current.started.store(0, Ordering::SeqCst);
        report.inputs += 1;
        match result {
            Ok((signature, took)) => {
                report.slowest = report.slowest.max(took);
                // Each line of a signature is a feature; an input that
                // shows a new one is kept.
                let mut new = false;
                for feature in signature.lines() {
                    new |= signatures.insert(feature.to_string());
                }
                if new && replay >= seeds && corpus.len() < MAX_CORPUS {
                    if let Some(out) = &options.out {
                        let _ = save(out, "corpus", &format!("{:016x}", fnv(&input)), &input);
                    }
                    corpus.push(input);
                }
            }
            Err(failure) => {
                report.slowest = report.slowest.max(failure.elapsed);
                // One report per place a failure comes from.
                let key = failure.message.lines().next().unwrap_or("").to_string();
                if failed.insert(crate::shape(&key)) {
                    if let Some(out) = &options.out {
                        let name = format!("{}-{:016x}", failure.kind, fnv(&failure.input));
                        if let Ok(path) = save(out, "findings", &name, &failure.input) {
                            let _ = std::fs::write(path.with_extension("txt"), &failure.message);
                        }
                    }
                    eprintln!(
                        "fuzz target {}: {}: {}\ninput: {}",
                        target.name,
                        failure.kind,
                        failure
                            .message
                            .lines()
                            .take(3)
                            .collect::<Vec<_>>()
                            .join(" | "),
                        preview(&failure.input)
                    );
                    report.failures.push(failure);
                }
            }
        }
    }
    report.elapsed = epoch.elapsed();
    report.corpus = corpus.len();
    report.signatures = signatures.len();
    report
}

fn save(out: &Path, kind: &str, name: &str, data: &[u8]) -> std::io::Result<PathBuf> {
    let dir = out.join(kind);
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(name);
    std::fs::write(&path, data)?;
    Ok(path)
}

/// The start of an input, escaped, for a message.
pub fn preview(data: &[u8]) -> String {
    let text: String = String::from_utf8_lossy(&data[..data.len().min(400)])
        .chars()
        .flat_map(char::escape_debug)
        .collect();
    format!(
        "{} bytes: \"{text}\"{}",
        data.len(),
        if data.len() > 400 { "..." } else { "" }
    )
}
