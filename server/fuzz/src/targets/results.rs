//! The stored documents: `.faultlens/results.json` (`RunResults::from_json`,
//! which validates) and `.faultlens/diagnosis.json`
//! (`DiagnosisReport::from_json`), directly and through the pipeline's
//! bounded readers (`store::read_results`, `store::read_diagnosis`, which
//! also take bytes that are not UTF-8). A document that is accepted is used
//! as the CLI and the editor use it: ranked under spectrum measures and
//! BlockRank, rendered as a table, the JSON ranking and SARIF; a diagnosis
//! rendered and fused with a real run. Accepted documents must survive a
//! write and a read unchanged.

use crate::{data_dir, shape, Rng, Target};
use faultlens_core::diagnosis::DiagnosisReport;
use faultlens_core::measures::Ranker;
use faultlens_core::results::RunResults;
use faultlens_core::sources::SourceTexts;
use faultlens_report::analysis::Analysis;
use faultlens_workspace::store;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

pub fn target() -> Target {
    Target {
        name: "results",
        about: "results.json and diagnosis.json: readers, validation, ranking and rendering",
        run,
        generate,
        dictionary: DICTIONARY,
        max_len: 256 * 1024,
        hang_limit: Duration::from_secs(2),
        ci_inputs: 2500,
    }
}

const DICTIONARY: &[&[u8]] = &[
    b"\"format_version\":1",
    b"\"files\":[]",
    b"\"tests\":[]",
    b"\"lines\":[1,2,3]",
    b"\"counts\":[1,0,5]",
    b"\"coverage\":[]",
    b"\"branches\":[]",
    b"\"file\":0",
    b"\"line\":4294967295",
    b"\"path\":\"mid.c\"",
    b"\"path\":\"../x.c\"",
    b"\"verdict\":\"fail\"",
    b"\"outcome\":\"crashed\"",
    b"\"outcome\":\"timed_out\"",
    b"\"test_code\":true",
    b"\"diagnoses\":[]",
    b"\"statements\":[]",
    b"\"angelic\":[]",
    b"\"evidence\":[]",
    b"\"cores\":[]",
    b"\"instance\":0",
    b"\"value\":-9223372036854775808",
    b"\"subexpression\":{}",
    b"\"start_column\":0",
    b"null",
    b"true",
    b"{}",
    b"[]",
    b",",
    b":",
];

struct Fixed {
    results: Arc<RunResults>,
    mid_c: String,
    root: PathBuf,
}

fn fixed() -> &'static Fixed {
    static FIXED: OnceLock<Fixed> = OnceLock::new();
    FIXED.get_or_init(|| {
        let text = std::fs::read_to_string(data_dir().join("mid-args-results.json"))
            .expect("data/mid-args-results.json");
        let root = tempfile::Builder::new()
            .prefix("faultlens-fuzz-results-")
            .tempdir()
            .expect("a temporary directory")
            .keep();
        std::fs::create_dir_all(root.join(".faultlens")).unwrap();
        Fixed {
            results: Arc::new(RunResults::from_json(&text).expect("the stored run is valid")),
            mid_c: std::fs::read_to_string(data_dir().join("mid.c")).expect("data/mid.c"),
            root,
        }
    })
}

/// The same value after a trip through its own JSON.
fn round_trip<T: serde::Serialize>(value: &T, parse: fn(&str) -> Result<T, String>) {
    let text = serde_json::to_string(value).expect("serializable");
    let again = parse(&text).unwrap_or_else(|e| panic!("a document read back is refused: {e}"));
    assert_eq!(
        serde_json::to_value(value).unwrap(),
        serde_json::to_value(&again).unwrap(),
        "a document changed through a write and a read"
    );
}

