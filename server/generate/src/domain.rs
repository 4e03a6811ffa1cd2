//! The small input domain the exploration draws values from.
//!
//! Faults in small programs show on small values and at the program's own
//! boundaries, so each draw ranges over a few small integers plus every
//! integer constant of the sources and its neighbours (`CAPACITY 3` gives
//! 2, 3, 4), restricted to what the drawing function's type can return.

use std::collections::BTreeSet;

#[derive(Clone, Debug)]
pub struct Domain {
    /// Values for signed draws, ascending.
    signed: Vec<i64>,
}

/// Small values always tried.
const SMALL: std::ops::RangeInclusive<i64> = -2..=2;
/// Constants farther from zero than this are left out (they rarely bound inputs).
const MAX_CONSTANT: i64 = 1000;

impl Domain {
    /// The domain for programs whose source texts are `texts`.
    pub fn from_sources<'a>(texts: impl IntoIterator<Item = &'a str>) -> Domain {
        let mut values: BTreeSet<i64> = SMALL.collect();
        for text in texts {
            for k in integer_constants(text) {
                if k.abs() <= MAX_CONSTANT {
                    values.extend([k - 1, k, k + 1]);
                }
            }
        }
        Domain {
            signed: values.into_iter().collect(),
        }
    }

    /// A domain of exactly these values (tests).
    pub fn of(values: &[i64]) -> Domain {
        let set: BTreeSet<i64> = values.iter().copied().collect();
        Domain {
            signed: set.into_iter().collect(),
        }
    }

    /// The values a draw from `function` (`__VERIFIER_nondet_uchar`) can take.
    pub fn values_for(&self, function: &str) -> Vec<i64> {
        let suffix = function
            .strip_prefix("__VERIFIER_nondet_")
            .unwrap_or(function);
        match suffix {
            "bool" => vec![0, 1],
            "uint" | "uchar" | "ushort" | "ulong" => {
                self.signed.iter().copied().filter(|v| *v >= 0).collect()
            }
            _ => self.signed.clone(),
        }
    }

    pub fn len(&self) -> usize {
        self.signed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.signed.is_empty()
    }
}

/// Decimal and hex integer literals of a C text, outside comments and strings
/// (roughly: enough to find array sizes and bounds).
pub fn integer_constants(text: &str) -> Vec<i64> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i = text[i + 2..]
                .find("*/")
                .map_or(bytes.len(), |e| i + 2 + e + 2);
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            i = text[i..].find('\n').map_or(bytes.len(), |e| i + e);
        } else if c == b'"' || c == b'\'' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != c {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            i = j + 1;
        } else if c.is_ascii_digit() && (i == 0 || !is_ident(bytes[i - 1])) {
            let mut j = i;
            while j < bytes.len() && (is_ident(bytes[j])) {
                j += 1;
            }
            let word = text[i..j].trim_end_matches(['u', 'U', 'l', 'L']);
            let value = if let Some(hex) = word.strip_prefix("0x").or(word.strip_prefix("0X")) {
                i64::from_str_radix(hex, 16).ok()
            } else {
                word.parse::<i64>().ok()
            };
            out.extend(value);
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_skip_comments_strings_and_names() {
        let text = "/* 77 */ #define CAP 3\nint x2 = 0x10; // 99\nchar *s = \"5\"; long n = 8L;";
        assert_eq!(integer_constants(text), vec![3, 0x10, 8]);
    }

    #[test]
    fn domain_has_small_values_and_neighbours_of_constants() {
        let d = Domain::from_sources(["#define CAP 3\n"]);
        assert_eq!(
            d.values_for("__VERIFIER_nondet_int"),
            vec![-2, -1, 0, 1, 2, 3, 4]
        );
        assert_eq!(d.values_for("__VERIFIER_nondet_uint"), vec![0, 1, 2, 3, 4]);
        assert_eq!(d.values_for("__VERIFIER_nondet_bool"), vec![0, 1]);
    }
}
