//! `[build] sources`: faultlens compiles and links the program itself.

use super::{coverage_flags, failed, reuse, Built};
use crate::command::{run_step, Steps};
use crate::error::{PipelineError, Result};
use crate::paths::PathMap;
use crate::project::Project;
use crate::toolchain::Toolchain;
use std::path::Path;
use std::process::Command;

pub fn build(
    project: &Project,
    tools: &Toolchain,
    runtime: &Path,
    jobs: usize,
    env: Vec<(String, String)>,
    steps: &Steps,
) -> Result<super::Built> {
    let root = &project.root;
    let sources = project.config.build.sources.clone().unwrap_or_default();
    let work = project.work()?;
    let build_dir = work.dir("build")?;
    let obj_dir = work.dir("build/obj")?;
    let paths = PathMap::new(root.clone(), None);
    let config_path = root.join(crate::config::CONFIG_FILE);

    let mut objects = Vec::new();
    let mut jobs_list = Vec::new();
    for source in &sources {
        // The configuration checked the path lexically; here it must also be
        // a regular file whose real location is inside the project.
        let absolute = match faultlens_confine::confined(root, source) {
            Ok(path) => path,
            Err(e) => {
                return Err(PipelineError::Config {
                    path: config_path.clone(),
                    message: format!("[build] sources lists {source:?}: {e}"),
                })
            }
        };
        if std::fs::metadata(&absolute).is_ok_and(|m| !m.is_file()) {
            return Err(PipelineError::Config {
                path: config_path.clone(),
                message: format!(
                    "[build] sources lists {source:?}, which is not a regular file; list the C files to compile"
                ),
            });
        }
        if !absolute.is_file() {
            return Err(PipelineError::Config {
                path: config_path.clone(),
                message: format!(
                    "{}[build] sources lists {source:?}, which does not exist in {}",
                    crate::config::line_of(
                        &std::fs::read_to_string(&config_path).unwrap_or_default(),
                        source
                    )
                    .map(|l| format!("line {l}: "))
                    .unwrap_or_default(),
                    root.display()
                ),
            });
        }
        let relative = faultlens_confine::lexical(source).map_err(|e| PipelineError::Config {
            path: config_path.clone(),
            message: format!("[build] sources lists {source:?}: {e}"),
        })?;
        let object = obj_dir.join(format!("{}.o", relative.display()));
        objects.push(object.clone());
        jobs_list.push((absolute, object));
    }

    let program_name = project
        .config
        .build
        .program
        .clone()
        .unwrap_or_else(|| "prog".into());
    let program = build_dir.join(faultlens_confine::lexical(&program_name).map_err(|e| {
        PipelineError::Config {
            path: config_path.clone(),
            message: format!("[build] program = {program_name:?}: {e}"),
        }
    })?);
    let built = Built {
        program: Some(program.clone()),
        run_dir: root.clone(),
        notes_dir: obj_dir.clone(),
        cmake_dir: None,
        paths: paths.clone(),
        env,
        said: Vec::new(),
    };
    let runtime_key = std::fs::read_to_string(runtime.with_extension("key")).unwrap_or_default();
    let key = reuse::key(&[
        &crate::toolchain::compiler_identity(&tools.cc),
        coverage_flags(project).0,
        coverage_flags(project).1,
        &project.config.build.cflags.join("\0"),
        &project.config.build.ldflags.join("\0"),
        &sources.join("\0"),
        &program.to_string_lossy(),
        &runtime.to_string_lossy(),
        &runtime_key,
    ]);
    let mut outputs = objects.clone();
    outputs.extend(objects.iter().map(|o| o.with_extension("gcno")));
    outputs.push(program.clone());
    if reuse::current(&build_dir, &key, &outputs) {
        return Ok(built);
    }
    reuse::forget(&build_dir);
    let started = std::time::SystemTime::now();
    // Old notes would describe files that are no longer compiled.
    work.fresh_dir("build/obj")?;
    for object in &objects {
        if let Some(parent) = object.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| PipelineError::io(format!("creating {}", parent.display()), e))?;
        }
    }

    let compile = |(source, object): &(std::path::PathBuf, std::path::PathBuf)| -> Result<()> {
        let mut cmd = Command::new(&tools.cc);
        cmd.arg("-c")
            .args(coverage_flags(project).0.split_whitespace())
            .args(&project.config.build.cflags)
            .arg(source)
            .arg("-o")
            .arg(object)
            // The files it reads, for reusing the build while they stay.
            .arg("-MD")
            .arg("-MF")
            .arg(object.with_extension("d"));
        let step = run_step(cmd, root, &[], steps)?;
        if !step.success {
            return Err(failed(
                &format!("compiling {} failed:", source.display()),
                &step.output,
                root,
                &paths,
            ));
        }
        Ok(())
    };
    run_parallel(&jobs_list, jobs, compile)?;

    if let Some(parent) = program.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| PipelineError::io(format!("creating {}", parent.display()), e))?;
    }
    let mut link = Command::new(&tools.cc);
    link.arg(coverage_flags(project).1)
        .args(&objects)
        .arg(runtime)
        .args(&project.config.build.ldflags)
        .arg("-o")
        .arg(&program);
    let step = run_step(link, root, &[], steps)?;
    if !step.success {
        return Err(failed("linking failed:", &step.output, root, &paths));
    }
    let lists: Vec<_> = objects.iter().map(|o| o.with_extension("d")).collect();
    let linked = linker_inputs(&project.config.build.ldflags, root);
    reuse::record(&build_dir, &key, &lists, &linked, root, started);
    Ok(built)
}

/// Runs `work` over `items` on up to `jobs` threads; the first error wins.
fn run_parallel<T: Sync>(
    items: &[T],
    jobs: usize,
    work: impl Fn(&T) -> Result<()> + Sync,
) -> Result<()> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let first_error = std::sync::Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1).min(items.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                if let Err(e) = work(item) {
                    first_error.lock().unwrap().get_or_insert(e);
                    break;
                }
            });
        }
    });
    match first_error.into_inner().unwrap() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Archives, objects and scripts the linker flags name (as paths, or as
/// `-lNAME` found in a `-L` directory), which a reused build depends on.
fn linker_inputs(ldflags: &[String], root: &Path) -> Vec<std::path::PathBuf> {
    let dirs: Vec<std::path::PathBuf> = ldflags
        .iter()
        .filter_map(|f| f.strip_prefix("-L"))
        .map(|d| root.join(d))
        .collect();
    let mut found = Vec::new();
    for flag in ldflags {
        let path = root.join(flag.strip_prefix("-T").unwrap_or(flag));
        if path.is_file() {
            found.push(path);
        } else if let Some(name) = flag.strip_prefix("-l") {
            for dir in &dirs {
                for file in [format!("lib{name}.a"), format!("lib{name}.so")] {
                    if dir.join(&file).is_file() {
                        found.push(dir.join(file));
                    }
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linker_flags_name_their_archives_and_scripts() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("lib")).unwrap();
        std::fs::write(dir.path().join("lib/libutil.a"), "!<arch>\n").unwrap();
        std::fs::write(dir.path().join("x.ld"), "").unwrap();
        std::fs::write(dir.path().join("extra.o"), "").unwrap();
        let flags: Vec<String> = ["-Llib", "-lutil", "-lm", "-Tx.ld", "extra.o", "-Wl,-O1"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            linker_inputs(&flags, dir.path()),
            [
                dir.path().join("lib/libutil.a"),
                dir.path().join("x.ld"),
                dir.path().join("extra.o"),
            ]
        );
    }
}
