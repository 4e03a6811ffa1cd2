//! The JSON ranking document and SARIF output.

mod common;
use common::*;

#[test]
fn json_carries_the_documented_fields_in_rank_order() {
    let dir = fixture("mid-args");
    let doc = localize_json(dir.path(), &["--measure", "tarantula"]);
    assert_eq!(doc["measure"], "tarantula");
    let tests = &doc["tests"];
    assert_eq!(tests["total"], 15);
    assert_eq!(tests["failed"], 3);
    for t in tests["list"].as_array().unwrap() {
        assert!(t["name"].is_string() && t["duration_ms"].is_u64());
        assert!(t["verdict"] == "pass" || t["verdict"] == "fail");
    }
    let ranking = doc["ranking"].as_array().unwrap();
    assert_eq!(
        ranking.len() as u64,
        doc["lines"]["ranked"].as_u64().unwrap(),
        "JSON lists every ranked line by default"
    );
    let mut previous = f64::INFINITY;
    for e in ranking {
        for key in [
            "file",
            "line",
            "score",
            "rank",
            "ef",
            "ep",
            "nf",
            "np",
            "confidence",
        ] {
            assert!(!e[key].is_null(), "{key} missing in {e}");
        }
        let (best, worst, avg) = (
            e["rank"]["best"].as_f64().unwrap(),
            e["rank"]["worst"].as_f64().unwrap(),
            e["rank"]["average"].as_f64().unwrap(),
        );
        assert!(best <= avg && avg <= worst && avg == (best + worst) / 2.0);
        let score = e["score"].as_f64().unwrap();
        assert!(score <= previous, "rank order");
        previous = score;
    }
    let limited = localize_json(dir.path(), &["--top", "3"]);
    assert_eq!(limited["ranking"].as_array().unwrap().len(), 3);
}

#[test]
fn rank_re_ranks_saved_results_under_another_measure_without_running() {
    let dir = fixture("mid-args");
    localize_json(dir.path(), &[]);
    let modified = std::fs::metadata(dir.path().join(".faultlens/results.json"))
        .unwrap()
        .modified()
        .unwrap();
    let out = faultlens(&[
        "rank",
        dir.path().to_str().unwrap(),
        "--measure",
        "dstar",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["measure"], "dstar");
    assert_eq!(doc["ranking"][0]["line"], 22);
    assert_eq!(
        std::fs::metadata(dir.path().join(".faultlens/results.json"))
            .unwrap()
            .modified()
            .unwrap(),
        modified
    );
}

#[test]
fn sarif_validates_against_the_official_schema() {
    let dir = fixture("ringbuf-ctest");
    let out = faultlens(&[
        "localize",
        dir.path().to_str().unwrap(),
        "--format",
        "sarif",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let schema_path = repo_root().join("server/report/tests/data/sarif-2.1.0-rtm.5.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let validator = jsonschema::draft4::new(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "SARIF violates the schema:\n{}",
        errors.join("\n")
    );

    let run = &sarif["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "faultlens");
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 10, "the top 10 lines by default");
    let first = &results[0];
    assert_eq!(first["ruleId"], "ochiai");
    assert_eq!(
        first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap(),
        "src/ringbuf.c"
    );
    assert!(
        first["message"]["text"].as_str().unwrap().starts_with("#1"),
        "{}",
        first["message"]["text"]
    );
    assert!(first["properties"]["rankAverage"].is_number());
    assert_eq!(
        run["tool"]["driver"]["rules"][first["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "ochiai"
    );
    // A validator that accepts everything would make this test worthless.
    let mut broken = sarif.clone();
    broken["version"] = serde_json::json!("2.0.0");
    assert!(!validator.is_valid(&broken));
}

#[test]
fn the_table_shows_rank_location_score_counts_and_the_line() {
    let dir = fixture("mid-args");
    let out = faultlens(&["localize", dir.path().to_str().unwrap(), "--top", "3"]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(text.starts_with("3 of 15 tests failed · Ochiai"), "{text}");
    let first_row = text
        .lines()
        .find(|l| l.trim_start().starts_with("1 "))
        .unwrap();
    assert!(
        first_row.contains("mid.c:22")
            && first_row.contains("0.87")
            && first_row.contains("3/1")
            && first_row.contains("return c;"),
        "{first_row}"
    );
    assert!(
        text.contains("failing tests:") && text.contains("first-middle-last-largest"),
        "{text}"
    );
}

#[test]
fn blockrank_is_a_measure_like_the_others_with_its_block_in_the_json() {
    let dir = fixture("mid-args");
    let doc = localize_json(dir.path(), &["--measure", "blockrank"]);
    assert_eq!(doc["measure"], "blockrank");
    let first = &doc["ranking"][0];
    assert_eq!(first["line"], 22);
    let block = &first["block"];
    assert_eq!(block["function"], "middle");
    assert!(block["t"].as_f64().unwrap() > 0.0);
    assert!(!block["incoming"].as_array().unwrap().is_empty());
    let out = faultlens(&[
        "rank",
        dir.path().to_str().unwrap(),
        "--measure",
        "blockrank",
        "--format",
        "sarif",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "blockrank");
}

#[test]
fn measures_lists_every_measure_including_fusion_with_its_formula() {
    let out = faultlens(&["measures"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for name in ["ochiai", "blockrank", "fusion"] {
        assert!(
            text.lines().any(|l| l.starts_with(&format!("{name} "))),
            "{name} is not listed:\n{text}"
        );
    }
    let fusion = text.lines().find(|l| l.starts_with("fusion ")).unwrap();
    assert!(
        fusion.contains("2 + (opt(l) + cores(l)/C)/2 for lines in an optimal diagnosis"),
        "{fusion}"
    );
}

#[test]
fn json_output_says_a_failure_in_json_too() {
    // No results yet: `rank` fails; a project faultlens cannot detect: `localize` fails.
    let empty = tempfile::tempdir().unwrap();
    let root = empty.path().to_str().unwrap();
    for args in [
        ["rank", root, "--format", "json"],
        ["localize", root, "--format", "json"],
    ] {
        let out = faultlens(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let doc: serde_json::Value = serde_json::from_str(&stdout(&out))
            .unwrap_or_else(|e| panic!("{args:?}: stdout is not JSON ({e}): {}", stdout(&out)));
        assert_eq!(doc["error"]["code"], 1, "{doc}");
        let message = doc["error"]["message"].as_str().unwrap();
        assert!(
            !message.is_empty() && stderr(&out).contains(message),
            "{doc}"
        );
        assert_eq!(doc["ranking"], serde_json::json!([]));
    }
}
