//! Shared helpers for differential tests: build a C program with gcc, run it
//! natively and in the interpreter, compare.
#![allow(dead_code)]

pub mod fixtures;
pub mod parallel;

use faultlens_csem::bv::Model;
use faultlens_csem::encode::{apply_slots, EncodeOptions, Expected, Formula, TestEncoding};
use faultlens_csem::ir::{InstrKind, StmtId};
use faultlens_csem::{load, run, Outcome, RunOptions, SourceSpec, TestInput};
use rustsat::types::Lit;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub struct Native {
    pub stdout: Vec<u8>,
    /// Exit status, or 128+signal.
    pub code: i32,
}

/// Compile `sources` (relative to `root`) with `gcc -O0` into `out`.
pub fn gcc_build(
    root: &Path,
    sources: &[PathBuf],
    cflags: &[String],
    out: &Path,
) -> Result<(), String> {
    let o = Command::new("gcc")
        .arg("-O0")
        .arg("-w")
        .args(cflags)
        .args(sources)
        // The math library, for programs that use `<math.h>`.
        .arg("-lm")
        .arg("-o")
        .arg(out)
        .current_dir(root)
        .output()
        .map_err(|e| e.to_string())?;
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).to_string());
    }
    Ok(())
}

pub fn run_native(bin: &Path, cwd: &Path, args: &[String], stdin: &[u8]) -> Native {
    use std::os::unix::process::ExitStatusExt;
    let mut child = Command::new(bin)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the gcc-built program");
    let mut sin = child.stdin.take().expect("stdin");
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = sin.write_all(&input);
    });
    // A hanging program is killed after 5 s (the fixtures' hang tests), as the test runner would.
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let killer = std::thread::spawn(move || {
        if rx.recv_timeout(std::time::Duration::from_secs(5)).is_err() {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
        }
    });
    let out = child.wait_with_output().expect("wait");
    let _ = tx.send(());
    let _ = killer.join();
    let _ = writer.join();
    let code = match out.status.code() {
        Some(c) => c,
        None => 128 + out.status.signal().unwrap_or(0),
    };
    Native {
        stdout: out.stdout,
        code,
    }
}

/// Outcome of comparing one test.
#[derive(Debug)]
pub enum Verdict {
    Agree,
    /// The model stops the run (undefined behaviour, or the step limit); the native status is kept.
    ModelError {
        message: String,
        native_code: i32,
    },
    Disagree(String),
}

/// Run one test natively and in the model (at most 1M statements; fixture
/// hangs are killed natively after 5 s) and compare stdout and exit status.
pub fn compare_one(
    prog: &faultlens_csem::Program,
    bin: &Path,
    cwd: &Path,
    args: &[String],
    stdin: &[u8],
) -> Verdict {
    let test = TestInput {
        args: args.to_vec(),
        stdin: stdin.to_vec(),
        ..TestInput::default()
    };
    compare_test(prog, bin, cwd, &test)
}

/// [`compare_one`] of a whole test input (with the files it may open,
/// which must be those in `cwd`).
pub fn compare_test(
    prog: &faultlens_csem::Program,
    bin: &Path,
    cwd: &Path,
    test: &TestInput,
) -> Verdict {
    let (args, stdin) = (&test.args, &test.stdin);
    let native = run_native(bin, cwd, args, stdin);
    let opts = RunOptions {
        program_name: bin.display().to_string(),
        max_steps: 1_000_000,
        ..RunOptions::default()
    };
    let r = run(prog, test, &opts);
    let code = match &r.outcome {
        Outcome::RuntimeError {
            message, location, ..
        } => {
            return Verdict::ModelError {
                message: format!("{location}: {message}"),
                native_code: native.code,
            }
        }
        Outcome::StepLimit => {
            return Verdict::ModelError {
                message: "step limit".into(),
                native_code: native.code,
            }
        }
        _ => r.exit_code().expect("exit code"),
    };
    if code != native.code || r.stdout != native.stdout {
        return Verdict::Disagree(format!(
            "args {args:?}: native exit {} stdout {:?}\n model exit {} stdout {:?}",
            native.code,
            String::from_utf8_lossy(&native.stdout),
            code,
            String::from_utf8_lossy(&r.stdout)
        ));
    }
    Verdict::Agree
}

