//! clang's source-based coverage in the form the edge derivation reads.
//!
//! `llvm-cov export` gives, per condition, a branch region: the condition's
//! source range with how often it was true and how often false. gcov lists
//! a line's branches in gcc's order instead (see `build`). Each condition
//! the graph tests is matched to its branch region by source range, and its
//! two counts are written in the order of the decision's edges, so a
//! results document made from clang's data reads like one made from gcov's.
//!
//! Line counts follow llvm-cov with two changes toward gcov's meaning (see
//! [`line_counts`]); a function's calls are counted on its signature line,
//! as gcov does; only lines with code in the graph are executable (clang
//! also maps braces, `else` and macro uses in declarations).
//!
//! Where clang's counts differ from gcov's by nature: a run that stops
//! inside a call is counted as having run the rest of the call's region
//! (gcc ends its blocks after calls), and a function's closing brace counts
//! the function's entries even when its last statement called `exit`.
//!
//! clang counts each condition by its column, so `a && b` on one line, a
//! condition split over lines, and operands gcc tests on another line than
//! their own all get exact counts; gcov has only per-line lists, whose
//! operands the derivation matches by order and by which lines ran.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::graph::{DecisionKind, EdgeKind, FunctionCfg};

/// One branch region of `llvm-cov export`: 1-based line and byte column of
/// its start and (exclusive) end, and how often the condition held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BranchRegion {
    pub start: (u32, u32),
    pub end: (u32, u32),
    pub true_count: u64,
    pub false_count: u64,
}

/// The parts of `llvm-cov export -format=text` that are read.
#[derive(Debug, Deserialize)]
pub struct Export {
    data: Vec<ExportData>,
}

#[derive(Debug, Deserialize)]
struct ExportData {
    #[serde(default)]
    files: Vec<ExportFile>,
    #[serde(default)]
    functions: Vec<ExportFunction>,
}

#[derive(Debug, Deserialize)]
struct ExportFile {
    filename: String,
    #[serde(default)]
    segments: Vec<Segment>,
    #[serde(default)]
    branches: Vec<Vec<serde_json::Value>>,
}

/// `[line, column, count, has_count, is_region_entry, is_gap_region]`.
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
pub struct Segment(
    pub u32,
    pub u32,
    pub u64,
    pub bool,
    pub bool,
    #[serde(default)] pub bool,
);

#[derive(Debug, Deserialize)]
struct ExportFunction {
    count: u64,
    /// `[line, column, end line, end column, count, file id, expanded file id, kind]`.
    #[serde(default)]
    regions: Vec<Vec<serde_json::Value>>,
    #[serde(default)]
    filenames: Vec<String>,
}

/// One file of an export made without `llvm-cov` (faultlens's own reader
/// of clang's files): what `llvm-cov export` would list for it.
pub struct ReadFile {
    pub filename: String,
    pub segments: Vec<Segment>,
    /// The branch regions of the file's own code (not of macro expansions).
    pub branches: Vec<BranchRegion>,
}

/// One function of such an export: how often it was entered, the line its
/// first region starts on, and the file it is defined in.
pub struct ReadFunction {
    pub count: u64,
    pub first_line: u32,
    pub filename: String,
}

impl Export {
    pub fn parse(json: &str) -> Result<Export, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    /// The export `llvm-cov export` would print, from what faultlens read
    /// itself.
    pub fn from_read(files: Vec<ReadFile>, functions: Vec<ReadFunction>) -> Export {
        let row = |values: &[u64]| values.iter().map(|&v| v.into()).collect();
        let files = files
            .into_iter()
            .map(|f| ExportFile {
                filename: f.filename,
                segments: f.segments,
                branches: f
                    .branches
                    .iter()
                    .map(|b| {
                        let (s, e) = (b.start, b.end);
                        let (l, c, el, ec) = (s.0 as u64, s.1 as u64, e.0 as u64, e.1 as u64);
                        row(&[l, c, el, ec, b.true_count, b.false_count, 0, 0])
                    })
                    .collect(),
            })
            .collect();
        let functions = functions
            .into_iter()
            .map(|f| ExportFunction {
                count: f.count,
                regions: vec![row(&[f.first_line as u64])],
                filenames: vec![f.filename],
            })
            .collect();
        Export {
            data: vec![ExportData { files, functions }],
        }
    }

