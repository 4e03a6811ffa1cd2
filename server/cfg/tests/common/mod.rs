//! Runs real gcc/gcov builds of small C programs, so the derivation of edge
//! counts is checked against what gcov actually reports.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use faultlens_cfg::clang::{file_counts, Export};
use faultlens_cfg::{build_cfgs, edge_profiles, EdgeProfile, FunctionCfg};
use faultlens_core::results::{FileCoverage, LineBranches};

/// Linked (without coverage) into every test program: dumps the coverage
/// counters when the program dies of a signal, as the pipeline's runtime does.
const RUNTIME: &str = r#"
#include <signal.h>
extern void __gcov_dump(void);
static void on_signal(int sig) { __gcov_dump(); signal(sig, SIG_DFL); raise(sig); }
__attribute__((constructor)) static void install(void) {
    signal(SIGSEGV, on_signal); signal(SIGABRT, on_signal); signal(SIGFPE, on_signal);
}
"#;

/// The same runtime for clang's coverage.
const CLANG_RUNTIME: &str = r#"
#include <signal.h>
extern int __llvm_profile_write_file(void);
static void on_signal(int sig) { __llvm_profile_write_file(); signal(sig, SIG_DFL); raise(sig); }
__attribute__((constructor)) static void install(void) {
    signal(SIGSEGV, on_signal); signal(SIGABRT, on_signal); signal(SIGFPE, on_signal);
}
"#;

/// Whose coverage a program records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    Gcov,
    /// clang's source-based coverage, read as `faultlens_cfg::clang` reads it.
    Clang,
}

pub struct Program {
    dir: PathBuf,
    pub source: String,
    pub cfgs: Vec<FunctionCfg>,
    /// Lines gcov lists for the file.
    pub executable: Vec<u32>,
    pub coverage_tool: Coverage,
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

impl Program {
    pub fn compile(source: &str) -> Program {
        Program::compile_for(source, Coverage::Gcov)
    }

