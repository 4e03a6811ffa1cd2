//! `[build] command`: the user's own build, run in the shadow copy.

use super::{build_step, Built};
use crate::command::Steps;
use crate::error::{PipelineError, Result};
use crate::paths::PathMap;
use crate::project::Project;
use std::process::Command;

pub fn build(project: &Project, env: Vec<(String, String)>, steps: &Steps) -> Result<Built> {
    let shadow = project
        .work()?
        .dir_without_links_out(faultlens_workspace::build_dirs::SHADOW)?;
    crate::shadow::sync(&project.root, &shadow)?;
    let paths = PathMap::new(project.root.clone(), Some(shadow.clone()));
    let command = project.config.build.command.clone().unwrap_or_default();
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(&command);
    let what = format!("`{command}` failed:");
    build_step(cmd, &what, &shadow, &env, &shadow, &paths, steps)?;
    let program = match &project.config.build.program {
        Some(p) => {
            let path = crate::files::checked(&shadow, std::path::Path::new(p)).map_err(|e| {
                PipelineError::Config {
                    path: project.root.join(crate::config::CONFIG_FILE),
                    message: format!("[build] program = {p:?}: {e}"),
                }
            })?;
            if !path.is_file() {
                return Err(PipelineError::Build {
                    message: format!(
                        "`{command}` succeeded but did not produce [build] program = {p:?} (looked for {}); fix `program` in faultlens.toml",
                        path.display()
                    ),
                    diagnostics: Vec::new(),
                });
            }
            Some(path)
        }
        None => None,
    };
    Ok(Built {
        program,
        run_dir: shadow.clone(),
        notes_dir: shadow,
        cmake_dir: None,
        paths,
        env,
        said: Vec::new(),
    })
}

/// A runner project without `[build]`: its test commands build what they
/// need, in the shadow copy, with the coverage environment.
pub fn no_build(project: &Project, env: Vec<(String, String)>) -> Result<Built> {
    let shadow = project
        .work()?
        .dir_without_links_out(faultlens_workspace::build_dirs::SHADOW)?;
    crate::shadow::sync(&project.root, &shadow)?;
    Ok(Built {
        program: None,
        run_dir: shadow.clone(),
        notes_dir: shadow.clone(),
        cmake_dir: None,
        paths: PathMap::new(project.root.clone(), Some(shadow)),
        env,
        said: Vec::new(),
    })
}