    /// The source files the export covers, as named in it.
    pub fn files(&self) -> Vec<&str> {
        self.data
            .iter()
            .flat_map(|d| d.files.iter().map(|f| f.filename.as_str()))
            .collect()
    }
}

/// One file's counts in gcov's form.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileCounts {
    /// line → (count, branch counts in gcc's order).
    pub lines: BTreeMap<u32, (u64, Vec<u64>)>,
    /// `(signature line, last line)` of each function.
    pub functions: Vec<(u32, u32)>,
}

/// The counts of the file named `filename` in `export`, whose text is
/// `source` and graphs `cfgs` (from `build_cfgs(source)`).
pub fn file_counts(
    export: &Export,
    filename: &str,
    source: &str,
    cfgs: &[FunctionCfg],
) -> FileCounts {
    let text: Vec<&str> = source.lines().collect();
    let mut counts = FileCounts::default();
    for data in &export.data {
        for file in data.files.iter().filter(|f| f.filename == filename) {
            for (line, count) in line_counts(&file.segments, &text) {
                let slot = counts.lines.entry(line).or_insert((0, Vec::new()));
                slot.0 = slot.0.max(count);
            }
            let regions: Vec<BranchRegion> =
                file.branches.iter().filter_map(|b| branch(b)).collect();
            for (line, branches) in gcov_order_branches(cfgs, source, &regions) {
                if let Some(slot) = counts.lines.get_mut(&line) {
                    slot.1 = branches;
                }
            }
        }
        for function in &data.functions {
            if function.filenames.first().map(String::as_str) != Some(filename) {
                continue;
            }
            let Some(start) = function
                .regions
                .first()
                .and_then(|r| r.first())
                .and_then(|v| v.as_u64())
            else {
                continue;
            };
            let start = start as u32;
            // The graph of the function whose body starts there.
            let Some(cfg) = cfgs
                .iter()
                .find(|c| c.start_line <= start && start <= c.end_line)
            else {
                continue;
            };
            // gcov counts calls on the signature line.
            let slot = counts
                .lines
                .entry(cfg.header_line)
                .or_insert((0, Vec::new()));
            slot.0 = slot.0.max(function.count);
            let span = (cfg.header_line, cfg.end_line);
            if !counts.functions.contains(&span) {
                counts.functions.push(span);
            }
        }
    }
    keep_code_lines(&mut counts, &text, cfgs);
    counts
}

fn branch(v: &[serde_json::Value]) -> Option<BranchRegion> {
    let n = |i: usize| v.get(i).and_then(|x| x.as_u64());
    // Branches inside macro expansions (file id other than the file's own)
    // are not the file's conditions.
    if n(6)? != 0 {
        return None;
    }
    Some(BranchRegion {
        start: (n(0)? as u32, n(1)? as u32),
        end: (n(2)? as u32, n(3)? as u32),
        true_count: n(4)?,
        false_count: n(5)?,
    })
}

/// Keeps the lines that hold code of the graph (a statement, a condition,
/// a function's signature, the closing brace of a function that can fall
/// off its end): clang also maps braces, `else`, declarations without
/// initializer that use a macro, and macro definitions (as part of their
/// expansions), which gcov does not list. Without graphs (a file that could
/// not be read), drops only lines with nothing but braces and `else`.
fn keep_code_lines(counts: &mut FileCounts, text: &[&str], cfgs: &[FunctionCfg]) {
    let mut code: Vec<u32> = cfgs
        .iter()
        .flat_map(|c| c.blocks.iter())
        .flat_map(|b| b.pieces.iter())
        .filter(|p| !p.scope_open)
        .flat_map(|p| p.line..=p.end_line)
        .collect();
    code.sort_unstable();
    code.dedup();
    counts.lines.retain(|&line, _| {
        if cfgs.is_empty() {
            text.get((line as usize).wrapping_sub(1))
                .is_none_or(|t| !no_code(t))
        } else {
            code.binary_search(&line).is_ok()
        }
    });
}