/// Write `src` as prog.c in a fresh directory, build it, and load it in the model.
pub fn program(src: &str) -> (tempfile::TempDir, faultlens_csem::Program, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("prog.c"), src).expect("write");
    let bin = dir.path().join("prog");
    gcc_build(dir.path(), &[PathBuf::from("prog.c")], &[], &bin).expect("gcc builds the program");
    let prog = load(&SourceSpec::new(dir.path(), vec![PathBuf::from("prog.c")]))
        .unwrap_or_else(|e| panic!("model loads: {e}"));
    (dir, prog, bin)
}

/// Assert the model agrees with gcc on every (args, stdin).
pub fn assert_agrees(src: &str, cases: &[(&[&str], &str)]) {
    let (dir, prog, bin) = program(src);
    for (args, stdin) in cases {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        match compare_one(&prog, &bin, dir.path(), &args, stdin.as_bytes()) {
            Verdict::Agree => {}
            v => panic!("{v:?}\nprogram:\n{src}"),
        }
    }
}

/// The statement on `line` (not a jump).
pub fn statement_on_line(prog: &faultlens_csem::Program, line: u32) -> usize {
    prog.funcs
        .iter()
        .flat_map(|f| &f.body)
        .find(|i| i.range.start.line == line && !matches!(i.kind, InstrKind::Jump(_)))
        .map(|i| i.stmt)
        .expect("a statement on the line")
}

/// Encodes `test` expecting `want` on stdout and exit 0, and asserts that
/// the program as written cannot pass, that relaxing the statement on
/// `fault_line` alone can, and that the value the solver gives it replays
/// in the interpreter to print `want`.
pub fn assert_line_alone_explains(
    prog: &faultlens_csem::Program,
    test: &TestInput,
    want: &str,
    fault_line: u32,
) {
    let expected = Expected {
        stdout: Some(want.as_bytes().to_vec()),
        exit: 0,
    };
    let opts = EncodeOptions {
        max_steps: 100_000,
        ..EncodeOptions::default()
    };
    let mut f = Formula::new();
    let mut te = TestEncoding::new(&mut f, prog, test, &expected, &opts)
        .unwrap_or_else(|e| panic!("the program is encoded: {e}"));
    let fault = statement_on_line(prog, fault_line);
    let (none, _) = solve_exploring(&mut f, &mut te, prog, &|_| false);
    assert!(
        none.is_none(),
        "the program as written cannot print the expected output"
    );
    let (model, _) = solve_exploring(&mut f, &mut te, prog, &|s| s == fault);
    let model = model.unwrap_or_else(|| {
        panic!(
            "the faulty line alone explains the failure ({} paths; incomplete: {:?})",
            te.paths(),
            te.incomplete()
        )
    });
    let mut replay = RunOptions::default();
    apply_slots(&mut replay, &te.slots(&|l: Lit| model.lit(l)));
    let r = run(prog, test, &replay);
    assert!(matches!(r.outcome, Outcome::Exited(0)), "{:?}", r.outcome);
    assert_eq!(String::from_utf8_lossy(&r.stdout), want);
}

/// Solve with `pass` asserted and the health of `unhealthy` statements false,
/// all others true; explore the divergences the models take until a model
/// follows an encoded path (Some) or none exists (None). Returns the model
/// and the number of solver calls.
pub fn solve_exploring(
    f: &mut Formula,
    te: &mut TestEncoding,
    prog: &faultlens_csem::Program,
    unhealthy: &dyn Fn(StmtId) -> bool,
) -> (Option<Model>, usize) {
    let mut calls = 0;
    loop {
        let mut assumptions: Vec<Lit> = f
            .health
            .iter()
            .map(|(s, &h)| if unhealthy(*s) { !h } else { h })
            .collect();
        assumptions.push(te.pass());
        calls += 1;
        let Some(m) = f.cnf.solve(&assumptions).unwrap() else {
            return (None, calls);
        };
        let divs = te.open_divergences(&|l| m.lit(l));
        if divs.is_empty() {
            return (Some(m), calls);
        }
        for d in divs {
            te.explore(f, prog, &d).unwrap();
        }
    }
}
