//! Writes generated program N (the generator of the differential tests)
//! to a file, to look at or compile by hand:
//! `cargo run -p faultlens-csem --example gen_dump -- N out.c`.

#[path = "../tests/gen/mod.rs"]
mod gen;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(seed), Some(out)) = (args.first().and_then(|s| s.parse().ok()), args.get(1)) else {
        eprintln!("usage: gen_dump SEED OUT.c");
        std::process::exit(2);
    };
    if let Err(e) = std::fs::write(out, gen::Gen::new(seed).program()) {
        eprintln!("gen_dump: writing {out}: {e}");
        std::process::exit(1);
    }
}
