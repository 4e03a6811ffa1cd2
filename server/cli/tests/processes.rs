//! Nothing faultlens starts outlives its run: children that escape the
//! test's process group, builds that hang, faultlens itself interrupted or
//! killed. Real processes, real signals.

mod common;
use common::*;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        if name.ends_with(".sh") {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
}

fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
    })
}

/// The pids listed one per line in `file`, once it holds `count` of them.
fn wait_pids(file: &Path, count: usize) -> Vec<i32> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let pids: Vec<i32> = std::fs::read_to_string(file)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        if pids.len() >= count {
            return pids;
        }
        assert!(
            Instant::now() < deadline,
            "{} never listed {count} pids",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn all_dead_soon(pids: &[i32]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while pids.iter().any(|&p| alive(p)) {
        assert!(
            Instant::now() < deadline,
            "still running: {:?}",
            pids.iter().filter(|&&p| alive(p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A child that starts a session of its own (leaving the test's process
/// group) and keeps stdout open; the parent exits at once.
const ESCAPING_C: &str = r#"#include <stdio.h>
#include <unistd.h>
int main(void) {
    pid_t child = fork();
    if (child == 0) {
        setsid();
        printf("child %d\n", (int)getpid());
        fflush(stdout);
        sleep(120);
        return 0;
    }
    usleep(300000); /* the child leaves the group before its group is killed */
    return 0;
}
"#;

#[test]
fn an_escaped_child_holding_the_output_is_stopped_at_the_timeout_and_killed() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("esc.c", ESCAPING_C),
            (
                "faultlens.toml",
                "[build]\nsources = [\"esc.c\"]\nprogram = \"esc\"\n[run]\ntimeout = 2\n\
                 [[test]]\nname = \"escapes\"\n[[test]]\nname = \"escapes-too\"\nexpected_exit = 1\n",
            ),
        ],
    );
    let started = Instant::now();
    let out = faultlens(&["localize", dir.path().to_str().unwrap()]);
    let elapsed = started.elapsed();
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    assert!(
        elapsed < Duration::from_secs(30),
        "the run took {elapsed:?}"
    );
    let results = results(dir.path());
    let record = test_record(&results, "escapes");
    assert_eq!(record["outcome"], "timed_out", "{record}");
    assert!(
        record["reason"]
            .as_str()
            .unwrap()
            .contains("kept its output open"),
        "{record}"
    );
    let child: i32 = record["stdout"]
        .as_str()
        .unwrap()
        .trim()
        .strip_prefix("child ")
        .unwrap()
        .parse()
        .unwrap();
    assert!(!alive(child), "the escaped child was killed");
}

#[test]
fn a_test_ignoring_sigterm_says_its_coverage_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "stubborn.c",
                "#include <signal.h>\nint main(void) {\n    signal(SIGTERM, SIG_IGN);\n    for (;;) {}\n}\n",
            ),
            (
                "faultlens.toml",
                "[build]\nsources = [\"stubborn.c\"]\nprogram = \"stubborn\"\n[run]\ntimeout = 0.5\n[[test]]\nname = \"stubborn\"\n",
            ),
        ],
    );
    faultlens(&["localize", dir.path().to_str().unwrap()]);
    let results = results(dir.path());
    let reason = test_record(&results, "stubborn")["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        reason.contains("did not stop on SIGTERM")
            && reason.contains("coverage it gathered is lost"),
        "{reason}"
    );
}

/// A runner project whose tests each leave a grandchild and an escaped
/// great-grandchild running, and list all their pids in `pids`.
fn lingering_runner(dir: &Path, pids: &Path) {
    write(
        dir,
        &[
            (
                "t.sh",
                &format!(
                    "#!/bin/sh\necho $$ >> {p}\n\
                     sh -c 'echo $$ >> {p}; exec sleep 300' &\n\
                     setsid -f sh -c 'echo $$ >> {p}; exec sleep 300' < /dev/null > /dev/null 2>&1\n\
                     sleep 300\n",
                    p = pids.display()
                ),
            ),
            (
                "faultlens.toml",
                "[runner]\nlist = \"printf 'a\\\\nb\\\\n'\"\nrun = \"./t.sh {name}\"\n[run]\ntimeout = 600\njobs = 2\n",
            ),
        ],
    );
}

