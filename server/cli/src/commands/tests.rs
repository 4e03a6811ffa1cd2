//! `faultlens tests`: the tests faultlens discovers. Input/output tests are
//! listed from the configuration; CTest and runner suites need a build first.

use super::root_or_cwd;
use crate::output::outln;
use crate::progress::Reporter;
use faultlens_pipeline::build::build;
use faultlens_pipeline::discover::{discover, discover_declared, DEFAULT_TIMEOUT};
use faultlens_pipeline::testspec::TestSpec;
use faultlens_pipeline::toolchain::Toolchain;
use faultlens_pipeline::{Progress, Project};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

pub fn run(path: Option<PathBuf>, as_json: bool) -> anyhow::Result<ExitCode> {
    let root = root_or_cwd(path)?;
    let project = Project::load(&root)?;
    let timeout = project
        .config
        .run
        .timeout
        .map(Duration::from_secs_f64)
        .unwrap_or(DEFAULT_TIMEOUT);
    let specs: Vec<TestSpec> = match discover_declared(&project, timeout) {
        Some(listed) => listed?,
        None => {
            let reporter = Reporter::new();
            reporter.update(Progress::Building);
            let tools = Toolchain::find(&project.config)?;
            let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
            let built = build(&project, &tools, jobs);
            reporter.finish();
            discover(&project, &built?, timeout)?
        }
    };
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
            serde_json::to_string_pretty(
                &json!({ "kind": format!("{:?}", project.kind).to_lowercase(), "tests": list })
            )?
        );
    } else {
        let kind = format!("{:?}", project.kind).to_lowercase();
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
            outln!("  {}{at}", s.name);
        }
    }
    Ok(ExitCode::SUCCESS)
}
