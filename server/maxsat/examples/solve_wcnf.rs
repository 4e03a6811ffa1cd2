//! Solves a WCNF file with faultlens's OLL and prints the time, the optimum
//! and the solver's statistics: the other half of the diagnosis bench's
//! comparison with RC2 (`server/diagnose/benches/rc2_compare.py`), to
//! profile on one file.   cargo run --release -p faultlens-maxsat --example solve_wcnf -- FILE.wcnf

use faultlens_maxsat::{read_wcnf, solve, Algorithm, Budget, Status};
use std::time::Instant;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: solve_wcnf FILE.wcnf");
        std::process::exit(2);
    };
    let file = std::fs::File::open(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let instance = read_wcnf(std::io::BufReader::new(file)).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let start = Instant::now();
    let outcome = solve(&instance, Algorithm::Oll, &Budget::unlimited()).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    let cost = match outcome.status {
        Status::Optimal => outcome.best.map(|b| b.cost.to_string()),
        _ => None,
    };
    println!(
        "{:.1} ms, cost {}, {:?}",
        start.elapsed().as_secs_f64() * 1000.0,
        cost.as_deref().unwrap_or("none"),
        outcome.stats
    );
}
