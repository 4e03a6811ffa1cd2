//! `faultlens tests`: the tests faultlens discovers. Input/output tests are
//! listed from the configuration; other suites need a build first, and a
//! Check or CMocka executable is run once to name its cases.

use super::root_or_cwd;
use crate::output::outln;
use crate::progress::Reporter;
use faultlens_pipeline::discover_tests;
use faultlens_workspace::testspec::TestSpec;
use faultlens_workspace::Project;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

pub fn run(path: Option<PathBuf>, as_json: bool) -> anyhow::Result<ExitCode> {
    let root = root_or_cwd(path)?;
    let project = Project::load(&root)?;
    let reporter = Reporter::new();
    let specs = discover_tests(
        &project,
        &|p| reporter.update(p),
        &super::localize::cancel_on_interrupt(),
    );
    reporter.finish();
    let discovered = specs?;
    let kind = format!("{:?}", discovered.kind).to_lowercase();
    let specs: Vec<TestSpec> = discovered.tests;
    if as_json {
        let list: Vec<_> = specs
            .iter()
            .map(|s| {
                json!({
                    "name": s.name,
                    "command": s.invocation.describe(),
                    "location": s.location.as_ref().map(|l| json!({"file": l.file, "line": l.line})),
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({ "kind": kind, "tests": list }))?
        );
    } else {
        let how = if project.detected {
            "detected"
        } else {
            "from faultlens.toml"
        };
        outln!("{} tests ({kind} suite, {how}):", specs.len());
        for s in &specs {
            let at = s
                .location
                .as_ref()
                .map(|l| format!("  ({}:{})", l.file, l.line))
                .unwrap_or_default();
            outln!("  {}{at}", faultlens_report::table::one_line(&s.name));
        }
    }
    Ok(ExitCode::SUCCESS)
}
