//! From counters to what `llvm-cov export` prints: each region's count
//! (its counter or expression evaluated), the functions llvm-cov keeps, and
//! each file's segments, built by LLVM's sweep over the file's regions
//! (`CoverageMapping.cpp`'s `SegmentBuilder`) so that the line counts read
//! from them are llvm-cov's own.

use super::mapping::{Counter, Function, Kind, Mapping, Region};
use super::profraw::{Counts, Profile};
use faultlens_cfg::clang::{BranchRegion, Export, ReadFile, ReadFunction, Segment};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Deeper expressions are taken for a damaged (or cyclic) mapping.
const MAX_DEPTH: usize = 4096;

#[derive(Debug, Clone, Copy)]
struct Counted {
    region: Region,
    count: u64,
    false_count: u64,
}

impl Counted {
    fn start(&self) -> (u32, u32) {
        self.region.start
    }
    fn end(&self) -> (u32, u32) {
        self.region.end
    }
}

/// One function as llvm-cov loads it.
struct Loaded<'m> {
    function: &'m Function,
    regions: Vec<Counted>,
    branches: Vec<Counted>,
    count: u64,
}

/// The export of `mapping` under `profile`.
pub fn export(mapping: &Mapping, profile: &Profile) -> Export {
    let loaded = load(mapping, profile);
    let files: BTreeSet<Arc<str>> = loaded
        .iter()
        .flat_map(|f| f.function.filenames.iter().cloned())
        .collect();
    let files = files
        .into_iter()
        .map(|name| file_coverage(&loaded, &name))
        .collect();
    let functions = loaded
        .iter()
        .filter_map(|f| {
            Some(ReadFunction {
                count: f.count,
                first_line: f.regions.first()?.start().0,
                filename: f.function.filenames.first()?.to_string(),
            })
        })
        .collect();
    Export::from_read(files, functions)
}

/// The functions llvm-cov keeps, with their regions counted: one whose
/// profile has another hash, or whose counters cannot be evaluated, is
/// left out; one the profile lacks counts 0; a unit's unused copy of a
/// function another unit ran is left out; and a (files, name) pair once.
fn load<'m>(mapping: &'m Mapping, profile: &Profile) -> Vec<Loaded<'m>> {
    let mut seen: BTreeSet<(Vec<Arc<str>>, u64)> = BTreeSet::new();
    let mut out = Vec::new();
    for function in &mapping.functions {
        let zeros;
        let counts: &[u64] = match profile.counts(function.name_ref, function.hash) {
            Counts::Known(counts) => counts,
            Counts::Mismatch => continue,
            Counts::Unknown => {
                zeros = vec![0; function.regions.len()];
                &zeros
            }
        };
        let Some(first) = function.regions.first() else {
            continue;
        };
        if function.regions.len() == 1
            && first.count == Counter::Zero
            && counts.first().is_some_and(|&c| c > 0)
        {
            continue;
        }
        let mut memo = vec![None; function.expressions.len()];
        let mut eval = |c: Counter| evaluate(function, counts, c, &mut memo, 0);
        let mut regions = Vec::new();
        let mut branches = Vec::new();
        let mut count = None;
        let mut complete = true;
        for &region in &function.regions {
            let (Some(c), Some(f)) = (eval(region.count), eval(region.false_count)) else {
                complete = false;
                break;
            };
            let counted = Counted {
                region,
                count: c as u64,
                false_count: f as u64,
            };
            if region.kind == Kind::Branch {
                branches.push(counted);
            } else {
                count.get_or_insert(counted.count);
                regions.push(counted);
            }
        }
        if !complete || !seen.insert((function.filenames.clone(), function.name_ref)) {
            continue;
        }
        out.push(Loaded {
            function,
            regions,
            branches,
            count: count.unwrap_or(0),
        });
    }
    out
}

/// A counter's value as llvm-cov computes it (64-bit signed arithmetic);
/// `None` when it names a counter or expression that does not exist.
fn evaluate(
    f: &Function,
    counts: &[u64],
    c: Counter,
    memo: &mut [Option<i64>],
    depth: usize,
) -> Option<i64> {
    match c {
        Counter::Zero => Some(0),
        Counter::Profile(id) => counts.get(id as usize).map(|&v| v as i64),
        Counter::Expression(id) => {
            if let Some(v) = *memo.get(id as usize)? {
                return Some(v);
            }
            if depth > MAX_DEPTH {
                return None;
            }
            let e = *f.expressions.get(id as usize)?;
            let lhs = evaluate(f, counts, e.lhs, memo, depth + 1)?;
            let rhs = evaluate(f, counts, e.rhs, memo, depth + 1)?;
            let v = if e.add {
                lhs.wrapping_add(rhs)
            } else {
                lhs.wrapping_sub(rhs)
            };
            memo[id as usize] = Some(v);
            Some(v)
        }
    }
}