fn use_results(results: RunResults) -> String {
    round_trip(&results, RunResults::from_json);
    let fixed = fixed();
    let mut sources = SourceTexts::default();
    for f in &results.files {
        sources.insert(f.path.clone(), &fixed.mid_c);
    }
    let results = Arc::new(results);
    let mut signature = String::from("results ok");
    for measure in ["ochiai", "tarantula", "dstar", "naish1", "blockrank"] {
        let measure = Ranker::parse(measure).expect("a known measure");
        match Analysis::compute(results.clone(), measure, true, &sources, None) {
            Ok(analysis) => {
                for entry in analysis.entries() {
                    assert!(!entry.ranked.score.is_nan(), "a NaN score");
                }
                let _ = faultlens_report::table::table(&analysis, &sources, 10);
                let _ = faultlens_report::json::ranking_json(&analysis, &sources, Some(20));
                let _ = faultlens_report::sarif::sarif(&analysis, Some(10));
            }
            Err(e) => signature.push_str(&format!("\n{}", shape(&e.to_string()))),
        }
    }
    signature
}

fn use_diagnosis(report: DiagnosisReport) -> String {
    round_trip(&report, DiagnosisReport::from_json);
    let _ = faultlens_report::diagnosis::table(&report, Some(20));
    let _ = faultlens_report::diagnosis::json_output(&report, "/p");
    let _ = faultlens_report::diagnosis::sarif(&report, "/p", Some(20));
    let _ = faultlens_report::diagnosis::phrases::angelic_left_out(&report);
    let _ = faultlens_report::diagnosis::phrases::suspects_checked(&report);
    for (i, d) in report.diagnoses.iter().enumerate().take(10) {
        let _ = faultlens_report::diagnosis::phrases::diagnosis_title(i, d, report.complete);
        let _ = faultlens_report::diagnosis::hint_label(&d.angelic);
    }
    let analysis = Analysis::compute(
        fixed().results.clone(),
        Ranker::FUSION,
        false,
        &Default::default(),
        Some(&report),
    )
    .expect("fusion with a diagnosis needs nothing else");
    for entry in analysis.entries() {
        assert!(!entry.ranked.score.is_nan(), "a NaN fusion score");
    }
    "diagnosis ok".into()
}

pub fn run(data: &[u8]) -> String {
    let text = String::from_utf8_lossy(data);
    let mut signature = match RunResults::from_json(&text) {
        Ok(results) => use_results(results),
        Err(e) => shape(&e),
    };
    signature.push('\n');
    signature.push_str(&match DiagnosisReport::from_json(&text) {
        Ok(report) => use_diagnosis(report),
        Err(e) => shape(&e),
    });

    // The same bytes through the bounded readers of the pipeline.
    let root = &fixed().root;
    std::fs::write(store::results_path(root), data).unwrap();
    std::fs::write(store::diagnosis_path(root), data).unwrap();
    let results = store::read_results(root);
    let diagnosis = store::read_diagnosis(root);
    assert_eq!(
        results.is_ok(),
        std::str::from_utf8(data).is_ok() && RunResults::from_json(&text).is_ok(),
        "store::read_results and RunResults::from_json disagree"
    );
    assert!(matches!(results, Ok(Some(_)) | Err(_)));
    assert!(matches!(diagnosis, Ok(Some(_)) | Err(_)));
    signature
}

/// A document with one node changed: a number made huge or negative, a
/// string a path that leaves the project, an element duplicated or dropped,
/// a key removed or added.
fn mutate_value(rng: &mut Rng, value: &mut Value, depth: usize) {
    let descend = depth < 12 && rng.below(4) != 0;
    match value {
        Value::Array(items) if !items.is_empty() && descend => {
            let i = rng.below(items.len());
            mutate_value(rng, &mut items[i], depth + 1);
        }
        Value::Object(map) if !map.is_empty() && descend => {
            let keys: Vec<String> = map.keys().cloned().collect();
            let key = rng.pick(&keys);
            if let Some(v) = map.get_mut(&key) {
                mutate_value(rng, v, depth + 1);
            }
        }
        Value::Array(items) => match rng.below(5) {
            0 if !items.is_empty() => {
                let i = rng.below(items.len());
                let copy = items[i].clone();
                items.insert(rng.below(items.len() + 1), copy);
            }
            1 if !items.is_empty() => {
                items.remove(rng.below(items.len()));
            }
            2 if !items.is_empty() => {
                let copy = items[rng.below(items.len())].clone();
                for _ in 0..rng.range(2, 2000) {
                    items.push(copy.clone());
                }
            }
            3 => items.reverse(),
            _ => *value = odd(rng),
        },
        Value::Object(map) => match rng.below(3) {
            0 if !map.is_empty() => {
                let keys: Vec<String> = map.keys().cloned().collect();
                map.remove(&rng.pick(&keys));
            }
            1 => {
                map.insert(
                    rng.pick(&["extra", "file", "line", "lines", "stats", "subexpression"])
                        .to_string(),
                    odd(rng),
                );
            }
            _ => *value = odd(rng),
        },
        _ => *value = odd(rng),
    }
}

