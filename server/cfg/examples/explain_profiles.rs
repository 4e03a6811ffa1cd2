//! Lists, per test and function, the coverage evidence the derived edge
//! profile does not fit: `cargo run -p faultlens-cfg --example
//! explain_profiles -- <project> [test]` after `faultlens localize <project>`.

use faultlens_cfg::{build_cfgs, evidence_lines, plan, CoverageView};
use faultlens_core::results::RunResults;
use std::path::Path;

fn main() {
    let mut args = std::env::args().skip(1);
    let root = args.next().unwrap_or_else(|| ".".into());
    let only = args.next();
    let root = Path::new(&root);
    let text = std::fs::read_to_string(root.join(".faultlens/results.json")).unwrap_or_else(|e| {
        eprintln!("{}: no results ({e})", root.display());
        std::process::exit(1)
    });
    let results = RunResults::from_json(&text).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    for (fi, file) in results.files.iter().enumerate() {
        let Ok(source) = std::fs::read_to_string(root.join(&file.path)) else {
            continue;
        };
        let cfgs = build_cfgs(&source).expect("parses");
        let coverage = results
            .tests
            .iter()
            .flat_map(|t| t.coverage.iter())
            .filter(|c| c.file as usize == fi);
        let plans = plan(&cfgs, &evidence_lines(&file.lines, coverage));
        for test in &results.tests {
            if only.as_ref().is_some_and(|o| *o != test.name) {
                continue;
            }
            let view = CoverageView::new(test.coverage.iter().find(|c| c.file as usize == fi));
            for (cfg, p) in cfgs.iter().zip(&plans) {
                for c in p.conflicts(&view, cfg) {
                    println!("{} {} {}(): {c}", test.name, file.path, cfg.name);
                }
            }
        }
    }
}