/// Text without code of its own: braces, `else`, `do`, `;`.
fn no_code(text: &str) -> bool {
    text.split(|c: char| c.is_whitespace() || "{};".contains(c))
        .all(|word| word.is_empty() || word == "else" || word == "do")
}

/// Line counts from a file's segments, as llvm-cov computes them (its
/// `LineCoverageStats`: a line is mapped when a counted region starts on it
/// or the region in effect at its start has a count, and it does not start
/// a skipped region; its count is the largest of those), except that the
/// region in effect at the start only counts when code precedes the first
/// region boundary on the line: `} else if (c)` counts the evaluations of
/// `c`, as gcov does, not the runs of the block that `}` closes, and
/// `&& c` on a condition's second line counts the evaluations of `c`, not
/// of the whole condition. `text` is
/// the file's lines (may be empty: llvm-cov's own counts).
fn line_counts(segments: &[Segment], text: &[&str]) -> BTreeMap<u32, u64> {
    let mut out = BTreeMap::new();
    let (Some(first), Some(last)) = (segments.first(), segments.last()) else {
        return out;
    };
    let mut wrapped: Option<Segment> = None;
    let mut i = 0;
    for line in first.0..=last.0 {
        let begin = i;
        while i < segments.len() && segments[i].0 == line {
            i += 1;
        }
        let on_line = &segments[begin..i];
        let is_start = |s: &Segment| !s.5 && s.3 && s.4;
        let starts = on_line.iter().filter(|s| is_start(s)).count();
        let skipped = on_line.first().is_some_and(|s| !s.3 && s.4);
        let mapped = !skipped && (wrapped.is_some_and(|w| w.3) || starts > 0);
        if mapped {
            let code_first = match (on_line.first(), text.get((line as usize).wrapping_sub(1))) {
                (Some(first), Some(t)) => t
                    .get(..(first.1 as usize).saturating_sub(1))
                    .unwrap_or(t)
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .any(|word| !word.is_empty() && word != "else"),
                _ => true,
            };
            let mut count = if starts == 0 || code_first {
                wrapped.map_or(0, |w| w.2)
            } else {
                0
            };
            for s in on_line.iter().filter(|s| is_start(s)) {
                count = count.max(s.2);
            }
            out.insert(line, count);
        }
        if let Some(last) = on_line.last() {
            wrapped = Some(*last);
        }
    }
    out
}

/// Branch counts per line in gcc's order for the decisions of `cfgs` (the
/// graphs of `source`), taken from clang's branch regions of that file.
/// A line gets counts only when every decision on it has its region (a
/// partial list would be matched to the wrong decisions). A `switch`
/// dispatches to each target as often as clang's regions of the target's
/// labels were true (a label's count leaves out fall-through), and to the
/// implicit `default` (no label) the rest.
pub fn gcov_order_branches(
    cfgs: &[FunctionCfg],
    source: &str,
    regions: &[BranchRegion],
) -> BTreeMap<u32, Vec<u64>> {
    let offsets = LineOffsets::new(source);
    let mut per_line: BTreeMap<u32, Vec<Ordered>> = BTreeMap::new();
    for cfg in cfgs {
        for block in &cfg.blocks {
            let Some(d) = block.decision else { continue };
            let counts = match d.kind {
                DecisionKind::Switch => switch_counts(cfg, block, source, &offsets, regions),
                DecisionKind::Condition => {
                    matching_region(regions, d.start, d.end, source, &offsets).map(|r| {
                        block
                            .succs
                            .iter()
                            .map(|&e| match cfg.edges[e].kind {
                                EdgeKind::True => r.true_count,
                                EdgeKind::False => r.false_count,
                                _ => 0,
                            })
                            .collect()
                    })
                }
            };
            per_line.entry(d.line).or_default().push((d.order, counts));
        }
    }
    per_line
        .into_iter()
        .filter_map(|(line, mut decisions)| {
            decisions.sort_by_key(|(order, _)| *order);
            let mut all = Vec::new();
            for (_, counts) in decisions {
                all.extend(counts?);
            }
            Some((line, all))
        })
        .collect()
}

