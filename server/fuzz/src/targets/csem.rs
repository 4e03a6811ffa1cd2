//! The C model: lowering of already-preprocessed text to the IR
//! (`faultlens_csem::load_preprocessed`: line markers, tree-sitter-c, name
//! resolution, types) and, when that succeeds and there is a `main`, a run
//! in the interpreter with a step limit. The preprocessor itself (`gcc -E`,
//! a process per input) is left out.
//!
//! Generated inputs: small programs of random statements over a few
//! variables, arrays and pointers (to reach the interpreter's checks),
//! nesting (blocks, `if`/`else if` chains, parentheses, unary operators,
//! casts, calls, loops, initializer braces, declarators), long expressions
//! and lists, and token soup. How deep the nesting goes is set by
//! [`set_max_depth`]: CI keeps it to programs people write, a campaign goes
//! deep (see the README).

use crate::{shape, Rng, Target};
use faultlens_csem::{load_preprocessed, run as interpret, Outcome, RunOptions, TestInput};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

pub fn target() -> Target {
    Target {
        name: "csem",
        about: "C front end (lowering of preprocessed text) and interpreter with a step limit",
        run,
        generate,
        dictionary: DICTIONARY,
        max_len: 256 * 1024,
        hang_limit: Duration::from_secs(2),
        ci_inputs: 3000,
    }
}

/// Deepest nesting the generator writes, and the length of long expressions.
static MAX_DEPTH: AtomicUsize = AtomicUsize::new(48);

/// Sets how deep generated nesting (and how long generated chains) may go.
pub fn set_max_depth(depth: usize) {
    MAX_DEPTH.store(depth.max(1), Ordering::SeqCst);
}

/// The interpreter's step limit for a fuzz run.
pub const MAX_STEPS: u64 = 20_000;

const DICTIONARY: &[&[u8]] = &[
    b"int ",
    b"unsigned ",
    b"long ",
    b"char ",
    b"short ",
    b"_Bool ",
    b"void ",
    b"struct s ",
    b"union u ",
    b"enum e ",
    b"typedef ",
    b"static ",
    b"const ",
    b"sizeof",
    b"return ",
    b"if (",
    b"else ",
    b"while (",
    b"for (;;) ",
    b"do ",
    b"switch (",
    b"case 1: ",
    b"default: ",
    b"break;",
    b"continue;",
    b"goto l;",
    b"l: ",
    b"{",
    b"}",
    b"(",
    b")",
    b"[",
    b"]",
    b";",
    b",",
    b"*",
    b"&",
    b"->",
    b".",
    b"++",
    b"--",
    b"<<",
    b">>",
    b"?",
    b":",
    b"=",
    b"+=",
    b"/",
    b"%",
    b"!",
    b"~",
    b"0x7fffffff",
    b"2147483648",
    b"-2147483648",
    b"9223372036854775807",
    b"18446744073709551615u",
    b"'\\0'",
    b"'\\x'",
    b"\"%d\\n\"",
    b"\"%s\"",
    b"\"%*.*ld\"",
    b"printf(",
    b"scanf(\"%d\", &",
    b"malloc(",
    b"free(",
    b"strlen(",
    b"atoi(argv[1])",
    b"argc",
    b"argv[",
    b"main",
    b"__VERIFIER_nondet_int()",
    b"__assert_fail(\"x\", \"f.c\", 1, __func__)",
    b"({ 1; })",
    b"\n# 1 \"/usr/include/x.h\" 1 3 4\n",
    b"\n# 4294967295 \"f.c\"\n",
    b"\n# 7 \"g.c\" 2\n",
    b"#pragma once\n",
    b"\n",
];

