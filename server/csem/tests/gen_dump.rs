//! `CSEM_DUMP_SEED=N CSEM_DUMP_OUT=file.c cargo test --test gen_dump` writes generated program N.
mod gen;

#[test]
fn dump_generated_program() {
    if let (Some(seed), Ok(out)) = (
        std::env::var("CSEM_DUMP_SEED")
            .ok()
            .and_then(|s| s.parse().ok()),
        std::env::var("CSEM_DUMP_OUT"),
    ) {
        std::fs::write(out, gen::Gen::new(seed).program()).expect("write the program");
    }
}