fn odd(rng: &mut Rng) -> Value {
    match rng.below(14) {
        0 => json!(0),
        1 => json!(-1),
        2 => json!(u32::MAX),
        3 => json!(u64::MAX),
        4 => json!(i64::MIN),
        5 => json!(1e300),
        6 => json!(""),
        7 => json!(rng.pick(&[
            "../x.c",
            "/etc/passwd",
            ".faultlens/results.json",
            "a\\b",
            "mid.c",
            "x\u{0}y",
            "é"
        ])),
        8 => json!(null),
        9 => json!([]),
        10 => json!({}),
        11 => json!(true),
        12 => json!((0..rng.range(1, 500))
            .map(|i| i * rng.range(1, 3))
            .collect::<Vec<_>>()),
        _ => json!("x".repeat(rng.range(1, 5000))),
    }
}

/// A results document of a random shape, sizes and lines included.
fn synthetic(rng: &mut Rng) -> Value {
    let files = rng.range(0, 4);
    let tests = rng.size(200);
    let line = |rng: &mut Rng| -> u64 {
        if rng.one_in(20) {
            u64::from(u32::MAX - rng.below(3) as u32)
        } else {
            rng.range(0, 60) as u64
        }
    };
    let file_list: Vec<Value> = (0..files)
        .map(|i| {
            let mut lines: Vec<u64> = (0..rng.size(80)).map(|_| line(rng)).collect();
            lines.sort();
            lines.dedup();
            json!({"path": format!("f{i}.c"), "test_code": rng.one_in(4), "lines": lines})
        })
        .collect();
    let test_list: Vec<Value> = (0..tests)
        .map(|i| {
            let covered: Vec<usize> = (0..files).filter(|_| !rng.one_in(3)).collect();
            let coverage: Vec<Value> = covered
                .into_iter()
                .map(|f| {
                    let lines: Vec<u64> = (0..rng.size(60)).map(|_| line(rng)).collect();
                    let counts: Vec<u64> = lines.iter().map(|_| rng.size(1000) as u64).collect();
                    let branches: Vec<Value> = (0..rng.size(4))
                        .map(|_| json!({"line": line(rng), "counts": [rng.size(9), rng.size(9)]}))
                        .collect();
                    json!({"file": f, "lines": lines, "counts": counts, "branches": branches})
                })
                .collect();
            let fail = rng.one_in(3);
            json!({
                "name": format!("t{i}"),
                "verdict": if fail { "fail" } else { "pass" },
                "outcome": if fail { rng.pick(&["failed", "crashed", "timed_out", "not_run"]) } else { "passed" },
                "duration_ms": rng.size(100),
                "coverage": coverage,
            })
        })
        .collect();
    json!({
        "format_version": 1, "tool_version": "0.1.0", "created_unix_ms": 0,
        "project_root": "/p", "suite": "io", "files": file_list, "tests": test_list,
    })
}

fn generate(rng: &mut Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    let base: Option<Value> = if corpus.is_empty() {
        None
    } else {
        serde_json::from_slice(&rng.pick(corpus)).ok()
    };
    let mut value = match base {
        Some(v) if !rng.one_in(4) => v,
        _ => synthetic(rng),
    };
    for _ in 0..rng.range(0, 4) {
        mutate_value(rng, &mut value, 0);
    }
    if rng.one_in(2) {
        serde_json::to_vec_pretty(&value).unwrap()
    } else {
        serde_json::to_vec(&value).unwrap()
    }
}
