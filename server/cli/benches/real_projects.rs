//! Real C libraries as Debian ships them, with no configuration: is each
//! recognized, how many rows its tests make, and, on one-line faults
//! seeded in its library code (`faultlens-mutants`, kept where some test
//! kills them), how well the default ranking, Op2 and BlockRank find them.
//! Also localize's time against the project's own build and test run.
//!
//! `cargo bench -p faultlens --bench real_projects` (release). It fetches
//! each package when it runs: a `deb-src` entry is added beside apt's
//! `deb` one when missing (root or sudo), then `apt-get source
//! --download-only PKG` (an older version when the newest is not served);
//! only the upstream `.orig` tarball is unpacked, as the project ships.
//! Nothing fetched enters the repository. `REAL_DIR` (default
//! `/tmp/faultlens-real`) keeps the downloads; `REAL_ONLY=a,b` picks
//! packages; `REAL_MUTANTS` (default 8) killed mutants per package are
//! sought among at most three times as many; `REAL_SEED` (default 1).
//! Each mutant's row goes to stderr.

use faultlens_mutants::{candidates, sample, Mutant};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A package of the benchmark: its Debian source name, the directory of
/// the tarball the project's build lives in, and the library sources
/// faults are seeded in (those outside the test directories).
struct Package {
    name: &'static str,
    dir: &'static str,
}

const PACKAGES: &[Package] = &[
    Package {
        name: "json-c",
        dir: "",
    },
    Package {
        name: "jansson",
        dir: "",
    },
    Package {
        name: "libyaml",
        dir: "",
    },
    Package {
        name: "utf8proc",
        dir: "",
    },
    Package {
        name: "cmark",
        dir: "",
    },
    Package {
        name: "zlib",
        dir: "",
    },
    Package {
        name: "expat",
        dir: "expat",
    },
    // Unity with hand-written mains.
    Package {
        name: "cjson",
        dir: "",
    },
    // Check, autotools with configure shipped.
    Package {
        name: "rgxg",
        dir: "",
    },
    Package {
        name: "libpipeline",
        dir: "",
    },
    // Autotools, plain test programs and scripts.
    Package {
        name: "libtasn1-6",
        dir: "",
    },
    Package {
        name: "libidn2",
        dir: "",
    },
    // CMake with its own TAP library.
    Package {
        name: "libmaxminddb",
        dir: "",
    },
];

/// Directories whose sources are tests, benchmarks or tools, not the
/// library.
const NOT_LIBRARY: [&str; 10] = [
    "test", "tests", "t", "bench", "fuzz", "examples", "example", "tools", "doc", "contrib",
];

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn faultlens() -> Command {
    Command::new(env!("CARGO_BIN_EXE_faultlens"))
}

/// Runs `cmd`, its output and whether it succeeded.
fn run(cmd: &mut Command) -> (bool, String) {
    match cmd.output() {
        Ok(o) => (
            o.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
        ),
        Err(e) => (false, e.to_string()),
    }
}

/// apt's sources with a `deb-src` entry beside each `deb` one.
fn enable_sources() {
    let path = Path::new("/etc/apt/sources.list.d/debian.sources");
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    if text.contains("deb-src") {
        return;
    }
    let updated = text.replace("Types: deb\n", "Types: deb deb-src\n");
    if std::fs::write(path, updated).is_err() {
        eprintln!(
            "real_projects: cannot add deb-src to {} (run as root)",
            path.display()
        );
        return;
    }
    let (ok, out) = run(Command::new("apt-get").args(["update", "-qq"]));
    if !ok {
        eprintln!("real_projects: apt-get update failed: {out}");
    }
}

