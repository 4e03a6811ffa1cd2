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

/// The propagation's state: which arcs and blocks are known, how many
/// arcs on each side of a block are not, and gcov's two work stacks.
struct Flow<'f> {
    f: &'f Function,
    arc: Vec<i64>,
    arc_valid: Vec<bool>,
    /// Unknown arcs leaving (`open[0]`) and entering (`open[1]`) each block.
    open: [Vec<i64>; 2],
    block: Vec<i64>,
    block_valid: Vec<bool>,
    on_valid: Vec<bool>,
    on_invalid: Vec<bool>,
    // Chains are stacks: gcov pushes on the front and takes from it.
    valid: Vec<usize>,
    invalid: Vec<usize>,
}

const OUT: usize = 0;
const IN: usize = 1;

pub fn solve(f: &Function, counters: Option<&[u64]>) -> Solved {
    let n = f.blocks.len();
    let mut flow = Flow {
        f,
        arc: vec![0; f.arcs.len()],
        arc_valid: vec![false; f.arcs.len()],
        open: [
            f.blocks.iter().map(|b| b.succ.len() as i64).collect(),
            f.blocks.iter().map(|b| b.pred.len() as i64).collect(),
        ],
        block: vec![0; n],
        block_valid: vec![false; n],
        on_valid: vec![false; n],
        on_invalid: vec![true; n],
        valid: Vec::new(),
        invalid: (0..n).collect(),
    };
    if n >= 2 {
        if flow.open[IN][0] == 0 {
            flow.open[IN][0] = UNKNOWABLE;
        }
        if flow.open[OUT][1] == 0 {
            flow.open[OUT][1] = UNKNOWABLE;
        }
    }
    for (k, &a) in f.counted.iter().enumerate() {
        flow.arc[a] = counters.and_then(|c| c.get(k)).map_or(0, |&c| c as i64);
        flow.arc_valid[a] = true;
        flow.open[OUT][f.arcs[a].src] -= 1;
        flow.open[IN][f.arcs[a].dst] -= 1;
    }
    while !flow.invalid.is_empty() || !flow.valid.is_empty() {
        while let Some(b) = flow.invalid.pop() {
            flow.on_invalid[b] = false;
            let arcs = if flow.open[OUT][b] == 0 {
                &f.blocks[b].succ
            } else if flow.open[IN][b] == 0 {
                &f.blocks[b].pred
            } else {
                continue;
            };
            flow.block[b] = arcs.iter().fold(0i64, |t, &a| t.wrapping_add(flow.arc[a]));
            flow.block_valid[b] = true;
            flow.on_valid[b] = true;
            flow.valid.push(b);
        }
        while let Some(b) = flow.valid.pop() {
            flow.on_valid[b] = false;
            if flow.open[OUT][b] == 1 {
                flow.settle(b, OUT);
            }
            if flow.open[IN][b] == 1 {
                flow.settle(b, IN);
            }
        }
    }
    Solved {
        block: flow.block,
        arc: flow.arc,
    }
}

impl Flow<'_> {
    /// Block `b` is known and has one unknown arc on `side`: that arc
    /// takes what the block's count leaves, and the block at its other end
    /// may now be known, or have one unknown arc left itself.
    fn settle(&mut self, b: usize, side: usize) {
        let f = self.f;
        let arcs = if side == OUT {
            &f.blocks[b].succ
        } else {
            &f.blocks[b].pred
        };
        let Some((total, open)) = remainder(self.block[b], arcs, &self.arc, &self.arc_valid) else {
            return;
        };
        self.arc[open] = total;
        self.arc_valid[open] = true;
        let (other, far) = if side == OUT {
            (f.arcs[open].dst, IN)
        } else {
            (f.arcs[open].src, OUT)
        };
        self.open[side][b] -= 1;
        self.open[far][other] -= 1;
        if self.block_valid[other] {
            if self.open[far][other] == 1 && !self.on_valid[other] {
                self.on_valid[other] = true;
                self.valid.push(other);
            }
        } else if self.open[far][other] == 0 && !self.on_invalid[other] {
            self.on_invalid[other] = true;
            self.invalid.push(other);
        }
    }
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