pub fn run(data: &[u8]) -> String {
    let text = String::from_utf8_lossy(data);
    let program = match load_preprocessed(Path::new("fuzz.c"), &text) {
        Ok(p) => p,
        Err(e) => return format!("load: {}", shape(&e.to_string())),
    };
    if program.main.is_none() {
        return "loaded, no main".into();
    }
    let test = TestInput {
        args: vec!["3".into(), "-1".into(), "2147483647".into()],
        stdin: b"12 -7 abc\n2147483648 x\n".to_vec(),
        nondet: vec![0, 1, -1, i64::from(i32::MAX), i64::from(i32::MIN), 7],
        files: [
            ("data.txt".to_string(), Some(b"3 4\nfive\n".to_vec())),
            ("missing.txt".to_string(), None),
        ]
        .into(),
        env: vec![("HOME".into(), "/home/fuzz".into())],
        free_reads: None,
    };
    let options = RunOptions {
        max_steps: MAX_STEPS,
        max_call_depth: 2_000,
        trace: true,
        max_trace: 5_000,
        nondet_fill: Some(3),
        ..RunOptions::default()
    };
    let result = interpret(&program, &test, &options);
    match &result.outcome {
        Outcome::RuntimeError { message, .. } => {
            assert!(
                !message.contains("internal error"),
                "the interpreter failed: {message}"
            );
            format!("run: error {}", shape(message))
        }
        Outcome::Exited(c) => {
            assert!((0..=255).contains(c), "exit status {c}");
            "run: exited".into()
        }
        Outcome::Signaled(s) => format!("run: signal {s}"),
        Outcome::StepLimit => {
            assert!(
                result.steps >= MAX_STEPS,
                "stopped at {} steps",
                result.steps
            );
            "run: step limit".into()
        }
    }
}

// ---------- generation ----------

const VARS: &[&str] = &[
    "a",
    "b",
    "c",
    "i",
    "n",
    "*p",
    "arr[i % 4]",
    "s.x",
    "q->y",
    "u",
    "ch",
];
const LVARS: &[&str] = &["a", "b", "c", "i", "n", "arr[b & 3]", "s.x", "u", "ch"];
const CONSTS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "7",
    "255",
    "0x7fffffff",
    "2147483647",
    "-2147483647 - 1",
    "4294967295u",
    "65536",
    "31",
    "32",
    "'a'",
    "sizeof(int)",
    "sizeof s",
    "10L",
    "-9223372036854775807L - 1",
];
const BINOPS: &[&str] = &[
    "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=", "==", "!=", "&&",
    "||", ",",
];
const ASSIGN: &[&str] = &[
    "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=",
];
const UNARY: &[&str] = &[
    "-",
    "!",
    "~",
    "+",
    "(long)",
    "(unsigned char)",
    "(short)",
    "(unsigned)",
    "(_Bool)",
    "(char)",
];

fn expr(rng: &mut Rng, depth: usize) -> String {
    if depth == 0 || rng.one_in(3) {
        return if rng.one_in(2) {
            rng.pick(VARS).to_string()
        } else {
            rng.pick(CONSTS).to_string()
        };
    }
    match rng.below(9) {
        0..=3 => format!(
            "({} {} {})",
            expr(rng, depth - 1),
            rng.pick(BINOPS),
            expr(rng, depth - 1)
        ),
        4 => format!("{}{}", rng.pick(UNARY), expr(rng, depth - 1)),
        5 => format!(
            "({} ? {} : {})",
            expr(rng, depth - 1),
            expr(rng, depth - 1),
            expr(rng, depth - 1)
        ),
        6 => format!("f({}, {})", expr(rng, depth - 1), expr(rng, depth - 1)),
        7 => format!(
            "({} {} {})",
            rng.pick(LVARS),
            rng.pick(ASSIGN),
            expr(rng, depth - 1)
        ),
        _ => format!("{}{}", rng.pick(LVARS), rng.pick(&["++", "--"])),
    }
}

