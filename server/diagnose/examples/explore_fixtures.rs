//! Prints every io fixture's diagnosis in detail (statements, angelic
//! values, cores, groups), for exploring the engine by hand:
//! `cargo run --release -p faultlens-diagnose --example explore_fixtures`
//! (`ONLY=mid-args,leap-year` to pick fixtures).

#[path = "../tests/common/mod.rs"]
mod common;
use faultlens_diagnose::*;

fn main() {
    for dir in common::io_fixtures() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        if std::env::var("ONLY").is_ok_and(|o| !o.split(',').any(|x| x == name)) {
            continue;
        }
        let loaded = match common::load(&dir) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("== {name}: load error {e}");
                continue;
            }
        };
        let t0 = std::time::Instant::now();
        let r = diagnose_program(
            &loaded.prog,
            &loaded.project.root,
            loaded.failing.clone(),
            vec![],
            &DiagnoseOptions::default(),
            &|_| {},
            &CancelToken::new(),
        );
        eprintln!(
            "== {name} ({} failing) truth {:?} in {:?}",
            loaded.failing.len(),
            common::ground_truth(&dir),
            t0.elapsed()
        );
        match r {
            Err(e) => eprintln!("   error: {e}"),
            Ok(r) => {
                eprintln!(
                    "   complete {} stopped {:?} stats {:?}",
                    r.complete, r.stopped, r.stats
                );
                for s in &r.skipped_tests {
                    eprintln!("   skipped {}: {}", s.name, s.reason);
                }
                for d in &r.diagnoses {
                    let l: Vec<String> = d
                        .statements
                        .iter()
                        .map(|s| format!("{}:{} `{}`", s.file, s.line, s.text))
                        .collect();
                    eprintln!("   {:?} {} {}", d.kind, d.cost, l.join(" | "));
                    for a in &d.angelic {
                        eprintln!(
                            "      {} {}:{} #{} {} = {}",
                            a.test, a.file, a.line, a.instance, a.role, a.text
                        );
                    }
                }
                for c in &r.cores {
                    let l: Vec<String> =
                        c.statements.iter().map(|s| format!("{}", s.line)).collect();
                    eprintln!("   core {}: {}", c.test, l.join(","));
                }
                for g in &r.groups {
                    eprintln!("   group {}: {:?}", g.violation, g.tests);
                }
            }
        }
    }
}
