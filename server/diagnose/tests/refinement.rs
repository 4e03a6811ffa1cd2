//! Refinement to the sub-expression that must change, on real localization
//! runs (gcc --coverage build, real test processes) of small projects.

mod common;

use faultlens_core::diagnosis::{DiagnosisReport, SubExpression};
use faultlens_diagnose::{diagnose_project, CancelToken, DiagnoseOptions};

/// `inrange X LO HI`: whether X lies in [LO, HI]. The fault: `x < hi` for
/// `x <= hi` (line 9).
const INRANGE: &str = r#"#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    int x = atoi(argv[1]), lo = atoi(argv[2]), hi = atoi(argv[3]);
    if (x >= lo && x < hi)
        puts("inside");
    else
        puts("outside");
    return 0;
}
"#;

const TESTS: &[(&str, &str, &str)] = &[
    ("middle", "5 1 10", "inside"),
    ("at-low", "1 1 10", "inside"),
    ("at-high", "10 1 10", "inside"),
    ("below", "0 1 10", "outside"),
    ("above", "11 1 10", "outside"),
    ("single-point", "7 7 7", "inside"),
];

fn diagnosed(dir: &std::path::Path) -> DiagnosisReport {
    std::fs::write(dir.join("inrange.c"), INRANGE).unwrap();
    let mut toml = String::from("[build]\nsources = [\"inrange.c\"]\nprogram = \"inrange\"\n");
    for (name, args, out) in TESTS {
        let args: Vec<String> = args.split(' ').map(|a| format!("\"{a}\"")).collect();
        toml.push_str(&format!(
            "\n[[test]]\nname = \"{name}\"\nargs = [{}]\nexpected_stdout = \"{out}\\n\"\n",
            args.join(", ")
        ));
    }
    std::fs::write(dir.join("faultlens.toml"), toml).unwrap();
    let (project, results) = common::localized(dir);
    assert_eq!(results.failed_count(), 2);
    let opts = DiagnoseOptions::with_effort(120.0);
    diagnose_project(&project, &results, &opts, &|_| {}, &CancelToken::new()).unwrap()
}

#[test]
fn a_wrong_operand_of_a_conjunction_is_named_and_the_right_one_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let report = diagnosed(dir.path());
    assert!(report.complete, "{report:#?}");
    let on_the_condition: Vec<Option<&SubExpression>> = report
        .diagnoses
        .iter()
        .flat_map(|d| &d.statements)
        .filter(|s| s.file == "inrange.c" && s.line == 9)
        .map(|s| s.subexpression.as_ref())
        .collect();
    // Alone, the condition explains both failing tests; `x >= lo` holds in
    // both already, so only `x < hi` can mend them. Inside it, `x` and `hi`
    // each could: the refinement stops at `x < hi`.
    assert_eq!(
        on_the_condition.first().copied().flatten(),
        Some(&SubExpression {
            text: "x < hi".into(),
            line: 9,
            start_column: 20,
            end_line: 9,
            end_column: 26,
        }),
        "{report:#?}"
    );
    assert!(report.stats.subexpressions_found >= 1);
}