fn statement(rng: &mut Rng, depth: usize) -> String {
    if depth == 0 {
        return format!("{} = {};", rng.pick(LVARS), expr(rng, 2));
    }
    match rng.below(14) {
        0..=3 => format!("{} {} {};", rng.pick(LVARS), rng.pick(ASSIGN), expr(rng, 3)),
        4 => format!(
            "if ({}) {} else {}",
            expr(rng, 2),
            statement(rng, depth - 1),
            statement(rng, depth - 1)
        ),
        5 => format!(
            "while ({}) {{ {} if (++guard > 50) break; }}",
            expr(rng, 2),
            statement(rng, depth - 1)
        ),
        6 => format!(
            "for (i = 0; i < {}; i++) {}",
            rng.range(0, 9),
            statement(rng, depth - 1)
        ),
        7 => format!(
            "printf(\"%d %u %ld %x %c|\\n\", {}, {}, (long){}, {}, {});",
            expr(rng, 2),
            expr(rng, 1),
            expr(rng, 1),
            expr(rng, 1),
            expr(rng, 1)
        ),
        8 => format!(
            "switch ({}) {{ case 0: {} case 1: {} break; default: {} }}",
            expr(rng, 1),
            statement(rng, depth - 1),
            statement(rng, depth - 1),
            statement(rng, depth - 1)
        ),
        9 => format!(
            "{{ int t = {}; {} }}",
            expr(rng, 2),
            statement(rng, depth - 1)
        ),
        10 => format!(
            "p = {};",
            rng.pick(&[
                "&a",
                "&arr[3]",
                "arr + 4",
                "&s.x",
                "0",
                "(int *)malloc(8)",
                "p + 1",
                "&arr[-1]"
            ])
        ),
        11 => format!("if ({}) return {};", expr(rng, 1), expr(rng, 1)),
        12 => rng
            .pick(&[
                "free(p);",
                "n = scanf(\"%d\", &a);",
                "ch = getchar();",
                "a = atoi(argv[1]);",
                "u = strlen(\"abc\");",
                "__assert_fail(\"a\", \"fuzz.c\", 1, __func__);",
                "exit(a & 7);",
                "puts(\"x\");",
                "a = __VERIFIER_nondet_int();",
                "q = &s;",
            ])
            .to_string(),
        _ => format!(
            "do {{ {} }} while (++guard < {});",
            statement(rng, depth - 1),
            rng.range(0, 5)
        ),
    }
}

fn program(rng: &mut Rng) -> String {
    let mut body = String::new();
    for _ in 0..rng.range(1, 12) {
        let depth = rng.range(0, 4);
        body.push_str(&statement(rng, depth));
        body.push('\n');
    }
    format!(
        "extern int __VERIFIER_nondet_int(void);\nstruct S {{ int x; long y; }};\nint g[3] = {{1, 2, 3}};\n\
         static int f(int x, int y) {{ return x > 1000 || x < -1000 ? y : x + y; }}\n\
         int main(int argc, char **argv) {{\n  int a = {}, b = argc, c = 3, i = 0, n = 0, guard = 0;\n  \
         unsigned u = 5; char ch = 'x'; int arr[4] = {{0}}; int *p = &a; struct S s = {{1, 2}}; struct S *q = &s;\n  \
         (void)g; (void)q; (void)p;\n{body}  return a & 255;\n}}\n",
        expr(rng, 2)
    )
}

/// Text nested `depth` times: one of the shapes deep programs take.
fn nested(rng: &mut Rng, depth: usize) -> String {
    let wrap = |open: &str, core: &str, close: &str| {
        let mut s = String::with_capacity((open.len() + close.len()) * depth + core.len());
        for _ in 0..depth {
            s.push_str(open);
        }
        s.push_str(core);
        for _ in 0..depth {
            s.push_str(close);
        }
        s
    };
    let in_main = |body: String| {
        format!("int f(int x) {{ return x; }}\nint main(void) {{\n int x = 1, y = 2;\n{body}\n return 0;\n}}\n")
    };
    match rng.below(16) {
        0 => in_main(wrap("{ ", "x++;", " }")),
        1 => in_main(wrap("if (x) ", "x++;", "")),
        2 => in_main(format!("x = {};", wrap("(", "x", ")"))),
        3 => in_main(format!(
            "x = {}x;",
            "-".repeat(depth)
                .chars()
                .flat_map(|c| [c, ' '])
                .collect::<String>()
        )),
        4 => in_main(format!("x = {}x;", "!".repeat(depth))),
        5 => in_main(format!("x = {};", wrap("(int)", "x", ""))),
        6 => in_main(format!("x = {};", wrap("f(", "x", ")"))),
        7 => in_main(format!("x = {};", wrap("x ? ", "y", " : y"))),
        8 => in_main(wrap("while (x--) ", "y++;", "")),
        9 => in_main(format!(
            "int a{} = {};",
            "[1]".repeat(depth.min(64)),
            wrap("{", "0", "}")
        )),
        10 => in_main(format!("int {}q = 0; (void)q;", "*".repeat(depth))),
        // else-if chains nest in the syntax tree.
        11 => in_main(format!(
            "if (x == 0) y = 0;{} else y = 1;",
            (1..depth)
                .map(|i| format!(" else if (x == {i}) y = {i};"))
                .collect::<String>()
        )),
        // Long expressions: left-nested binary trees, assignment chains.
        12 => in_main(format!("x = x{};", " + 1".repeat(depth))),
        13 => in_main(format!("x = {}y;", "x = ".repeat(depth))),
        14 => format!(
            "{}int z;{}\nint main(void) {{ return 0; }}\n",
            wrap("struct s { ", "", ""),
            " } t;".repeat(depth)
        ),
        _ => in_main(format!("x = {};", wrap("(x, ", "y", ")"))),
    }
}

