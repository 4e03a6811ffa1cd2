//! Tests of a Makefile without `TESTS`: the targets its `check` (or
//! `test`) target runs. zlib's `check: test` and `test: all teststatic
//! testshared test64` make three tests, `make teststatic` and so on, each
//! run by make in the build directory (its prerequisites are built, so it
//! only runs its recipe). Targets that build (`all` and what it needs, or
//! files the build made) are not tests; a `check` with a recipe of its
//! own is one test.

use crate::build::Built;
use crate::command::{run_step, Steps};
use crate::error::Result;
use crate::testspec::{Expectation, Invocation, TestSpec};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// A rule of make's database: its prerequisites, and whether it has a
/// recipe.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Rule {
    prerequisites: Vec<String>,
    recipe: bool,
}

/// The targets `check` (else `test`) runs, as tests run through `make`
/// (`make_args` first: faultlens's own arguments for this project).
pub fn discover(
    built: &Built,
    make_args: &[String],
    timeout: Duration,
    steps: &Steps,
) -> Result<Vec<TestSpec>> {
    const NOTHING: &str = ".faultlens-nothing";
    let mut cmd = std::process::Command::new("make");
    cmd.args(make_args)
        .args(["-pn", "--no-print-directory", "--eval"])
        .arg(format!("{NOTHING}: ; @:"))
        .arg(NOTHING);
    let step = run_step(cmd, &built.run_dir, &built.env, steps)?;
    let rules = database(&step.stdout);
    let targets = test_targets(&rules, &|t| built.run_dir.join(t).is_file());
    Ok(targets
        .into_iter()
        .map(|target| {
            let mut argv = vec!["make".to_string()];
            argv.extend(make_args.iter().cloned());
            argv.extend(["-s".to_string(), target.clone()]);
            TestSpec {
                name: format!("make {target}"),
                invocation: Invocation::Argv(argv),
                cwd: built.run_dir.clone(),
                env: built.env.clone(),
                stdin: Vec::new(),
                timeout,
                expect: Expectation {
                    exit: Some(0),
                    ..Expectation::default()
                },
                location: None,
            }
        })
        .collect())
}

/// The rules of `make -p`'s database (its "# Files" part).
pub(super) fn database(text: &str) -> BTreeMap<String, Rule> {
    let mut rules: BTreeMap<String, Rule> = BTreeMap::new();
    let mut in_files = false;
    let mut not_a_target = false;
    let mut current: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("# Files") {
            in_files = true;
            continue;
        }
        if !in_files {
            continue;
        }
        if line.starts_with("# Not a target") {
            not_a_target = true;
            continue;
        }
        if let Some(recipe) = line.strip_prefix('\t') {
            if !recipe.trim().is_empty() {
                for t in &current {
                    rules.entry(t.clone()).or_default().recipe = true;
                }
            }
            continue;
        }
        if line.is_empty() {
            current.clear();
            not_a_target = false;
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        let Some((targets, prerequisites)) = line.split_once(':') else {
            continue;
        };
        // `x := y` is a variable, `a:: b` a double-colon rule.
        let prerequisites = prerequisites.trim_start_matches(':');
        if prerequisites.starts_with('=') || not_a_target {
            current.clear();
            continue;
        }
        // Order-only prerequisites (after `|`) are built, not run.
        let prerequisites = prerequisites.split('|').next().unwrap_or("");
        current = targets.split_whitespace().map(String::from).collect();
        for t in &current {
            let rule = rules.entry(t.clone()).or_default();
            rule.prerequisites
                .extend(prerequisites.split_whitespace().map(String::from));
        }
    }
    rules
}

/// The targets `check` (else `test`) runs: those with a recipe among its
/// prerequisites, found through those without one; never `all`, what
/// `all` needs, or a file that `exists` (a directory named `test` is no
/// build product).
pub(super) fn test_targets(
    rules: &BTreeMap<String, Rule>,
    exists: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let Some(start) = ["check", "test"]
        .into_iter()
        .find(|t| rules.contains_key(*t))
    else {
        return Vec::new();
    };
    let mut building = BTreeSet::new();
    let mut stack = vec!["all".to_string()];
    while let Some(t) = stack.pop() {
        if building.insert(t.clone()) {
            if let Some(rule) = rules.get(&t) {
                stack.extend(rule.prerequisites.iter().cloned());
            }
        }
    }
    let mut tests = Vec::new();
    let mut seen = BTreeSet::new();
    let mut queue = std::collections::VecDeque::from([start.to_string()]);
    while let Some(t) = queue.pop_front() {
        if !seen.insert(t.clone()) || (t != start && (building.contains(&t) || exists(&t))) {
            continue;
        }
        let Some(rule) = rules.get(&t) else { continue };
        if rule.recipe {
            tests.push(t);
        } else {
            queue.extend(rule.prerequisites.iter().cloned());
        }
    }
    tests
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZLIB_LIKE: &str = "\
# Variables
CC = gcc
check: test

# Files
check: test
#  Implicit rule search has not been done.

# Not a target:
.c.o:
\t$(CC) -c $<

teststatic: static
#  recipe to execute (from 'Makefile', line 85):
\t@./example tmp

static: example minigzip

example: example.o libz.a
\t$(CC) -o $@ example.o libz.a

all: static shared all64

shared: examplesh
all64: example64
test64: all64
\t@./example64 tmp

test: all teststatic testshared test64

testshared: shared
\t@./examplesh tmp
";

    #[test]
    fn the_targets_check_runs_are_the_tests() {
        let rules = database(ZLIB_LIKE);
        assert!(rules["teststatic"].recipe);
        assert!(!rules["test"].recipe);
        assert!(!rules.contains_key(".c.o"), "not a target");
        let tests = test_targets(&rules, &|t| t == "example");
        assert_eq!(tests, ["teststatic", "testshared", "test64"]);
        // A check with a recipe of its own is one test.
        let own =
            "# Files\ncheck: prog\n\t./prog --self-test\n\nprog: prog.o\n\tcc -o prog prog.o\n";
        assert_eq!(test_targets(&database(own), &|_| false), ["check"]);
        assert!(test_targets(&database("# Files\nall: x\n"), &|_| false).is_empty());
    }
}
