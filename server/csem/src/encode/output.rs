//! Matching the output a path prints against the expected stdout: the path's
//! format strings are fixed, its printed integers symbolic. Every way of
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
        }
    };
    memo.insert((i, pos), r);
    r
}
