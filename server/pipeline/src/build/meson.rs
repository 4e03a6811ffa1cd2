//! Meson projects: a coverage build in `.faultlens/meson-build`
//! (`-Db_coverage=true`, unoptimised, faultlens's runtime linked in), set up
//! again only when its setup changes (the compiler, the runtime, `[meson]
//! setup_args`) and compiled incrementally (Meson reconfigures itself when
//! a `meson.build` changes). The user's own build directories are never
//! touched.

use super::{build_step, Built};
use crate::command::Steps;
use crate::error::{PipelineError, Result};
use crate::paths::PathMap;
use crate::project::Project;
use crate::toolchain::require;
use std::path::Path;
use std::process::Command;

pub fn build(
    project: &Project,
    runtime: &Path,
    jobs: usize,
    env: Vec<(String, String)>,
    steps: &Steps,
) -> Result<Built> {
    require(
        "meson",
        "Meson, which builds this project and lists its tests",
        "install it (Debian/Ubuntu: `sudo apt-get install meson ninja-build`)",
    )?;
    let root = &project.root;
    if !root.join("meson.build").is_file() {
        return Err(PipelineError::Config {
            path: root.join(crate::config::CONFIG_FILE),
            message: format!(
                "this is configured as a Meson project ([project] kind = \"meson\" or a [meson] section) but {} has no meson.build",
                root.display()
            ),
        });
    }
    let dir = project
        .work()?
        .dir_without_links_out(faultlens_workspace::build_dirs::MESON)?;
    let paths = PathMap::new(root.clone(), None);
    // Meson reads the compiler from CC when it sets up, and only then.
    let compiler: Vec<(String, String)> = env.iter().filter(|(k, _)| k == "CC").cloned().collect();
    let section = project.config.meson.clone().unwrap_or_default();
    // debug: -O0 -g. The runtime calls __gcov_dump, so even the compiler's
    // sanity check links with --coverage.
    let mut options: Vec<String> = vec![
        "-Db_coverage=true".into(),
        "-Dbuildtype=debug".into(),
        format!(
            "-Dc_link_args=--coverage {}",
            super::runtime::link_flags(runtime)
        ),
    ];
    options.extend(section.setup_args);
    let setup_record = dir.join("faultlens-setup");
    let wanted = format!("{compiler:?}\n{}\n", options.join("\n"));
    let configured = dir.join("meson-private").is_dir();
    if !configured || std::fs::read_to_string(&setup_record).ok().as_deref() != Some(&wanted) {
        let mut setup = Command::new("meson");
        setup.arg("setup");
        if configured {
            setup.arg("--wipe");
        }
        setup.arg(&dir).arg(root).args(&options);
        build_step(
            setup,
            "setting up the Meson coverage build failed:",
            root,
            &compiler,
            &dir,
            &paths,
            steps,
        )
        // A half-made directory would be taken for a configured one.
        .inspect_err(|_| {
            let _ = std::fs::remove_dir_all(dir.join("meson-private"));
        })?;
        std::fs::write(&setup_record, &wanted)
            .map_err(|e| PipelineError::io(format!("writing {}", setup_record.display()), e))?;
    }
    let mut compile = Command::new("meson");
    compile
        .arg("compile")
        .arg("-C")
        .arg(&dir)
        .arg("-j")
        .arg(jobs.max(1).to_string());
    build_step(
        compile,
        "building the Meson coverage build failed:",
        root,
        &compiler,
        &dir,
        &paths,
        steps,
    )?;
    Ok(Built {
        program: None,
        run_dir: dir.clone(),
        notes_dir: dir,
        cmake_dir: None,
        paths,
        env,
        said: Vec::new(),
    })
}