#[test]
fn killing_faultlens_outright_leaves_no_test_process_running() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let project = dir.path().join("p");
    lingering_runner(&project, &pids);
    let mut faultlens = Command::new(env!("CARGO_BIN_EXE_faultlens"))
        .args(["localize", project.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Two tests, each with its shell, a child and an escaped process.
    let running = wait_pids(&pids, 6);
    std::thread::sleep(Duration::from_millis(200));
    faultlens.kill().unwrap(); // SIGKILL: no code of faultlens runs.
    faultlens.wait().unwrap();
    all_dead_soon(&running);
}

#[test]
fn ctrl_c_stops_the_tests_and_their_children_promptly() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let project = dir.path().join("p");
    lingering_runner(&project, &pids);
    let faultlens = Command::new(env!("CARGO_BIN_EXE_faultlens"))
        .args(["localize", project.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let running = wait_pids(&pids, 6);
    let started = Instant::now();
    // SAFETY: kill has no memory-safety preconditions.
    unsafe_kill(faultlens.id() as i32, 2);
    let out = faultlens.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    all_dead_soon(&running);
}

fn unsafe_kill(pid: i32, signal: i32) {
    let ok = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

#[test]
fn an_interrupted_build_stops_promptly_and_leaves_no_shell() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let project = dir.path().join("p");
    write(
        &project,
        &[
            ("a.c", "int main(void) { return 0; }\n"),
            (
                "faultlens.toml",
                &format!(
                    "[build]\ncommand = \"echo $$ >> {p}; sh -c 'echo $$ >> {p}; sleep 300'\"\nprogram = \"a\"\n[[test]]\nname = \"t\"\n",
                    p = pids.display()
                ),
            ),
        ],
    );
    let faultlens = Command::new(env!("CARGO_BIN_EXE_faultlens"))
        .args(["localize", project.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let building = wait_pids(&pids, 2);
    let started = Instant::now();
    unsafe_kill(faultlens.id() as i32, 15); // SIGTERM, as a service manager sends
    let out = faultlens.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    all_dead_soon(&building);
}

#[test]
fn a_build_that_hangs_stops_at_the_build_timeout() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("a.c", "int main(void) { return 0; }\n"),
            (
                "faultlens.toml",
                "[build]\ncommand = \"sleep 300\"\nprogram = \"a\"\ntimeout = 1\n[[test]]\nname = \"t\"\n",
            ),
        ],
    );
    let started = Instant::now();
    let out = faultlens(&["localize", dir.path().to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("build timeout of 1 s") && err.contains("[build] timeout"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn output_past_the_limit_is_reported_as_cut_not_as_a_plain_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "loud.c",
                "#include <stdio.h>\nint main(void) {\n    for (int i = 0; i < 200000; i++) printf(\"%d\\n\", i);\n    return 0;\n}\n",
            ),
            (
                "faultlens.toml",
                "[build]\nsources = [\"loud.c\"]\nprogram = \"loud\"\n[run]\noutput_limit = 1000\n\
                 [[test]]\nname = \"short\"\nexpected_stdout = \"0\\n1\\n\"\n",
            ),
        ],
    );
    faultlens(&["localize", dir.path().to_str().unwrap()]);
    let results = results(dir.path());
    let reason = test_record(&results, "short")["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        reason.contains("output limit") && reason.contains("[run] output_limit"),
        "{reason}"
    );
}

#[test]
fn a_quoted_name_placeholder_is_refused_before_any_name_runs_as_shell() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("run.sh", "#!/bin/sh\nexit 0\n"),
            (
                "faultlens.toml",
                "[runner]\nlist = \"echo '$(touch pwned)'\"\nrun = \"./run.sh '{name}'\"\n",
            ),
        ],
    );
    let out = faultlens(&["localize", dir.path().to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("line 3") && err.contains("{name} without quotes"),
        "{err}"
    );
    assert!(!dir.path().join("pwned").exists());
    assert!(!dir.path().join(".faultlens/shadow/pwned").exists());
}
