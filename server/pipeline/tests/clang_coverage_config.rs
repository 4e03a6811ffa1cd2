//! `[build] coverage`: what is accepted and what a missing clang says.

use faultlens_pipeline::{localize, CancelToken, RunOptions};
use faultlens_workspace::config::CoverageTool;
use faultlens_workspace::Project;

const PROGRAM: &str = "int main(void) { return 0; }\n";

fn project(build: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.c"), PROGRAM).unwrap();
    std::fs::write(
        dir.path().join("faultlens.toml"),
        format!("[build]\nsources = [\"p.c\"]\n{build}\n[[test]]\nname = \"t\"\n"),
    )
    .unwrap();
    dir
}

#[test]
fn gcov_is_the_default_and_clang_is_accepted() {
    let dir = project("");
    let p = Project::load(dir.path()).unwrap();
    assert_eq!(p.config.build.coverage, CoverageTool::Gcov);
    let dir = project("coverage = \"clang\"");
    let p = Project::load(dir.path()).unwrap();
    assert_eq!(p.config.build.coverage, CoverageTool::Clang);
}

#[test]
fn an_unknown_coverage_tool_names_the_choices() {
    let dir = project("coverage = \"llvm\"");
    let err = Project::load(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("llvm") && err.contains("gcov") && err.contains("clang"),
        "{err}"
    );
}

#[test]
fn a_missing_clang_names_the_packages() {
    let dir = project("coverage = \"clang\"\ncc = \"clang-faultlens-no-such-compiler\"");
    let p = Project::load(dir.path()).unwrap();
    let err = localize(&p, &RunOptions::default(), &|_| {}, &CancelToken::new())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("clang-faultlens-no-such-compiler")
            && err.contains("apt-get install clang llvm"),
        "{err}"
    );
    assert!(
        !dir.path().join("p").exists(),
        "nothing built outside .faultlens"
    );
}
