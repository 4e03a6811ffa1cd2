//! Edge counts derived from clang's source-based coverage, checked against
//! the same runs as `gcov_edges.rs`, whose tables were checked by hand:
//! every function's edge profile must be the one gcov's counts give, except
//! where clang's counters cannot tell (a run that stopped inside a call; a
//! condition inside a system header's macro, such as glibc's `assert`).

mod common;
use common::{Coverage, Program};

struct Compared {
    /// Functions whose tables differ between gcov and clang.
    differ: Vec<String>,
    /// Per function, edges clang's evidence left undetermined.
    unresolved: Vec<(String, usize)>,
    /// Per function, clang's counts that disagreed with the solution.
    inconsistent: Vec<(String, usize)>,
    /// Per function, decisions whose branch counts clang's data lacks.
    unmatched: Vec<(String, usize)>,
    /// `describe_edge` → count, per function, from clang.
    clang: Vec<(String, Vec<(String, u64)>)>,
}

/// Derives every function's table from gcov's and from clang's counts of
/// the same run.
fn compare(source: &str, args: &[&str]) -> Compared {
    let gcc = Program::compile_for(source, Coverage::Gcov);
    let clang = Program::compile_for(source, Coverage::Clang);
    let by_gcov = gcc.profile(args);
    let by_clang = clang.profile(args);
    let mut differ = Vec::new();
    let mut tables = Vec::new();
    for cfg in &gcc.cfgs {
        let g = by_gcov.table(&cfg.name);
        let c = by_clang.table(&cfg.name);
        if g != c {
            let diffs: Vec<String> = g
                .iter()
                .zip(&c)
                .filter(|(a, b)| a != b)
                .map(|(a, b)| format!("{}: gcov {} clang {}", a.0, a.1, b.1))
                .collect();
            eprintln!("{}({args:?}): {}", cfg.name, diffs.join("; "));
            differ.push(cfg.name.clone());
        }
        tables.push((cfg.name.clone(), c));
    }
    let mut unresolved = Vec::new();
    let mut inconsistent = Vec::new();
    let mut unmatched = Vec::new();
    for (cfg, p) in clang.cfgs.iter().zip(&by_clang.profiles) {
        if p.unmatched_branches > 0 {
            unmatched.push((cfg.name.clone(), p.unmatched_branches));
        }
        if p.unresolved > 0 {
            unresolved.push((cfg.name.clone(), p.unresolved));
        }
        if p.inconsistent > 0 {
            inconsistent.push((cfg.name.clone(), p.inconsistent));
        }
    }
    Compared {
        differ,
        unresolved,
        inconsistent,
        unmatched,
        clang: tables,
    }
}

fn count(c: &Compared, function: &str, edge: &str) -> u64 {
    let table = &c.clang.iter().find(|(f, _)| f == function).unwrap().1;
    let hits: Vec<u64> = table
        .iter()
        .filter(|(d, _)| d == edge)
        .map(|(_, n)| *n)
        .collect();
    assert_eq!(hits.len(), 1, "{edge} in {function}: {table:?}");
    hits[0]
}

const NONE: &[&str] = &[];

#[test]
fn constructs_loops_with_break_and_continue() {
    let c = compare(include_str!("programs/constructs.c"), &["1", "1", "10"]);
    assert_eq!(c.differ, NONE);
    // Every decision, the switch included (from its labels' regions), has
    // clang's counts.
    assert!(c.unmatched.is_empty(), "{:?}", c.unmatched);
    assert!(c.unresolved.is_empty(), "{:?}", c.unresolved);
    assert!(c.inconsistent.is_empty(), "{:?}", c.inconsistent);
    // Hand-known (gcov_edges.rs): the for loop runs 8 times (continue at
    // i = 3, break at i = 7), the while loop 10 times.
    assert_eq!(count(&c, "f", "line 14 true → line 15"), 8);
    assert_eq!(count(&c, "f", "line 15 true → line 16"), 1);
    assert_eq!(count(&c, "f", "line 17 true → line 18"), 1);
    assert_eq!(count(&c, "f", "line 21 true → line 22"), 10);
    assert_eq!(count(&c, "f", "line 25 case #0 → line 26"), 1);
}

#[test]
fn constructs_else_branch_and_empty_loops() {
    let c = compare(include_str!("programs/constructs.c"), &["0", "2", "0"]);
    assert_eq!(c.differ, NONE);
    assert!(c.unmatched.is_empty(), "{:?}", c.unmatched);
    assert!(c.unresolved.is_empty(), "{:?}", c.unresolved);
    assert!(c.inconsistent.is_empty(), "{:?}", c.inconsistent);
}

#[test]
fn constructs_crash_in_callee() {
    // f(5,1,2) crashes inside deref(NULL), called at line 35. gcc ends its
    // block after the call, so gcov's counts show that line 35 was never
    // left; clang counts the code after the call in the call's region and
    // reads as if f and main went on to return.
    let c = compare(include_str!("programs/constructs.c"), &["5", "1", "2"]);
    assert_eq!(c.differ, ["f", "main"]);
    assert!(c.unresolved.is_empty(), "{:?}", c.unresolved);
    assert!(c.inconsistent.is_empty(), "{:?}", c.inconsistent);
    assert_eq!(count(&c, "f", "line 35 true → line 35"), 1);
    assert_eq!(
        count(&c, "f", "line 35 next → line 36"),
        1,
        "the stop is not seen"
    );
    // Everything before the call is exact.
    assert_eq!(count(&c, "f", "line 14 true → line 15"), 2);
    assert_eq!(count(&c, "f", "line 21 true → line 22"), 2);
}

#[test]
fn logic_negation_ternary_goto_assert() {
    let c = compare(include_str!("programs/logic.c"), &["0", "0", "1"]);
    assert_eq!(c.differ, NONE);
    assert!(c.unresolved.is_empty(), "{:?}", c.unresolved);
    assert!(c.inconsistent.is_empty(), "{:?}", c.inconsistent);
}

#[test]
fn logic_exit_in_callee() {
    // stop(7) calls exit: gcov shows main's last block never left; clang
    // counts main's `return 0` in the region of the call.
    // clang also counts stop's closing brace once (its region's count),
    // though the run left through `exit`: two equations disagree, and the
    // derivation still gives stop the table gcov's counts give.
    let c = compare(include_str!("programs/logic.c"), &["7", "1"]);
    assert_eq!(c.differ, ["main"]);
    assert!(c.unresolved.is_empty(), "{:?}", c.unresolved);
    assert_eq!(c.inconsistent, [("stop".to_string(), 2)]);
}

#[test]
fn chains_of_or_folded_conditionals_and_asserts() {
    // `||` chains and an `&&` split over two lines whose second line never
    // runs get exact counts from clang's regions (gcov leaves the unrun
    // line's branches out and the derivation infers them). clang has no
    // regions in glibc's `assert` (a system header's macro), so the `&&`
    // inside `assert(low <= c && flag >= 0)` stays undetermined.
    let c = compare(
        include_str!("programs/chains.c"),
        &["0", "(", "[", "x", ")"],
    );
    assert_eq!(c.differ, ["classify"]);
    assert_eq!(c.unresolved, [("classify".to_string(), 3)]);
    assert!(c.inconsistent.is_empty(), "{:?}", c.inconsistent);
    assert_eq!(count(&c, "classify", "line 7 false → line 9"), 2);
    assert_eq!(count(&c, "classify", "line 9 true → line 10"), 0);
}
