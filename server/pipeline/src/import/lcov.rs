//! lcov tracefiles (`.info`, as `lcov --capture --test-name NAME` or
//! `geninfo` write them): one record per source file, `end_of_record`
//! between records, `TN:` naming the test the records after it belong to.
//!
//! Read: `TN:`, `SF:` (source), `FN:` (function start, and end in lcov 2's
//! `FN:start,end,name`), `DA:line,count` (every instrumented line, count 0
//! included), `BRDA:line,block,branch,taken` (`-` when the line never ran).
//! Everything else (checksums, summaries `LF`/`LH`/`BRF`…) is ignored.

use crate::gcov::{self, Coverage, FileCounts};
use std::path::PathBuf;

/// Per test name, its coverage; tests in the order the file names them.
/// A record before any `TN:` (or after an empty one) belongs to `default`.
pub fn parse(text: &str, default: &str) -> Result<Vec<(String, Coverage)>, String> {
    let mut tests: Vec<(String, Coverage)> = Vec::new();
    let mut test = default.to_string();
    // The record being read: its source and counts.
    let mut open: Option<(PathBuf, FileCounts)> = None;
    // Function starts of the open record, by name, for lcov 1's `FN:` without an end.
    let mut starts: Vec<u32> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        let at = |what: &str| format!("line {}: {what}", i + 1);
        let (key, value) = line.split_once(':').unwrap_or((line, ""));
        match key {
            "TN" => {
                test = if value.trim().is_empty() {
                    default.to_string()
                } else {
                    value.trim().to_string()
                }
            }
            "SF" => {
                if open.is_some() {
                    return Err(at("a new SF: before the end_of_record of the last"));
                }
                open = Some((PathBuf::from(value), FileCounts::default()));
                starts.clear();
            }
            "FN" => {
                let (_, counts) = open.as_mut().ok_or_else(|| at("FN: outside a record"))?;
                let mut parts = value.splitn(3, ',');
                let start = line_number(parts.next()).ok_or_else(|| at("FN: without a line"))?;
                let second = parts.next().unwrap_or("");
                match (second.parse::<u32>(), parts.next()) {
                    (Ok(end), Some(_)) => counts.functions.push((start, end)),
                    _ => starts.push(start),
                }
            }
            "DA" => {
                let (_, counts) = open.as_mut().ok_or_else(|| at("DA: outside a record"))?;
                let mut parts = value.split(',');
                let (Some(l), Some(c)) = (line_number(parts.next()), number(parts.next())) else {
                    return Err(at("DA: is not line,count (a line from 1)"));
                };
                let slot = counts.lines.entry(l).or_insert((0, Vec::new()));
                slot.0 = slot.0.saturating_add(c);
            }
            "BRDA" => {
                let (_, counts) = open.as_mut().ok_or_else(|| at("BRDA: outside a record"))?;
                let parts: Vec<&str> = value.split(',').collect();
                let (Some(l), Some(taken)) = (line_number(parts.first().copied()), parts.get(3))
                else {
                    return Err(at("BRDA: is not line,block,branch,taken"));
                };
                let taken = match *taken {
                    "-" => 0,
                    t => t
                        .trim()
                        .parse()
                        .map_err(|_| at("BRDA: taken is not a number"))?,
                };
                counts
                    .lines
                    .entry(l)
                    .or_insert((0, Vec::new()))
                    .1
                    .push(taken);
            }
            "end_of_record" => {
                let (path, mut counts) = open
                    .take()
                    .ok_or_else(|| at("end_of_record without a record"))?;
                close_functions(&mut counts, &starts);
                let coverage = match tests.iter_mut().find(|(name, _)| *name == test) {
                    Some((_, coverage)) => coverage,
                    None => {
                        tests.push((test.clone(), Coverage::new()));
                        &mut tests.last_mut().expect("just pushed").1
                    }
                };
                add(coverage, path, counts);
            }
            _ => {}
        }
    }
    if open.is_some() {
        return Err("the last record has no end_of_record (is the file cut short?)".into());
    }
    Ok(tests)
}

