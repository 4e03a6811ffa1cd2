//! From solved block and arc counts to line counts, as gcov's
//! `add_line_counts` and `accumulate_line_counts` compute them: a line's
//! count is what enters its blocks from outside the line plus the loops
//! entirely on the line (each elementary cycle's smallest arc count, taken
//! off its arcs, in the order gcov finds them), and its branches are the
//! arcs leaving each block whose last line it is.
//!
//! What depends on the notes alone (which blocks and arcs make each line,
//! which lines can hold a loop) is worked out once per notes file, in a
//! [`Plan`]; a test's counters then cost a pass over it.

use super::notes::{Function, Notes};
use super::solve::Solved;
use std::collections::BTreeMap;

/// A block of one of the notes' functions: (function, block).
type BlockRef = (usize, usize);
/// An arc of one of the notes' functions: (function, arc).
type ArcRef = (usize, usize);

/// One line as gcov's JSON gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineCount {
    pub line: u32,
    pub count: u64,
    pub branches: Vec<u64>,
}

/// A line's part in the notes.
#[derive(Default)]
struct Line {
    /// Blocks with code on the line, each once per time gcov adds it.
    counted: Vec<BlockRef>,
    /// Blocks whose last line (in a file) this is, in gcov's order.
    blocks: Vec<BlockRef>,
    /// Arcs from elsewhere into `blocks` (once per block occurrence).
    entries: Vec<ArcRef>,
    /// Arcs leaving `blocks` that gcov prints as branches.
    branches: Vec<ArcRef>,
    /// Whether arcs among `blocks` close a loop: only then does gcov's
    /// cycle search find anything.
    cyclic: bool,
}

/// One source file of the notes: its functions' `(start, end)` lines and
/// its lines in the order gcov prints them (a line twice when functions
/// starting on one line each have their own).
pub struct FilePlan {
    pub source: usize,
    pub functions: Vec<(u32, u32)>,
    lines: Vec<(u32, Line)>,
}

/// What the line counts of one notes file are made of.
pub struct Plan {
    pub files: Vec<FilePlan>,
}

/// More blocks on one line than any real code has; past it gcov's cycle
/// search could run out of stack, so such a line counts its entries only.
const MAX_LINE_BLOCKS: usize = 4096;

impl Plan {
    pub fn new(notes: &Notes) -> Plan {
        let included: Vec<bool> = notes.functions.iter().map(|f| !f.artificial).collect();
        let group = groups(notes);
        let mut source_lines: BTreeMap<usize, BTreeMap<u32, Line>> = BTreeMap::new();
        let mut group_lines: BTreeMap<usize, BTreeMap<u32, Line>> = BTreeMap::new();
        for (fi, f) in notes.functions.iter().enumerate() {
            if !included[fi] {
                continue;
            }
            source_lines.entry(f.source).or_default();
            let last = f.blocks.len().saturating_sub(1);
            for (bi, block) in f.blocks.iter().enumerate() {
                let mut line: Option<(bool, usize, u32)> = None;
                for location in &block.locations {
                    for &ln in &location.lines {
                        let own = group[fi]
                            && location.source == f.source
                            && (f.start_line..=f.end_line).contains(&ln);
                        let key = if own {
                            (true, fi, ln)
                        } else {
                            (false, location.source, ln)
                        };
                        line_at(&mut source_lines, &mut group_lines, key)
                            .counted
                            .push((fi, bi));
                        line = Some(key);
                    }
                    if bi == 0 || bi == last {
                        continue;
                    }
                    if let Some(key) = line {
                        let entry = line_at(&mut source_lines, &mut group_lines, key);
                        entry.blocks.push((fi, bi));
                        entry.branches.extend(
                            block
                                .succ
                                .iter()
                                .filter(|&&a| is_branch(f, a))
                                .map(|&a| (fi, a)),
                        );
                    }
                }
            }
        }
        for line in source_lines
            .values_mut()
            .chain(group_lines.values_mut())
            .flat_map(|lines| lines.values_mut())
        {
            finish(notes, line);
        }
        let mut files = Vec::new();
        // gcov prints every file the notes name, with no lines if need be.
        for source in 0..notes.sources.len() {
            let mut lines = source_lines.remove(&source).unwrap_or_default();
            let mut functions: Vec<&Function> = notes
                .functions
                .iter()
                .zip(&included)
                .filter(|(f, &inc)| inc && f.source == source)
                .map(|(f, _)| f)
                .collect();
            functions.sort_by_key(|f| (f.start_line, f.start_column));
            // gcov prints, line by line, the lines of functions that start
            // there and have lines of their own, then the file's line.
            let mut starts: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
            for (fi, f) in notes.functions.iter().enumerate() {
                if group[fi] && included[fi] && f.source == source {
                    starts.entry(f.start_line).or_default().push(fi);
                }
            }
            // gcov takes the functions of one line by column.
            for fis in starts.values_mut() {
                fis.sort_by_key(|&fi| notes.functions[fi].start_column);
            }
            let mut numbers: Vec<u32> = lines.keys().chain(starts.keys()).copied().collect();
            numbers.sort_unstable();
            numbers.dedup();
            let mut ordered = Vec::new();
            for number in numbers {
                for &fi in starts.get(&number).into_iter().flatten() {
                    ordered.extend(group_lines.remove(&fi).into_iter().flatten());
                }
                if let Some(line) = lines.remove(&number) {
                    ordered.push((number, line));
                }
            }
            files.push(FilePlan {
                source,
                functions: functions
                    .iter()
                    .map(|f| (f.start_line, f.end_line))
                    .collect(),
                lines: ordered,
            });
        }
        Plan { files }
    }