/// The dispatch counts of a switch block, in the order of its edges.
fn switch_counts(
    cfg: &FunctionCfg,
    block: &crate::graph::Block,
    source: &str,
    offsets: &LineOffsets,
    regions: &[BranchRegion],
) -> Option<Vec<u64>> {
    let labels: Vec<&BranchRegion> = regions
        .iter()
        .filter(|r| {
            offsets
                .offset(r.start)
                .and_then(|o| source.get(o..))
                .is_some_and(|t| t.starts_with("case") || t.starts_with("default"))
        })
        .collect();
    let mut claimed = vec![0usize; labels.len()];
    let mut counts = Vec::with_capacity(block.succs.len());
    let mut unlabelled = Vec::new();
    let mut total = None;
    for (i, &e) in block.succs.iter().enumerate() {
        let target = &cfg.blocks[cfg.edges[e].to];
        let mut sum = 0;
        let mut any = false;
        for (k, r) in labels.iter().enumerate() {
            let own = target
                .pieces
                .iter()
                .any(|p| !p.continuation && p.line == r.start.0);
            if own {
                claimed[k] += 1;
                sum += r.true_count;
                any = true;
                total = Some(r.true_count + r.false_count);
            }
        }
        if !any {
            unlabelled.push(i);
        }
        counts.push(sum);
    }
    // A line with labels of two targets cannot be told apart by line.
    if claimed.iter().any(|&c| c > 1) || unlabelled.len() > 1 {
        return None;
    }
    if let Some(&i) = unlabelled.first() {
        let labelled: u64 = counts.iter().sum();
        counts[i] = total?.checked_sub(labelled)?;
    }
    Some(counts)
}

/// A decision's position among the function's decisions and its counts in
/// the order of its edges (None when it has no region).
type Ordered = (usize, Option<Vec<u64>>);

/// The smallest region that is the expression itself, possibly within
/// parentheses (clang may keep them in the region; the graph strips them).
fn matching_region<'a>(
    regions: &'a [BranchRegion],
    start: (u32, u32),
    end: (u32, u32),
    source: &str,
    offsets: &LineOffsets,
) -> Option<&'a BranchRegion> {
    let (Some(s), Some(e)) = (offsets.offset(start), offsets.offset(end)) else {
        return None;
    };
    regions
        .iter()
        .filter(|r| r.start <= start && r.end >= end)
        .filter(|r| {
            let (Some(rs), Some(re)) = (offsets.offset(r.start), offsets.offset(r.end)) else {
                return false;
            };
            let only = |text: Option<&str>, allowed: char| {
                text.is_some_and(|t| t.chars().all(|c| c == allowed || c.is_whitespace()))
            };
            only(source.get(rs..s), '(') && only(source.get(e..re), ')')
        })
        .min_by_key(|r| (r.end.0 - r.start.0, r.end.1 as i64 - r.start.1 as i64))
}

/// Byte offsets of line starts, to turn (line, column) into an offset.
struct LineOffsets {
    starts: Vec<usize>,
    len: usize,
}

impl LineOffsets {
    fn new(source: &str) -> LineOffsets {
        let mut starts = vec![0];
        starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        LineOffsets {
            starts,
            len: source.len(),
        }
    }

