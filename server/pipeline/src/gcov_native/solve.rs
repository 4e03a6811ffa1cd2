//! Counts of every block and arc of a function from the counted arcs, by
//! flow conservation, in the order gcov's `solve_flow_graph` propagates
//! them. The order matters where the counts do not add up (a test killed
//! mid-run dumps counters of an unfinished path): gcov's answer is the one
//! to reproduce.

use super::notes::Function;

/// A function's solved counts.
pub struct Solved {
    pub block: Vec<i64>,
    pub arc: Vec<i64>,
}

/// gcov's stand-in for "cannot be deduced" (`~(unsigned)0`).
const UNKNOWABLE: i64 = u32::MAX as i64;

pub fn solve(f: &Function, counters: Option<&[u64]>) -> Solved {
    let n = f.blocks.len();
    let mut arc = vec![0i64; f.arcs.len()];
    let mut arc_valid = vec![false; f.arcs.len()];
    let mut num_succ: Vec<i64> = f.blocks.iter().map(|b| b.succ.len() as i64).collect();
    let mut num_pred: Vec<i64> = f.blocks.iter().map(|b| b.pred.len() as i64).collect();
    if n >= 2 {
        if num_pred[0] == 0 {
            num_pred[0] = UNKNOWABLE;
        }
        if num_succ[1] == 0 {
            num_succ[1] = UNKNOWABLE;
        }
    }
    for (k, &a) in f.counted.iter().enumerate() {
        arc[a] = counters.and_then(|c| c.get(k)).map_or(0, |&c| c as i64);
        arc_valid[a] = true;
        num_succ[f.arcs[a].src] -= 1;
        num_pred[f.arcs[a].dst] -= 1;
    }
    let mut block = vec![0i64; n];
    let mut block_valid = vec![false; n];
    let mut on_valid = vec![false; n];
    let mut on_invalid = vec![true; n];
    // Chains are stacks: gcov pushes on the front and takes from it.
    let mut invalid: Vec<usize> = (0..n).collect();
    let mut valid: Vec<usize> = Vec::new();
    while !invalid.is_empty() || !valid.is_empty() {
        while let Some(b) = invalid.pop() {
            on_invalid[b] = false;
            let arcs = if num_succ[b] == 0 {
                &f.blocks[b].succ
            } else if num_pred[b] == 0 {
                &f.blocks[b].pred
            } else {
                continue;
            };
            block[b] = arcs.iter().fold(0i64, |t, &a| t.wrapping_add(arc[a]));
            block_valid[b] = true;
            on_valid[b] = true;
            valid.push(b);
        }
        while let Some(b) = valid.pop() {
            on_valid[b] = false;
            if num_succ[b] == 1 {
                let Some((total, open)) = remainder(block[b], &f.blocks[b].succ, &arc, &arc_valid)
                else {
                    continue;
                };
                arc[open] = total;
                arc_valid[open] = true;
                num_succ[b] -= 1;
                let dst = f.arcs[open].dst;
                num_pred[dst] -= 1;
                if block_valid[dst] {
                    if num_pred[dst] == 1 && !on_valid[dst] {
                        on_valid[dst] = true;
                        valid.push(dst);
                    }
                } else if num_pred[dst] == 0 && !on_invalid[dst] {
                    on_invalid[dst] = true;
                    invalid.push(dst);
                }
            }
            if num_pred[b] == 1 {
                let Some((total, open)) = remainder(block[b], &f.blocks[b].pred, &arc, &arc_valid)
                else {
                    continue;
                };
                arc[open] = total;
                arc_valid[open] = true;
                num_pred[b] -= 1;
                let src = f.arcs[open].src;
                num_succ[src] -= 1;
                if block_valid[src] {
                    if num_succ[src] == 1 && !on_valid[src] {
                        on_valid[src] = true;
                        valid.push(src);
                    }
                } else if num_succ[src] == 0 && !on_invalid[src] {
                    on_invalid[src] = true;
                    invalid.push(src);
                }
            }
        }
    }
    Solved { block, arc }
}

/// The block's count less its known arcs', and the one arc not yet known
/// (the last such, as gcov picks it).
fn remainder(count: i64, arcs: &[usize], arc: &[i64], valid: &[bool]) -> Option<(i64, usize)> {
    let mut total = count;
    let mut open = None;
    for &a in arcs {
        total = total.wrapping_sub(arc[a]);
        if !valid[a] {
            open = Some(a);
        }
    }
    open.map(|a| (total, a))
}