    /// The lines of `file` with the counts of `solved` (indexed like the
    /// notes' functions; `None` for those left out, or for no data).
    pub fn lines<'a>(
        &'a self,
        notes: &'a Notes,
        file: &'a FilePlan,
        solved: &'a [Option<Solved>],
    ) -> impl Iterator<Item = LineCount> + 'a {
        let arc = move |(fi, a): ArcRef| solved[fi].as_ref().map_or(0, |s| s.arc[a]);
        let block = move |(fi, b): BlockRef| solved[fi].as_ref().map_or(0, |s| s.block[b]);
        file.lines.iter().map(move |(number, line)| {
            let count = if line.blocks.is_empty() {
                line.counted
                    .iter()
                    .fold(0i64, |t, &b| t.wrapping_add(block(b)))
            } else {
                let entered = line
                    .entries
                    .iter()
                    .fold(0i64, |t, &a| t.wrapping_add(arc(a)));
                let loops = if line.cyclic {
                    cycles(notes, line, &arc)
                } else {
                    0
                };
                entered.wrapping_add(loops)
            };
            LineCount {
                line: *number,
                count: count.max(0) as u64,
                branches: line
                    .branches
                    .iter()
                    .map(|&a| arc(a).max(0) as u64)
                    .collect(),
            }
        })
    }
}

fn line_at<'a>(
    source_lines: &'a mut BTreeMap<usize, BTreeMap<u32, Line>>,
    group_lines: &'a mut BTreeMap<usize, BTreeMap<u32, Line>>,
    (own, owner, ln): (bool, usize, u32),
) -> &'a mut Line {
    let table = if own { group_lines } else { source_lines };
    table.entry(owner).or_default().entry(ln).or_default()
}

/// The entry arcs of a line and whether it can hold a loop.
fn finish(notes: &Notes, line: &mut Line) {
    for &(fi, b) in &line.blocks {
        let f = &notes.functions[fi];
        for &a in &f.blocks[b].pred {
            if !line.blocks.contains(&(fi, f.arcs[a].src)) {
                line.entries.push((fi, a));
            }
        }
    }
    line.cyclic = line.blocks.len() <= MAX_LINE_BLOCKS && has_cycle(notes, &line.blocks);
}

/// Whether arcs among `blocks` form a cycle (a depth-first search).
fn has_cycle(notes: &Notes, blocks: &[BlockRef]) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut nodes: Vec<BlockRef> = blocks.to_vec();
    nodes.sort_unstable();
    nodes.dedup();
    let index = |b: BlockRef| nodes.binary_search(&b).ok();
    let mut mark = vec![Mark::New; nodes.len()];
    for root in 0..nodes.len() {
        if mark[root] != Mark::New {
            continue;
        }
        // (node, next successor to look at)
        let mut stack = vec![(root, 0usize)];
        mark[root] = Mark::Open;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            let (fi, b) = nodes[v];
            let f = &notes.functions[fi];
            match f.blocks[b].succ.get(*next) {
                Some(&a) => {
                    *next += 1;
                    let Some(w) = index((fi, f.arcs[a].dst)) else {
                        continue;
                    };
                    match mark[w] {
                        Mark::Open => return true,
                        Mark::New => {
                            mark[w] = Mark::Open;
                            stack.push((w, 0));
                        }
                        Mark::Done => {}
                    }
                }
                None => {
                    mark[v] = Mark::Done;
                    stack.pop();
                }
            }
        }
    }
    false
}