    pub fn compile_for(source: &str, tool: Coverage) -> Program {
        let dir = std::env::temp_dir().join(format!(
            "faultlens-cfg-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("x.c"), source).unwrap();
        let cfgs = build_cfgs(source).expect("parses");
        if tool == Coverage::Clang {
            std::fs::write(dir.join("rt.c"), CLANG_RUNTIME).unwrap();
            run(&dir, "clang", &["-c", "-O0", "rt.c", "-o", "rt.o"]);
            run(
                &dir,
                "clang",
                &[
                    "-fprofile-instr-generate",
                    "-fcoverage-mapping",
                    "-O0",
                    "-c",
                    "x.c",
                    "-o",
                    "x.o",
                ],
            );
            run(
                &dir,
                "clang",
                &["-fprofile-instr-generate", "x.o", "rt.o", "-o", "x"],
            );
            // Every run exports the whole mapping: executable lines come
            // with each run.
            return Program {
                dir,
                source: source.to_string(),
                cfgs,
                executable: Vec::new(),
                coverage_tool: tool,
            };
        }
        std::fs::write(dir.join("rt.c"), RUNTIME).unwrap();
        run(&dir, "gcc", &["-c", "-O0", "rt.c", "-o", "rt.o"]);
        run(
            &dir,
            "gcc",
            &["--coverage", "-O0", "-c", "x.c", "-o", "x.o"],
        );
        run(&dir, "gcc", &["--coverage", "x.o", "rt.o", "-o", "x"]);
        let mut p = Program {
            dir,
            source: source.to_string(),
            cfgs,
            executable: Vec::new(),
            coverage_tool: tool,
        };
        let (all, _) = p.coverage(None);
        p.executable = all;
        p
    }

    /// Runs the program once with `args` under clang's coverage: (every
    /// mapped line, this run's coverage).
    fn clang_coverage(&self, args: &[&str]) -> (Vec<u32>, FileCoverage) {
        let raw = self.dir.join("x.profraw");
        let _ = std::fs::remove_file(&raw);
        let _ = Command::new(self.dir.join("x"))
            .args(args)
            .current_dir(&self.dir)
            .env("LLVM_PROFILE_FILE", &raw)
            .output()
            .unwrap();
        let profdata = llvm_tool("llvm-profdata");
        run(
            &self.dir,
            &profdata,
            &["merge", "-sparse", "x.profraw", "-o", "x.profdata"],
        );
        let out = Command::new(llvm_tool("llvm-cov"))
            .args([
                "export",
                "-format=text",
                "-instr-profile",
                "x.profdata",
                "x",
            ])
            .current_dir(&self.dir)
            .output()
            .expect("llvm-cov runs");
        assert!(
            out.status.success(),
            "llvm-cov export failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let export = Export::parse(&String::from_utf8_lossy(&out.stdout)).expect("export JSON");
        let name = export
            .files()
            .into_iter()
            .find(|f| f.ends_with("x.c"))
            .expect("x.c in the export")
            .to_string();
        let counts = file_counts(&export, &name, &self.source, &self.cfgs);
        let mut cov = FileCoverage {
            file: 0,
            lines: Vec::new(),
            counts: Vec::new(),
            branches: Vec::new(),
        };
        for (&line, (count, branches)) in &counts.lines {
            if *count > 0 {
                cov.lines.push(line);
                cov.counts.push(*count);
                if !branches.is_empty() {
                    cov.branches.push(LineBranches {
                        line,
                        counts: branches.clone(),
                    });
                }
            }
        }
        (counts.lines.keys().copied().collect(), cov)
    }

    /// Runs the program once with `args` and returns gcov's view:
    /// (every executable line, this run's coverage).
    /// Without `args`, reads the notes file alone (every count 0).
    fn coverage(&self, args: Option<&[&str]>) -> (Vec<u32>, FileCoverage) {
        let _ = std::fs::remove_file(self.dir.join("x.gcda"));
        if let Some(args) = args {
            let _ = Command::new(self.dir.join("x"))
                .args(args)
                .current_dir(&self.dir)
                .output()
                .unwrap();
        }
        let out = Command::new("gcov")
            .args(["-j", "-t", "-b", "x.gcda"])
            .current_dir(&self.dir)
            .output()
            .expect("gcov runs");
        assert!(
            !out.stdout.is_empty(),
            "gcov failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("gcov JSON");
        let mut all = Vec::new();
        let mut cov = FileCoverage {
            file: 0,
            lines: Vec::new(),
            counts: Vec::new(),
            branches: Vec::new(),
        };
        for file in json["files"].as_array().unwrap() {
            if !file["file"].as_str().unwrap().ends_with("x.c") {
                continue;
            }
            for l in file["lines"].as_array().unwrap() {
                let line = l["line_number"].as_u64().unwrap() as u32;
                let count = l["count"].as_u64().unwrap();
                all.push(line);
                if count > 0 {
                    cov.lines.push(line);
                    cov.counts.push(count);
                    let branches: Vec<u64> = l["branches"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|b| b["count"].as_u64().unwrap())
                        .collect();
                    if !branches.is_empty() {
                        cov.branches.push(LineBranches {
                            line,
                            counts: branches,
                        });
                    }
                }
            }
        }
        (all, cov)
    }

    /// Runs the program and derives every function's edge profile.
    pub fn profile(&self, args: &[&str]) -> Profiles<'_> {
        let (all, cov) = match self.coverage_tool {
            Coverage::Gcov => self.coverage(Some(args)),
            Coverage::Clang => self.clang_coverage(args),
        };
        let executable = match self.coverage_tool {
            Coverage::Gcov => &self.executable,
            Coverage::Clang => &all,
        };
        let profiles = edge_profiles(&self.cfgs, executable, Some(&cov));
        Profiles {
            program: self,
            profiles,
            coverage: cov,
        }
    }
}

/// The program's build directory goes with it (a test run compiles a
/// hundred of them).
impl Drop for Program {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub struct Profiles<'a> {
    program: &'a Program,
    pub profiles: Vec<EdgeProfile>,
    pub coverage: FileCoverage,
}

impl Profiles<'_> {
    fn function(&self, name: &str) -> usize {
        self.program
            .cfgs
            .iter()
            .position(|f| f.name == name)
            .unwrap_or_else(|| panic!("no function {name}"))
    }

    /// `describe_edge` text → count, for every edge of `function`.
    pub fn table(&self, function: &str) -> Vec<(String, u64)> {
        let f = self.function(function);
        let cfg = &self.program.cfgs[f];
        (0..cfg.edges.len())
            .map(|e| (cfg.describe_edge(e), self.profiles[f].counts[e]))
            .collect()
    }

    /// Asserts the full edge table of `function` (every edge, in order) and
    /// that every edge was determined by evidence.
    pub fn expect(&self, function: &str, expected: &[(&str, u64)]) {
        let table = self.table(function);
        let got: Vec<(&str, u64)> = table.iter().map(|(d, c)| (d.as_str(), *c)).collect();
        assert_eq!(
            got, expected,
            "edge table of {function}\ncoverage: {:?}",
            self.coverage
        );
        let p = &self.profiles[self.function(function)];
        assert_eq!(p.unresolved, 0, "unresolved edges in {function}");
        assert_eq!(p.inconsistent, 0, "inconsistent evidence in {function}");
    }
}

fn run(dir: &Path, program: &str, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program} could not be started: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An LLVM tool by its plain name, or by Debian's versioned one matching
/// clang's major version (`llvm-cov-14`).
pub fn llvm_tool(name: &str) -> String {
    let runs = |p: &str| Command::new(p).arg("--version").output().is_ok();
    if runs(name) {
        return name.to_string();
    }
    let out = Command::new("clang")
        .arg("--version")
        .output()
        .expect("clang runs (Debian/Ubuntu: apt-get install clang llvm)");
    let text = String::from_utf8_lossy(&out.stdout);
    let major: String = text
        .split("version ")
        .nth(1)
        .unwrap_or("")
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let versioned = format!("{name}-{major}");
    assert!(
        runs(&versioned),
        "neither {name} nor {versioned} runs (Debian/Ubuntu: apt-get install llvm)"
    );
    versioned
}
