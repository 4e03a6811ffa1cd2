//! The fuzz targets, one module each.

pub mod config;
pub mod csem;
pub mod framing;
pub mod lsp;
pub mod results;
pub mod table;

use crate::Rng;

/// Odd values for a configuration or document field.
pub(crate) const ODD_VALUES: &[&str] = &[
    "0",
    "-1",
    "1",
    "2147483647",
    "-2147483648",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "99999999999999999999999",
    "1e309",
    "-1e309",
    "nan",
    "inf",
    "-inf",
    "0.0000001",
    "1.5",
    "true",
    "\"\"",
    "\" \"",
    "\"..\"",
    "\"../x\"",
    "\"/etc/passwd\"",
    "\"/\"",
    "\".faultlens\"",
    "\"a\\u0000b\"",
    "\"\\n\"",
    "\"{name}\"",
    "\"'{name}'\"",
    "\"**\"",
    "\"[\"",
    "\"é\"",
    "[]",
    "[\"\"]",
    "[1, 2]",
    "{}",
    "'''\nmulti\n'''",
];

/// `n` copies of `unit`, for long strings.
pub(crate) fn repeat(rng: &mut Rng, unit: &str) -> String {
    unit.repeat(rng.range(1, 3000))
}

/// Line-level mutations of a text: lines deleted, duplicated, swapped or
/// replaced by `line()`, values replaced by odd ones.
pub(crate) fn mutate_lines(
    rng: &mut Rng,
    text: &str,
    line: &mut dyn FnMut(&mut Rng) -> String,
    values: &[&str],
) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    for _ in 0..rng.range(1, 6) {
        let n = lines.len();
        match rng.below(6) {
            0 if n > 0 => {
                lines.remove(rng.below(n));
            }
            1 if n > 0 => {
                let l = lines[rng.below(n)].clone();
                lines.insert(rng.below(n + 1), l);
            }
            2 if n > 1 => {
                let (a, b) = (rng.below(n), rng.below(n));
                lines.swap(a, b);
            }
            3 if n > 0 => {
                // Replace the value after `=` (or `=>`).
                let i = rng.below(n);
                if let Some(eq) = lines[i].find('=') {
                    let value = if rng.one_in(8) {
                        format!("\"{}\"", repeat(rng, "x"))
                    } else {
                        rng.pick(values).to_string()
                    };
                    lines[i] = format!("{} {value}", &lines[i][..=eq]);
                }
            }
            _ => {
                let l = line(rng);
                lines.insert(rng.below(n + 1), l);
            }
        }
    }
    let mut out = lines.join(if rng.one_in(10) { "\r\n" } else { "\n" });
    if !rng.one_in(5) {
        out.push('\n');
    }
    out
}
