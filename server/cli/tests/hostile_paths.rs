//! A repository may be hostile: paths in its `faultlens.toml`, in the
//! `.faultlens/` it ships and among its sources must not make faultlens
//! write outside `.faultlens/`, read outside the project, or read without
//! end. Each test drives the real binary on real files.

mod common;
use common::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// A copy of `mid-args` inside a parent directory that stands for the rest
/// of the user's disk: `outside` holds files the run must not touch.
struct Scene {
    parent: tempfile::TempDir,
}

impl Scene {
    fn new() -> Scene {
        let parent = tempfile::tempdir().unwrap();
        copy_tree(
            &repo_root().join("fixtures/mid-args"),
            &parent.path().join("project"),
        );
        std::fs::create_dir(parent.path().join("outside")).unwrap();
        std::fs::write(parent.path().join("outside/mid.c"), "precious\n").unwrap();
        Scene { parent }
    }
    fn root(&self) -> std::path::PathBuf {
        self.parent.path().join("project")
    }
    fn outside(&self) -> std::path::PathBuf {
        self.parent.path().join("outside")
    }
    fn set_config(&self, from: &str, to: &str) {
        let path = self.root().join("faultlens.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from));
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    }
    fn outside_untouched(&self) {
        let names: Vec<String> = std::fs::read_dir(self.outside())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["mid.c"], "nothing new lands outside");
        assert_eq!(
            std::fs::read_to_string(self.outside().join("mid.c")).unwrap(),
            "precious\n"
        );
    }
}

fn localize(root: &Path) -> std::process::Output {
    faultlens(&["localize", root.to_str().unwrap()])
}

#[test]
fn a_program_path_that_climbs_out_is_refused_and_the_source_it_names_survives() {
    let scene = Scene::new();
    let source_before = std::fs::read_to_string(scene.root().join("mid.c")).unwrap();
    let config = scene.root().join("faultlens.toml");
    let original = std::fs::read_to_string(&config).unwrap();
    for program in [
        "../../mid.c",
        "../outside/mid.c",
        &scene.outside().join("mid.c").display().to_string(),
    ] {
        let text = original.replacen("program = \"mid\"", &format!("program = {program:?}"), 1);
        assert_ne!(text, original);
        std::fs::write(&config, text).unwrap();
        let out = localize(&scene.root());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{program}: {err}");
        assert!(
            err.contains("line 4") && err.contains("[build] program") && err.contains("inside"),
            "{program}: {err}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(scene.root().join("mid.c")).unwrap(),
        source_before
    );
    scene.outside_untouched();
}

#[test]
fn sources_outside_the_project_are_refused_even_through_a_link() {
    let scene = Scene::new();
    scene.set_config("sources = [\"mid.c\"]", "sources = [\"../outside/mid.c\"]");
    let err = stderr(&localize(&scene.root()));
    assert!(
        err.contains("line 3") && err.contains("[build] sources"),
        "{err}"
    );

    scene.set_config(
        "sources = [\"../outside/mid.c\"]",
        "sources = [\"linked/mid.c\"]",
    );
    std::os::unix::fs::symlink(scene.outside(), scene.root().join("linked")).unwrap();
    let out = localize(&scene.root());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    scene.outside_untouched();
}

#[test]
fn a_work_dir_that_is_a_link_is_refused_and_links_inside_it_are_not_followed() {
    let scene = Scene::new();
    std::os::unix::fs::symlink(scene.outside(), scene.root().join(".faultlens")).unwrap();
    let out = localize(&scene.root());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("symbolic link") && err.contains("remove the link"),
        "{err}"
    );
    scene.outside_untouched();

    // A shipped .faultlens/ whose build, runs and results lead outside.
    std::fs::remove_file(scene.root().join(".faultlens")).unwrap();
    let work = scene.root().join(".faultlens");
    std::fs::create_dir(&work).unwrap();
    for name in ["build", "runs", "rt", "notes-scan"] {
        std::os::unix::fs::symlink(scene.outside(), work.join(name)).unwrap();
    }
    std::os::unix::fs::symlink(scene.outside().join("mid.c"), work.join("results.json")).unwrap();
    let out = localize(&scene.root());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    scene.outside_untouched();
    assert!(!std::fs::symlink_metadata(work.join("results.json"))
        .unwrap()
        .file_type()
        .is_symlink());
}

/// Writes `.faultlens/results.json` naming `path` as a ranked file.
fn hostile_results(root: &Path, path: &str) {
    let work = root.join(".faultlens");
    std::fs::create_dir_all(&work).unwrap();
    let doc = serde_json::json!({
        "format_version": 1, "tool_version": "0.1.0", "created_unix_ms": 0,
        "project_root": root, "suite": "io",
        "files": [{"path": path, "lines": [1, 2, 3]}],
        "tests": [
            {"name": "a", "verdict": "fail", "outcome": "failed", "duration_ms": 1,
             "coverage": [{"file": 0, "lines": [1, 2], "counts": [1, 1]}]},
            {"name": "b", "verdict": "pass", "outcome": "passed", "duration_ms": 1,
             "coverage": [{"file": 0, "lines": [2, 3], "counts": [1, 1]}]}
        ]
    });
    std::fs::write(work.join("results.json"), doc.to_string()).unwrap();
}

#[test]
fn results_naming_files_outside_the_project_are_refused_by_rank() {
    let scene = Scene::new();
    for path in ["/etc/passwd", "/dev/zero", "../outside/mid.c"] {
        hostile_results(&scene.root(), path);
        let started = Instant::now();
        let out = faultlens(&["rank", scene.root().to_str().unwrap()]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{path}: {err}");
        assert!(
            err.contains("results.json") && err.contains(&format!("{path:?}")),
            "{path}: {err}"
        );
        assert!(
            !stdout(&out).contains("root:"),
            "{path}: nothing of it is printed"
        );
        assert!(started.elapsed() < Duration::from_secs(20), "{path}");
    }
}

#[test]
fn a_source_that_links_to_a_device_or_a_fifo_neither_blocks_nor_floods_localize() {
    let scene = Scene::new();
    std::os::unix::fs::symlink("/dev/zero", scene.root().join("zero.c")).unwrap();
    let fifo = scene.root().join("pipe.h");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let started = Instant::now();
    let out = localize(&scene.root());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn a_test_data_file_outside_the_project_is_refused() {
    let scene = Scene::new();
    std::os::unix::fs::symlink(scene.outside(), scene.root().join("data")).unwrap();
    let path = scene.root().join("faultlens.toml");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("\n[[test]]\nname = \"leaky\"\nstdin_file = \"data/mid.c\"\n");
    std::fs::write(&path, text).unwrap();
    let out = localize(&scene.root());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("stdin_file") && err.contains("symbolic link"),
        "{err}"
    );
}
