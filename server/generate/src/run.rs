//! One run of a harness in the C model: its inputs, the lines it executed and
//! its verdict under the specification (the program's asserts; exit status 0
//! is the expected outcome).

use faultlens_csem::interp::{run, Outcome, RunOptions, TestInput};
use faultlens_csem::Program;
use std::collections::BTreeSet;

/// An executed line: (file relative to the project root, 1-based line).
pub type Line = (String, u32);

/// Coverage of a run: the lines of the project's own files it executed.
pub type Coverage = BTreeSet<Line>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Exit status 0: every assert held.
    Pass,
    /// An assert fired or the program exited with another status.
    Fail {
        /// What it violated: `assertion at minmax.c:35` or `exit status 3`.
        violation: String,
    },
}

impl Verdict {
    pub fn is_fail(&self) -> bool {
        matches!(self, Verdict::Fail { .. })
    }
}

/// A complete run: every value it drew was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// The values returned by successive `__VERIFIER_nondet_*()` calls.
    pub inputs: Vec<i64>,
    pub coverage: Coverage,
    pub verdict: Verdict,
}

impl Run {
    /// The stdin a generated test gives the program: the inputs, space-separated.
    pub fn stdin(&self) -> String {
        stdin_of(&self.inputs)
    }
}

pub fn stdin_of(inputs: &[i64]) -> String {
    inputs
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// What running a (possibly too short) input vector gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Done(Run),
    /// The run asked for one more value, from this function (`__VERIFIER_nondet_bool`).
    NeedsInput(String),
    /// The model cannot predict the binary here (undefined behaviour, step limit).
    Invalid(String),
}

/// The program loaded with the free-input functions, and how to read its runs.
pub struct Harness {
    pub prog: Program,
    /// `Program::files` index → path relative to the project root; `None` for
    /// the runtime's file and system headers (not ranked).
    pub file_names: Vec<Option<String>>,
    pub max_steps: u64,
}

impl Harness {
    /// Runs the program with `inputs` on stdin (and `args`).
    pub fn execute(&self, args: &[String], inputs: &[i64]) -> Step {
        let mut stdin = stdin_of(inputs).into_bytes();
        stdin.push(b'\n');
        self.execute_raw(args, &stdin, inputs)
    }

    /// Runs the program with a raw stdin (an existing test's); `inputs` is
    /// what is recorded as the run's inputs.
    pub fn execute_raw(&self, args: &[String], stdin: &[u8], inputs: &[i64]) -> Step {
        let test = TestInput {
            args: args.to_vec(),
            stdin: stdin.to_vec(),
            ..TestInput::default()
        };
        let opts = RunOptions {
            trace: true,
            max_steps: self.max_steps,
            ..RunOptions::default()
        };
        let r = run(&self.prog, &test, &opts);
        if r.trace_truncated {
            return Step::Invalid("the run is longer than the trace kept".into());
        }
        let stderr = String::from_utf8_lossy(&r.stderr);
        let verdict = match &r.outcome {
            Outcome::Exited(0) => Verdict::Pass,
            Outcome::Exited(code) => {
                if let Some(func) = out_of_input(&stderr) {
                    return Step::NeedsInput(func);
                }
                Verdict::Fail {
                    violation: format!("exit status {code}"),
                }
            }
            Outcome::Signaled(sig) => Verdict::Fail {
                violation: assertion(&stderr).unwrap_or_else(|| format!("signal {sig}")),
            },
            Outcome::RuntimeError {
                message, location, ..
            } => return Step::Invalid(format!("{location}: {message}")),
            Outcome::StepLimit => return Step::Invalid("step limit reached".into()),
        };
        let mut coverage = Coverage::new();
        for ev in &r.trace {
            if let Some(Some(name)) = self.file_names.get(ev.range.file as usize) {
                coverage.insert((name.clone(), ev.range.start.line));
            }
        }
        Step::Done(Run {
            inputs: inputs.to_vec(),
            coverage,
            verdict,
        })
    }
}

/// The function named by the runtime's out-of-input message.
fn out_of_input(stderr: &str) -> Option<String> {
    let marker = faultlens_workspace::nondet::OUT_OF_INPUT_MESSAGE;
    let rest = &stderr[stderr.find(marker)? + marker.len()..];
    let name: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    Some(name)
}

/// `assertion at FILE:LINE` from glibc's message `prog: FILE:LINE: func: Assertion `...' failed.`
fn assertion(stderr: &str) -> Option<String> {
    let line = stderr.lines().find(|l| l.contains(": Assertion `"))?;
    let head = &line[..line.find(": Assertion `")?];
    // head = "prog: FILE:LINE: func"
    let (place, _func) = head.rsplit_once(": ")?;
    let place = place.split_once(": ").map_or(place, |(_, p)| p);
    let (file, line) = place.rsplit_once(':')?;
    let file = file.rsplit('/').next().unwrap_or(file);
    Some(format!("assertion at {file}:{line}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_assertion_place() {
        let msg = "minmax: /tmp/x/minmax.c:35: main: Assertion `r.low <= a' failed.\n";
        assert_eq!(assertion(msg).as_deref(), Some("assertion at minmax.c:35"));
    }

    #[test]
    fn reads_the_function_that_ran_out() {
        let msg = "faultlens: no more input for __VERIFIER_nondet_bool(): give one integer per call on stdin\n";
        assert_eq!(out_of_input(msg).as_deref(), Some("__VERIFIER_nondet_bool"));
        assert_eq!(out_of_input("other"), None);
    }

    #[test]
    fn stdin_is_space_separated() {
        assert_eq!(stdin_of(&[3, -1, 7]), "3 -1 7");
    }
}
