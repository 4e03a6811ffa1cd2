//! CTest discovery: `ctest --show-only=json-v1` in the coverage build.
//! faultlens runs each test's command itself (to give it its own coverage
//! prefix, timeout and output cap), honouring the properties that decide
//! how it runs and what passing means.

use crate::build::Built;
use crate::command::{run_step, Steps};
use crate::error::{PipelineError, Result};
use crate::project::Project;
use crate::testspec::{Expectation, Invocation, TestSpec};
use faultlens_core::results::Location;
use regex::Regex;
use serde::Deserialize;
use std::process::Command;
use std::time::Duration;

#[derive(Deserialize)]
struct ShowOnly {
    #[serde(default)]
    tests: Vec<CtestTest>,
    #[serde(rename = "backtraceGraph")]
    backtrace_graph: Option<BacktraceGraph>,
}

#[derive(Deserialize)]
struct CtestTest {
    name: String,
    #[serde(default)]
    command: Vec<String>,
    #[serde(default)]
    properties: Vec<Property>,
    backtrace: Option<usize>,
}

#[derive(Deserialize)]
struct Property {
    name: String,
    value: serde_json::Value,
}

#[derive(Deserialize)]
struct BacktraceGraph {
    #[serde(default)]
    files: Vec<String>,
    #[serde(default)]
    nodes: Vec<BacktraceNode>,
}

#[derive(Deserialize)]
struct BacktraceNode {
    file: usize,
    line: Option<u32>,
}

pub fn discover(
    project: &Project,
    built: &Built,
    timeout: Duration,
    steps: &Steps,
) -> Result<Vec<TestSpec>> {
    let dir = built
        .cmake_dir
        .clone()
        .unwrap_or_else(|| built.run_dir.clone());
    let mut cmd = Command::new("ctest");
    cmd.arg("--show-only=json-v1");
    let step = run_step(cmd, &dir, &[], steps)?;
    if !step.success {
        return Err(PipelineError::Discovery(format!(
            "`ctest --show-only=json-v1` failed:\n{}",
            step.output
        )));
    }
    let json_start = step.output.find('{').unwrap_or(0);
    let mut stream =
        serde_json::Deserializer::from_str(&step.output[json_start..]).into_iter::<ShowOnly>();
    let listing = match stream.next() {
        Some(Ok(listing)) => listing,
        Some(Err(e)) => {
            return Err(PipelineError::Discovery(format!(
                "cannot read ctest's test list: {e}"
            )))
        }
        None => {
            return Err(PipelineError::Discovery(
                "ctest printed no test list".into(),
            ))
        }
    };
    let mut specs = Vec::new();
    for test in listing.tests {
        if let Some(spec) = lower(
            project,
            &dir,
            test,
            listing.backtrace_graph.as_ref(),
            timeout,
        )? {
            specs.push(spec);
        }
    }
    Ok(specs)
}

fn lower(
    project: &Project,
    dir: &std::path::Path,
    test: CtestTest,
    graph: Option<&BacktraceGraph>,
    timeout: Duration,
) -> Result<Option<TestSpec>> {
    let prop = |name: &str| {
        test.properties
            .iter()
            .find(|p| p.name == name)
            .map(|p| &p.value)
    };
    if prop("DISABLED").and_then(|v| v.as_bool()) == Some(true) {
        return Ok(None);
    }
    if test.command.is_empty() {
        return Err(PipelineError::Discovery(format!(
            "CTest test {:?} has no command (its executable may be missing from the build)",
            test.name
        )));
    }
    let strings = |v: Option<&serde_json::Value>| -> Vec<String> {
        match v {
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .filter_map(|i| i.as_str().map(String::from))
                .collect(),
            Some(serde_json::Value::String(s)) => s.split(';').map(String::from).collect(),
            _ => Vec::new(),
        }
    };
    let regexes = |name: &str| -> Result<Vec<Regex>> {
        strings(prop(name))
            .iter()
            .map(|r| Regex::new(r).map_err(|e| PipelineError::Discovery(format!("test {:?}: {name} {r:?} is not a regular expression faultlens understands: {e}", test.name))))
            .collect()
    };
    let env = strings(prop("ENVIRONMENT"))
        .into_iter()
        .filter_map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect();
    let cwd = prop("WORKING_DIRECTORY")
        .and_then(|v| v.as_str())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| dir.to_path_buf());
    let own_timeout = prop("TIMEOUT")
        .and_then(|v| v.as_f64())
        .filter(|t| *t > 0.0)
        .map(Duration::from_secs_f64);
    let pass_regex = regexes("PASS_REGULAR_EXPRESSION")?;
    let location = graph.zip(test.backtrace).and_then(|(g, b)| {
        let node = g.nodes.get(b)?;
        let file = g.files.get(node.file)?;
        let path = std::path::Path::new(file);
        let rel = path
            .strip_prefix(&project.root)
            .ok()?
            .to_string_lossy()
            .into_owned();
        Some(Location {
            file: rel,
            line: node.line?,
        })
    });
    Ok(Some(TestSpec {
        name: test.name.clone(),
        invocation: Invocation::Argv(test.command.clone()),
        cwd,
        env,
        stdin: Vec::new(),
        expect: Expectation {
            exit: if pass_regex.is_empty() { Some(0) } else { None },
            stdout: None,
            compare: Default::default(),
            will_fail: prop("WILL_FAIL").and_then(|v| v.as_bool()).unwrap_or(false),
            pass_regex,
            fail_regex: regexes("FAIL_REGULAR_EXPRESSION")?,
            skip_exit: prop("SKIP_RETURN_CODE")
                .and_then(|v| v.as_i64().or_else(|| v.as_str()?.parse().ok()))
                .and_then(|c| i32::try_from(c).ok()),
        },
        timeout: own_timeout.unwrap_or(timeout),
        location,
    }))
}