/// One file's segments and branch regions, from every function with code
/// in it (regions of its macro expansions included, as llvm-cov does).
fn file_coverage(loaded: &[Loaded], name: &Arc<str>) -> ReadFile {
    let mut regions = Vec::new();
    let mut branches = Vec::new();
    for f in loaded {
        let in_file = |r: &Counted| {
            f.function
                .filenames
                .get(r.region.file as usize)
                .is_some_and(|n| n == name)
        };
        regions.extend(f.regions.iter().filter(|r| in_file(r)).copied());
        branches.extend(
            f.branches
                .iter()
                .filter(|r| in_file(r) && r.region.file == r.region.expanded)
                .map(|r| BranchRegion {
                    start: r.start(),
                    end: r.end(),
                    true_count: r.count,
                    false_count: r.false_count,
                }),
        );
    }
    ReadFile {
        filename: name.to_string(),
        segments: build_segments(regions),
        branches,
    }
}

/// LLVM's segment sweep: regions sorted (outer before inner, code before
/// expansion before skipped), regions of the same area merged, then one
/// segment wherever the innermost active region changes.
fn build_segments(mut regions: Vec<Counted>) -> Vec<Segment> {
    regions.sort_by(|a, b| {
        a.start()
            .cmp(&b.start())
            .then(b.end().cmp(&a.end()))
            .then(a.region.kind.cmp(&b.region.kind))
    });
    let regions = combine(regions);
    let mut b = Builder::default();
    for (i, r) in regions.iter().enumerate() {
        let at = r.start();
        // Active regions that end before this one starts are completed.
        if b.active.iter().any(|a| a.end() <= at) {
            let (open, done): (Vec<Counted>, Vec<Counted>) =
                b.active.iter().copied().partition(|a| a.end() > at);
            let first_done = open.len();
            b.active = open;
            b.active.extend(done);
            b.complete_until(Some(at), first_done);
        }
        let gap = r.region.kind == Kind::Gap;
        if at == r.end() {
            // An empty region never becomes active. The last one, or an
            // empty skipped one, marks a skipped point; the region still
            // open resumes right after it.
            let skipped = i + 1 == regions.len() || r.region.kind == Kind::Skipped;
            let from = b.active.last().copied().unwrap_or(*r);
            b.start(&from, at, !gap, skipped);
            if let (true, Some(open)) = (skipped, b.active.last().copied()) {
                b.start(&open, at, false, false);
            }
            continue;
        }
        if i + 1 == regions.len() || at != regions[i + 1].start() {
            b.start(r, at, !gap, false);
        }
        b.active.push(*r);
    }
    if !b.active.is_empty() {
        b.complete_until(None, 0);
    }
    b.segments
}

/// Regions of the same area become one; counts add up only among regions
/// of the kind of the first (a macro fully expanded to another counts once).
fn combine(regions: Vec<Counted>) -> Vec<Counted> {
    let mut out: Vec<Counted> = Vec::with_capacity(regions.len());
    for r in regions {
        match out.last_mut() {
            Some(a) if a.start() == r.start() && a.end() == r.end() => {
                if a.region.kind == r.region.kind {
                    a.count = a.count.wrapping_add(r.count);
                }
            }
            _ => out.push(r),
        }
    }
    out
}

#[derive(Default)]
struct Builder {
    segments: Vec<Segment>,
    active: Vec<Counted>,
}

impl Builder {
    /// A segment with `region`'s count from `at`; skipped when it would not
    /// change what is shown.
    fn start(&mut self, region: &Counted, at: (u32, u32), entry: bool, skipped: bool) {
        let has_count = !skipped && region.region.kind != Kind::Skipped;
        if !entry && !skipped {
            if let Some(last) = self.segments.last() {
                if last.3 == has_count && last.2 == region.count && !last.4 {
                    return;
                }
            }
        }
        self.segments.push(if has_count {
            let gap = region.region.kind == Kind::Gap;
            Segment(at.0, at.1, region.count, true, entry, gap)
        } else {
            Segment(at.0, at.1, 0, false, entry, false)
        });
    }

    /// Closes the active regions from `first_done` on (those ending before
    /// `next`, the start of the next region; all of them when `None`).
    fn complete_until(&mut self, next: Option<(u32, u32)>, first_done: usize) {
        self.active[first_done..].sort_by_key(|r| r.end());
        let n = self.active.len();
        for i in first_done + 1..n {
            let at = self.active[i - 1].end();
            if next == Some(at) {
                break;
            }
            let mut done = self.active[i];
            if at == done.end() {
                continue;
            }
            // The count of the last completed region ending where this does.
            for j in i + 1..n {
                if self.active[j].end() == done.end() {
                    done = self.active[j];
                }
            }
            self.start(&done, at, false, false);
        }
        if let Some(&last) = self.active.last() {
            if first_done > 0 && Some(last.end()) != next {
                // The region still open fills the gap up to the next one.
                let open = self.active[first_done - 1];
                self.start(&open, last.end(), false, false);
            } else if first_done == 0 && next != Some(last.end()) {
                // No region left open: what follows is not code.
                self.start(&last, last.end(), false, true);
            }
        }
        self.active.truncate(first_done);
    }
}
