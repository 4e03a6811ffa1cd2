//! The compact test forms: a `[tests] table` file's text (`parse_table`),
//! an `X.args` file (`parse_args`, shell words) and an `X.exit` file
//! (`parse_exit`). Each input goes to all three.

use crate::{shape, Rng, Target};
use faultlens_workspace::declared::{parse_args, parse_exit, parse_table};
use std::path::Path;
use std::time::Duration;

pub fn target() -> Target {
    Target {
        name: "table",
        about: "[tests] table files, .args shell words and .exit statuses",
        run,
        generate,
        dictionary: DICTIONARY,
        max_len: 64 * 1024,
        hang_limit: Duration::from_secs(2),
        ci_inputs: 20000,
    }
}

const DICTIONARY: &[&[u8]] = &[
    b" => ", b"=>", b" =>", b"=> ", b"==>", b"=>=>", b"\\n", b"\\t", b"\\\\", b"\\", b"'", b"\"",
    b"#", b" ", b"\t", b"$", b"`", b"\\'", b"'\\''",
];

const WORDS: &[&str] = &[
    "1",
    "-g",
    "'a b'",
    "\"c d\"",
    "x\\ y",
    "''",
    "\"\"",
    "'",
    "\"",
    "\\",
    "-s '\\'",
    "é",
    "$HOME",
    "`ls`",
    "a'b'c",
    "\"a\\\"b\"",
    "#x",
];

const OUTPUTS: &[&str] = &[
    "", "2", "1,234", "x\\ty\\n", "\\\\", "\\", "\\q", "a => b", "=>", " ", "é\\n",
];

const EXITS: &[&str] = &[
    "0",
    "1",
    "-1",
    "255",
    "2147483648",
    "-2147483649",
    "x",
    "",
    " 3 ",
    "+4",
    "0x10",
];

fn line(rng: &mut Rng) -> String {
    let mut l = String::new();
    match rng.below(8) {
        0 => l.push_str("# comment"),
        1 => {}
        _ => {
            for _ in 0..rng.size(12) {
                l.push_str(rng.pick(WORDS));
                l.push(' ');
            }
            l.push_str(rng.pick(&["=> ", "=>", " =>", "=> "]));
            l.push_str(rng.pick(OUTPUTS));
            if rng.one_in(2) {
                l.push_str(" => ");
                l.push_str(rng.pick(EXITS));
            }
            if rng.one_in(10) {
                l.push_str(" => x");
            }
        }
    }
    l
}

fn generate(rng: &mut Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    match rng.below(4) {
        0 if !corpus.is_empty() => {
            let base = String::from_utf8_lossy(&rng.pick(corpus)).into_owned();
            super::mutate_lines(rng, &base, &mut line, EXITS).into_bytes()
        }
        1 => {
            // One long line: many words, or a long expectation.
            let unit = rng.pick(WORDS).to_string() + " ";
            let mut l = unit.repeat(rng.range(1, 5000));
            l.push_str("=> ");
            l.push_str(&rng.pick(OUTPUTS).repeat(rng.range(1, 2000)));
            l.into_bytes()
        }
        _ => {
            let mut text = String::new();
            for _ in 0..rng.range(1, 40) {
                text.push_str(&line(rng));
                text.push_str(rng.pick(&["\n", "\n", "\r\n", "\n\n"]));
            }
            text.into_bytes()
        }
    }
}

pub fn run(data: &[u8]) -> String {
    let text = String::from_utf8_lossy(data);
    let path = Path::new("tests/cases.txt");
    let mut signature = match parse_table(&text, path, "tests/cases.txt") {
        Ok(cases) => {
            for case in &cases {
                let line = case.location.line;
                assert!(
                    line >= 1 && line as usize <= text.lines().count(),
                    "a case at line {line} of a {}-line table",
                    text.lines().count()
                );
                assert_eq!(case.name, format!("cases.txt:{line}"));
                assert!(case.stdout.is_empty() || case.stdout.ends_with(b"\n"));
                assert!(case.stdin.is_empty());
            }
            format!("table ok {}", cases.len().min(2))
        }
        Err(e) => shape(&e.to_string()),
    };
    signature.push('\n');
    signature.push_str(&match parse_args(&text, Path::new("tests/a.args")) {
        Ok(args) => format!("args {}", args.len().min(3)),
        Err(e) => shape(&e.to_string()),
    });
    signature.push('\n');
    signature.push_str(&match parse_exit(&text, Path::new("tests/a.exit")) {
        Ok(status) => format!("exit {}", status.signum()),
        Err(e) => shape(&e.to_string()),
    });
    signature
}