fn number(text: Option<&str>) -> Option<u64> {
    text?.trim().parse().ok()
}

/// A source line: from 1, within `u32` (never wrapped round).
fn line_number(text: Option<&str>) -> Option<u32> {
    text?.trim().parse().ok().filter(|&l| l > 0)
}

/// lcov 1 gives only a function's first line: it ends before the next
/// function of the file (or at the file's last instrumented line).
fn close_functions(counts: &mut FileCounts, starts: &[u32]) {
    let mut sorted: Vec<u32> = starts.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let last = counts.lines.keys().next_back().copied().unwrap_or(0);
    for (i, &start) in sorted.iter().enumerate() {
        let end = sorted
            .get(i + 1)
            .map_or(last, |next| next.saturating_sub(1));
        counts.functions.push((start, end.max(start)));
    }
}

/// Adds a record's counts to a test's coverage (the same file may be in
/// several records: one per object that compiled it, or several files).
pub(super) fn add(coverage: &mut Coverage, path: PathBuf, counts: FileCounts) {
    let entry = coverage.entry(path).or_default();
    for f in counts.functions {
        if !entry.functions.contains(&f) {
            entry.functions.push(f);
        }
    }
    for (line, (count, branches)) in counts.lines {
        gcov::add_counts(
            entry.lines.entry(line).or_insert((0, Vec::new())),
            count,
            &branches,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn lines(coverage: &Coverage, path: &str) -> BTreeMap<u32, (u64, Vec<u64>)> {
        coverage[&PathBuf::from(path)].lines.clone()
    }

    const TWO_TESTS: &str = "\
TN:adds_small
SF:/ci/build/src/calc.c
FN:3,add
FN:9,main
FNDA:1,add
DA:3,1
DA:4,1
DA:5,0
BRDA:4,0,0,1
BRDA:4,0,1,-
DA:9,1
DA:10,1
LF:5
LH:4
end_of_record
TN:adds_big
SF:/ci/build/src/calc.c
FN:3,6,add
DA:3,2
DA:4,2
DA:5,2
BRDA:4,0,0,0
BRDA:4,0,1,2
end_of_record
";

    #[test]
    fn records_group_by_test_name_with_counts_branches_and_functions() {
        let tests = parse(TWO_TESTS, "whole").unwrap();
        let names: Vec<&str> = tests.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["adds_small", "adds_big"]);
        let small = &tests[0].1;
        assert_eq!(
            lines(small, "/ci/build/src/calc.c"),
            BTreeMap::from([
                (3, (1, vec![])),
                (4, (1, vec![1, 0])),
                (5, (0, vec![])),
                (9, (1, vec![])),
                (10, (1, vec![])),
            ])
        );
        // lcov 1's FN: ends before the next function.
        let functions = &small[&PathBuf::from("/ci/build/src/calc.c")].functions;
        assert_eq!(functions, &[(3, 8), (9, 10)]);
        let big = &tests[1].1[&PathBuf::from("/ci/build/src/calc.c")];
        assert_eq!(big.functions, [(3, 6)]);
        assert_eq!(big.lines[&4], (2, vec![0, 2]));
    }

    #[test]
    fn records_without_a_test_name_belong_to_the_default_and_errors_say_where() {
        let text = "SF:a.c\nDA:1,1\nend_of_record\n";
        let tests = parse(text, "from-file-name").unwrap();
        assert_eq!(tests[0].0, "from-file-name");
        assert_eq!(
            parse("SF:a.c\nDA:x,1\nend_of_record\n", "t").unwrap_err(),
            "line 2: DA: is not line,count (a line from 1)"
        );
        assert!(parse("SF:a.c\nDA:1,1\n", "t")
            .unwrap_err()
            .contains("cut short"));
        assert!(parse("DA:1,1\n", "t")
            .unwrap_err()
            .contains("outside a record"));
        // A line past u32 is refused, not wrapped round to line 1.
        assert!(parse("SF:a.c\nDA:4294967297,1\nend_of_record\n", "t").is_err());
    }
}