/// Functions starting on the line of another (of the same file) keep
/// their lines apart: gcov's "group" functions. Artificial ones take no
/// part.
fn groups(notes: &Notes) -> Vec<bool> {
    let mut first: BTreeMap<(usize, u32), usize> = BTreeMap::new();
    let mut group = vec![false; notes.functions.len()];
    for (fi, f) in notes.functions.iter().enumerate() {
        if f.artificial {
            continue;
        }
        match first.get(&(f.source, f.start_line)) {
            Some(&other) => {
                group[other] = true;
                group[fi] = true;
            }
            None => {
                first.insert((f.source, f.start_line), fi);
            }
        }
    }
    group
}

/// gcov leaves out an unconditional arc (the one non-fake arc of its
/// block) and a call's arc to the exit for a call that does not return.
fn is_branch(f: &Function, a: usize) -> bool {
    let arc = &f.arcs[a];
    if arc.fake && arc.src != 0 {
        return false;
    }
    let non_fake = f.blocks[arc.src]
        .succ
        .iter()
        .filter(|&&b| !f.arcs[b].fake)
        .count();
    non_fake != 1 || arc.fake
}

/// The count of the loops entirely on the line, as gcov's search finds
/// them.
fn cycles(notes: &Notes, line: &Line, arc: &dyn Fn(ArcRef) -> i64) -> i64 {
    let mut search = CycleSearch {
        notes,
        line,
        cs: BTreeMap::new(),
        count: 0,
    };
    for &(fi, b) in &line.blocks {
        for &a in &notes.functions[fi].blocks[b].succ {
            search.cs.insert((fi, a), arc((fi, a)));
        }
    }
    for &start in &line.blocks {
        let mut path = Vec::new();
        let mut blocked = Vec::new();
        let mut lists = Vec::new();
        search.circuit(start, start, &mut path, &mut blocked, &mut lists);
    }
    search.count
}

/// gcov's search for the elementary cycles of a line's blocks (Hawick and
/// James), reproduced step by step: which cycles it finds, and so the
/// count, depends on the order.
struct CycleSearch<'a> {
    notes: &'a Notes,
    line: &'a Line,
    /// The arcs' counts as the search takes cycles off them.
    cs: BTreeMap<ArcRef, i64>,
    count: i64,
}

impl CycleSearch<'_> {
    fn cs(&self, fi: usize, a: usize) -> i64 {
        self.cs.get(&(fi, a)).copied().unwrap_or(0)
    }

    /// The arcs from `v` the search may follow.
    fn onward(&self, v: BlockRef, start: BlockRef) -> Vec<(usize, BlockRef)> {
        let f = &self.notes.functions[v.0];
        f.blocks[v.1]
            .succ
            .iter()
            .map(|&a| (a, (v.0, f.arcs[a].dst)))
            .filter(|&(a, w)| {
                w.1 >= start.1 && self.cs(v.0, a) > 0 && self.line.blocks.contains(&w)
            })
            .collect()
    }

    fn circuit(
        &mut self,
        v: BlockRef,
        start: BlockRef,
        path: &mut Vec<ArcRef>,
        blocked: &mut Vec<BlockRef>,
        lists: &mut Vec<Vec<BlockRef>>,
    ) -> bool {
        let mut found = false;
        blocked.push(v);
        lists.push(Vec::new());
        for (a, w) in self.onward(v, start) {
            // An earlier cycle may have used this arc up.
            if self.cs(v.0, a) <= 0 {
                continue;
            }
            path.push((v.0, a));
            if w == start {
                self.take_cycle(path);
                found = true;
            } else if path.iter().all(|&(fi, a)| self.cs(fi, a) > 0) && !blocked.contains(&w) {
                found |= self.circuit(w, start, path, blocked, lists);
            }
            path.pop();
        }
        if found {
            unblock(v, blocked, lists);
        } else {
            for (_, w) in self.onward(v, start) {
                if let Some(index) = blocked.iter().position(|&b| b == w) {
                    if !lists[index].contains(&v) {
                        lists[index].push(v);
                    }
                }
            }
        }
        found
    }

    fn take_cycle(&mut self, path: &[ArcRef]) {
        let least = path
            .iter()
            .map(|&(fi, a)| self.cs(fi, a))
            .min()
            .unwrap_or(0);
        self.count = self.count.wrapping_add(least);
        for &(fi, a) in path {
            let left = self.cs(fi, a).wrapping_sub(least);
            self.cs.insert((fi, a), left);
        }
    }
}

fn unblock(u: BlockRef, blocked: &mut Vec<BlockRef>, lists: &mut Vec<Vec<BlockRef>>) {
    let Some(index) = blocked.iter().position(|&b| b == u) else {
        return;
    };
    blocked.remove(index);
    let waiting = lists.remove(index);
    for w in waiting {
        unblock(w, blocked, lists);
    }
}
