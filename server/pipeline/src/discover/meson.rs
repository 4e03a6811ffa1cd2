//! Meson discovery: `meson introspect --tests` in the coverage build.
//! faultlens runs each test's command itself (its own coverage prefix,
//! timeout and output cap), honouring its environment, working directory,
//! timeout and `should_fail` (which Meson's introspection leaves out: it is
//! read from the `test()` call in `meson.build`, for a test named there by a
//! string literal).

use crate::build::Built;
use crate::command::{run_step, Steps};
use crate::error::{PipelineError, Result};
use crate::project::Project;
use crate::testspec::{Expectation, Invocation, TestSpec};
use faultlens_core::results::Location;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

pub fn discover(
    project: &Project,
    built: &Built,
    timeout: Duration,
    steps: &Steps,
) -> Result<Vec<TestSpec>> {
    let mut cmd = Command::new("meson");
    cmd.args(["introspect", "--tests"]).arg(&built.run_dir);
    let step = run_step(cmd, &built.run_dir, &[], steps)?;
    if !step.success {
        return Err(PipelineError::Discovery(format!(
            "`meson introspect --tests` failed:\n{}",
            step.output
        )));
    }
    let start = step.stdout.find('[').unwrap_or(0);
    let tests = faultlens_workspace::meson::test_list(step.stdout[start..].trim_end())
        .map_err(|e| PipelineError::Discovery(format!("cannot read Meson's test list: {e}")))?;
    let declared = declarations(project);
    tests
        .into_iter()
        .map(|test| {
            if test.cmd.is_empty() {
                return Err(PipelineError::Discovery(format!(
                    "Meson test {:?} has no command",
                    test.name
                )));
            }
            let said = declared(&test.name);
            Ok(TestSpec {
                location: said.location,
                name: test.row,
                invocation: Invocation::Argv(test.cmd),
                cwd: test
                    .workdir
                    .map(PathBuf::from)
                    .unwrap_or_else(|| built.run_dir.clone()),
                env: test.env.into_iter().collect(),
                stdin: Vec::new(),
                expect: Expectation {
                    exit: Some(0),
                    will_fail: test.should_fail || said.should_fail,
                    // Meson's exit-code protocol; a TAP or GoogleTest test
                    // is judged by its exit status too.
                    skip_exit: Some(77),
                    ..Expectation::default()
                },
                // Meson gives every test a timeout (30 s unless set); the
                // shorter of it and faultlens's own applies.
                timeout: if test.timeout > 0.0 {
                    Duration::from_secs_f64(test.timeout).min(timeout)
                } else {
                    timeout
                },
            })
        })
        .collect()
}

/// What `meson.build` says of a test that Meson's introspection does
/// not: where its `test()` call is, and whether it has `should_fail: true`.
/// Found only for a test named by a string literal in the root file.
#[derive(Default)]
struct Declared {
    location: Option<Location>,
    should_fail: bool,
}

fn declarations(project: &Project) -> impl Fn(&str) -> Declared {
    let text = faultlens_workspace::files::read_in_project(
        &project.root,
        std::path::Path::new("meson.build"),
        faultlens_confine::limits::BUILD_DESCRIPTION,
    )
    .ok()
    .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
    move |name: &str| {
        let Some(text) = text.as_deref() else {
            return Declared::default();
        };
        let start = [format!("test('{name}'"), format!("test(\"{name}\"")]
            .iter()
            .filter_map(|q| text.find(q.as_str()))
            .min();
        let Some(start) = start else {
            return Declared::default();
        };
        let call = call_text(&text[start..]);
        let flat: String = call.chars().filter(|c| !c.is_whitespace()).collect();
        Declared {
            location: Some(Location {
                file: "meson.build".into(),
                line: text[..start].matches('\n').count() as u32 + 1,
            }),
            should_fail: flat.contains("should_fail:true"),
        }
    }
}

/// `test(...)` up to its closing parenthesis (quotes respected).
fn call_text(from: &str) -> &str {
    let (mut depth, mut quote) = (0usize, None);
    for (i, c) in from.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return &from[..=i];
                }
            }
            _ => {}
        }
    }
    from
}

#[cfg(test)]
mod tests {
    use super::call_text;

    #[test]
    fn a_call_ends_at_its_own_closing_parenthesis() {
        let text = "test('a)b', exe, args: [f(1)],\n  should_fail: true)\ntest('c', exe)\n";
        assert_eq!(
            call_text(text),
            "test('a)b', exe, args: [f(1)],\n  should_fail: true)"
        );
    }
}