/// Long but flat: lists the front end walks in a loop.
fn long_flat(rng: &mut Rng, length: usize) -> String {
    match rng.below(5) {
        0 => format!(
            "int main(void) {{ int x = 0;\n{} return x & 1; }}\n",
            "x++;\n".repeat(length)
        ),
        1 => format!(
            "int a[] = {{{}}};\nint main(void) {{ return a[0]; }}\n",
            "1, ".repeat(length)
        ),
        2 => format!(
            "int main(void) {{ printf(\"%d\"{}); return 0; }}\n",
            ", 1".repeat(length.min(5000))
        ),
        3 => format!(
            "char *s = {};\nint main(void) {{ return s[0]; }}\n",
            "\"ab\" ".repeat(length)
        ),
        _ => format!(
            "{}int main(void) {{ return f0(); }}\n",
            (0..length.min(5000))
                .map(|i| format!("int f{i}(void) {{ return {i}; }}\n"))
                .collect::<String>()
        ),
    }
}

const TOKENS: &[&str] = &[
    "int",
    "char",
    "long",
    "unsigned",
    "struct",
    "union",
    "enum",
    "typedef",
    "static",
    "extern",
    "const",
    "void",
    "if",
    "else",
    "while",
    "for",
    "do",
    "switch",
    "case",
    "default",
    "return",
    "break",
    "continue",
    "goto",
    "sizeof",
    "main",
    "x",
    "y",
    "s",
    "f",
    "p",
    "0",
    "1",
    "-1",
    "0x10",
    "'c'",
    "\"s\"",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    "*",
    "&",
    "->",
    ".",
    "=",
    "==",
    "+",
    "-",
    "++",
    "--",
    "?",
    ":",
    "<<",
    "!",
    "~",
    "/",
    "%",
    "...",
    "#",
    "\\",
    "\n",
    "__attribute__((unused))",
    "_Static_assert",
    "__extension__",
    "({",
    "})",
    "float",
    "double",
];

fn soup(rng: &mut Rng) -> String {
    let mut s = String::new();
    if rng.one_in(2) {
        s.push_str("int main(void) {\n");
    }
    for _ in 0..rng.size(400) {
        s.push_str(rng.pick(TOKENS));
        s.push(' ');
    }
    if rng.one_in(2) {
        s.push_str("\n}\n");
    }
    s
}

fn generate(rng: &mut Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    let max = MAX_DEPTH.load(Ordering::SeqCst);
    let text = match rng.below(10) {
        0..=3 => program(rng),
        4 | 5 => {
            let depth = rng.range(1, max);
            nested(rng, depth)
        }
        6 => {
            let length = rng.range(1, 20_000);
            long_flat(rng, length)
        }
        7 => soup(rng),
        // A corpus entry with a generated program's statements inside its last function.
        _ if !corpus.is_empty() => {
            let base = String::from_utf8_lossy(&rng.pick(corpus)).into_owned();
            match base.rfind('}') {
                Some(at) => format!("{}\n{}\n{}", &base[..at], statement(rng, 3), &base[at..]),
                None => base,
            }
        }
        _ => program(rng),
    };
    text.into_bytes()
}
