//! Matching the output a path prints against the expected stdout: the path's
//! format strings are fixed, its printed integers and strings symbolic. Every way of
//! splitting the expected text among the conversions is a conjunction of
//! value equalities; the match is their disjunction.

use super::E;
use crate::bv::{Bv, Cnf};
use crate::format::{render, unrender, Spec};
use rustsat::types::Lit;
use std::collections::HashMap;

#[derive(Clone, Debug)]
pub enum Item {
    Text(Vec<u8>),
    /// An integer conversion; `val` has the width of the conversion's argument type.
    Int {
        spec: Spec,
        val: Bv,
    },
    /// A string (`%s`, `%10s`, `%-10s`, `puts`): the bytes from its address
    /// on; it ends at the first that is 0 (the memory model rules out running
    /// past them), padded with blanks to `width`.
    Str {
        chars: Vec<Bv>,
        width: usize,
        left: bool,
    },
}

/// The ways a symbolic string can print a prefix of `want[pos..]`: for each
/// length, where its text ends and when (its characters equal the text, the
/// next is 0, and the padding to `width` is blanks where the text has them).
fn string_ends(
    cnf: &mut Cnf,
    chars: &[Bv],
    width: usize,
    left: bool,
    want: &[u8],
    pos: usize,
) -> Vec<(usize, Lit)> {
    let mut out = Vec::new();
    let blanks = |from: usize, n: usize| {
        want.get(from..from + n)
            .is_some_and(|t| t.iter().all(|&b| b == b' '))
    };
    // `same`: the characters so far equal the text from `base` on, where
    // the text starts after any padding (for lengths of at least `width`
    // the start no longer moves, so it is built up once).
    let mut same = cnf.tru();
    for (k, c) in chars.iter().enumerate() {
        let pad = width.saturating_sub(k);
        let base = if left { pos } else { pos + pad };
        let chars_match = if pad > 0 && !left {
            // The start moves with the length: compare afresh.
            let mut all = cnf.tru();
            for (j, cj) in chars[..k].iter().enumerate() {
                let eq = char_is(cnf, cj, want.get(base + j));
                all = cnf.and(all, eq);
            }
            all
        } else {
            same
        };
        let pads_ok = if left {
            blanks(pos + k, pad)
        } else {
            blanks(pos, pad)
        };
        if pads_ok {
            let zero = cnf.bv_const(0, 8);
            let ends = cnf.bv_eq(c, &zero);
            let here = cnf.and(chars_match, ends);
            out.push((pos + pad + k, here));
        }
        // Extend `same` by this character (at its place for lengths >= width).
        let eq = char_is(cnf, c, want.get(pos + k));
        same = cnf.and(same, eq);
        if same == cnf.fls() && k + 1 >= width {
            break;
        }
    }
    out
}

/// `c` equals the expected byte (false past the text's end, or for a 0 byte,
/// which ends a string instead of being printed).
fn char_is(cnf: &mut Cnf, c: &Bv, want: Option<&u8>) -> Lit {
    match want {
        Some(&b) if b != 0 => {
            let k = cnf.bv_const(u64::from(b), 8);
            cnf.bv_eq(c, &k)
        }
        _ => cnf.fls(),
    }
}

/// Longest text one integer conversion may print (64-bit octal plus padding).
const MAX_CONV: usize = 64;

pub fn matches(cnf: &mut Cnf, items: &[Item], want: &[u8]) -> E<Lit> {
    let mut memo = HashMap::new();
    Ok(go(cnf, items, want, 0, 0, &mut memo))
}

fn go(
    cnf: &mut Cnf,
    items: &[Item],
    want: &[u8],
    i: usize,
    pos: usize,
    memo: &mut HashMap<(usize, usize), Lit>,
) -> Lit {
    if let Some(l) = memo.get(&(i, pos)) {
        return *l;
    }
    let r = if i == items.len() {
        cnf.constant(pos == want.len())
    } else {
        match &items[i] {
            Item::Text(t) => {
                if want[pos..].starts_with(t) {
                    go(cnf, items, want, i + 1, pos + t.len(), memo)
                } else {
                    cnf.fls()
                }
            }
            Item::Int { spec, val } => {
                let mut alts = Vec::new();
                let max_end = want.len().min(pos + MAX_CONV.max(spec.width.unwrap_or(0)));
                for end in pos..=max_end {
                    let text = &want[pos..end];
                    let Some(bits) = unrender(spec, text) else {
                        continue;
                    };
                    let eq = if spec.conv == b'c' {
                        let low = Bv(val.0[..8].to_vec());
                        let c = cnf.bv_const(bits & 0xff, 8);
                        cnf.bv_eq(&low, &c)
                    } else {
                        debug_assert_eq!(render(spec, bits), text);
                        let c = cnf.bv_const(bits, val.width());
                        cnf.bv_eq(val, &c)
                    };
                    let rest = go(cnf, items, want, i + 1, end, memo);
                    let both = cnf.and(eq, rest);
                    alts.push(both);
                }
                cnf.or_all(&alts)
            }
            Item::Str { chars, width, left } => {
                let mut alts = Vec::new();
                for (end, here) in string_ends(cnf, chars, *width, *left, want, pos) {
                    let rest = go(cnf, items, want, i + 1, end, memo);
                    alts.push(cnf.and(here, rest));
                }
                cnf.or_all(&alts)
            }
        }
    };
    memo.insert((i, pos), r);
    r
}

/// For each `i` in `0..=items.len()`: "the first `i` items print a prefix of
/// the expected text" (a run that prints the expected text must satisfy it
/// at every point of its output).
pub fn prefixes(cnf: &mut Cnf, items: &[Item], want: &[u8]) -> Vec<Lit> {
    // reach[pos]: the items so far print exactly want[..pos].
    let mut reach: std::collections::BTreeMap<usize, Lit> =
        std::collections::BTreeMap::from([(0, cnf.tru())]);
    let mut out = Vec::with_capacity(items.len() + 1);
    let all: Vec<Lit> = reach.values().copied().collect();
    out.push(cnf.or_all(&all));
    for item in items {
        let mut next: std::collections::BTreeMap<usize, Vec<Lit>> = Default::default();
        for (&pos, &l) in &reach {
            match item {
                Item::Text(t) => {
                    if want[pos..].starts_with(t) {
                        next.entry(pos + t.len()).or_default().push(l);
                    }
                }
                Item::Int { spec, val } => {
                    let max_end = want.len().min(pos + MAX_CONV.max(spec.width.unwrap_or(0)));
                    for end in pos..=max_end {
                        let Some(bits) = unrender(spec, &want[pos..end]) else {
                            continue;
                        };
                        let eq = if spec.conv == b'c' {
                            let low = Bv(val.0[..8].to_vec());
                            let c = cnf.bv_const(bits & 0xff, 8);
                            cnf.bv_eq(&low, &c)
                        } else {
                            let c = cnf.bv_const(bits, val.width());
                            cnf.bv_eq(val, &c)
                        };
                        let both = cnf.and(l, eq);
                        next.entry(end).or_default().push(both);
                    }
                }
                Item::Str { chars, width, left } => {
                    for (end, here) in string_ends(cnf, chars, *width, *left, want, pos) {
                        let both = cnf.and(l, here);
                        next.entry(end).or_default().push(both);
                    }
                }
            }
        }
        let fls = cnf.fls();
        reach = next
            .into_iter()
            .map(|(pos, ls)| (pos, cnf.or_all(&ls)))
            .filter(|(_, l)| *l != fls)
            .collect();
        let all: Vec<Lit> = reach.values().copied().collect();
        out.push(cnf.or_all(&all));
    }
    out
}
