//! Free inputs for harnesses: the `__VERIFIER_nondet_*()` functions.
//!
//! A harness declares `extern int __VERIFIER_nondet_int(void);` (and the
//! other types) and states its specification with `assert`. Natively these
//! functions read successive whitespace-separated integers from stdin, so a
//! generated test is an ordinary input/output test (`stdin = "3 -1 7"`). They
//! are weak symbols in the runtime linked into every coverage build: a
//! program's own definition wins. When the input runs out the program says so
//! on stderr and exits with status 2, which no assertion produces.
//!
//! The C model runs the very same code (without the `weak` attribute, which
//! it does not need): [`model_source`] is loaded as one more source file, so
//! the interpreter and the binary read the input the same way.

/// Exit status of a run whose stdin holds fewer integers than it draws.
pub const OUT_OF_INPUT_EXIT: i32 = 2;

/// Marker at the start of the message printed when the input runs out.
pub const OUT_OF_INPUT_MESSAGE: &str = "faultlens: no more input for";

/// File name under which the model's copy is written (`.faultlens/nondet/`).
pub const MODEL_FILE: &str = "faultlens_nondet.c";

/// Writes the model's copy of the free-input functions to
/// `.faultlens/nondet/` and returns its path: one file shared by the
/// diagnosis and test generation.
pub fn write_model_file(project: &crate::Project) -> crate::error::Result<std::path::PathBuf> {
    let work = project.work()?;
    work.dir("nondet")?;
    Ok(work.write_atomic(&format!("nondet/{MODEL_FILE}"), model_source().as_bytes())?)
}

/// `(function, C type)` of every free-input function.
pub const FUNCTIONS: &[(&str, &str)] = &[
    ("__VERIFIER_nondet_int", "int"),
    ("__VERIFIER_nondet_uint", "unsigned int"),
    ("__VERIFIER_nondet_char", "char"),
    ("__VERIFIER_nondet_uchar", "unsigned char"),
    ("__VERIFIER_nondet_short", "short"),
    ("__VERIFIER_nondet_ushort", "unsigned short"),
    ("__VERIFIER_nondet_long", "long"),
    ("__VERIFIER_nondet_ulong", "unsigned long"),
    ("__VERIFIER_nondet_bool", "_Bool"),
];

/// The functions as C, each definition prefixed by `attr`.
fn source(attr: &str) -> String {
    let mut s = String::from(
        "/* Written by faultlens: free inputs read from stdin, one integer per call. */\n\
         #include <stdio.h>\n\
         #include <stdlib.h>\n\
         static long long faultlens_nondet_next(const char *name) {\n\
         \x20 long long v;\n\
         \x20 if (scanf(\"%lld\", &v) != 1) {\n\
         \x20   fprintf(stderr, \"faultlens: no more input for %s(): give one integer per call on stdin\\n\", name);\n\
         \x20   exit(2);\n\
         \x20 }\n\
         \x20 return v;\n\
         }\n",
    );
    for (name, ty) in FUNCTIONS {
        let value = if *ty == "_Bool" {
            format!("faultlens_nondet_next(\"{name}\") != 0")
        } else {
            format!("({ty})faultlens_nondet_next(\"{name}\")")
        };
        s.push_str(&format!(
            "{attr}{ty} {name}(void) {{\n  return {value};\n}}\n"
        ));
    }
    s
}

/// Linked into every coverage build (weak: a program's own definitions win).
pub fn native_source() -> String {
    source("__attribute__((weak)) ")
}

/// The same functions for the C model, loaded beside the program's sources.
pub fn model_source() -> String {
    source("")
}

/// Whether a C source text uses the free-input functions.
pub fn uses_nondet(text: &str) -> bool {
    text.contains("__VERIFIER_nondet_")
}
