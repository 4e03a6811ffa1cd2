//! Coverage read natively from gcc's files equals gcov's on every fixture,
//! and from clang's equals `llvm-profdata` + `llvm-cov`'s on every fixture
//! clang's coverage runs: `FAULTLENS_GCOV_READER=check` reads every test's
//! counters both ways and fails the run at the first line where they differ
//! (crashing, hanging, multi-directory and framework fixtures included).
//! The default reader gives the same results document as gcov alone.

mod common;
use common::*;
use std::process::Command;

fn localize_with(dir: &std::path::Path, reader: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_faultlens"))
        .args(["localize", dir.to_str().unwrap(), "--format", "json"])
        .env("FAULTLENS_GCOV_READER", reader)
        .output()
        .unwrap()
}

#[test]
fn every_fixture_reads_the_same_natively_as_with_gcov() {
    let mut names: Vec<String> = std::fs::read_dir(repo_root().join("fixtures"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("ground-truth.json").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 25, "{names:?}");
    for name in &names {
        let dir = fixture(name);
        let out = localize_with(dir.path(), "check");
        assert!(out.status.success(), "{name}: {}", stderr(&out));
    }
}

/// The fixtures clang's coverage runs (input/output tests of a program
/// faultlens builds), with `coverage = "clang"`, read both ways. The
/// largest suite (compact-suite, 275 tests: 6 s with LLVM's tools) is left
/// to the mutant programs' bench.
#[test]
fn every_clang_fixture_reads_the_same_natively_as_with_llvm_cov() {
    let mut checked = Vec::new();
    for entry in std::fs::read_dir(repo_root().join("fixtures"))
        .unwrap()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        let config = entry.path().join("faultlens.toml");
        let text = std::fs::read_to_string(&config).unwrap_or_default();
        let io_program = text.contains("sources =") || text.contains("command =");
        if !io_program || text.contains("[runner]") || name == "compact-suite" {
            continue;
        }
        let dir = fixture(&name);
        let config = dir.path().join("faultlens.toml");
        let text = std::fs::read_to_string(&config).unwrap();
        assert!(text.contains("[build]\n"), "{name}");
        let text = text.replace("[build]\n", "[build]\ncoverage = \"clang\"\n");
        std::fs::write(&config, text).unwrap();
        let out = localize_with(dir.path(), "check");
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        checked.push(name);
    }
    checked.sort();
    assert!(checked.len() >= 15, "{checked:?}");
    assert!(
        checked.contains(&"crash-segv".to_string()) && checked.contains(&"hang-loop".to_string())
    );
}

#[test]
fn the_native_reader_and_gcov_write_the_same_results() {
    let coverage_of = |reader: &str| {
        let dir = fixture("crash-segv");
        let out = localize_with(dir.path(), reader);
        assert!(out.status.success(), "{}", stderr(&out));
        let doc = results(dir.path());
        (
            doc["files"].clone(),
            doc["tests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    (
                        t["name"].clone(),
                        t["outcome"].clone(),
                        t["coverage"].clone(),
                    )
                })
                .collect::<Vec<_>>(),
        )
    };
    let native = coverage_of("native");
    assert!(!native.1.is_empty());
    assert_eq!(native, coverage_of("gcov"));
}

#[test]
fn an_unknown_reader_is_refused_by_name() {
    let dir = fixture("leap-year");
    let out = localize_with(dir.path(), "fast");
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("FAULTLENS_GCOV_READER") && err.contains("native"),
        "{err}"
    );
}

/// A test whose program forks: parent and child write one profile, merged
/// as each exits, and the test's coverage holds both; the next test, on
/// the same worker (one job), holds only its own. Each test's program
/// also leaves a link to a file outside the project among the profiles:
/// clearing the profiles for the next test removes the link and leaves the
/// file alone.
#[test]
fn a_forked_childs_profile_is_merged_and_a_planted_link_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.txt");
    std::fs::write(&victim, "keep me\n").unwrap();
    std::fs::write(
        dir.path().join("faultlens.toml"),
        "[build]\ncoverage = \"clang\"\nsources = [\"f.c\"]\nprogram = \"f\"\n\n[run]\njobs = 1\n\n\
         [[test]]\nname = \"forks\"\nargs = [\"1\"]\nexpected_stdout = \"child\\nparent\\n\"\n\n\
         [[test]]\nname = \"plain\"\nargs = []\nexpected_stdout = \"none\\n\"\n",
    )
    .unwrap();
    let source = format!(
        r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
static void plant(void)
{{
    const char *pattern = getenv("LLVM_PROFILE_FILE");
    char link[4096];
    snprintf(link, sizeof link, "%s", pattern ? pattern : "");
    char *slash = strrchr(link, '/');
    if (!slash) return;
    strcpy(slash + 1, "planted.profraw");
    symlink("{victim}", link);
}}
static void child_work(void)
{{
    printf("child\n");
}}
int main(int argc, char **argv)
{{
    (void)argv;
    plant();
    if (argc < 2) {{
        printf("none\n");
        return 0;
    }}
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {{
        child_work();
        return 0;
    }}
    waitpid(pid, NULL, 0);
    printf("parent\n");
    return 1;
}}
"#,
        victim = victim.display()
    );
    std::fs::write(dir.path().join("f.c"), source).unwrap();
    let out = localize_with(dir.path(), "check");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me\n");
    let doc = results(dir.path());
    let lines_of = |name: &str| -> Vec<u64> {
        let test = doc["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap();
        test["coverage"][0]["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_u64().unwrap())
            .collect()
    };
    // child_work's printf (line 18) ran in the child only; the parent's
    // printf (line 35) in the parent only.
    let forks = lines_of("forks");
    assert!(forks.contains(&18) && forks.contains(&35), "{forks:?}");
    let plain = lines_of("plain");
    assert!(!plain.contains(&18) && !plain.contains(&35), "{plain:?}");
}

/// A test that puts a link to a directory outside the project in place of
/// its worker's profile directory: faultlens neither reads nor clears what
/// the link leads to, and says what happened.
#[test]
fn a_worker_directory_replaced_by_a_link_is_refused_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let kept = outside.path().join("keep.txt");
    std::fs::write(&kept, "keep me\n").unwrap();
    std::fs::write(
        dir.path().join("faultlens.toml"),
        "[build]\ncoverage = \"clang\"\nsources = [\"g.c\"]\nprogram = \"g\"\n\n\
         [[test]]\nname = \"swaps\"\nargs = []\nexpected_stdout = \"ok\\n\"\n",
    )
    .unwrap();
    let source = format!(
        r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(void)
{{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", getenv("LLVM_PROFILE_FILE"));
    *strrchr(dir, '/') = '\0';
    char aside[4200];
    snprintf(aside, sizeof aside, "%s.aside", dir);
    rename(dir, aside);
    symlink("{outside}", dir);
    printf("ok\n");
    return 0;
}}
"#,
        outside = outside.path().display()
    );
    std::fs::write(dir.path().join("g.c"), source).unwrap();
    let out = localize_with(dir.path(), "native");
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("no longer a directory"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "keep me\n");
}