/// The unpacked upstream tarball of `package` under `base`, fetched when
/// missing; `None` with the reason when it cannot be.
fn fetched(package: &str, base: &Path) -> Result<PathBuf, String> {
    let dir = base.join(package);
    let pristine = dir.join("src");
    if pristine.is_dir() {
        return Ok(pristine);
    }
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let orig = |dir: &Path| {
        std::fs::read_dir(dir).ok()?.flatten().find_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let signature = name.ends_with(".asc") || name.ends_with(".sig");
            (name.contains(".orig.tar.") && !signature).then(|| e.path())
        })
    };
    if orig(&dir).is_none() {
        let (ok, _) = run(Command::new("apt-get")
            .args(["source", "--download-only", package])
            .current_dir(&dir));
        if !ok || orig(&dir).is_none() {
            // The newest revision may not be served: try the older ones.
            let (_, listing) = run(Command::new("apt-cache").args(["showsrc", package]));
            for version in listing.lines().filter_map(|l| l.strip_prefix("Version: ")) {
                let _ = run(Command::new("apt-get")
                    .args(["source", "--download-only", &format!("{package}={version}")])
                    .current_dir(&dir));
                if orig(&dir).is_some() {
                    break;
                }
            }
        }
    }
    let tarball = orig(&dir).ok_or("apt-get source fetched no .orig tarball")?;
    std::fs::create_dir_all(&pristine).map_err(|e| e.to_string())?;
    let (ok, out) = run(Command::new("tar")
        .arg("-xf")
        .arg(&tarball)
        .arg("-C")
        .arg(&pristine)
        .arg("--strip-components=1"));
    if !ok {
        let _ = std::fs::remove_dir_all(&pristine);
        return Err(format!("unpacking {}: {out}", tarball.display()));
    }
    Ok(pristine)
}

/// A fresh working copy of the pristine tree (times kept, as tar left them).
fn work_copy(pristine: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    let (ok, out) = run(Command::new("cp").arg("-a").arg(pristine).arg(to));
    assert!(ok, "copying {}: {out}", pristine.display());
}

/// The project's own build and test run, in a copy: CMake and CTest,
/// autotools' configure and make check, or make check.
fn own_run(pristine: &Path, dir: &str, scratch: &Path) -> Option<Duration> {
    work_copy(pristine, scratch);
    let root = scratch.join(dir);
    let started = Instant::now();
    let sh = |script: &str| run(Command::new("sh").arg("-c").arg(script).current_dir(&root)).0;
    let ok = if root.join("CMakeLists.txt").is_file()
        && sh("cmake -S . -B _own -DBUILD_TESTING=ON >/dev/null 2>&1 && cmake --build _own -j2 >/dev/null 2>&1")
    {
        sh("ctest --test-dir _own -j2 >/dev/null 2>&1; true")
    } else if root.join("configure").is_file() || root.join("configure.ac").is_file() {
        sh("{ [ -x configure ] || autoreconf -fi; } >/dev/null 2>&1 && ./configure >/dev/null 2>&1 && make -j2 >/dev/null 2>&1 && { make -j2 check >/dev/null 2>&1; true; }")
    } else {
        sh("make -j2 >/dev/null 2>&1 && { make check >/dev/null 2>&1; true; }")
    };
    ok.then(|| started.elapsed())
}