    fn offset(&self, (line, column): (u32, u32)) -> Option<usize> {
        let start = *self.starts.get((line as usize).checked_sub(1)?)?;
        let offset = start + (column as usize).checked_sub(1)?;
        (offset <= self.len).then_some(offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build_cfgs;

    #[test]
    fn conditions_take_their_own_region_in_gcc_order() {
        let source =
            "int f(int a, int b)\n{\n    if (a || (b))\n        return 1;\n    return 0;\n}\n";
        let cfgs = build_cfgs(source).unwrap();
        // `a` true 2, false 3; `(b)` (clang keeps the parentheses) true 1, false 2.
        let regions = [
            BranchRegion {
                start: (3, 9),
                end: (3, 10),
                true_count: 2,
                false_count: 3,
            },
            BranchRegion {
                start: (3, 14),
                end: (3, 17),
                true_count: 1,
                false_count: 2,
            },
        ];
        let branches = gcov_order_branches(&cfgs, source, &regions);
        // gcc lists `a`'s edge to `b` (its false edge) first.
        assert_eq!(branches.get(&3), Some(&vec![3, 2, 1, 2]));
    }

    #[test]
    fn malformed_exports_are_read_without_panicking() {
        // Line 0 and a branch region outside the text.
        let json = r#"{"data":[{"files":[{"filename":"x.c","segments":[[0,1,1,true,true,false],[2,1,0,false,false,false]],"branches":[[0,0,9,9,1,1,0,0,4]]}],"functions":[{"name":"f","count":1,"regions":[[0,1,2,1,1,0,0,0]],"filenames":["x.c"]}]}]}"#;
        let export = Export::parse(json).unwrap();
        let source = "int f(void)\n{\n    return 0;\n}\n";
        let cfgs = build_cfgs(source).unwrap();
        let counts = file_counts(&export, "x.c", source, &cfgs);
        assert!(counts.lines.values().all(|(c, _)| *c <= 1));
        assert!(Export::parse("{").is_err());
    }

    #[test]
    fn a_line_with_an_unmatched_decision_gets_no_counts() {
        let source =
            "int f(int a, int b)\n{\n    if (a && b)\n        return 1;\n    return 0;\n}\n";
        let cfgs = build_cfgs(source).unwrap();
        let regions = [BranchRegion {
            start: (3, 9),
            end: (3, 10),
            true_count: 2,
            false_count: 3,
        }];
        assert!(gcov_order_branches(&cfgs, source, &regions).is_empty());
    }

    #[test]
    fn line_counts_follow_llvm_cov() {
        // `{` at 1:1 count 3; on line 2 a region 0 starts (the then part,
        // never run) and ends; line 3 lies in the function's region again;
        // line 4 starts a skipped region (#if 0).
        let segments = [
            Segment(1, 1, 3, true, true, false),
            Segment(2, 5, 3, true, true, false),
            Segment(2, 12, 0, true, true, false),
            Segment(2, 20, 3, true, false, false),
            Segment(4, 1, 0, false, true, false),
            Segment(5, 1, 3, true, false, false),
            Segment(6, 2, 0, false, false, false),
        ];
        let counts = line_counts(&segments, &[]);
        assert_eq!(counts.get(&1), Some(&3));
        assert_eq!(counts.get(&2), Some(&3), "the largest region start");
        assert_eq!(counts.get(&3), Some(&3), "inside the function's region");
        assert_eq!(counts.get(&4), None, "skipped");
        assert_eq!(counts.get(&6), Some(&3), "ends the region in effect");
    }

    #[test]
    fn a_closing_brace_does_not_lend_its_count_to_the_else_if() {
        // Line 2 `        } else if (c) {`: the then part (count 5) ends
        // at its `}`, a gap follows, the condition starts at column 20.
        let text = ["        if (a) {", "        } else if (c) {"];
        let segments = [
            Segment(1, 9, 7, true, true, false),
            Segment(1, 16, 5, true, true, false),
            Segment(2, 10, 2, true, false, true),
            Segment(2, 20, 2, true, true, false),
            Segment(2, 23, 1, true, true, false),
        ];
        let counts = line_counts(&segments, &text);
        assert_eq!(counts.get(&2), Some(&2));
        assert_eq!(
            line_counts(&segments, &[]).get(&2),
            Some(&5),
            "llvm-cov's own count"
        );
    }
}
