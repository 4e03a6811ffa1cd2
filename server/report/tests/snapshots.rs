//! The renderings as data: the table, the JSON ranking document and SARIF
//! of one small run, compared whole (`expect-test`; `UPDATE_EXPECT=1 cargo
//! test -p faultlens-report --test snapshots` rewrites them after an
//! intended change, and the diff shows what changed).

use expect_test::expect;
use faultlens_core::measures::Ranker;
use faultlens_core::results::RunResults;
use faultlens_core::sources::SourceTexts;
use faultlens_report::{json, sarif, table, Analysis};
use std::sync::Arc;

const SOURCE: &str = "int mid(int a, int b, int c) {\n  int m = c;\n  if (b < c) {\n    if (a < b) m = b;\n    else if (a < c) m = b;\n  }\n  return m;\n}\n";

/// Three tests of `mid.c`: one fails and runs line 5 (the fault), the
/// passing ones do not.
fn analysis() -> (Analysis, SourceTexts) {
    let doc = serde_json::json!({
        "format_version": 1, "tool_version": "0.1.0", "created_unix_ms": 0,
        "project_root": "/p", "suite": "io",
        "files": [{"path": "mid.c", "lines": [2, 3, 4, 5, 7]}],
        "tests": [
            {"name": "t1", "verdict": "fail", "outcome": "failed", "duration_ms": 1,
             "reason": "stdout differs at line 1: expected \"2\", got \"3\"",
             "coverage": [{"file": 0, "lines": [2, 3, 4, 5, 7], "counts": [1, 1, 1, 1, 1]}]},
            {"name": "t2", "verdict": "pass", "outcome": "passed", "duration_ms": 1,
             "coverage": [{"file": 0, "lines": [2, 3, 4, 7], "counts": [1, 1, 1, 1]}]},
            {"name": "t3", "verdict": "pass", "outcome": "passed", "duration_ms": 1,
             "coverage": [{"file": 0, "lines": [2, 3, 7], "counts": [1, 1, 1]}]}
        ]
    });
    let results = RunResults::from_json(&doc.to_string()).expect("a valid document");
    let mut sources = SourceTexts::default();
    sources.insert("mid.c", SOURCE);
    let ranker = Ranker::parse("ochiai").expect("a known measure");
    let analysis =
        Analysis::compute(Arc::new(results), ranker, false, &sources, None).expect("ranks");
    (analysis, sources)
}

