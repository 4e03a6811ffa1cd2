//! Prints the BlockRank ranking of a project's last results:
//! `cargo run -p faultlens-blockrank --example rank_results -- fixtures/blockrank-crash [N]`
//! (a developer's tool; the CLI's `--measure blockrank` is the product).

use faultlens_core::ranking::rank_scores;
use faultlens_core::results::RunResults;
use std::path::Path;

fn main() {
    let mut args = std::env::args().skip(1);
    let root = args.next().unwrap_or_else(|| ".".into());
    let top: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(10);
    let root = Path::new(&root);
    let text = match std::fs::read_to_string(root.join(".faultlens/results.json")) {
        Ok(t) => t,
        Err(e) => {
            eprintln!(
                "{}: no results ({e}); run `faultlens localize` first",
                root.display()
            );
            std::process::exit(1);
        }
    };
    let results = RunResults::from_json(&text).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let sources: Vec<Option<String>> = results
        .files
        .iter()
        .map(|f| std::fs::read_to_string(root.join(&f.path)).ok())
        .collect();
    let scores = faultlens_blockrank::line_scores(&results, &sources).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let mut components = Vec::new();
    for (fi, f) in scores.files.iter().enumerate() {
        if results.files[fi].test_code {
            continue;
        }
        for &(line, score, _) in &f.lines {
            components.push((fi, line, score));
        }
    }
    let values: Vec<f64> = components.iter().map(|c| c.2).collect();
    println!("derivation: {:?}", scores.stats);
    for r in rank_scores(&values, None, None).iter().take(top) {
        let (fi, line, score) = components[r.component];
        let text = sources[fi]
            .as_deref()
            .and_then(|s| s.lines().nth(line as usize - 1))
            .unwrap_or("")
            .trim();
        println!(
            "{:>3}-{:<3} {}:{:<4} {:>8.3}  {}",
            r.rank.best, r.rank.worst, results.files[fi].path, line, score, text
        );
        if let Some(d) = scores.detail(fi, line) {
            println!(
                "          block {}-{} in {}: BR {:.3} I {:.3} T {:.3}",
                d.first_line, d.last_line, d.function, d.br, d.i, d.t
            );
        }
    }
}
