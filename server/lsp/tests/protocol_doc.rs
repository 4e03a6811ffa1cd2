//! `editors/lsp-extensions.md` and `src/protocol.rs` agree: every example
//! in the document is exactly one of the protocol's types (no unknown
//! field, none lost on the way back), every type has an example, and the
//! document names the hash of the current `protocol.rs`.

use faultlens_lsp::protocol::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `(type name, JSON text)` of every `<!-- example: Type -->` block.
fn examples(doc: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut rest = doc;
    while let Some(at) = rest.find("<!-- example: ") {
        let after = &rest[at + "<!-- example: ".len()..];
        let name_end = after.find(" -->").expect("an example marker ends with -->");
        let name = after[..name_end].trim().to_string();
        let block = after
            .find("```json\n")
            .expect("a json block follows the marker")
            + 8;
        let end = after[block..].find("```").expect("the json block ends") + block;
        found.push((name, after[block..end].to_string()));
        rest = &after[end..];
    }
    found
}

/// The example read into `T` and written back equals the example.
fn round_trip<T: DeserializeOwned + Serialize>(name: &str, text: &str) {
    let original: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: not JSON: {e}"));
    let typed: T = serde_json::from_value(original.clone())
        .unwrap_or_else(|e| panic!("{name}: the example is not a {name}: {e}"));
    let back = serde_json::to_value(&typed).unwrap();
    assert_eq!(
        back, original,
        "{name}: a field of the example is lost by the type"
    );
}

#[test]
fn every_example_is_exactly_its_type_and_every_type_has_one() {
    let doc = read("../../editors/lsp-extensions.md");
    let found = examples(&doc);
    let mut seen = std::collections::BTreeSet::new();
    for (name, text) in &found {
        match name.as_str() {
            "ScoresParams" => round_trip::<ScoresParams>(name, text),
            "StatusParams" => round_trip::<StatusParams>(name, text),
            "RankingParams" => round_trip::<RankingParams>(name, text),
            "RankingDocument" => round_trip::<RankingDocument>(name, text),
            "Started" => round_trip::<Started>(name, text),
            "ShowFailingTestsArgs" => round_trip::<ShowFailingTestsArgs>(name, text),
            "FailingTest" => round_trip::<FailingTest>(name, text),
            "MeasureSet" => round_trip::<MeasureSet>(name, text),
            "GenerateTestsArgs" => round_trip::<GenerateTestsArgs>(name, text),
            "TestRunEndedParams" => round_trip::<TestRunEndedParams>(name, text),
            other => panic!("an example of {other}, which protocol.rs does not define"),
        }
        seen.insert(name.as_str());
    }
    for name in [
        "ScoresParams",
        "StatusParams",
        "RankingParams",
        "RankingDocument",
        "Started",
        "ShowFailingTestsArgs",
        "FailingTest",
        "MeasureSet",
        "GenerateTestsArgs",
        "TestRunEndedParams",
    ] {
        assert!(
            seen.contains(name),
            "lsp-extensions.md has no example of {name}"
        );
    }
}

#[test]
fn the_document_names_the_hash_of_the_current_protocol() {
    let doc = read("../../editors/lsp-extensions.md");
    let hash = faultlens_core::sources::digest(read("src/protocol.rs").as_bytes());
    assert!(
        doc.contains(&format!("`server/lsp/src/protocol.rs` hash: `{hash}`")),
        "protocol.rs changed: bring editors/lsp-extensions.md and vscode-extension/src/protocol.ts \
         in step with it, then set the hash in lsp-extensions.md to `{hash}`"
    );
}

#[test]
fn progress_tokens_are_as_documented() {
    let doc = read("../../editors/lsp-extensions.md");
    for kind in [JobKind::Run, JobKind::Diagnose, JobKind::Generate] {
        let token = kind.token(3);
        assert_eq!(token, format!("faultlens/{}/3", kind.name()));
        assert!(
            doc.contains(&format!("`faultlens/{}/<n>`", kind.name())),
            "{token} is not documented"
        );
    }
}
