//! From solved block and arc counts to line counts, as gcov's
//! `add_line_counts` and `accumulate_line_counts` compute them: a line's
//! count is what enters its blocks from outside the line plus the loops
//! entirely on the line (each elementary cycle's smallest arc count, taken
//! off its arcs, in the order gcov finds them), and its branches are the
//! arcs leaving each block whose last line it is.

use super::notes::{Function, Notes};
use super::solve::Solved;
use std::collections::BTreeMap;

/// A block of one of the file's functions: (function, block).
type BlockRef = (usize, usize);

#[derive(Default)]
struct Line {
    exists: bool,
    count: i64,
    blocks: Vec<BlockRef>,
    /// (function, arc) leaving the blocks that end on this line.
    branches: Vec<(usize, usize)>,
}

/// One line as gcov's JSON gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineCount {
    pub line: u32,
    pub count: u64,
    pub branches: Vec<u64>,
}

/// One source file's part of a notes file: its functions' `(start, end)`
/// lines and its lines, in the order gcov prints them (a line twice when
/// functions starting on one line each have their own).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FileLines {
    pub functions: Vec<(u32, u32)>,
    pub lines: Vec<LineCount>,
}

/// More blocks on one line than any real code has; past it gcov's cycle
/// search could run out of stack, so such a line counts its entries only.
const MAX_LINE_BLOCKS: usize = 4096;

/// Source index (into [`Notes::sources`]) → its lines. `solved[i]` is the
/// solution of `notes.functions[i]`, `None` for functions left out
/// (artificial ones).
pub fn file_lines(notes: &Notes, solved: &[Option<Solved>]) -> BTreeMap<usize, FileLines> {
    let group = groups(notes);
    let mut source_lines: BTreeMap<usize, BTreeMap<u32, Line>> = BTreeMap::new();
    let mut group_lines: BTreeMap<usize, BTreeMap<u32, Line>> = BTreeMap::new();
    for (fi, f) in notes.functions.iter().enumerate() {
        let Some(s) = &solved[fi] else { continue };
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
                    let entry = line_at(&mut source_lines, &mut group_lines, key);
                    entry.exists = true;
                    entry.count = entry.count.wrapping_add(s.block[bi]);
                    line = Some(key);
                }
                if bi == 0 || bi == last {
                    continue;
                }
                if let Some(key) = line {
                    let entry = line_at(&mut source_lines, &mut group_lines, key);
                    entry.blocks.push((fi, bi));
                    entry.branches.extend(block.succ.iter().map(|&a| (fi, a)));
                }
            }
        }
    }
    let mut out: BTreeMap<usize, FileLines> = BTreeMap::new();
    for (fi, f) in notes.functions.iter().enumerate() {
        if solved[fi].is_some() {
            out.entry(f.source).or_default();
        }
    }
    for (&source, file) in out.iter_mut() {
        let mut functions: Vec<&Function> = notes
            .functions
            .iter()
            .zip(solved)
            .filter(|(f, s)| s.is_some() && f.source == source)
            .map(|(f, _)| f)
            .collect();
        functions.sort_by_key(|f| (f.start_line, f.start_column));
        file.functions = functions
            .iter()
            .map(|f| (f.start_line, f.end_line))
            .collect();
        // gcov prints, line by line, the lines of functions that start
        // there and have lines of their own, then the file's line.
        let empty = BTreeMap::new();
        let lines = source_lines.get(&source).unwrap_or(&empty);
        let mut starts: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (fi, f) in notes.functions.iter().enumerate() {
            if group[fi] && f.source == source && solved[fi].is_some() {
                starts.entry(f.start_line).or_default().push(fi);
            }
        }
        let mut numbers: Vec<u32> = lines.keys().chain(starts.keys()).copied().collect();
        numbers.sort_unstable();
        numbers.dedup();
        for number in numbers {
            for &fi in starts.get(&number).into_iter().flatten() {
                for (&ln, line) in group_lines.get(&fi).into_iter().flatten() {
                    file.lines.extend(printed(notes, solved, ln, line));
                }
            }
            if let Some(line) = lines.get(&number) {
                file.lines.extend(printed(notes, solved, number, line));
            }
        }
    }
    out
}

fn line_at<'a>(
    source_lines: &'a mut BTreeMap<usize, BTreeMap<u32, Line>>,
    group_lines: &'a mut BTreeMap<usize, BTreeMap<u32, Line>>,
    (own, owner, ln): (bool, usize, u32),
) -> &'a mut Line {
    let table = if own { group_lines } else { source_lines };
    table.entry(owner).or_default().entry(ln).or_default()
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

/// The line as gcov prints it, if it exists.
fn printed(
    notes: &Notes,
    solved: &[Option<Solved>],
    number: u32,
    line: &Line,
) -> Option<LineCount> {
    if !line.exists {
        return None;
    }
    let count = if line.blocks.is_empty() {
        line.count
    } else {
        accumulated(notes, solved, line)
    };
    let branches = line
        .branches
        .iter()
        .filter(|&&(fi, a)| is_branch(&notes.functions[fi], a))
        .map(|&(fi, a)| arc_count(solved, fi, a).max(0) as u64)
        .collect();
    Some(LineCount {
        line: number,
        count: count.max(0) as u64,
        branches,
    })
}

fn arc_count(solved: &[Option<Solved>], fi: usize, a: usize) -> i64 {
    solved[fi].as_ref().map_or(0, |s| s.arc[a])
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

/// What enters the line's blocks from elsewhere, plus its own loops.
fn accumulated(notes: &Notes, solved: &[Option<Solved>], line: &Line) -> i64 {
    let mut count = 0i64;
    let mut cycle = CycleSearch {
        notes,
        line,
        cs: BTreeMap::new(),
        count: 0,
    };
    for &(fi, b) in &line.blocks {
        let f = &notes.functions[fi];
        for &a in &f.blocks[b].pred {
            if !line.blocks.contains(&(fi, f.arcs[a].src)) {
                count = count.wrapping_add(arc_count(solved, fi, a));
            }
        }
        for &a in &f.blocks[b].succ {
            cycle.cs.insert((fi, a), arc_count(solved, fi, a));
        }
    }
    if line.blocks.len() <= MAX_LINE_BLOCKS {
        for &start in &line.blocks {
            let mut path = Vec::new();
            let mut blocked = Vec::new();
            let mut lists = Vec::new();
            cycle.circuit(start, start, &mut path, &mut blocked, &mut lists);
        }
    }
    count.wrapping_add(cycle.count)
}

/// gcov's search for the elementary cycles of a line's blocks (Hawick and
/// James), reproduced step by step: which cycles it finds, and so the
/// count, depends on the order.
struct CycleSearch<'a> {
    notes: &'a Notes,
    line: &'a Line,
    /// The arcs' counts as the search takes cycles off them.
    cs: BTreeMap<(usize, usize), i64>,
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
        path: &mut Vec<(usize, usize)>,
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

    fn take_cycle(&mut self, path: &[(usize, usize)]) {
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