#[test]
fn the_table() {
    let (analysis, sources) = analysis();
    expect![[r#"
        1 of 3 tests failed · Ochiai · 5 suspicious of 5 executable lines

        rank  location  score  ef/ep  line
           1  mid.c:5    1.00    1/0  else if (a < c) m = b;
           2  mid.c:4    0.71    1/1  if (a < b) m = b;
         3-5  mid.c:2    0.58    1/2  int m = c;
         3-5  mid.c:3    0.58    1/2  if (b < c) {
         3-5  mid.c:7    0.58    1/2  return m;

        failing tests:
          t1: stdout differs at line 1: expected "2", got "3"

        ef/ep: failing/passing tests that ran the line; tied lines share a rank range.
    "#]]
    .assert_eq(&table::table(&analysis, &sources, 10));
}

#[test]
fn the_json_ranking_document() {
    let (analysis, sources) = analysis();
    let document = json::ranking_json(&analysis, &sources, Some(3));
    expect![[r#"
        {
          "faultlens_version": "0.1.0",
          "lines": {
            "ranked": 5,
            "suspicious": 5
          },
          "measure": "ochiai",
          "project_root": "/p",
          "ranking": [
            {
              "ef": 1,
              "ep": 0,
              "file": "mid.c",
              "line": 5,
              "nf": 0,
              "np": 2,
              "rank": {
                "average": 1.0,
                "best": 1,
                "worst": 1
              },
              "score": 1.0,
              "text": "else if (a < c) m = b;"
            },
            {
              "ef": 1,
              "ep": 1,
              "file": "mid.c",
              "line": 4,
              "nf": 0,
              "np": 1,
              "rank": {
                "average": 2.0,
                "best": 2,
                "worst": 2
              },
              "score": 0.7071067811865475,
              "text": "if (a < b) m = b;"
            },
            {
              "ef": 1,
              "ep": 2,
              "file": "mid.c",
              "line": 2,
              "nf": 0,
              "np": 0,
              "rank": {
                "average": 4.0,
                "best": 3,
                "worst": 5
              },
              "score": 0.5773502691896258,
              "text": "int m = c;"
            }
          ],
          "tests": {
            "failed": 1,
            "list": [
              {
                "duration_ms": 1,
                "name": "t1",
                "outcome": "failed",
                "reason": "stdout differs at line 1: expected \"2\", got \"3\"",
                "verdict": "fail"
              },
              {
                "duration_ms": 1,
                "name": "t2",
                "outcome": "passed",
                "verdict": "pass"
              },
              {
                "duration_ms": 1,
                "name": "t3",
                "outcome": "passed",
                "verdict": "pass"
              }
            ],
            "passed": 2,
            "total": 3
          }
        }"#]]
    .assert_eq(&serde_json::to_string_pretty(&document).unwrap());
}

#[test]
fn the_sarif_log() {
    let (analysis, _) = analysis();
    let log = serde_json::to_string_pretty(&sarif::sarif(&analysis, Some(2))).unwrap();
    expect![[r##"
        {
          "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
          "runs": [
            {
              "invocations": [
                {
                  "executionSuccessful": true,
                  "properties": {
                    "testsFailed": 1,
                    "testsTotal": 3
                  }
                }
              ],
              "originalUriBaseIds": {
                "%SRCROOT%": {
                  "uri": "file:///p/"
                }
              },
              "results": [
                {
                  "level": "warning",
                  "locations": [
                    {
                      "physicalLocation": {
                        "artifactLocation": {
                          "uri": "mid.c",
                          "uriBaseId": "%SRCROOT%"
                        },
                        "region": {
                          "startLine": 5
                        }
                      }
                    }
                  ],
                  "message": {
                    "text": "#1 of 5 suspicious lines: Ochiai 1.00, run by 1 of 1 failing and 0 of 2 passing tests"
                  },
                  "properties": {
                    "ef": 1,
                    "ep": 0,
                    "nf": 0,
                    "np": 2,
                    "rankAverage": 1.0,
                    "rankBest": 1,
                    "rankWorst": 1,
                    "score": 1.0
                  },
                  "rank": 100.0,
                  "ruleId": "ochiai",
                  "ruleIndex": 10
                },
                {
                  "level": "warning",
                  "locations": [
                    {
                      "physicalLocation": {
                        "artifactLocation": {
                          "uri": "mid.c",
                          "uriBaseId": "%SRCROOT%"
                        },
                        "region": {
                          "startLine": 4
                        }
                      }
                    }
                  ],
                  "message": {
                    "text": "#2 of 5 suspicious lines: Ochiai 0.71, run by 1 of 1 failing and 1 of 2 passing tests"
                  },
                  "properties": {
                    "ef": 1,
                    "ep": 1,
                    "nf": 0,
                    "np": 1,
                    "rankAverage": 2.0,
                    "rankBest": 2,
                    "rankWorst": 2,
                    "score": 0.7071067811865475
                  },
                  "rank": 70.71,
                  "ruleId": "ochiai",
                  "ruleIndex": 10
                }
              ],
              "tool": {
                "driver": {
                  "informationUri": "https://github.com/faultlens/faultlens",
                  "name": "faultlens",
                  "rules": [
                    {
                      "fullDescription": {
                        "text": "AMPLE (Dallmeier et al.)."
                      },
                      "help": {
                        "text": "Ample = |ef/F - ep/P|"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#ample",
                      "id": "ample",
                      "name": "Suspicious line (Ample)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Ample"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Anderberg."
                      },
                      "help": {
                        "text": "Anderberg = ef / (ef + 2(ep + nf))"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#anderberg",
                      "id": "anderberg",
                      "name": "Suspicious line (Anderberg)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Anderberg"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Barinel's spectrum component (Abreu et al.)."
                      },
                      "help": {
                        "text": "Barinel = 1 - ep / (ef + ep)"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#barinel",
                      "id": "barinel",
                      "name": "Suspicious line (Barinel)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Barinel"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Wong et al.'s D*: strongly rewards lines run by failing tests."
                      },
                      "help": {
                        "text": "DStar = ef^* / (ep + nf), * = 2 by default; x/0 = +inf"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#dstar",
                      "id": "dstar",
                      "name": "Suspicious line (DStar)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by DStar"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Found by genetic programming (Yoo); single-fault optimal."
                      },
                      "help": {
                        "text": "GP13 = ef · (1 + 1 / (2ep + ef))"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#gp13",
                      "id": "gp13",
                      "name": "Suspicious line (GP13)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by GP13"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Overlap of the line's runs with the failing runs."
                      },
                      "help": {
                        "text": "Jaccard = ef / (F + ep)"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#jaccard",
                      "id": "jaccard",
                      "name": "Suspicious line (Jaccard)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Jaccard"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Kulczynski's first coefficient."
                      },
                      "help": {
                        "text": "Kulczynski1 = ef / (nf + ep); x/0 = +inf"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#kulczynski1",
                      "id": "kulczynski1",
                      "name": "Suspicious line (Kulczynski1)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Kulczynski1"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Kulczynski's second coefficient."
                      },
                      "help": {
                        "text": "Kulczynski2 = (ef/F + ef/(ef + ep)) / 2"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#kulczynski2",
                      "id": "kulczynski2",
                      "name": "Suspicious line (Kulczynski2)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Kulczynski2"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "M2 (Everitt)."
                      },
                      "help": {
                        "text": "M2 = ef / (ef + np + 2(nf + ep))"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#m2",
                      "id": "m2",
                      "name": "Suspicious line (M2)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by M2"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Naish's optimal measure for single faults: only lines run by every failing test score."
                      },
                      "help": {
                        "text": "Naish1 = -1 if nf > 0, else np"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#naish1",
                      "id": "naish1",
                      "name": "Suspicious line (Naish1)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Naish1"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Cosine similarity between a line's coverage and the failures; the default, strong in studies of C programs."
                      },
                      "help": {
                        "text": "Ochiai = ef / sqrt(F · (ef + ep))"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#ochiai",
                      "id": "ochiai",
                      "name": "Suspicious line (Ochiai)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Ochiai"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Naish's Op2 (the sfo paper's Naish-I): single-fault optimal, ties broken by fewer passing runs."
                      },
                      "help": {
                        "text": "Op2 = ef - ep / (P + 1)"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#op2",
                      "id": "op2",
                      "name": "Suspicious line (Op2)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Op2"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Single-fault-optimal transform (Landsberg et al.): lines run by all failing tests first, fewer passing runs first, then w."
                      },
                      "help": {
                        "text": "Opt = np + 2 if ef = F, else w (w = Ochiai unless opt-<w>)"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#opt",
                      "id": "opt",
                      "name": "Suspicious line (Opt)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Opt"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Russell and Rao."
                      },
                      "help": {
                        "text": "Russell-Rao = ef / (F + P)"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#russell-rao",
                      "id": "russell-rao",
                      "name": "Suspicious line (Russell-Rao)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Russell-Rao"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Liblit's statistical bug isolation failure rate."
                      },
                      "help": {
                        "text": "SBI = ef / (ef + ep)"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#sbi",
                      "id": "sbi",
                      "name": "Suspicious line (SBI)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by SBI"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Sørensen-Dice coefficient."
                      },
                      "help": {
                        "text": "Sørensen-Dice = 2ef / (2ef + ep + nf)"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#sorensen-dice",
                      "id": "sorensen-dice",
                      "name": "Suspicious line (Sørensen-Dice)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Sørensen-Dice"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Jones & Harrold's visual measure: share of failing runs against share of passing runs."
                      },
                      "help": {
                        "text": "Tarantula = (ef/F) / (ef/F + ep/P); confidence max(ef/F, ep/P) breaks ties"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#tarantula",
                      "id": "tarantula",
                      "name": "Suspicious line (Tarantula)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Tarantula"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Wong's first measure: how many failing tests ran the line."
                      },
                      "help": {
                        "text": "Wong1 = ef"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#wong1",
                      "id": "wong1",
                      "name": "Suspicious line (Wong1)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Wong1"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Wong's second measure."
                      },
                      "help": {
                        "text": "Wong2 = ef - ep"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#wong2",
                      "id": "wong2",
                      "name": "Suspicious line (Wong2)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Wong2"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Wong's third measure: passing runs weigh less and less."
                      },
                      "help": {
                        "text": "Wong3 = ef - h, h = ep (ep ≤ 2), 2 + 0.1(ep - 2) (ep ≤ 10), 2.8 + 0.001(ep - 10)"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#wong3",
                      "id": "wong3",
                      "name": "Suspicious line (Wong3)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Wong3"
                      }
                    },
                    {
                      "fullDescription": {
                        "text": "Zoltar (Gonzalez)."
                      },
                      "help": {
                        "text": "Zoltar = ef / (F + ep + 10000 · nf · ep / ef)"
                      },
                      "helpUri": "https://github.com/faultlens/faultlens#zoltar",
                      "id": "zoltar",
                      "name": "Suspicious line (Zoltar)",
                      "shortDescription": {
                        "text": "A line ranked suspicious by Zoltar"
                      }
                    }
                  ],
                  "version": "0.1.0"
                }
              }
            }
          ],
          "version": "2.1.0"
        }"##]].assert_eq(&log);
}