/// `faultlens localize` of `root` as JSON, and how long it took.
fn localize(root: &Path) -> (Option<Value>, Duration, String) {
    let started = Instant::now();
    let out = faultlens()
        .args([
            "localize",
            root.to_str().unwrap(),
            "--format",
            "json",
            "--top",
            "0",
        ])
        .output()
        .unwrap();
    let took = started.elapsed();
    let doc: Option<Value> = serde_json::from_slice(&out.stdout).ok();
    let doc = doc.filter(|d| d.get("error").is_none());
    (doc, took, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The ranking of the last results of `root` under `measure`.
fn ranking(root: &Path, measure: &str) -> Option<Value> {
    let out = faultlens()
        .args([
            "rank",
            root.to_str().unwrap(),
            "--measure",
            measure,
            "--format",
            "json",
            "--top",
            "0",
        ])
        .output()
        .ok()?;
    serde_json::from_slice(&out.stdout).ok()
}

/// The fault's average rank and EXAM in `doc`'s ranking, if ranked.
fn position(doc: &Value, file: &str, line: usize) -> Option<(f64, f64)> {
    let ranking = doc["ranking"].as_array()?;
    let total = ranking.len() as f64;
    ranking
        .iter()
        .find(|e| e["file"] == file && e["line"] == line as u64)
        .and_then(|e| e["rank"]["average"].as_f64())
        .map(|average| (average, average / total))
}

/// The library sources of a run (not test code, not under a test or tool
/// directory), with the lines some test ran.
fn library_lines(doc: &Value) -> BTreeMap<String, Vec<u64>> {
    let mut lines: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for e in doc["ranking"].as_array().into_iter().flatten() {
        let file = e["file"].as_str().unwrap_or("");
        let first = file.split('/').next().unwrap_or("");
        let base = file.rsplit('/').next().unwrap_or(file);
        // cJSON's test.c, check_*.c, *_test.c: tests beside the library.
        let a_test =
            base.starts_with("test") || base.starts_with("check_") || base.ends_with("_test.c");
        let covered = e["ef"].as_u64().unwrap_or(0) + e["ep"].as_u64().unwrap_or(0) > 0;
        if covered && file.ends_with(".c") && !NOT_LIBRARY.contains(&first) && !a_test {
            lines
                .entry(file.to_string())
                .or_default()
                .push(e["line"].as_u64().unwrap_or(0));
        }
    }
    lines
}

/// Mutants on covered library lines, spread over the files in turn.
fn chosen_mutants(
    root: &Path,
    lines: &BTreeMap<String, Vec<u64>>,
    seed: u64,
) -> Vec<(String, Mutant)> {
    let mut per_file: Vec<std::collections::VecDeque<(String, Mutant)>> = Vec::new();
    for (i, (file, covered)) in lines.iter().enumerate() {
        let Ok(source) = std::fs::read_to_string(root.join(file)) else {
            continue;
        };
        let all: Vec<Mutant> = candidates(&source)
            .into_iter()
            .filter(|m| covered.contains(&(m.line as u64)))
            .collect();
        let n = all.len();
        per_file.push(
            sample(all, n, seed.wrapping_add(i as u64))
                .into_iter()
                .map(|m| (file.clone(), m))
                .collect(),
        );
        // `sample` deals the operators in turn: taken from the front, each
        // file's first mutants are of different operators.
    }
    // A seeded order of the files, then one mutant of each in turn.
    let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
    for i in (1..per_file.len()).rev() {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        per_file.swap(i, (state >> 33) as usize % (i + 1));
    }
    let mut out = Vec::new();
    while per_file.iter().any(|l| !l.is_empty()) {
        for list in per_file.iter_mut() {
            if let Some(m) = list.pop_front() {
                out.push(m);
            }
        }
    }
    out
}

#[derive(Default)]
struct Scores {
    found: Vec<Option<(f64, f64)>>,
}

impl Scores {
    fn cell(&self) -> String {
        let n = self.found.len();
        if n == 0 {
            return "-".into();
        }
        let top = |k: f64| {
            self.found
                .iter()
                .filter(|p| p.is_some_and(|(r, _)| r <= k))
                .count()
        };
        let exam: f64 = self
            .found
            .iter()
            .map(|p| p.map_or(1.0, |(_, e)| e))
            .sum::<f64>()
            / n as f64;
        format!(
            "{}/{}/{} · {:.1}%",
            top(1.0),
            top(5.0),
            top(10.0),
            exam * 100.0
        )
    }
}

fn main() {
    let base =
        PathBuf::from(std::env::var("REAL_DIR").unwrap_or_else(|_| "/tmp/faultlens-real".into()));
    let only = std::env::var("REAL_ONLY").ok();
    let wanted = env_number("REAL_MUTANTS", 8) as usize;
    let seed = env_number("REAL_SEED", 1);
    enable_sources();
    println!(
        "| package | recognized as | rows | killed / tried | default (Ochiai) top-1/5/10 · EXAM | Op2 | BlockRank | localize | own build and tests |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut all_default = Scores::default();
    for package in PACKAGES {
        if only
            .as_ref()
            .is_some_and(|o| !o.split(',').any(|x| x == package.name))
        {
            continue;
        }
        let pristine = match fetched(package.name, &base) {
            Ok(p) => p,
            Err(why) => {
                println!("| {} | not fetched: {why} | | | | | | | |", package.name);
                continue;
            }
        };
        let copy = base.join(package.name).join("work");
        work_copy(&pristine, &copy);
        let root = copy.join(package.dir);
        let (doc, took, said) = localize(&root);
        let own = own_run(&pristine, package.dir, &base.join(package.name).join("own"));
        let own_text = own.map_or("failed".into(), |d| format!("{:.1} s", d.as_secs_f64()));
        let Some(doc) = doc else {
            let why = said.lines().last().unwrap_or("").to_string();
            println!(
                "| {} | no: {why} | | | | | | {:.1} s | {own_text} |",
                package.name,
                took.as_secs_f64()
            );
            continue;
        };
        let suite = faultlens()
            .args(["tests", root.to_str().unwrap(), "--json"])
            .output()
            .ok()
            .and_then(|o| serde_json::from_slice::<Value>(&o.stdout).ok());
        let kind = suite
            .as_ref()
            .and_then(|s| s["kind"].as_str().map(String::from))
            .unwrap_or_else(|| "?".into());
        let rows = doc["tests"]["total"].as_u64().unwrap_or(0);
        let lines = library_lines(&doc);
        let mutants = chosen_mutants(&root, &lines, seed);
        let (mut default, mut op2, mut blockrank) =
            (Scores::default(), Scores::default(), Scores::default());
        let mut tried = 0;
        for (file, mutant) in mutants.iter().take(wanted * 3) {
            if default.found.len() >= wanted {
                break;
            }
            tried += 1;
            let path = root.join(file);
            let source = std::fs::read_to_string(&path).unwrap();
            std::fs::write(&path, mutant.apply(&source)).unwrap();
            let (version, _, _) = localize(&root);
            let killed = version
                .as_ref()
                .is_some_and(|d| d["tests"]["failed"].as_u64().unwrap_or(0) > 0);
            if killed {
                let version = version.unwrap();
                let line = mutant.line;
                let d = position(&version, file, line);
                let o = ranking(&root, "op2").and_then(|r| position(&r, file, line));
                let b = ranking(&root, "blockrank").and_then(|r| position(&r, file, line));
                eprintln!(
                    "real_projects: {} {} · default {} · op2 {} · blockrank {}",
                    package.name,
                    mutant.describe(file, &source),
                    d.map_or("unranked".into(), |(r, _)| format!("#{r}")),
                    o.map_or("unranked".into(), |(r, _)| format!("#{r}")),
                    b.map_or("unranked".into(), |(r, _)| format!("#{r}")),
                );
                default.found.push(d);
                all_default.found.push(d);
                op2.found.push(o);
                blockrank.found.push(b);
            }
            // The original back, newer than the mutant's objects.
            std::fs::write(&path, &source).unwrap();
        }
        println!(
            "| {} | {kind} | {rows} | {}/{tried} | {} | {} | {} | {:.1} s | {own_text} |",
            package.name,
            default.found.len(),
            default.cell(),
            op2.cell(),
            blockrank.cell(),
            took.as_secs_f64(),
        );
    }
    let n = all_default.found.len();
    let top5 = all_default
        .found
        .iter()
        .filter(|p| p.is_some_and(|(r, _)| r <= 5.0))
        .count();
    println!(
        "\nall packages: the fault in the default ranking's top 5 for {top5} of {n} killed mutants ({:.0}%); {}",
        if n == 0 { 0.0 } else { 100.0 * top5 as f64 / n as f64 },
        all_default.cell()
    );
}
